// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/capture-scan FILE: reads a capture to its end and does nothing
 * with its records: the floor a report's time is measured against
 * (decompressing and parsing, no model).  Prints the records read.
 */
#include "config.h"
#include "capture.h"
#include "record.h"

#include <stdio.h>

int
main(int argc, char **argv)
{
	struct capture_reader *rd;
	struct record r;
	unsigned long long n = 0;
	int got;

	if (argc != 2 || !(rd = capture_open(argv[1]))) {
		fprintf(stderr, "usage: capture-scan FILE (a capture that can be opened)\n");
		return 1;
	}
	while ((got = capture_next(rd, &r)) > 0)
		n++;
	capture_close(rd);
	printf("%llu\n", n);
	return got < 0;
}
