// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the table of allocator functions and their shapes. */
#include "config.h"
#include "allocator-functions.h"
#include "memsup.h"
#include "tap.h"

#include <stdbool.h>
#include <stdio.h>

static const struct {
	const char *name;
	uint64_t shape;
} cases[] = {
	{ "malloc", MS_SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "calloc", MS_SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "realloc", MS_SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "posix_memalign", MS_SHAPE(MS_CALL_POSIX_MEMALIGN, 3, 0, 1, MS_SHAPE_OUT_PTR) },
	{ "je_malloc", MS_SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_rjem_calloc", MS_SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "mi_realloc", MS_SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "free", MS_SHAPE(MS_CALL_FREE, 0, 0, 1, MS_SHAPE_OWN_CALLERS) },
	{ "tc_free", MS_SHAPE(MS_CALL_FREE, 0, 0, 1, MS_SHAPE_OWN_CALLERS) },
	{ "tc_memalign", MS_SHAPE(MS_CALL_MEMALIGN, 2, 0, 0, 0) },
	{ "_Znwm", MS_SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", MS_SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "_ZdlPvmSt11align_val_t", MS_SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "mallocx", MS_SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_rjem_rallocx", MS_SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "je_xallocx", MS_SHAPE(MS_CALL_REALLOC, 0, 0, 1, MS_SHAPE_SIZE_RETURNED) },
	{ "sdallocx", MS_SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "mi_zalloc", MS_SHAPE(MS_CALL_CALLOC, 1, 0, 0, 0) },
	{ "mi_calloc_aligned", MS_SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "mi_heap_realloc", MS_SHAPE(MS_CALL_REALLOC, 3, 0, 2, 0) },
	{ "tc_newarray_aligned_nothrow", MS_SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
};

static const char *const not_allocators[] = {
	"", "mallo", "malloc_usable_size", "je_", "mi_", "tc_", "je_je_malloc",
	"mi_heap_new", "_Znwj", "strdup",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct shape_fields {
	uint32_t call, size, count, ptr, flags;
};

/*
 * Each field at its widest value with the others 0, where a field packed
 * over its neighbour, or an accessor reading its neighbour's bits, reads
 * back wrong; then a different value in each, where two accessors that
 * read the same bits, or swapped fields, read back wrong.
 */
static const struct shape_fields shapes[] = {
	{ 0xff, 0, 0, 0, 0 },
	{ 0, 0xf, 0, 0, 0 },
	{ 0, 0, 0xf, 0, 0 },
	{ 0, 0, 0, 0xf, 0 },
	{ 0, 0, 0, 0, 0xf },
	{ 0xa7, 0x3, 0xc, 0x5, 0x9 },
};

static const char *
fields_text(char *buf, size_t len, const struct shape_fields *f)
{
	snprintf(buf, len, "call=%#x size=%#x count=%#x ptr=%#x flags=%#x",
		 f->call, f->size, f->count, f->ptr, f->flags);
	return buf;
}

static void
check_shape(const struct shape_fields *f)
{
	uint64_t shape = MS_SHAPE(f->call, f->size, f->count, f->ptr, f->flags);
	struct shape_fields read = {
		MS_SHAPE_CALL(shape), MS_SHAPE_SIZE(shape),
		MS_SHAPE_COUNT(shape), MS_SHAPE_PTR(shape),
		MS_SHAPE_FLAGS(shape),
	};
	char want[128], got[128];

	fields_text(want, sizeof(want), f);
	tap_str_eq(fields_text(got, sizeof(got), &read), want,
		   "each accessor reads its own field of a shape of %s", want);
}

static uint64_t
rank_of(const char *name)
{
	size_t rank = 0;

	allocator_function(name, &rank);
	return rank;
}

int
main(void)
{
	size_t i, rank;
	bool all = true;

	tap_plan(N(cases) + 1 + N(shapes) + 1 + 4);
	for (i = 0; i < N(cases); i++)
		tap_eq_u64(allocator_function(cases[i].name, &rank), cases[i].shape,
			   "%s has its shape", cases[i].name);
	for (i = 0; i < N(not_allocators); i++)
		all &= allocator_function(not_allocators[i], &rank) == 0;
	tap_ok(all, "names that are no allocator function have no shape");
	for (i = 0; i < N(shapes); i++)
		check_shape(&shapes[i]);
	tap_eq_u64(MS_SHAPE(0xff, 0xf, 0xf, 0xf, 0xf), 0xffffff,
		   "the shape's fields fill bits 0-23, as bpf/memsup.h says");

	/* Of two names at one address, the lower rank is probed. */
	tap_ok(rank_of("aligned_alloc") < rank_of("memalign"),
	       "aligned_alloc wins over memalign, its alias in glibc");
	tap_ok(rank_of("free") < rank_of("cfree"), "free wins over cfree");
	tap_ok(rank_of("malloc") < rank_of("tc_malloc"),
	       "malloc wins over tc_malloc, its alias in tcmalloc");
	tap_ok(rank_of("tc_malloc") < rank_of("_Znwm") &&
	       rank_of("_Znwm") < rank_of("tc_new"),
	       "prefixed libc names come before operator new, and it before tc_new");
	return tap_done();
}
