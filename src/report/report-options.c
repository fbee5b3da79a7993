// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-options.h"
#include "error.h"
#include "human-numbers.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static const char *const format_names[] = {
	[REPORT_TEXT] = "text",
	[REPORT_JSON] = "json",
	[REPORT_FOLDED] = "folded",
	[REPORT_PPROF] = "pprof",
	[REPORT_SVG] = "svg",
	[REPORT_HTML] = "html",
	[REPORT_MASSIF] = "massif",
	[REPORT_HEAPTRACK] = "heaptrack",
};

#define NFORMATS (sizeof(format_names) / sizeof(format_names[0]))

bool
report_format_parse(const char *command, const char *arg, unsigned int allowed,
		    enum report_format *f)
{
	char list[128] = "";
	size_t i, left = 0;

	for (i = 0; i < NFORMATS; i++) {
		if (!(allowed & REPORT_FORMAT(i)))
			continue;
		if (!strcmp(arg, format_names[i])) {
			*f = (enum report_format)i;
			return true;
		}
		left++;
	}
	/* "a, b or c" */
	for (i = 0; i < NFORMATS; i++) {
		if (!(allowed & REPORT_FORMAT(i)))
			continue;
		if (list[0])
			strcat(list, left == 1 ? " or " : ", ");
		strcat(list, format_names[i]);
		left--;
	}
	error_msg("%s: --format takes %s, not '%s'", command, list, arg);
	return false;
}

bool
report_metric_parse(const char *command, const char *arg, enum site_metric *m)
{
	if (site_metric_parse(arg, m))
		return true;
	error_msg("%s: --metric takes peak, leaked, allocated, count or temporary, "
		  "not '%s'", command, arg);
	return false;
}

bool
report_top_parse(const char *command, const char *arg, unsigned long *top)
{
	uint64_t n;

	if (!human_parse(arg, &n, NULL) || n > ULONG_MAX) {
		error_msg("%s: -n takes a number, not '%s'", command, arg);
		return false;
	}
	*top = (unsigned long)n;
	return true;
}

bool
report_pid_parse(const char *command, const char *arg, struct heap_filter *f)
{
	uint64_t n;

	if (!human_parse(arg, &n, NULL) || !n || n > UINT32_MAX) {
		error_msg("%s: --pid takes a process id, not '%s'", command, arg);
		return false;
	}
	f->pid = (uint32_t)n;
	return true;
}

bool
report_command_parse(const char *command, const char *arg, struct heap_filter *f)
{
	if (!arg[0] || strchr(arg, '/')) {
		error_msg("%s: --command takes a program's name, with no '/', not '%s'",
			  command, arg);
		return false;
	}
	f->command = arg;
	return true;
}

const char *
report_filter_options(char *buf, size_t size, const struct heap_filter *f)
{
	char pid[32] = "";

	if (f->pid)
		snprintf(pid, sizeof(pid), " --pid=%u", f->pid);
	snprintf(buf, size, "%s%s%s", pid, f->command ? " --command=" : "",
		 f->command ? f->command : "");
	return buf;
}

bool
report_filter_matched(const char *command, const char *file, const struct heap_model *h)
{
	char options[PATH_MAX];

	if (h->nprocs || (!h->filter.pid && !h->filter.command))
		return true;
	error_msg("%s: %s: no process matches%s", command, file,
		  report_filter_options(options, sizeof(options), &h->filter));
	return false;
}

bool
report_by_parse(const char *command, const char *arg, bool *by_chain)
{
	if (strcmp(arg, "point") && strcmp(arg, "chain")) {
		error_msg("%s: --by takes point or chain, not '%s'", command, arg);
		return false;
	}
	*by_chain = !strcmp(arg, "chain");
	return true;
}

bool
report_one_capture(const char *command, int nfiles)
{
	if (nfiles == 1)
		return true;
	error_msg(nfiles ? "%s: more than one capture file given"
			 : "%s: no capture file given", command);
	usage_hint(command);
	return false;
}
