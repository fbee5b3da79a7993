// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "allocator-functions.h"
#include "memsup.h"

#include <string.h>

#define SHAPE MS_SHAPE

/*
 * The C library's functions.  jemalloc, mimalloc and tcmalloc also export
 * them under a prefix (je_malloc, _rjem_malloc, mi_malloc, tc_malloc),
 * with the same arguments.
 */
static const struct allocator_function {
	const char *name;
	uint64_t shape;
} libc_functions[] = {
	{ "malloc", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "calloc", SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "realloc", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "reallocarray", SHAPE(MS_CALL_REALLOCARRAY, 3, 2, 1, 0) },
	{ "free", SHAPE(MS_CALL_FREE, 0, 0, 1, MS_SHAPE_OWN_CALLERS) },
	{ "cfree", SHAPE(MS_CALL_FREE, 0, 0, 1, MS_SHAPE_OWN_CALLERS) },
	{ "aligned_alloc", SHAPE(MS_CALL_ALIGNED_ALLOC, 2, 0, 0, 0) },
	{ "memalign", SHAPE(MS_CALL_MEMALIGN, 2, 0, 0, 0) },
	{ "posix_memalign", SHAPE(MS_CALL_POSIX_MEMALIGN, 3, 0, 1, MS_SHAPE_OUT_PTR) },
	{ "valloc", SHAPE(MS_CALL_VALLOC, 1, 0, 0, 0) },
	{ "pvalloc", SHAPE(MS_CALL_PVALLOC, 1, 0, 0, 0) },
};

static const char *const libc_prefixes[] = { "je_", "_rjem_", "mi_", "tc_" };

/* The functions that exist under their own names only. */
static const struct allocator_function other_functions[] = {
	/* operator new and new[]: plain, nothrow, aligned, aligned nothrow. */
	{ "_Znwm", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_Znam", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_ZnwmRKSt9nothrow_t", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_ZnamRKSt9nothrow_t", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_ZnwmSt11align_val_t", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "_ZnamSt11align_val_t", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	/* operator delete and delete[]: plain, nothrow, sized, aligned. */
	{ "_ZdlPv", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPv", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdlPvRKSt9nothrow_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPvRKSt9nothrow_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdlPvm", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPvm", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdlPvSt11align_val_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPvSt11align_val_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdlPvSt11align_val_tRKSt9nothrow_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPvSt11align_val_tRKSt9nothrow_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdlPvmSt11align_val_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_ZdaPvmSt11align_val_t", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	/* jemalloc's own API, also under its prefixes. */
	{ "mallocx", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "rallocx", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "xallocx", SHAPE(MS_CALL_REALLOC, 0, 0, 1, MS_SHAPE_SIZE_RETURNED) },
	{ "dallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "sdallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "je_mallocx", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "je_rallocx", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "je_xallocx", SHAPE(MS_CALL_REALLOC, 0, 0, 1, MS_SHAPE_SIZE_RETURNED) },
	{ "je_dallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "je_sdallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_rjem_mallocx", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "_rjem_rallocx", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "_rjem_xallocx", SHAPE(MS_CALL_REALLOC, 0, 0, 1, MS_SHAPE_SIZE_RETURNED) },
	{ "_rjem_dallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "_rjem_sdallocx", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	/* mimalloc's own API. */
	{ "mi_zalloc", SHAPE(MS_CALL_CALLOC, 1, 0, 0, 0) },
	{ "mi_malloc_small", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "mi_zalloc_small", SHAPE(MS_CALL_CALLOC, 1, 0, 0, 0) },
	{ "mi_mallocn", SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "mi_reallocn", SHAPE(MS_CALL_REALLOCARRAY, 3, 2, 1, 0) },
	{ "mi_malloc_aligned", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "mi_zalloc_aligned", SHAPE(MS_CALL_CALLOC, 1, 0, 0, 0) },
	{ "mi_calloc_aligned", SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "mi_realloc_aligned", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "mi_free_size", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "mi_free_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "mi_free_size_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "mi_new", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "mi_new_nothrow", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "mi_new_aligned", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "mi_new_aligned_nothrow", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "mi_new_n", SHAPE(MS_CALL_CALLOC, 2, 1, 0, 0) },
	{ "mi_new_realloc", SHAPE(MS_CALL_REALLOC, 2, 0, 1, 0) },
	{ "mi_heap_malloc", SHAPE(MS_CALL_MALLOC, 2, 0, 0, 0) },
	{ "mi_heap_zalloc", SHAPE(MS_CALL_CALLOC, 2, 0, 0, 0) },
	{ "mi_heap_calloc", SHAPE(MS_CALL_CALLOC, 3, 2, 0, 0) },
	{ "mi_heap_realloc", SHAPE(MS_CALL_REALLOC, 3, 0, 2, 0) },
	{ "mi_heap_malloc_aligned", SHAPE(MS_CALL_ALIGNED_ALLOC, 2, 0, 0, 0) },
	/* gperftools tcmalloc's own API. */
	{ "tc_new", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "tc_newarray", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "tc_new_nothrow", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "tc_newarray_nothrow", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "tc_new_aligned", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "tc_newarray_aligned", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "tc_new_aligned_nothrow", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "tc_newarray_aligned_nothrow", SHAPE(MS_CALL_ALIGNED_ALLOC, 1, 0, 0, 0) },
	{ "tc_malloc_skip_new_handler", SHAPE(MS_CALL_MALLOC, 1, 0, 0, 0) },
	{ "tc_delete", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_delete_nothrow", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray_nothrow", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_delete_sized", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray_sized", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_delete_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_delete_aligned_nothrow", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray_aligned_nothrow", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_delete_sized_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_deletearray_sized_aligned", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
	{ "tc_free_sized", SHAPE(MS_CALL_FREE, 0, 0, 1, 0) },
};

#define N_LIBC (sizeof(libc_functions) / sizeof(libc_functions[0]))
#define N_PREFIXES (sizeof(libc_prefixes) / sizeof(libc_prefixes[0]))
#define N_OTHER (sizeof(other_functions) / sizeof(other_functions[0]))

/* The shape of name in table, with its index there; 0 if absent. */
static uint64_t
lookup(const struct allocator_function *table, size_t n, const char *name,
       size_t *index)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(name, table[i].name)) {
			*index = i;
			return table[i].shape;
		}
	}
	return 0;
}

uint64_t
allocator_function(const char *name, size_t *rank)
{
	uint64_t shape = lookup(libc_functions, N_LIBC, name, rank);
	size_t i;

	if (shape)
		return shape;
	for (i = 0; i < N_PREFIXES; i++) {
		size_t n = strlen(libc_prefixes[i]);

		if (!strncmp(name, libc_prefixes[i], n) &&
		    (shape = lookup(libc_functions, N_LIBC, name + n, rank))) {
			*rank += N_LIBC * (i + 1);
			return shape;
		}
	}
	shape = lookup(other_functions, N_OTHER, name, rank);
	if (shape)
		*rank += N_LIBC * (N_PREFIXES + 1);
	return shape;
}
