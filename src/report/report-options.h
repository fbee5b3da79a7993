/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options memsup report and memsup diff share: format, metric, top N. */
#ifndef MEMSUP_REPORT_OPTIONS_H
#define MEMSUP_REPORT_OPTIONS_H

#include <stdbool.h>
#include "heap.h"
#include "report-sites.h"

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_FOLDED,
	REPORT_PPROF,
	REPORT_SVG,
	REPORT_HTML,
	REPORT_MASSIF,
	REPORT_HEAPTRACK,
};
#define REPORT_FORMAT(f) (1u << (f))	/* in a set of formats */

/*
 * Each parses an option's argument for command ("report", "diff"), or
 * says what the option takes and returns false.  --format takes the
 * formats in the set allowed.
 */
bool report_format_parse(const char *command, const char *arg, unsigned int allowed,
			 enum report_format *f);
bool report_metric_parse(const char *command, const char *arg, enum site_metric *m);
bool report_top_parse(const char *command, const char *arg, unsigned long *top);
/* Whether nfiles, the capture files given to command, is one; if not, says so. */
bool report_one_capture(const char *command, int nfiles);
/* --by: allocation points (the default) or chains. */
bool report_by_parse(const char *command, const char *arg, bool *by_chain);
/* --pid and --command: which processes the figures count. */
bool report_pid_parse(const char *command, const char *arg, struct heap_filter *f);
bool report_command_parse(const char *command, const char *arg, struct heap_filter *f);
/* The options that give filter f, " --pid=PID --command=NAME", or "". */
const char *report_filter_options(char *buf, size_t size, const struct heap_filter *f);
/* Whether h, read from file with a filter, holds a process; if not, says so. */
bool report_filter_matched(const char *command, const char *file, const struct heap_model *h);

#endif
