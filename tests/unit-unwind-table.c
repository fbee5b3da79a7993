// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unwind table builder on this program's own call frame information:
 * the functions of tests/unwind-frames.S, each one kind of rule, and the
 * PLT stubs the linker wrote with their expression, and the code each
 * FDE covers.  The table in the walker's pages.  Then the C library's table, whose figures
 * doc/design.md quotes.
 */
#include "config.h"
#include "elf-functions.h"
#include "unwind-pages.h"
#include "unwind-table.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void frames_fp(void), frames_sub(void), frames_big(void), frames_expression(void),
	frames_outermost(void), frames_signal(void), frames_gap(void);

static uint64_t bias;

static int
main_program(struct dl_phdr_info *info, size_t size, void *ctx)
{
	bias = info->dlpi_addr;
	return 1;		/* the first is the program itself */
}

/* The rule at offset `at` of fn, in words the checks compare. */
static const char *
rule_at(const struct unwind_table *t, void (*fn)(void), uint64_t at, char *buf, size_t len)
{
	static const char *const cfa[] = { "none", "rsp", "rbp", "plt", "outermost", "marked" };
	const struct ms_unwind_rule *r = unwind_table_find(t, (uint64_t)(uintptr_t)fn - bias + at);

	if (!r)
		return "no row";
	if (r->cfa != MS_CFA_RSP && r->cfa != MS_CFA_RBP)
		return cfa[r->cfa];
	if (r->rbp == MS_RBP_SAVED)
		snprintf(buf, len, "%s%+d, rbp at cfa%+d", cfa[r->cfa], r->cfa_offset,
			 r->rbp_offset);
	else
		snprintf(buf, len, "%s%+d", cfa[r->cfa], r->cfa_offset);
	return buf;
}

#define RULE_IS(t, fn, at, want)						\
	do {									\
		char buf_[64];							\
		tap_str_eq(rule_at(t, fn, at, buf_, sizeof(buf_)), want,		\
			   "%s+%d: %s", #fn, at, want);				\
	} while (0)

/* The .plt section's address in the file, or 0. */
static uint64_t
plt_address(Elf *elf)
{
	GElf_Shdr sh;

	return elf_section_named(elf, ".plt", &sh) ? sh.sh_addr : 0;
}

static Elf *
open_elf(const char *path, int *fd)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	elf = *fd >= 0 ? elf_open_fd(*fd) : NULL;
	if (!elf)
		tap_bail("cannot open %s as ELF", path);
	return elf;
}

/* Rows sorted, each changing the rule, every rule used and distinct. */
static bool
well_formed(const struct unwind_table *t)
{
	size_t i, j;

	for (i = 1; i < t->nrows; i++)
		if (t->rows[i].pc <= t->rows[i - 1].pc || t->rows[i].rule == t->rows[i - 1].rule)
			return false;
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].rule >= t->nrules)
			return false;
	for (i = 0; i < t->nrules; i++)
		for (j = i + 1; j < t->nrules; j++)
			if (!memcmp(&t->rules[i], &t->rules[j], sizeof(t->rules[i])))
				return false;
	return true;
}

static void
test_own_frames(void)
{
	struct unwind_table t;
	uint64_t plt;
	Elf *elf;
	int fd;

	dl_iterate_phdr(main_program, NULL);
	elf = open_elf("/proc/self/exe", &fd);
	tap_eq_i64(unwind_table_build(elf, NULL, &t), 0, "this program's table builds");
	tap_ok(well_formed(&t), "its %zu rows are sorted, each a change of rule, "
	       "among %zu distinct rules", t.nrows, t.nrules);

	RULE_IS(&t, frames_fp, 0, "rsp+8");
	RULE_IS(&t, frames_fp, 1, "rsp+16, rbp at cfa-16");
	RULE_IS(&t, frames_fp, 4, "rbp+16, rbp at cfa-16");
	RULE_IS(&t, frames_fp, 5, "rbp+16, rbp at cfa-16");
	RULE_IS(&t, frames_fp, 6, "rsp+8");
	RULE_IS(&t, frames_sub, 0, "rsp+8");
	RULE_IS(&t, frames_sub, 4, "rsp+48");
	RULE_IS(&t, frames_sub, 9, "rsp+8");
	RULE_IS(&t, frames_big, 7, "rsp+73736");
	RULE_IS(&t, frames_expression, 0, "rsp+8");
	RULE_IS(&t, frames_expression, 1, "marked");
	RULE_IS(&t, frames_outermost, 0, "outermost");
	RULE_IS(&t, frames_signal, 0, "marked");
	RULE_IS(&t, frames_gap, 0, "rsp+8");
	RULE_IS(&t, frames_gap, 1, "none");

	/* The linker's PLT: two pushes in PLT0, then the stubs' expression. */
	plt = plt_address(elf);
	if (plt) {
		const struct ms_unwind_rule *r = unwind_table_find(&t, plt + 16);

		tap_ok(r && r->cfa == MS_CFA_PLT && r->plt_limit == 11,
		       "the first PLT stub: the PLT rule, 8 more from byte 11 "
		       "(cfa %d, limit %d)", r ? r->cfa : -1, r ? r->plt_limit : -1);
		r = unwind_table_find(&t, plt + 6);
		tap_ok(r && r->cfa == MS_CFA_RSP && r->cfa_offset == 24,
		       "PLT0 after its push: rsp+24");
	} else {
		tap_bail("this program has no .plt section");
	}
	unwind_table_free(&t);
	elf_end(elf);
	close(fd);
}

/* The FDE that covers fn's first byte, as "[start, end)" from fn. */
static const char *
fde_of(const struct unwind_fde *fdes, size_t n, void (*fn)(void), char *buf, size_t len)
{
	uint64_t at = (uint64_t)(uintptr_t)fn - bias;
	size_t i;

	for (i = 0; i < n; i++)
		if (fdes[i].start <= at && at < fdes[i].end) {
			snprintf(buf, len, "[%+lld, %+lld)", (long long)(fdes[i].start - at),
				 (long long)(fdes[i].end - at));
			return buf;
		}
	return "none";
}

/* What every FDE covers: sorted, apart, and each function's exactly. */
static void
test_fdes(void)
{
	struct unwind_fde *fdes;
	size_t n, i;
	bool sorted = true;
	char buf[64];
	Elf *elf;
	int fd;

	elf = open_elf("/proc/self/exe", &fd);
	n = unwind_fdes_read(elf, &fdes);
	for (i = 1; i < n; i++)
		sorted &= fdes[i - 1].end <= fdes[i].start && fdes[i].start < fdes[i].end;
	tap_ok(n > 0 && sorted, "this program's %zu FDEs: sorted, none empty, none overlapping", n);
	tap_str_eq(fde_of(fdes, n, frames_fp, buf, sizeof(buf)), "[+0, +7)",
		   "frames_fp's FDE: its 7 bytes");
	tap_str_eq(fde_of(fdes, n, frames_gap, buf, sizeof(buf)), "[+0, +1)",
		   "frames_gap's FDE: its first byte only");
	free(fdes);
	elf_end(elf);
	close(fd);
}

/*
 * Pages: a row at a page's start is kept, a page that starts inside a
 * rule's range begins with it, a page before the first row has none.
 */
static void
test_pages(void)
{
	struct unwind_row rows[] = {
		{ 0x1010, 0 }, { 0x1020, 1 }, { 0x31000, 2 }, { 0x31010, 3 },
	};
	struct unwind_table t = { .rows = rows, .nrows = 4, .nrules = 4 };
	uint32_t global[] = { 7, 8, 9, 10 }, too_big[] = { 7, 8, 9, 1u << 16 };
	struct unwind_pages p;
	struct { uint32_t rel; int64_t rule; } at[] = {
		{ 0x5, -ENOENT }, { 0x10, 7 }, { 0x1f, 7 }, { 0x20, 8 }, { 0xffff, 8 },
		{ 0x10000, 8 }, { 0x2ffff, 8 }, { 0x30000, 9 }, { 0x3000f, 9 },
		{ 0x30010, 10 }, { 0x3ffff, 10 }, { 0x40000, -ENOENT },
	};
	size_t i, wrong = 0;

	tap_ok(unwind_pages_pack(&t, 0x1000, global, &p), "four rows pack");
	tap_ok(p.npages == 4 && p.nrows == 6 && p.pages[1].nrows == 1 &&
	       p.pages[2].nrows == 1 && p.pages[3].nrows == 2 && p.rows[p.pages[3].first_row].pc == 0,
	       "in 4 pages, 6 rows: one more at the start of pages 1 and 2, none at page 3's row");
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (unwind_pages_find(&p, at[i].rel) != at[i].rule) {
			tap_diag("at %#x: rule %lld, not %lld", at[i].rel,
				 (long long)unwind_pages_find(&p, at[i].rel), (long long)at[i].rule);
			wrong++;
		}
	tap_eq_i64(wrong, 0, "each address finds its rule, none before the first row or after the last page");
	unwind_pages_free(&p);
	tap_ok(!unwind_pages_pack(&t, 0x1011, global, &p), "an address below the lowest does not pack");
	tap_ok(!unwind_pages_pack(&t, 0x1000, too_big, &p), "a rule number of 17 bits does not pack");
}

/* The walker's pages find every row's rule at its address and before the next. */
static size_t
pages_disagree(const struct unwind_table *t, const struct unwind_pages *p)
{
	size_t i, wrong = 0;

	for (i = 0; i < t->nrows; i++) {
		uint32_t rel = (uint32_t)(t->rows[i].pc - t->rows[0].pc);

		wrong += unwind_pages_find(p, rel) != t->rows[i].rule;
		if (i)
			wrong += unwind_pages_find(p, rel - 1) != t->rows[i - 1].rule;
	}
	return wrong;
}

/* The path of the C library this program runs with. */
static int
libc_path(struct dl_phdr_info *info, size_t size, void *path)
{
	if (!strstr(info->dlpi_name, "/libc.so"))
		return 0;
	snprintf(path, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

/* The C library: a large table, few rows the walker cannot apply. */
static void
test_libc(void)
{
	char path[PATH_MAX] = "";
	struct unwind_table t;
	struct unwind_pages p;
	size_t i, marked = 0, bytes;
	GElf_Shdr eh_frame;
	Elf *elf;
	int fd;

	if (!dl_iterate_phdr(libc_path, path))
		tap_bail("this program runs with no libc.so");
	elf = open_elf(path, &fd);
	tap_eq_i64(unwind_table_build(elf, NULL, &t), 0, "the C library's table builds");
	tap_ok(well_formed(&t) && t.nrows > 1000,
	       "the C library's %zu rows are well formed", t.nrows);
	for (i = 0; i < t.nrows; i++)
		marked += t.rules[t.rows[i].rule].cfa == MS_CFA_MARKED;
	tap_diag("%s: %zu rows, %zu rules, %zu rows marked", path, t.nrows,
		 t.nrules, marked);
	tap_ok(marked * 100 < t.nrows, "under 1%% of its rows marked (%zu)", marked);
	tap_ok(unwind_pages_pack(&t, t.rows[0].pc, NULL, &p), "the C library's table packs");
	tap_eq_i64(pages_disagree(&t, &p), 0, "its pages give each row's rule, up to the next row");
	bytes = unwind_pages_bytes(&p) + t.nrules * sizeof(struct ms_unwind_rule);
	if (!elf_section_named(elf, ".eh_frame", &eh_frame))
		tap_bail("the C library has no .eh_frame");
	tap_ok(bytes * 2 <= eh_frame.sh_size * 3,
	       "in at most 1.5 times .eh_frame's bytes (%zu for %zu rows in %zu pages, %.2fx)",
	       bytes, p.nrows, p.npages, (double)bytes / (double)eh_frame.sh_size);
	unwind_pages_free(&p);
	unwind_table_free(&t);
	elf_end(elf);
	close(fd);
}

int
main(void)
{
	tap_plan(33);
	test_own_frames();
	test_fdes();
	test_pages();
	test_libc();
	return tap_done();
}
