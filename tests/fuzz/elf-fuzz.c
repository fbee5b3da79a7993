// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: any bytes, read as an ELF file for its allocator
 * functions, must end in probes inside the file or a clear error; given
 * to the symbolizer, in names or a reason why not; given to the unwind
 * table builder, in a table whose rows are sorted and name its rules, or
 * none, and whose walker's pages give each row's rule at its address.
 * Never in a crash, a hang or a sanitizer report.
 */
#include "elf-functions.h"
#include "probe-targets.h"
#include "sites.h"
#include "symbolize.h"
#ifdef HAVE_LIBDW
#include "unwind-pages.h"
#include "unwind-table.h"
#endif

#include <stdio.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file as the one module of a report, asked for a few offsets. */
static void
symbolize_some(int fd, size_t size, const struct probe_target *t)
{
	char path[64];
	struct symbolizer z;
	struct sites s;
	const char *why;
	uint64_t offset, at[] = { 0, size / 2, size ? size - 1 : 0,
				  t->ncalls ? t->calls[0].offset + 1 : 1 };
	size_t i, n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	sites_init(&s);
	s.spaces.modules = calloc(1, sizeof(*s.spaces.modules));
	if (!s.spaces.modules)
		return;
	s.spaces.modules[0].path = path;
	s.spaces.nmodules = 1;
	symbolizer_init(&z, "/nonexistent");
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		symbolize(&z, &s, 1ULL << 48 | at[i], &offset, &why, &n);
	symbolizer_free(&z);
	s.spaces.modules[0].path = NULL;
	sites_free(&s);
}

#ifdef HAVE_LIBDW
static void
build_unwind_table(int fd)
{
	Elf *elf = elf_open_fd(fd);
	struct unwind_table t;
	struct unwind_pages p;
	size_t i;

	if (!elf)
		return;
	if (unwind_table_build(elf, elf, &t) == 0)
		for (i = 0; i < t.nrows; i++)
			if (t.rows[i].rule >= t.nrules ||
			    (i && t.rows[i].pc <= t.rows[i - 1].pc))
				abort();
	if (t.nrows && unwind_pages_pack(&t, t.rows[0].pc, NULL, &p)) {
		for (i = 0; i < t.nrows; i++)
			if (unwind_pages_find(&p, (uint32_t)(t.rows[i].pc - t.rows[0].pc)) !=
			    t.rows[i].rule)
				abort();
		unwind_pages_free(&p);
	}
	unwind_table_free(&t);
	elf_end(elf);
}
#else
static void
build_unwind_table(int fd)
{
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct probe_plan plan = { .sites = PROBE_SITES_AUTO };
	struct probe_target t = { 0 };
	int fd = memfd_create("elf", MFD_CLOEXEC);
	size_t i;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* A probe outside the file would be a bad uprobe. */
	if (probe_target_read(fd, &plan, &t) == 0)
		for (i = 0; i < t.ncalls; i++)
			if (t.calls[i].offset >= size)
				abort();
	symbolize_some(fd, size, &t);
	build_unwind_table(fd);
	probe_target_free(&t);
	close(fd);
	return 0;
}
