// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/unwind-tables [RUNS] FILE...: what building unwind tables takes.
 * For each file: its .eh_frame's size; the table's rows, distinct rules
 * and rows the walker cannot apply (marked); the median time to build it
 * over RUNS builds (default 5); and the bytes it takes in the walker's
 * maps (src/record/unwind-pages.h: 4 bytes a row, 8 a page of 64 KiB, 16 a
 * rule), as a ratio to .eh_frame's size.
 */
#include "config.h"
#include "elf-functions.h"
#include "unwind-pages.h"
#include "unwind-table.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static size_t
section_size(Elf *elf, const char *name)
{
	GElf_Shdr sh;

	return elf_section_named(elf, name, &sh) ? sh.sh_size : 0;
}

static void
measure(const char *path, int runs)
{
	uint64_t ns[64], lowest;
	struct unwind_table t;
	struct unwind_pages p;
	size_t i, marked = 0, eh_frame, bytes, nloads;
	GElf_Phdr *loads;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	Elf *elf = fd >= 0 ? elf_open_fd(fd) : NULL;

	if (!elf) {
		fprintf(stderr, "%s: cannot open as ELF\n", path);
		exit(1);
	}
	loads = elf_loads(elf, &nloads);
	lowest = elf_loads_lowest(loads, nloads);
	free(loads);
	for (r = 0; r < runs; r++) {
		uint64_t start = now_ns();

		if (unwind_table_build(elf, NULL, &t) || !unwind_pages_pack(&t, lowest, NULL, &p)) {
			fprintf(stderr, "%s: no table\n", path);
			exit(1);
		}
		ns[r] = now_ns() - start;
		if (r + 1 < runs) {
			unwind_pages_free(&p);
			unwind_table_free(&t);
		}
	}
	qsort(ns, (size_t)runs, sizeof(ns[0]), by_value);
	for (i = 0; i < t.nrows; i++)
		marked += t.rules[t.rows[i].rule].cfa == MS_CFA_MARKED;
	eh_frame = section_size(elf, ".eh_frame");
	bytes = unwind_pages_bytes(&p) + t.nrules * sizeof(struct ms_unwind_rule);
	printf("%-48s %9zu %7zu %5zu %6zu %8.1f %9zu %5.2f\n", path, eh_frame, p.nrows,
	       t.nrules, marked, (double)ns[runs / 2] / 1e6, bytes,
	       eh_frame ? (double)bytes / (double)eh_frame : 0);
	unwind_pages_free(&p);
	unwind_table_free(&t);
	elf_end(elf);
	close(fd);
}

int
main(int argc, char **argv)
{
	int runs = 5, i = 1;

	if (argc > 1 && strspn(argv[1], "0123456789") == strlen(argv[1])) {
		runs = atoi(argv[i++]);
		if (runs < 1 || runs > 64) {
			fputs("RUNS must be 1 to 64\n", stderr);
			return 2;
		}
	}
	if (i == argc) {
		fputs("usage: bench/unwind-tables [RUNS] FILE...\n", stderr);
		return 2;
	}
	printf("%-48s %9s %7s %5s %6s %8s %9s %5s\n", "file", ".eh_frame", "rows",
	       "rules", "marked", "build ms", "bytes", "ratio");
	for (; i < argc; i++)
		measure(argv[i], runs);
	return 0;
}
