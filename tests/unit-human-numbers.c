// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the figures a person reads (grouping, units, plurals)
 * and the numbers a person types in options.
 */
#include "config.h"
#include "human-numbers.h"
#include "tap.h"

#include <stdbool.h>
#include <stdio.h>

/* What human_parse makes of arg: "n rest", "n", or "refused". */
static const char *
parsed(char buf[HUMAN_MAX], const char *arg, bool with_rest)
{
	const char *rest = NULL;
	uint64_t n;

	if (!human_parse(arg, &n, with_rest ? &rest : NULL))
		return "refused";
	snprintf(buf, HUMAN_MAX, "%llu%s%s", (unsigned long long)n, rest ? " " : "",
		 rest ? rest : "");
	return buf;
}

/* What human_parse_size makes of arg: the bytes, or "refused". */
static const char *
size(char buf[HUMAN_MAX], const char *arg)
{
	uint64_t n;

	if (!human_parse_size(arg, &n))
		return "refused";
	snprintf(buf, HUMAN_MAX, "%llu", (unsigned long long)n);
	return buf;
}

int
main(void)
{
	char buf[HUMAN_MAX];

	tap_plan(35);
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
	tap_str_eq(parsed(buf, "4096", false), "4096", "a number");
	tap_str_eq(parsed(buf, "16M", true), "16 M", "a number and its unit");
	tap_str_eq(parsed(buf, "16M", false), "refused", "a unit where none may follow");
	tap_str_eq(parsed(buf, "18446744073709551615", false), "18446744073709551615",
		   "the largest");
	tap_str_eq(parsed(buf, "18446744073709551616", false), "refused", "one past it");
	tap_str_eq(parsed(buf, "-1", false), "refused", "a minus sign");
	tap_str_eq(parsed(buf, "+1", false), "refused", "a plus sign");
	tap_str_eq(parsed(buf, " 1", false), "refused", "white space first");
	tap_str_eq(parsed(buf, "", true), "refused", "nothing");
	tap_str_eq(parsed(buf, "ms", true), "refused", "a unit alone");
	tap_str_eq(size(buf, "64K"), "65536", "a size in K");
	tap_str_eq(size(buf, "10MiB"), "10485760", "a size in MiB");
	tap_str_eq(size(buf, "2g"), "2147483648", "a unit in lower case");
	tap_str_eq(size(buf, "1T"), "1099511627776", "a size in T");
	tap_str_eq(size(buf, "15000"), "15000", "a size in bytes");
	tap_str_eq(size(buf, "0"), "0", "no bytes");
	tap_str_eq(size(buf, "10MB"), "refused", "MB: decimal or binary is not said");
	tap_str_eq(size(buf, "10 M"), "refused", "a space before the unit");
	tap_str_eq(size(buf, "10Ki"), "refused", "a unit cut short");
	tap_str_eq(size(buf, "16777216T"), "refused", "past 64 bits");
	tap_str_eq(size(buf, "M"), "refused", "a unit alone");
	return tap_done();
}
