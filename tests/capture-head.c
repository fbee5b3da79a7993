// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capture-head N IN OUT: writes the first N records of the capture IN
 * (read up to its cut, if it was cut short) as a whole capture OUT, with
 * IN's command and an END of zeros.  tests/salvage.test compares the
 * report of a capture cut after record N with the report of this one.
 */
#include "config.h"
#include "capture.h"
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	struct capture_end end = { 0 };
	struct capture_reader *rd;
	struct capture_writer *w;
	struct record r;
	unsigned long n, i;
	char *command;
	int got;

	if (argc != 4) {
		fprintf(stderr, "usage: capture-head N IN OUT\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	rd = capture_open(argv[2]);
	if (!rd) {
		fprintf(stderr, "capture-head: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	/* META, which holds the command, comes before the first record. */
	got = capture_next(rd, &r);
	command = (char *)capture_command(rd);
	w = capture_create(argv[3], CAPTURE_LEVEL_DEFAULT, 1, &command);
	if (!w) {
		fprintf(stderr, "capture-head: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	for (i = 0; i < n && got == 1; i++) {
		capture_write(w, &r);
		if (i + 1 < n)
			got = capture_next(rd, &r);
	}
	if (i < n) {
		fprintf(stderr, "capture-head: %s has %lu records (%s)\n", argv[2], i,
			capture_error(rd));
		capture_abort(w);
		return 1;
	}
	capture_close(rd);
	return capture_finish(w, &end, NULL) ? 1 : 0;
}
