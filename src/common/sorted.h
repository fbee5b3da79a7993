/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Binary search in arrays sorted by a key, whatever their element type. */
#ifndef MEMSUP_SORTED_H
#define MEMSUP_SORTED_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*sorted_key_fn)(const void *array, size_t i);

/*
 * The first index in [lo, hi) whose key is above value, in an array
 * sorted by key, ascending; hi when there is none.  The last element at
 * or below value is the one before it, unless that is lo.
 */
static inline size_t
sorted_first_above(const void *array, size_t lo, size_t hi, sorted_key_fn key,
		   uint64_t value)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key(array, mid) <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
