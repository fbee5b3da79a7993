// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report.h"
#include "error.h"
#include "replay.h"
#include "flamegraph.h"
#include "report-folded.h"
#include "report-html.h"
#include "report-json.h"
#include "report-options.h"
#include "report-pprof.h"
#include "report-sites.h"
#include "report-text.h"
#include "suppressions.h"
#include "timeline.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
usage(void)
{
	fputs("Usage: memsup report [--events] [-n N] [--format=FORMAT] [--metric=METRIC]\n"
	      "                     [--full-names] [--suppress=FILE] [--no-default-suppressions]\n"
	      "                     [--debug-dir=DIR] [--strict] FILE\n"
	      "Print the summary of a capture, its regions (memsup/region.h) and\n"
	      "its top allocation sites, or with --events every record in order,\n"
	      "one per line.  FILE - is standard input.  A capture cut short (the\n"
	      "FILE.XXXXXX a killed memsup leaves) is reported up to the cut, with\n"
	      "a warning and exit status 2.\n"
	      "\n"
	      "  -e, --events  list the records instead of the summary\n"
	      "  -n, --top=N   show the top N sites of each ranking (default 5;\n"
	      "                0 shows none)\n"
	      "  -f, --format=text|json|folded|pprof|svg|html\n"
	      "                text (the default); JSON, as doc/report-json.md\n"
	      "                describes it; folded stacks, one line per site,\n"
	      "                for flame graphs (flamegraph.pl, inferno,\n"
	      "                speedscope); pprof's gzipped profile.proto; an\n"
	      "                interactive flame graph as SVG; or one HTML page\n"
	      "                with the summary, the heap over time, the regions,\n"
	      "                the flame graph and the top sites\n"
	      "  -m, --metric=peak|leaked|allocated|count|temporary\n"
	      "                with folded and svg: each site's bytes live at the\n"
	      "                peak (the default), bytes leaked, bytes allocated,\n"
	      "                allocations, or temporary allocations\n"
	      "      --full-names\n"
	      "                keep functions' template arguments, parameters\n"
	      "                and return types (shortened by default:\n"
	      "                std::vector<>::push_back())\n"
	      "      --suppress=FILE\n"
	      "                leave the sites that a pattern of FILE (one a\n"
	      "                line, as fnmatch(3)) matches out of the leak\n"
	      "                ranking, counted as suppressed: any function of\n"
	      "                the chain, its file, or its source file\n"
	      "      --no-default-suppressions\n"
	      "                rank the leaks of the C and C++ runtimes too\n"
	      "                (their start-up allocations, stdio buffers)\n"
	      "      --debug-dir=DIR\n"
	      "                look for separate debug files under DIR\n"
	      "                (default: /usr/lib/debug)\n"
	      "      --strict  refuse a capture cut short (exit status 1)\n"
	      "  -h, --help    show this help and exit\n", stdout);
}

static void
print_event(void *ctx, const struct heap_model *h, const struct record *r)
{
	event_print(stdout, r);
}

static void
note_time(void *timeline, const struct heap_model *h, const struct record *r)
{
	timeline_apply(timeline, h, r);
}

int
report_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 'n' },
		{ "debug-dir", required_argument, NULL, 'g' },
		{ "full-names", no_argument, NULL, 'F' },
		{ "format", required_argument, NULL, 'f' },
		{ "metric", required_argument, NULL, 'm' },
		{ "suppress", required_argument, NULL, 'S' },
		{ "no-default-suppressions", no_argument, NULL, 'D' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct suppressions suppressions;
	struct timeline timeline;
	struct replay p;
	enum report_format format = REPORT_TEXT;
	enum site_metric metric = METRIC_PEAK;
	bool events = false, metric_given = false, full_names = false, strict = false;
	unsigned long top = 5;
	const char *debug_dir = NULL;
	const char *suppress = NULL;
	bool default_suppressions = true;
	int c, err, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+en:f:m:h", options, NULL)) != -1) {
		switch (c) {
		case 'S':
			suppress = optarg;
			break;
		case 'D':
			default_suppressions = false;
			break;
		case 's':
			strict = true;
			break;
		case 'e':
			events = true;
			break;
		case 'n':
			if (!report_top_parse("report", optarg, &top))
				return MS_EXIT_FAILURE;
			break;
		case 'g':
			debug_dir = optarg;
			break;
		case 'F':
			full_names = true;
			break;
		case 'f':
			if (!report_format_parse("report", optarg, ~0u, &format))
				return MS_EXIT_FAILURE;
			break;
		case 'm':
			if (!report_metric_parse("report", optarg, &metric))
				return MS_EXIT_FAILURE;
			metric_given = true;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint("report");
			return MS_EXIT_FAILURE;
		}
	}
	if (metric_given && format != REPORT_FOLDED && format != REPORT_SVG) {
		error_msg("report: --metric goes with --format=folded or svg");
		return MS_EXIT_FAILURE;
	}
	if ((suppress || !default_suppressions) && (events || format != REPORT_TEXT)) {
		error_msg("report: suppressions go with the text report's sites");
		return MS_EXIT_FAILURE;
	}
	if (events && format != REPORT_TEXT) {
		error_msg("report: --events lists records as text only");
		return MS_EXIT_FAILURE;
	}
	if (format == REPORT_PPROF && isatty(STDOUT_FILENO)) {
		error_msg("report: --format=pprof writes a gzipped file: send it "
			  "to a file, not to a terminal");
		return MS_EXIT_FAILURE;
	}
	if (optind != argc - 1) {
		error_msg(optind == argc ? "report: no capture file given"
					 : "report: more than one capture file given");
		usage_hint("report");
		return MS_EXIT_FAILURE;
	}
	suppressions_init(&suppressions);
	suppressions.defaults = default_suppressions;
	err = suppress ? suppressions_load(&suppressions, suppress) : 0;
	/* A larger file is no list of patterns: /dev/zero, a binary. */
	if (err == -EFBIG) {
		error_msg("report: cannot read suppressions %s: larger than %d KiB",
			  suppress, SUPPRESSIONS_FILE_MAX / 1024);
	} else if (err) {
		errno = -err;
		perror_msg("report: cannot read suppressions %s", suppress);
	}
	if (err) {
		suppressions_free(&suppressions);
		return MS_EXIT_FAILURE;
	}
	timeline_init(&timeline);
	if (events)
		ret = replay_read(&p, argv[optind], debug_dir, strict, print_event, NULL);
	else if (format == REPORT_HTML)
		ret = replay_read(&p, argv[optind], debug_dir, strict, note_time, &timeline);
	else
		ret = replay_read(&p, argv[optind], debug_dir, strict, NULL, NULL);
	p.symbolizer.full_names = full_names;
	if (ret || events) {
		/* The records went out as they were read. */
	} else if (format == REPORT_JSON) {
		report_json(stdout, replay_command(&p), &p.heap, replay_totals(&p),
			    &p.sites, &p.symbolizer, top);
	} else if (format == REPORT_FOLDED) {
		report_folded(stdout, &p.heap, &p.sites, &p.symbolizer, metric);
	} else if (format == REPORT_HTML) {
		report_html(stdout, replay_command(&p), &p.heap, replay_totals(&p), &timeline,
			    &p.sites, &p.symbolizer, top);
	} else if (format == REPORT_SVG) {
		flamegraph_svg(stdout, &p.heap, &p.sites, &p.symbolizer, metric,
			       replay_command(&p));
	} else if (format == REPORT_PPROF) {
		err = report_pprof(STDOUT_FILENO, &p.heap, &p.sites, &p.symbolizer);
		if (err) {
			errno = -err;
			perror_msg("cannot write the report");
			ret = MS_EXIT_FAILURE;
		}
	} else {
		printf("command: %s\n", replay_command(&p));
		summary_print(stdout, &p.heap, replay_totals(&p));
		sizes_print(stdout, &p.heap.tree);
		regions_print(stdout, &p.heap.regions);
		if (top && p.sites.resolved.count) {
			sites_print(stdout, &p.heap, &p.sites, &p.symbolizer, top,
				    &suppressions);
			symbolizer_print_sources(stdout, &p.symbolizer, &p.sites);
			symbolizer_print_missing(stdout, &p.symbolizer, &p.sites);
		}
	}
	if (!ret && replay_cut(&p))
		ret = MS_EXIT_CUT;
	replay_close(&p);
	timeline_free(&timeline);
	suppressions_free(&suppressions);
	if (fflush(stdout) && !ret) {
		perror_msg("cannot write the report");
		ret = MS_EXIT_FAILURE;
	}
	return ret;
}
