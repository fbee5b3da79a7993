// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the figures a person reads: grouping, units, plurals. */
#include "config.h"
#include "human-numbers.h"
#include "tap.h"

int
main(void)
{
	char buf[HUMAN_MAX];

	tap_plan(14);
	tap_str_eq(human_count(buf, 0), "0", "0");
	tap_str_eq(human_count(buf, 999), "999", "three digits, no separator");
	tap_str_eq(human_count(buf, 1000), "1,000", "four digits, one separator");
	tap_str_eq(human_count(buf, 20012176), "20,012,176", "eight digits");
	tap_str_eq(human_count(buf, UINT64_MAX), "18,446,744,073,709,551,615", "the largest");
	tap_str_eq(human_bytes(buf, 1), "1 byte", "one byte");
	tap_str_eq(human_bytes(buf, 1000), "1,000 bytes", "under 1 KiB: bytes alone");
	tap_str_eq(human_bytes(buf, 1024), "1.0 KiB (1,024 bytes)", "1 KiB");
	tap_str_eq(human_bytes(buf, 20012176), "19.1 MiB (20,012,176 bytes)", "MiB");
	tap_str_eq(human_size(buf, 1048575), "1.0 MiB",
		   "a size that would round to 1024.0 KiB goes up a unit");
	tap_str_eq(human_bytes(buf, UINT64_MAX),
		   "16.0 EiB (18,446,744,073,709,551,615 bytes)", "the largest fits");
	tap_str_eq(human_size(buf, 2627992), "2.5 MiB", "a chart's tick");
	tap_str_eq(plural(1), "", "one: singular");
	tap_str_eq(plural(2), "s", "two: plural");
	return tap_done();
}
