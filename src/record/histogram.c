// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "histogram.h"

static unsigned int
bucket_of(uint64_t ns)
{
	unsigned int e;

	if (ns < 16)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);	/* 4..63 */
	return 16 + (e - 4) * 8 + (unsigned int)(ns >> (e - 3) & 7);
}

/* The largest value bucket i holds. */
static uint64_t
upper_bound(unsigned int i)
{
	unsigned int e, sub;

	if (i < 16)
		return i;
	e = (i - 16) / 8 + 4;
	sub = (i - 16) % 8;
	return (((uint64_t)(8 + sub) + 1) << (e - 3)) - 1;
}

void
histogram_add(struct histogram *h, uint64_t ns)
{
	h->buckets[bucket_of(ns)]++;
	h->count++;
	if (ns > h->max)
		h->max = ns;
}

uint64_t
histogram_quantile(const struct histogram *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = (uint64_t)(q * (double)(h->count - 1) + 0.5);
	for (i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen > rank)
			break;
	}
	return upper_bound(i) < h->max ? upper_bound(i) : h->max;
}
