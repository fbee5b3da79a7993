/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The allocator functions memsup probes, by symbol name: the C library's,
 * C++'s operator new and delete, and the APIs of jemalloc, mimalloc and
 * tcmalloc, each with its MS_SHAPE (bpf/memsup.h).
 */
#ifndef MEMSUP_ALLOCATOR_FUNCTIONS_H
#define MEMSUP_ALLOCATOR_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The shape of the allocator function called name, or 0.  *rank orders
 * names that share an address: the lowest wins, so that an alias (glibc's
 * memalign and aligned_alloc, tcmalloc's malloc and tc_malloc) is probed
 * once, as its most common name.
 */
uint64_t allocator_function(const char *name, size_t *rank);

#endif
