// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report.h"
#include "error.h"
#include "replay.h"
#include "flamegraph.h"
#include "report-folded.h"
#include "report-heaptrack.h"
#include "report-html.h"
#include "report-json.h"
#include "report-massif.h"
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
	fputs("Usage: memsup report [--events] [--processes] [--pid=PID] [--command=NAME]\n"
	      "                     [-n N] [--by=point|chain] [--format=FORMAT]\n"
	      "                     [--metric=METRIC] [--full-names] [--suppress=FILE]\n"
	      "                     [--no-default-suppressions]\n"
	      "                     [--debug-dir=DIR] [--strict] FILE\n"
	      "Print the summary of a capture, its regions (memsup/region.h) and\n"
	      "its top allocation points, or with --events every record in order,\n"
	      "one per line.  FILE - is standard input.  A capture cut short (the\n"
	      "FILE.XXXXXX a killed memsup leaves) is reported up to the cut, with\n"
	      "a warning and exit status 2.\n"
	      "\n"
	      "  -e, --events  list the records instead of the summary\n"
	      "      --processes\n"
	      "                list every process in the summary (by default\n"
	      "                the 5 largest peaks of a tree)\n"
	      "      --pid=PID count process PID only\n"
	      "      --command=NAME\n"
	      "                count the processes running the program NAME\n"
	      "                (its base name) only, while they run it\n"
	      "  -n, --top=N   show the top N allocation points (or sites) of each\n"
	      "                ranking, and of each point its N largest chains\n"
	      "                (default 5; 0 shows none)\n"
	      "      --by=point|chain\n"
	      "                rank allocation points, the innermost frames\n"
	      "                outside the C and C++ runtimes, each with the\n"
	      "                chains that reach it (the default), or each call\n"
	      "                chain on its own\n"
	      "  -f, --format=text|json|folded|pprof|svg|html|massif|heaptrack\n"
	      "                text (the default); JSON, as doc/report-json.md\n"
	      "                describes it; folded stacks, one line per site,\n"
	      "                for flame graphs (flamegraph.pl, inferno,\n"
	      "                speedscope); pprof's gzipped profile.proto; an\n"
	      "                interactive flame graph as SVG; one HTML page\n"
	      "                with the summary, the heap over time, the regions,\n"
	      "                the flame graph and the top sites; valgrind\n"
	      "                massif's file of the heap over time and its peak,\n"
	      "                for ms_print and massif-visualizer; or heaptrack's\n"
	      "                data file, zstd-compressed, for heaptrack_print\n"
	      "                and heaptrack_gui (name it FILE.zst)\n"
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
	      "                line, as fnmatch(3)) matches out of the leaks of\n"
	      "                every format, counted as suppressed: any function\n"
	      "                of the chain, its file, or its source file\n"
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
	if (heap_counts(h, r))
		event_print(stdout, r);
}

static void
note_time(void *timeline, const struct heap_model *h, const struct record *r)
{
	timeline_apply(timeline, h, r);
}

/* What memsup report is asked. */
struct report_args {
	const char *file;
	bool events;		/* the records, not the summary */
	bool all_processes;	/* every process in the summary */
	bool by_chain;		/* rank sites, not allocation points */
	struct heap_filter filter;
	enum report_format format;
	enum site_metric metric;
	bool metric_given;
	unsigned long top;
	bool full_names;
	const char *suppress;	/* --suppress, or NULL */
	bool default_suppressions;
	const char *debug_dir;
	bool strict;
};

/*
 * Parses the options into a, up to the file at optind.  Returns false
 * when memsup is done, with its exit status in *status.
 */
static bool
parse_options(int argc, char **argv, struct report_args *a, int *status)
{
	static const struct option options[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "processes", no_argument, NULL, 'P' },
		{ "by", required_argument, NULL, 'b' },
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
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
	int c;

	*a = (struct report_args){
		.format = REPORT_TEXT,
		.metric = METRIC_PEAK,
		.top = 5,
		.default_suppressions = true,
	};
	*status = MS_EXIT_FAILURE;
	/* Options anywhere, as GNU tools take them; 0 starts getopt afresh. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "en:f:m:h", options, NULL)) != -1) {
		switch (c) {
		case 'S':
			a->suppress = optarg;
			break;
		case 'D':
			a->default_suppressions = false;
			break;
		case 's':
			a->strict = true;
			break;
		case 'e':
			a->events = true;
			break;
		case 'P':
			a->all_processes = true;
			break;
		case 'b':
			if (!report_by_parse("report", optarg, &a->by_chain))
				return false;
			break;
		case 'p':
			if (!report_pid_parse("report", optarg, &a->filter))
				return false;
			break;
		case 'c':
			if (!report_command_parse("report", optarg, &a->filter))
				return false;
			break;
		case 'n':
			if (!report_top_parse("report", optarg, &a->top))
				return false;
			break;
		case 'g':
			a->debug_dir = optarg;
			break;
		case 'F':
			a->full_names = true;
			break;
		case 'f':
			if (!report_format_parse("report", optarg, ~0u, &a->format))
				return false;
			break;
		case 'm':
			if (!report_metric_parse("report", optarg, &a->metric))
				return false;
			a->metric_given = true;
			break;
		case 'h':
			usage();
			*status = 0;
			return false;
		default:
			usage_hint("report");
			return false;
		}
	}
	return true;
}

/* The options that exclude each other; nfiles: the files given, one due. */
static bool
check_options(const struct report_args *a, int nfiles)
{
	if (a->metric_given && a->format != REPORT_FOLDED &&
	    a->format != REPORT_SVG) {
		error_msg("report: --metric goes with --format=folded or svg");
		return false;
	}
	if ((a->suppress || !a->default_suppressions) && a->events) {
		error_msg("report: suppressions go with the leaks of the sites, "
			  "not with --events");
		return false;
	}
	if (a->all_processes && (a->events || a->format != REPORT_TEXT)) {
		error_msg("report: --processes goes with the text summary "
			  "(JSON lists every process)");
		return false;
	}
	if (a->events && a->format != REPORT_TEXT) {
		error_msg("report: --events lists records as text only");
		return false;
	}
	if (a->format == REPORT_PPROF && isatty(STDOUT_FILENO)) {
		error_msg("report: --format=pprof writes a gzipped file: send it "
			  "to a file, not to a terminal");
		return false;
	}
	if (a->format == REPORT_HEAPTRACK && isatty(STDOUT_FILENO)) {
		error_msg("report: --format=heaptrack writes a zstd-compressed file: "
			  "send it to a file, not to a terminal");
		return false;
	}
	return report_one_capture("report", nfiles);
}

/* Returns false, having said why, when the --suppress file cannot be read. */
static bool
load_suppressions(struct suppressions *sp, const struct report_args *a)
{
	int err;

	suppressions_init(sp);
	sp->defaults = a->default_suppressions;
	err = a->suppress ? suppressions_load(sp, a->suppress) : 0;
	/* A larger file is no list of patterns: /dev/zero, a binary. */
	if (err == -EFBIG) {
		error_msg("report: cannot read suppressions %s: larger than %d KiB",
			  a->suppress, SUPPRESSIONS_FILE_MAX / 1024);
	} else if (err) {
		errno = -err;
		perror_msg("report: cannot read suppressions %s", a->suppress);
	}
	if (err) {
		suppressions_free(sp);
		return false;
	}
	return true;
}

/* A capture read whole, in the format asked: 0 or an exit status. */
static int
print_report(struct replay *p, const struct report_args *a,
	     const struct timeline *timeline, const struct heaptrack_export *heaptrack)
{
	int err;

	switch (a->format) {
	case REPORT_JSON:
		report_json(stdout, replay_command(p), &p->heap, replay_totals(p),
			    &p->sites, &p->symbolizer, a->top);
		break;
	case REPORT_FOLDED:
		report_folded(stdout, &p->heap, &p->sites, &p->symbolizer, a->metric);
		break;
	case REPORT_HTML:
		report_html(stdout, replay_command(p), &p->heap, replay_totals(p),
			    timeline, &p->sites, &p->symbolizer, a->top, a->by_chain);
		break;
	case REPORT_MASSIF:
		report_massif(stdout, replay_command(p), &p->heap, timeline, &p->sites,
			      &p->symbolizer);
		break;
	case REPORT_SVG:
		flamegraph_svg(stdout, &p->heap, &p->sites, &p->symbolizer, a->metric,
			       replay_command(p));
		break;
	case REPORT_PPROF:
		err = report_pprof(STDOUT_FILENO, &p->heap, &p->sites, &p->symbolizer);
		if (err) {
			errno = -err;
			perror_msg("cannot write the report");
			return MS_EXIT_FAILURE;
		}
		break;
	case REPORT_HEAPTRACK:
		err = heaptrack_write(stdout, heaptrack, p);
		if (err) {
			errno = -err;
			perror_msg("cannot write the report");
			return MS_EXIT_FAILURE;
		}
		break;
	case REPORT_TEXT:
		printf("command: %s\n", replay_command(p));
		summary_print(stdout, &p->heap, replay_totals(p),
			      strcmp(a->file, "-") ? a->file : NULL, a->all_processes);
		sizes_print(stdout, &p->heap.tree);
		regions_print(stdout, &p->heap.regions);
		if (a->top && p->sites.resolved.count) {
			sites_print(stdout, &p->heap, &p->sites, &p->symbolizer,
				    a->top, a->by_chain);
			symbolizer_print_sources(stdout, &p->symbolizer, &p->sites);
			symbolizer_print_missing(stdout, &p->symbolizer, &p->sites);
		}
		break;
	}
	return 0;
}

int
report_main(int argc, char **argv)
{
	struct heaptrack_export heaptrack;
	struct suppressions suppressions;
	struct timeline timeline;
	struct report_args a;
	struct replay p;
	int ret;

	if (!parse_options(argc, argv, &a, &ret))
		return ret;
	if (!check_options(&a, argc - optind))
		return MS_EXIT_FAILURE;
	a.file = argv[optind];
	if (!load_suppressions(&suppressions, &a))
		return MS_EXIT_FAILURE;
	timeline_init(&timeline);
	heaptrack_init(&heaptrack);
	if (a.events)
		ret = replay_read(&p, a.file, a.debug_dir, a.strict, &a.filter,
				  print_event, NULL);
	else if (a.format == REPORT_HTML || a.format == REPORT_MASSIF)
		ret = replay_read(&p, a.file, a.debug_dir, a.strict, &a.filter,
				  note_time, &timeline);
	else if (a.format == REPORT_HEAPTRACK)
		ret = replay_read(&p, a.file, a.debug_dir, a.strict, &a.filter,
				  heaptrack_record, &heaptrack);
	else
		ret = replay_read(&p, a.file, a.debug_dir, a.strict, &a.filter,
				  NULL, NULL);
	p.symbolizer.full_names = a.full_names;
	if (!ret && !report_filter_matched("report", a.file, &p.heap))
		ret = MS_EXIT_FAILURE;
	/* With --events, the records went out as they were read. */
	if (!ret && !a.events) {
		suppressions_apply(&suppressions, &p.symbolizer, &p.sites, &p.heap);
		ret = print_report(&p, &a, &timeline, &heaptrack);
	}
	if (!ret && replay_cut(&p))
		ret = MS_EXIT_CUT;
	replay_close(&p);
	timeline_free(&timeline);
	heaptrack_free(&heaptrack);
	suppressions_free(&suppressions);
	if (fflush(stdout) && !ret) {
		perror_msg("cannot write the report");
		ret = MS_EXIT_FAILURE;
	}
	return ret;
}
