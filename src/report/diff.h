/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memsup diff: what changed between two captures. */
#ifndef MEMSUP_DIFF_H
#define MEMSUP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "human-numbers.h"
#include "report-sites.h"

struct heap_stats;
struct region_stats;
struct replay;

/* A chain, and what it did in A (side 0) and in B (side 1). */
struct chain {
	char *name;		/* folded: outermost frame first */
	/*
	 * Each frame's "file:line", or "", in the order of name, joined by
	 * ";": B's when B has the chain (lines move between builds; names
	 * match chains).
	 */
	char *sources;
	/*
	 * Its allocation point (points.h): the point frame's names, joined
	 * as name's are, and how many of name's names, from the innermost,
	 * end with them.
	 */
	char *point;
	size_t inner;
	struct site_figures side[2];	/* its sites summed */
};

/*
 * Every chain of A and B, by largest change of the metric first.  Sites
 * without a stack have no chain to match: they are summed apart, or the
 * stacks a capture dropped would show as a change of "[no stack]".
 */
struct chains {
	struct chain *v;
	size_t n, cap;
	struct site_figures no_stack[2];	/* A's, B's */
};

int diff_main(int argc, char **argv);

/* What a figure counts, so that each is shown with its unit. */
enum diff_unit {
	DIFF_COUNT,
	DIFF_BYTES,
};

typedef void (*diff_figure_fn)(void *ctx, const char *name, enum diff_unit unit,
			       uint64_t a, uint64_t b);

/* v as the text and HTML diffs show it: "4.6 KiB", "1,234". */
const char *diff_figure(char buf[HUMAN_MAX], enum diff_unit unit, uint64_t v);

/* Calls fn for each whole-tree figure a diff compares, with A's and B's. */
void diff_foreach_tree_figure(const struct heap_stats *a, const struct heap_stats *b,
			      diff_figure_fn fn, void *ctx);

/* Calls fn for each figure of a chain, with A's and B's, in the reports' order. */
void diff_foreach_chain_figure(const struct site_figures *a, const struct site_figures *b,
			       diff_figure_fn fn, void *ctx);

/*
 * A chain's frames innermost first, as memsup report lists them, one a
 * call: *end is NULL for the first.  Returns NULL past the last; *len is
 * the frame's length.
 */
const char *diff_prev_frame(const char *chain, const char **end, size_t *len);

/* Adds f's figures to t's. */
void diff_figures_add(struct site_figures *t, const struct site_figures *f);
/* How much the chain's metric changed, either way. */
uint64_t diff_change(const struct chain *ch, enum site_metric m);

/* The chains of one allocation point, summed: the diff's default ranking. */
struct diff_point {
	const char *name;		/* as struct chain's point */
	struct site_figures side[2];
	size_t *chains;			/* indexes into the chains, by largest change */
	size_t nchains;
};

/*
 * The points of c's chains (c ranked by m), by largest change of m
 * first, ties by name; how many in *count.  Free with diff_points_free().
 */
struct diff_point *diff_points(const struct chains *c, enum site_metric m, size_t *count);
void diff_points_free(struct diff_point *v, size_t n);
/* How many names a folded list holds. */
size_t diff_names_in(const char *folded);
/* How much the point's metric changed, either way. */
uint64_t diff_point_change(const struct diff_point *pt, enum site_metric m);
/*
 * The names of ch from the from-th to before the to-th, innermost first,
 * one a line, each with its source line: as the text diff lists them.
 */
void diff_print_names(FILE *out, const struct chain *ch, size_t from, size_t to);

/*
 * Calls fn for each region name of A or B (p[0], p[1]), A's first in
 * their order, with the region of each side (all zeros where that side
 * has none).
 */
void diff_foreach_region(const struct replay *p,
			 void (*fn)(void *ctx, const char *name, const struct region_stats *a,
				    const struct region_stats *b), void *ctx);

/* The differential flame graph of every chain. */
void diff_svg(FILE *out, const struct chains *c, enum site_metric m);

/*
 * --fail-on-increase=PCT[,METRIC]: B fails when the whole tree's metric
 * (the peak by default) grew more than PCT percent from A.
 */
struct increase_gate {
	bool on;
	double percent;
	enum site_metric metric;
	uint64_t a, b;		/* the tree's metric in A and in B */
	bool failed;
};

/* False when arg is not PCT[,METRIC]. */
bool increase_gate_parse(const char *arg, struct increase_gate *g);
/* Reads the metric of A and B (p[0], p[1]) and decides. */
void increase_gate_apply(struct increase_gate *g, const struct replay *p);
/* A failed gate: the growth and the chains that grew most; else nothing. */
void increase_gate_print(FILE *out, const struct increase_gate *g, const struct chains *c);
/* The gate as a JSON object, its verdict and the chains that grew most. */
void increase_gate_json(FILE *out, const struct increase_gate *g, const struct chains *c);

/* The diff as one HTML page: totals, regions, flame graph, chains. */
void diff_html(FILE *out, const struct chains *c, const struct replay *p, size_t top,
	       enum site_metric m, bool by_chain);

#endif
