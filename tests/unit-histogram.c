// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the fixed-size histogram of stop latencies. */
#include "config.h"
#include "histogram.h"
#include "tap.h"

#include <stdlib.h>

static struct histogram *
new_histogram(void)
{
	struct histogram *h = calloc(1, sizeof(*h));

	if (!h)
		tap_bail("out of memory");
	return h;
}

static void
test_empty_and_small(void)
{
	struct histogram *h = new_histogram();
	uint64_t i;

	tap_eq_u64(histogram_quantile(h, 0.5), 0, "empty: every quantile is 0");
	for (i = 0; i < 16; i++)
		histogram_add(h, i);
	tap_eq_u64(h->count, 16, "16 values counted");
	tap_eq_u64(histogram_quantile(h, 0), 0, "values below 16 are exact: minimum");
	tap_eq_u64(histogram_quantile(h, 0.5), 8, "values below 16 are exact: median");
	tap_eq_u64(histogram_quantile(h, 1), 15, "values below 16 are exact: maximum");
	free(h);
}

/* Every value v, alone, comes back as a bound in [v, v * 1.125]. */
static void
test_bounds(void)
{
	double worst = 0;
	bool below = false;
	uint64_t v;

	for (v = 1; v < (1ULL << 62); v = v * 3 / 2 + 1) {
		struct histogram *h = new_histogram();
		uint64_t got;

		histogram_add(h, v);
		histogram_add(h, v + v / 4 + 1);	/* so the max does not clamp */
		got = histogram_quantile(h, 0);
		below |= got < v;
		if (got >= v && (double)(got - v) / (double)v > worst)
			worst = (double)(got - v) / (double)v;
		free(h);
	}
	tap_ok(!below, "a quantile is never below the value");
	tap_ok(worst <= 0.125, "and at most 12.5%% above it (worst %.4f)", worst);
}

static void
test_quantiles(void)
{
	struct histogram *h = new_histogram();
	uint64_t i, median, p99;

	/* 1..1000 us: the median is about 500 us, the 99th about 990 us. */
	for (i = 1; i <= 1000; i++)
		histogram_add(h, i * 1000);
	median = histogram_quantile(h, 0.5);
	p99 = histogram_quantile(h, 0.99);
	tap_ok(median >= 500000 && median <= 500000 + 500000 / 8,
	       "median of 1..1000 us: %llu ns", (unsigned long long)median);
	tap_ok(p99 >= 990000 && p99 <= 1000000, "99th percentile: %llu ns",
	       (unsigned long long)p99);
	tap_eq_u64(histogram_quantile(h, 1), 1000000, "the top is the largest value");
	histogram_add(h, UINT64_MAX);
	tap_eq_u64(histogram_quantile(h, 1), UINT64_MAX, "UINT64_MAX fits");
	free(h);
}

int
main(void)
{
	tap_plan(11);
	test_empty_and_small();
	test_bounds();
	test_quantiles();
	return tap_done();
}
