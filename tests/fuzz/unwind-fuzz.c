// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: any bytes, mapped as a process's one executable file,
 * and read again as the stack copy of an allocation in it, must unwind
 * into some frames or none: never a crash, a hang or a sanitizer report.
 * The file's call-frame information and the stack are both hostile.
 */
#include "address-spaces.h"
#include "unwind.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the file is said to be mapped, and the stack to lie. */
#define FILE_START	UINT64_C(0x400000)
#define STACK_START	UINT64_C(0x7ffe00000000)
#define STACK_BYTES	4096

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_Alignas(8) uint8_t rec[sizeof(struct ms_stack_copy) + STACK_BYTES];
	struct ms_stack_copy *copy = (struct ms_stack_copy *)rec;
	char path[64];
	struct record r = { .type = REC_MAPPING, .pid = 1 };
	struct address_spaces spaces;
	struct unwinder *u;
	uint64_t frames[MS_STACK_MAX], pick = 0;
	int fd = memfd_create("elf", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || !size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	address_spaces_init(&spaces);
	r.mapping.start = FILE_START;
	r.mapping.end = FILE_START + ((size + 4095) & ~(size_t)4095);
	r.mapping.path = path;
	address_spaces_apply(&spaces, &r);

	/* The registers and the stack, from the same bytes. */
	memset(rec, 0, sizeof(rec));
	memcpy(&pick, data, size < sizeof(pick) ? size : sizeof(pick));
	copy->event.pid = 1;
	copy->regs.ip = FILE_START + pick % size;
	copy->regs.sp = STACK_START + (pick >> 32) % 64 * 8;
	copy->regs.bp = copy->regs.sp + 64;
	copy->base = STACK_START;
	memcpy(copy->bytes, data, size < STACK_BYTES ? size : STACK_BYTES);

	u = unwinder_new(&spaces);
	if (u) {
		unwinder_unwind(u, copy, sizeof(rec), frames, MS_STACK_MAX);
		/* Again: the memo's answer. */
		unwinder_unwind(u, copy, sizeof(rec), frames, MS_STACK_MAX);
		unwinder_free(u);
	}
	address_spaces_free(&spaces);
	close(fd);
	return 0;
}
