// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: any bytes, read as an ELF file for its allocator
 * functions, must end in probes inside the file or a clear error, never
 * in a crash, a hang or a sanitizer report.
 */
#include "probe-targets.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_target t = { 0 };
	int fd = memfd_create("elf", MFD_CLOEXEC);
	size_t i;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* A probe outside the file would be a bad uprobe. */
	if (probe_target_read(fd, &t) == 0)
		for (i = 0; i < t.ncalls; i++)
			if (t.calls[i].offset >= size)
				abort();
	free(t.calls);
	close(fd);
	return 0;
}
