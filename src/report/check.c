// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup check: a capture's figures against limits, for CI.  The figures
 * are the summary's: the whole tree's, a region's, or those of each
 * process of one command.  A broken limit is named with the site that
 * holds most of its figure.
 */
#include "config.h"
#include "check.h"
#include "capture.h"
#include "error.h"
#include "heap.h"
#include "human-numbers.h"
#include "json.h"
#include "replay.h"
#include "report-options.h"
#include "report-sites.h"
#include "report-top.h"
#include "suppressions.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>	/* GNU basename: the path left as it is */

static void
usage(void)
{
	fputs("Usage: memsup check [--max-peak=SIZE] [--max-leaked=SIZE]\n"
	      "                    [--max-allocations=N] [--region=NAME | --command=NAME]\n"
	      "                    [--format=text|json] FILE\n"
	      "Check a capture against limits, for CI: exit status 0 when every\n"
	      "limit holds; 1 when one is broken, with a line for each (the\n"
	      "figure, the limit, and the site that holds most of it); 125 when\n"
	      "the capture cannot be read, or cannot tell (cut short and within\n"
	      "the limits so far, records lost).  At least one limit is needed.\n"
	      "A SIZE is in bytes, or in K, M, G or T (64K, 10MiB).\n"
	      "\n"
	      "      --max-peak=SIZE\n"
	      "                the most the live heap may reach\n"
	      "      --max-leaked=SIZE\n"
	      "                the most that may be live when processes exit\n"
	      "      --max-allocations=N\n"
	      "                the most allocation calls\n"
	      "      --region=NAME\n"
	      "                check region NAME's figures (memsup/region.h):\n"
	      "                its peak and allocations; a region has no leaks\n"
	      "      --command=NAME\n"
	      "                check each process that ran NAME (a program's\n"
	      "                base name) on its own, instead of the tree\n"
	      "  -f, --format=text|json\n"
	      "                text (the default), or one JSON object, as\n"
	      "                doc/report-json.md describes it\n"
	      "  -h, --help    show this help and exit\n", stdout);
}

/* The figures a limit can bound. */
enum check_figure {
	CHECK_PEAK,
	CHECK_LEAKED,
	CHECK_ALLOCATIONS,
	CHECK_FIGURES
};

static const struct {
	const char *title;		/* as the summary names it */
	const char *region_title;	/* a region's, as its table does */
	const char *name;		/* in JSON */
	enum site_metric metric;	/* what ranks the sites behind it */
	const char *site_figure;	/* what a site's value of the metric is */
	bool bytes;
} figures[CHECK_FIGURES] = {
	[CHECK_PEAK] = { "peak live heap", "peak", "peak", METRIC_PEAK,
			 " live at the peak", true },
	[CHECK_LEAKED] = { "leaked at exit", NULL, "leaked", METRIC_LEAKED, " leaked", true },
	[CHECK_ALLOCATIONS] = { "allocations", "allocations", "allocations", METRIC_COUNT,
				"", false },
};

/* What memsup check is asked. */
struct check_args {
	const char *file;
	bool given[CHECK_FIGURES];
	uint64_t max[CHECK_FIGURES];
	const char *region;	/* --region, or NULL */
	const char *command;	/* --command, or NULL */
	enum report_format format;
};

/* What the limits bound: the tree, a region, or one process. */
struct subject {
	const struct region_stats *region;
	const struct heap_process *process;
	uint64_t figure[CHECK_FIGURES];
};

enum verdict { HOLDS, BROKEN, UNKNOWN };

static const char *const verdict_names[] = {
	[HOLDS] = "holds", [BROKEN] = "broken", [UNKNOWN] = "unknown",
};

/*
 * Parses the options into a, up to the file at optind.  Returns false
 * when memsup is done, with its exit status in *status.
 */
static bool
parse_options(int argc, char **argv, struct check_args *a, int *status)
{
	static const struct option options[] = {
		{ "max-peak", required_argument, NULL, 'P' },
		{ "max-leaked", required_argument, NULL, 'L' },
		{ "max-allocations", required_argument, NULL, 'A' },
		{ "region", required_argument, NULL, 'r' },
		{ "command", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*a = (struct check_args){ .format = REPORT_TEXT };
	*status = MS_EXIT_FAILURE;
	/* Options anywhere, as GNU tools take them; 0 starts getopt afresh. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "f:h", options, NULL)) != -1) {
		switch (c) {
		case 'P':
		case 'L':
			if (!human_parse_size(optarg, &a->max[c == 'P' ? CHECK_PEAK :
							      CHECK_LEAKED])) {
				error_msg("check: --max-%s takes a size such as 15000, "
					  "64K or 10MiB, not '%s'",
					  c == 'P' ? "peak" : "leaked", optarg);
				return false;
			}
			a->given[c == 'P' ? CHECK_PEAK : CHECK_LEAKED] = true;
			break;
		case 'A':
			if (!human_parse(optarg, &a->max[CHECK_ALLOCATIONS], NULL)) {
				error_msg("check: --max-allocations takes a number, "
					  "not '%s'", optarg);
				return false;
			}
			a->given[CHECK_ALLOCATIONS] = true;
			break;
		case 'r':
			a->region = optarg;
			break;
		case 'c':
			a->command = optarg;
			break;
		case 'f':
			if (!report_format_parse("check", optarg, REPORT_FORMAT(REPORT_TEXT) |
						 REPORT_FORMAT(REPORT_JSON), &a->format))
				return false;
			break;
		case 'h':
			usage();
			*status = 0;
			return false;
		default:
			usage_hint("check");
			return false;
		}
	}
	return true;
}

/* The options that exclude or need each other; nfiles: the files given. */
static bool
check_options(const struct check_args *a, int nfiles)
{
	if (!a->given[CHECK_PEAK] && !a->given[CHECK_LEAKED] &&
	    !a->given[CHECK_ALLOCATIONS]) {
		error_msg("check: no limit given: --max-peak, --max-leaked or "
			  "--max-allocations");
		usage_hint("check");
		return false;
	}
	if (a->region && a->command) {
		error_msg("check: a region counts the whole tree's allocations: "
			  "--region and --command exclude each other");
		return false;
	}
	if (a->region && a->given[CHECK_LEAKED]) {
		error_msg("check: a region has no leak figure, only its peak and "
			  "allocations: --max-leaked goes without --region");
		return false;
	}
	return report_one_capture("check", nfiles);
}

/* The programs the capture's processes ran, for when none ran --command. */
struct programs {
	char **v;
	size_t n, cap;
};

static void
note_program(void *ctx, const struct heap_model *h, const struct record *r)
{
	struct programs *ran = ctx;

	if (r->type != REC_EXEC && r->type != REC_ATTACH)
		return;
	ran->v = xgrow(ran->v, &ran->cap, ran->n + 1, sizeof(*ran->v));
	ran->v[ran->n++] = xstrdup(basename(r->exec.path));
}

static void
programs_free(struct programs *ran)
{
	size_t i;

	for (i = 0; i < ran->n; i++)
		free(ran->v[i]);
	free(ran->v);
}

/* leaked: the figure its leak limit reads. */
static void
subject_of_stats(struct subject *s, const struct heap_stats *st, uint64_t leaked)
{
	s->figure[CHECK_PEAK] = st->peak_bytes;
	s->figure[CHECK_LEAKED] = leaked;
	s->figure[CHECK_ALLOCATIONS] = st->allocs;
}

/*
 * "a, b, c": the names name_of gives for 0 to n - 1, each once, those
 * it gives as NULL left out; a string to free.
 */
static char *
joined_names(const char *(*name_of)(const void *ctx, size_t i), const void *ctx,
	     size_t n)
{
	char *list = NULL;
	size_t size = 0, i, j;
	FILE *out = open_memstream(&list, &size);

	if (!out)
		perror_msg_and_die("open_memstream");
	for (i = 0; i < n; i++) {
		const char *name = name_of(ctx, i);

		for (j = 0; name && j < i; j++)
			if (name_of(ctx, j) && !strcmp(name_of(ctx, j), name))
				name = NULL;
		if (name)
			fprintf(out, "%s%s", ftell(out) ? ", " : "", name);
	}
	if (fclose(out))
		perror_msg_and_die("open_memstream");
	return list;
}

static const char *
region_name(const void *table, size_t i)
{
	return ((const struct region_table *)table)->regions[i].name;
}

static const char *
program_name(const void *programs, size_t i)
{
	return ((const struct programs *)programs)->v[i];
}

/* Says which regions the capture has, when it has none of that name. */
static void
no_such_region(const struct check_args *a, const struct region_table *t)
{
	char *list = joined_names(region_name, t, t->nregions);

	if (list[0])
		error_msg("check: %s has no region %s; its regions: %s", a->file,
			  a->region, list);
	else
		error_msg("check: %s has no region %s: its workload marked none "
			  "(memsup/region.h)", a->file, a->region);
	free(list);
}

/* Says which programs the capture's processes ran, when none ran command. */
static void
no_such_command(const struct check_args *a, const struct programs *ran)
{
	char *list = joined_names(program_name, ran, ran->n);

	if (list[0])
		error_msg("check: no process of %s ran %s; they ran: %s", a->file,
			  a->command, list);
	else
		error_msg("check: no process of %s ran %s: it holds none that ran a "
			  "program", a->file, a->command);
	free(list);
}

/*
 * What the limits bound, into *subjects (to free), and how many; 0,
 * having said why, when the capture has no such region, or no process
 * ran command (ran: what they ran).  The tree's leaks are the program's:
 * the suppressed ones left out; a process's too when it is the only one
 * counted, but sites are the tree's, so of several each has all its own.
 */
static size_t
find_subjects(const struct check_args *a, const struct heap_model *h,
	      const struct programs *ran, struct subject **subjects)
{
	struct subject *s = xcalloc(h->nprocs ? h->nprocs : 1, sizeof(*s));
	struct suppressed_leaks hidden;
	uint64_t program_leaks;
	size_t n = 0, i;

	free(sites_suppressed(h, &hidden, &n));
	program_leaks = h->tree.leaked_bytes - hidden.bytes;
	n = 0;
	*subjects = s;
	if (a->region) {
		s->region = region_find(&h->regions, a->region);
		if (!s->region) {
			no_such_region(a, &h->regions);
			return 0;
		}
		s->figure[CHECK_PEAK] = s->region->peak_bytes;
		s->figure[CHECK_ALLOCATIONS] = s->region->allocs;
		return 1;
	}
	if (!a->command) {
		subject_of_stats(s, &h->tree, program_leaks);
		return 1;
	}
	/* The replay's filter counted the processes that ran command. */
	for (i = 0; i < h->nprocs; i++) {
		s[n].process = h->procs[i];
		subject_of_stats(&s[n++], &h->procs[i]->stats,
				 h->nprocs == 1 ? program_leaks
						: h->procs[i]->stats.leaked_bytes);
	}
	if (!n)
		no_such_command(a, ran);
	return n;
}

/*
 * Whether every figure the limits read is the run's, else says why not:
 * lost records or calls, or leaks of a process that did not exit.
 */
static bool
figures_known(const struct check_args *a, const struct replay *p)
{
	const struct heap_model *h = &p->heap;
	size_t i;

	if (replay_incomplete(p)) {
		error_msg("check: %s is incomplete (records or calls lost, or "
			  "processes untraced): its figures are not the run's, so "
			  "no limit can be checked", a->file);
		return false;
	}
	if (!a->given[CHECK_LEAKED] || replay_cut(p))
		return true;
	for (i = 0; i < h->nprocs; i++) {
		const struct heap_process *proc = h->procs[i];

		if (proc->exited)
			continue;
		error_msg("check: process %" PRIu32 " (%s) of %s had not exited when "
			  "the capture ended: its leaks are not known (--max-leaked)",
			  proc->pid, proc->image ? basename(proc->image) : "?", a->file);
		return false;
	}
	return true;
}

/* A capture cut short holds a part of the run, whose figures only grow. */
static enum verdict
verdict_of(const struct check_args *a, const struct replay *p,
	   const struct subject *s, enum check_figure f)
{
	if (s->figure[f] > a->max[f])
		return BROKEN;
	return replay_cut(p) ? UNKNOWN : HOLDS;
}

static const char *
amount(char buf[HUMAN_MAX], enum check_figure f, uint64_t v)
{
	return figures[f].bytes ? human_bytes(buf, v) : human_count(buf, v);
}

/*
 * The site with the largest value of f's metric in the tree; false when
 * none has any.  Sites are the tree's: a region's or a process's share
 * of one is not known.
 */
static bool
top_site(const struct heap_model *h, enum check_figure f, uint32_t *site)
{
	size_t count;
	uint32_t *order = sites_ranked(h, figures[f].metric, &count);

	*site = count ? order[0] : 0;
	free(order);
	return count > 0;
}

/* Whether the subject's top site is its own, not only the tree's. */
static bool
sites_are_subjects(const struct heap_model *h, const struct subject *s)
{
	return !s->region && (!s->process || h->nprocs == 1);
}

static void
print_top_site_text(FILE *out, struct replay *p, const struct subject *s,
		    enum check_figure f)
{
	char label[512], value[HUMAN_MAX];
	const char *where;
	uint32_t site;
	uint64_t v;

	if (!top_site(&p->heap, f, &site))
		return;
	site_user_frame(&p->symbolizer, &p->sites, site, label, sizeof(label), &where);
	v = site_metric_value(&p->heap, site, figures[f].metric);
	fprintf(out, "; top site%s: %s", sites_are_subjects(&p->heap, s) ? "" :
		" in the tree", label);
	if (where[0])
		fprintf(out, " (%s)", where);
	if (figures[f].bytes)
		fprintf(out, ", %s%s", human_bytes(value, v), figures[f].site_figure);
	else
		fprintf(out, ", %s allocation%s", human_count(value, v), plural(v));
}

static void
print_broken_text(FILE *out, struct replay *p, const struct check_args *a,
		  const struct subject *s, enum check_figure f)
{
	char figure[HUMAN_MAX], limit[HUMAN_MAX];

	if (s->region)
		fprintf(out, "region %s: ", s->region->name);
	else if (s->process)
		fprintf(out, "process %" PRIu32 " (%s): ", s->process->pid,
			basename(s->process->image));
	fprintf(out, "%s %s, over the limit of %s",
		s->region ? figures[f].region_title : figures[f].title,
		amount(figure, f, s->figure[f]), amount(limit, f, a->max[f]));
	print_top_site_text(out, p, s, f);
	fputc('\n', out);
}

/* Every verdict as text: the broken limits, or that all hold. */
static void
print_text(FILE *out, struct replay *p, const struct check_args *a,
	   const struct subject *s, size_t n, const enum verdict *v)
{
	size_t i, limits = 0, broken = 0;
	enum check_figure f;

	for (i = 0; i < n; i++) {
		for (f = 0; f < CHECK_FIGURES; f++) {
			if (!a->given[f])
				continue;
			if (!i)
				limits++;
			if (v[i * CHECK_FIGURES + f] != BROKEN)
				continue;
			print_broken_text(out, p, a, &s[i], f);
			broken++;
		}
	}
	if (broken || replay_cut(p))
		return;
	if (limits == 1)
		fputs("the limit holds", out);
	else
		fprintf(out, "all %zu limits hold", limits);
	if (a->region)
		fprintf(out, " in region %s", a->region);
	else if (a->command && n == 1)
		fprintf(out, " in process %" PRIu32 ", which ran %s", s->process->pid,
			a->command);
	else if (a->command)
		fprintf(out, " in each of the %zu processes that ran %s", n, a->command);
	fputc('\n', out);
}

static void
print_top_site_json(FILE *out, struct replay *p, const struct subject *s,
		    enum check_figure f)
{
	char label[512];
	const char *where;
	uint32_t site;

	if (!top_site(&p->heap, f, &site)) {
		fputs("null", out);
		return;
	}
	site_user_frame(&p->symbolizer, &p->sites, site, label, sizeof(label), &where);
	fputs("{\"name\": ", out);
	json_string(out, label);
	fputs(", \"where\": ", out);
	json_string(out, where[0] ? where : NULL);
	fprintf(out, ", \"value\": %" PRIu64 ", \"in_tree\": %s}",
		site_metric_value(&p->heap, site, figures[f].metric),
		sites_are_subjects(&p->heap, s) ? "false" : "true");
}

static void
print_json(FILE *out, struct replay *p, const struct check_args *a,
	   const struct subject *s, size_t n, const enum verdict *v, bool passed)
{
	const char *sep = "\n  ";
	enum check_figure f;
	size_t i;

	fputs("{\"memsup_check\": 1,\n\"capture\": ", out);
	json_string(out, a->file);
	fputs(",\n\"command\": ", out);
	json_string(out, replay_command(p));
	fprintf(out, ",\n\"cut\": %s,\n\"passed\": %s,\n\"limits\": [",
		replay_cut(p) ? "true" : "false", passed ? "true" : "false");
	for (i = 0; i < n; i++) {
		for (f = 0; f < CHECK_FIGURES; f++) {
			enum verdict verdict = v[i * CHECK_FIGURES + f];

			if (!a->given[f])
				continue;
			fprintf(out, "%s{\"limit\": \"%s\", \"max\": %" PRIu64
				", \"figure\": %" PRIu64 ", \"verdict\": \"%s\", ", sep,
				figures[f].name, a->max[f], s[i].figure[f],
				verdict_names[verdict]);
			if (s[i].region) {
				fputs("\"scope\": \"region\", \"region\": ", out);
				json_string(out, s[i].region->name);
			} else if (s[i].process) {
				fprintf(out, "\"scope\": \"process\", \"pid\": %" PRIu32
					", \"image\": ", s[i].process->pid);
				json_string(out, s[i].process->image);
			} else {
				fputs("\"scope\": \"tree\"", out);
			}
			fputs(", \"top_site\": ", out);
			if (verdict == BROKEN)
				print_top_site_json(out, p, &s[i], f);
			else
				fputs("null", out);
			fputc('}', out);
			sep = ",\n  ";
		}
	}
	fputs(n ? "\n]}\n" : "]}\n", out);
}

/* The limits checked on a capture read: 0, or the exit status. */
static int
check_capture(struct replay *p, const struct check_args *a, const struct programs *ran)
{
	struct subject *s;
	enum verdict *v;
	bool broken = false, unknown = false;
	size_t n, i;
	enum check_figure f;

	n = find_subjects(a, &p->heap, ran, &s);
	if (!n || !figures_known(a, p)) {
		free(s);
		return MS_EXIT_FAILURE;
	}
	v = xcalloc(n * CHECK_FIGURES, sizeof(*v));
	for (i = 0; i < n; i++) {
		for (f = 0; f < CHECK_FIGURES; f++) {
			if (!a->given[f])
				continue;
			v[i * CHECK_FIGURES + f] = verdict_of(a, p, &s[i], f);
			broken |= v[i * CHECK_FIGURES + f] == BROKEN;
			unknown |= v[i * CHECK_FIGURES + f] == UNKNOWN;
		}
	}
	if (a->format == REPORT_JSON)
		print_json(stdout, p, a, s, n, v, !broken && !unknown);
	else
		print_text(stdout, p, a, s, n, v);
	free(v);
	free(s);
	if (broken)
		return MS_EXIT_OVER_LIMIT;
	if (unknown) {
		error_msg("check: %s was cut short: its figures, within the limits "
			  "so far, are those of a part of the run and can only grow "
			  "after the cut; no limit can pass on it", a->file);
		return MS_EXIT_FAILURE;
	}
	return 0;
}

int
check_main(int argc, char **argv)
{
	struct programs ran = { 0 };
	struct suppressions runtime;
	struct check_args a;
	struct replay p;
	int ret;

	if (!parse_options(argc, argv, &a, &ret))
		return ret;
	if (!check_options(&a, argc - optind))
		return MS_EXIT_FAILURE;
	a.file = argv[optind];
	/* 1 says a limit is broken: a capture that cannot be read is 125. */
	if (replay_read(&p, a.file, NULL, false, &(struct heap_filter){ .command = a.command },
			note_program, &ran)) {
		ret = MS_EXIT_FAILURE;
	} else {
		/* The leaks are the program's: the runtimes' own are expected. */
		suppressions_init(&runtime);
		suppressions_apply(&runtime, &p.symbolizer, &p.sites, &p.heap);
		suppressions_free(&runtime);
		ret = check_capture(&p, &a, &ran);
	}
	replay_close(&p);
	programs_free(&ran);
	if (fflush(stdout) && ret != MS_EXIT_FAILURE) {
		perror_msg("cannot write the check");
		ret = MS_EXIT_FAILURE;
	}
	return ret;
}
