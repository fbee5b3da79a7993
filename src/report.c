// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report.h"
#include "capture.h"
#include "error.h"
#include "heap.h"
#include "record.h"
#include "report-text.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void
usage(FILE *out)
{
	fputs("Usage: memsup report [--events] FILE\n"
	      "Print the summary of a capture, or with --events every record\n"
	      "in order, one per line.\n"
	      "\n"
	      "  -e, --events  list the records instead of the summary\n"
	      "  -h, --help    show this help and exit\n", out);
}

int
report_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct capture_reader *rd;
	struct heap_model heap;
	struct record r;
	bool events = false;
	const char *path;
	int c, n, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+eh", options, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return MS_EXIT_FAILURE;
		}
	}
	if (optind != argc - 1) {
		error_msg(optind == argc ? "report: no capture file given"
					 : "report: more than one capture file given");
		usage(stderr);
		return MS_EXIT_FAILURE;
	}
	path = argv[optind];

	rd = capture_open(path);
	if (!rd) {
		perror_msg("cannot open %s", path);
		return MS_EXIT_READ_ERROR;
	}
	heap_init(&heap);
	while ((n = capture_next(rd, &r)) > 0) {
		if (events)
			event_print(stdout, &r);
		else
			heap_apply(&heap, &r);
	}
	if (n < 0) {
		error_msg("%s: %s", path, capture_error(rd));
		ret = MS_EXIT_READ_ERROR;
	} else if (!events) {
		printf("command: %s\n", capture_command(rd));
		summary_print(stdout, &heap, capture_totals(rd));
	}
	heap_free(&heap);
	capture_close(rd);
	if (fflush(stdout) && !ret) {
		perror_msg("cannot write the report");
		ret = MS_EXIT_FAILURE;
	}
	return ret;
}
