/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Numbers as a person reads them, for the summary, the text report and
 * the HTML page: digits grouped by thousands, sizes in binary units with
 * the exact count beside them.  JSON and pprof keep exact integers.  And
 * numbers as a person types them, in options.
 */
#ifndef MEMSUP_HUMAN_NUMBERS_H
#define MEMSUP_HUMAN_NUMBERS_H

#include <stdbool.h>
#include <stdint.h>

/* Room for the longest: "16.0 EiB (18,446,744,073,709,551,615 bytes)". */
#define HUMAN_MAX 64

/* "20,012,176". */
const char *human_count(char buf[HUMAN_MAX], uint64_t n);
/* "19.1 MiB", or below 1 KiB "1,000 bytes" and "1 byte". */
const char *human_size(char buf[HUMAN_MAX], uint64_t bytes);
/* "19.1 MiB (20,012,176 bytes)", or below 1 KiB as human_size. */
const char *human_bytes(char buf[HUMAN_MAX], uint64_t bytes);
/* "s" unless n is 1: "%s block%s", human_count(...), plural(n). */
const char *plural(uint64_t n);
/*
 * The decimal number arg starts with, unsigned, into *n, and what follows
 * it into *rest (a unit, say), or, rest NULL, nothing may follow.  False
 * for no digits, a sign, or a number past 64 bits.
 */
bool human_parse(const char *arg, uint64_t *n, const char **rest);
/*
 * A size in bytes into *n: a decimal number, then nothing or a binary
 * unit, K, M, G or T, either case, with or without "iB" ("64K", "10MiB").
 * False when malformed or past 64 bits.
 */
bool human_parse_size(const char *arg, uint64_t *n);

#endif
