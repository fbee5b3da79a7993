// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "unwind-pages.h"
#include "error.h"
#include "sorted.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_LOW ((1u << MS_UNWIND_PAGE_SHIFT) - 1)

static bool
fits(const struct unwind_table *t, uint64_t lowest, const uint32_t *rules)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].pc < lowest || t->rows[i].pc - lowest > UINT32_MAX ||
		    (rules ? rules[t->rows[i].rule] : t->rows[i].rule) > UINT16_MAX)
			return false;
	return true;
}

bool
unwind_pages_pack(const struct unwind_table *t, uint64_t lowest,
		  const uint32_t *rules, struct unwind_pages *p)
{
	size_t i = 0, page;
	int64_t covering = -1;	/* the rule of the last row packed */

	memset(p, 0, sizeof(*p));
	if (!fits(t, lowest, rules))
		return false;
	if (!t->nrows)
		return true;
	p->npages = ((t->rows[t->nrows - 1].pc - lowest) >> MS_UNWIND_PAGE_SHIFT) + 1;
	p->pages = xcalloc(p->npages, sizeof(*p->pages));
	p->rows = xreallocarray(NULL, t->nrows + p->npages, sizeof(*p->rows));
	for (page = 0; page < p->npages; page++) {
		uint64_t start = (uint64_t)page << MS_UNWIND_PAGE_SHIFT;

		p->pages[page].first_row = (uint32_t)p->nrows;
		if (covering >= 0 && (i == t->nrows || t->rows[i].pc - lowest > start))
			p->rows[p->nrows++] = (struct ms_unwind_row){ .rule = (uint16_t)covering };
		for (; i < t->nrows && (t->rows[i].pc - lowest) >> MS_UNWIND_PAGE_SHIFT == page; i++) {
			covering = rules ? rules[t->rows[i].rule] : t->rows[i].rule;
			p->rows[p->nrows++] = (struct ms_unwind_row){
				.pc = (uint16_t)((t->rows[i].pc - lowest) & PAGE_LOW),
				.rule = (uint16_t)covering,
			};
		}
		p->pages[page].nrows = (uint32_t)p->nrows - p->pages[page].first_row;
	}
	return true;
}

static uint64_t
row_low_pc(const void *rows, size_t i)
{
	return ((const struct ms_unwind_row *)rows)[i].pc;
}

int64_t
unwind_pages_find(const struct unwind_pages *p, uint32_t rel)
{
	const struct ms_unwind_page *page;
	size_t end;

	if ((rel >> MS_UNWIND_PAGE_SHIFT) >= p->npages)
		return -ENOENT;
	page = &p->pages[rel >> MS_UNWIND_PAGE_SHIFT];
	/* The last row of the page at or below rel. */
	end = sorted_first_above(p->rows, page->first_row,
				 page->first_row + page->nrows, row_low_pc,
				 rel & PAGE_LOW);
	return end > page->first_row ? p->rows[end - 1].rule : -ENOENT;
}

size_t
unwind_pages_bytes(const struct unwind_pages *p)
{
	return p->npages * sizeof(*p->pages) + p->nrows * sizeof(*p->rows);
}

void
unwind_pages_free(struct unwind_pages *p)
{
	free(p->pages);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}
