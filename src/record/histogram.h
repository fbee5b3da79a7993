/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A histogram of durations in nanoseconds, of fixed size however many it
 * counts: exact below 16 ns, then eight buckets per power of two, so a
 * quantile is reported to within 12.5%, as the bucket's upper bound.
 */
#ifndef MEMSUP_HISTOGRAM_H
#define MEMSUP_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BUCKETS (16 + 60 * 8)

struct histogram {
	uint64_t count;
	uint64_t max;
	uint64_t buckets[HISTOGRAM_BUCKETS];
};

void histogram_add(struct histogram *h, uint64_t ns);
/*
 * A value at or above the q-quantile (0..1) of what was added, within
 * 12.5% of it and never above the largest; 0 when nothing was.
 */
uint64_t histogram_quantile(const struct histogram *h, double q);

#endif
