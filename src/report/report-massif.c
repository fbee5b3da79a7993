// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --format=massif: valgrind massif's output file, which ms_print and
 * massif-visualizer read.  A header (desc, cmd, time_unit), then
 * snapshots: a time, the heap's useful bytes, its overhead and the
 * stacks (memsup measures neither: 0), and for the peak the heap tree.
 * That tree is massif's: its root is the allocation functions, each
 * child a call site that called them, each grandchild a call site that
 * called that one, one space of indentation per level, siblings largest
 * first; the children under 1% of the heap are one "below massif's
 * threshold" line, and a chain stops at main or after 30 frames, as
 * massif's defaults do (ms_print reads the tree recursively).  The
 * functions inlined at a call are lines of their own, at its address.
 */
#include "config.h"
#include "report-massif.h"
#include "report-options.h"
#include "error.h"
#include "heap.h"
#include "report-sites.h"
#include "sites.h"
#include "timeline.h"
#include "u64map.h"

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ULL
#define THRESHOLD_PERCENT 1	/* massif's --threshold default */
#define DEPTH 30		/* frames: massif's --depth default */
/* massif-visualizer reads the header's lines into 4096 bytes. */
#define HEADER_TEXT_MAX 4000
#define NO_STACK UINT32_MAX	/* a node's k: the sites without a stack */

/* A call site of the tree: the k-th function of a site frame. */
struct mnode {
	uint64_t frame;
	uint32_t k;		/* inlined ones first, as frame_describe */
	uint64_t bytes;		/* live at the peak, below this call */
	uint32_t first_child, next_sibling;	/* 0: none (node 0 is the root) */
};

/*
 * Found by hash, not by walking siblings: the root has a child per
 * innermost call, thousands in a large program.
 */
struct mtree {
	struct mnode *v;
	uint32_t n;
	size_t cap;
	/* frame -> the number of its first function; 0 is no stack */
	struct u64map calls;
	uint32_t ncalls;
	struct u64map children;	/* parent << 32 | call -> node */
};

/* The number of frame's first function, of its nk: the others follow it. */
static uint32_t
call_of(struct mtree *t, uint64_t frame, size_t nk)
{
	struct u64map_slot *found = u64map_find(&t->calls, frame);

	if (found)
		return (uint32_t)found->value;
	u64map_put(&t->calls, frame, t->ncalls);
	t->ncalls += (uint32_t)nk;
	return t->ncalls - (uint32_t)nk;
}

static uint32_t
child_of(struct mtree *t, uint32_t parent, uint32_t call, uint64_t frame, uint32_t k)
{
	uint64_t key = (uint64_t)parent << 32 | call;
	struct u64map_slot *found = u64map_find(&t->children, key);

	if (found)
		return (uint32_t)found->value;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = (struct mnode){
		.frame = frame,
		.k = k,
		.next_sibling = t->v[parent].first_child,
	};
	t->v[parent].first_child = t->n;
	u64map_put(&t->children, key, t->n);
	return t->n++;
}

/* Adds a site's chain below the root, innermost call first. */
static void
add_chain(struct mtree *t, const struct sites *s, struct symbolizer *z, uint32_t site,
	  uint64_t bytes)
{
	const uint64_t *frames;
	struct frame_name f;
	uint32_t n = 0, i, node = 0, call;
	size_t k, nk;

	t->v[0].bytes += bytes;
	frames = sites_frames(s, site, &n);
	if (!frames || !n) {
		t->v[child_of(t, 0, 0, 0, NO_STACK)].bytes += bytes;
		return;
	}
	for (i = 0; i < n && i < DEPTH; i++) {
		nk = frame_describe(z, s, frames[i], 0, &f);
		call = call_of(t, frames[i], nk);
		for (k = 0; k < nk; k++) {
			if (k)
				frame_describe(z, s, frames[i], k, &f);
			node = child_of(t, node, call + (uint32_t)k, frames[i], (uint32_t)k);
			t->v[node].bytes += bytes;
			if (f.function && !strcmp(f.function, "main"))
				return;
		}
	}
}

/* text, at most max bytes, on one line. */
static void
print_text(FILE *out, const char *text, size_t max)
{
	for (; *text && max; text++, max--)
		fputc(*text == '\n' || *text == '\r' ? ' ' : *text, out);
}

/* "0xOFFSET: function (file:line)", or "(in FILE)" without a line. */
static void
print_call(FILE *out, const struct sites *s, struct symbolizer *z, const struct mnode *m)
{
	struct frame_name f;

	if (m->k == NO_STACK) {
		fputs("0x0: [no stack]", out);
		return;
	}
	frame_describe(z, s, m->frame, m->k, &f);
	fprintf(out, "0x%" PRIX64 ": ", SITE_FRAME_OFFSET(m->frame));
	print_text(out, f.function ? f.function : "???", SIZE_MAX);
	if (f.where[0]) {
		fputs(" (", out);
		print_text(out, f.where, SIZE_MAX);
		fputc(')', out);
	} else if (SITE_FRAME_MODULE(m->frame)) {
		fputs(" (in ", out);
		print_text(out, f.path, SIZE_MAX);
		fputc(')', out);
	}
}

/* Node indices, their bytes largest first, then in the order they came. */
static int
larger_first(const void *a, const void *b, void *tree)
{
	const struct mnode *v = ((const struct mtree *)tree)->v;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (v[x].bytes != v[y].bytes)
		return v[x].bytes < v[y].bytes ? 1 : -1;
	return x < y ? -1 : x > y;
}

static void
print_insignificant(FILE *out, unsigned int depth, uint64_t bytes, size_t places)
{
	fprintf(out, "%*sn0: %" PRIu64 " in %zu place%s below massif's threshold (%d.00%%)\n",
		(int)depth, "", bytes, places, places == 1 ? "," : "s, all",
		THRESHOLD_PERCENT);
}

/* A node and, below the threshold, its children, as massif prints them. */
static void
print_node(FILE *out, const struct mtree *t, const struct sites *s, struct symbolizer *z,
	   uint32_t node, unsigned int depth, uint64_t threshold)
{
	uint64_t small_bytes = 0;
	size_t nkids = 0, nsmall = 0, i;
	bool small_done;
	uint32_t c, *kids;

	for (c = t->v[node].first_child; c; c = t->v[c].next_sibling)
		nkids++;
	kids = xcalloc(nkids ? nkids : 1, sizeof(*kids));
	for (i = 0, c = t->v[node].first_child; c; c = t->v[c].next_sibling, i++) {
		kids[i] = c;
		if (t->v[c].bytes < threshold) {
			small_bytes += t->v[c].bytes;
			nsmall++;
		}
	}
	if (nkids)	/* qsort_r may not be given NULL */
		qsort_r(kids, nkids, sizeof(*kids), larger_first, (void *)t);
	fprintf(out, "%*sn%zu: %" PRIu64 " ", (int)depth, "",
		nkids - nsmall + (nsmall ? 1 : 0), t->v[node].bytes);
	if (node)
		print_call(out, s, z, &t->v[node]);
	else
		fputs("(heap allocation functions) malloc/new/new[], --alloc-fns, etc.", out);
	fputc('\n', out);
	/* The small ones' line among its siblings by its size, as massif sorts. */
	small_done = !nsmall;
	for (i = 0; i < nkids && t->v[kids[i]].bytes >= threshold; i++) {
		if (!small_done && t->v[kids[i]].bytes < small_bytes) {
			print_insignificant(out, depth + 1, small_bytes, nsmall);
			small_done = true;
		}
		print_node(out, t, s, z, kids[i], depth + 1, threshold);
	}
	if (!small_done)
		print_insignificant(out, depth + 1, small_bytes, nsmall);
	free(kids);
}

/* The tree of the bytes live at the tree's peak. */
static void
print_peak_tree(FILE *out, const struct heap_model *h, const struct sites *s,
		struct symbolizer *z)
{
	struct mtree t = { .n = 1, .ncalls = 1 };
	uint32_t *order;
	size_t count, i;

	t.v = xgrow(NULL, &t.cap, 1, sizeof(*t.v));
	t.v[0] = (struct mnode){ 0 };
	u64map_init(&t.calls);
	u64map_init(&t.children);
	order = sites_ranked(h, METRIC_PEAK, &count);
	for (i = 0; i < count; i++)
		add_chain(&t, s, z, order[i], site_metric_value(h, order[i], METRIC_PEAK));
	free(order);
	print_node(out, &t, s, z, 0, 0, t.v[0].bytes * THRESHOLD_PERCENT / 100);
	u64map_free(&t.children);
	u64map_free(&t.calls);
	free(t.v);
}

static void
print_snapshot(FILE *out, unsigned int n, uint64_t time_ms, uint64_t bytes,
	       const char *heap_tree)
{
	fprintf(out, "#-----------\nsnapshot=%u\n#-----------\ntime=%" PRIu64 "\n"
		"mem_heap_B=%" PRIu64 "\nmem_heap_extra_B=0\nmem_stacks_B=0\n"
		"heap_tree=%s\n", n, time_ms, bytes, heap_tree);
}

void
report_massif(FILE *out, const char *command, const struct heap_model *h,
	      const struct timeline *t, const struct sites *s, struct symbolizer *z)
{
	const uint64_t *slots = t->series[0]->max;
	uint64_t peak = h->tree.peak_bytes;
	size_t peak_slot = h->tree.peak_time_ns / t->slot_ns, i;
	char filter[PATH_MAX];
	unsigned int n = 0;

	if (h->filter.pid || h->filter.command)
		fprintf(out, "desc: (memsup) the live heap of the processes counted with%s\ncmd: ",
			report_filter_options(filter, sizeof(filter), &h->filter));
	else
		fputs("desc: (memsup) the live heap of the whole process tree\ncmd: ", out);
	print_text(out, command, HEADER_TEXT_MAX);
	fputs("\ntime_unit: ms\n", out);
	/* Nothing allocated: the start is the peak, of nothing. */
	print_snapshot(out, n++, 0, 0, peak ? "empty" : "peak");
	if (!peak)
		print_peak_tree(out, h, s, z);
	for (i = 0; i < TIMELINE_SLOTS; i++) {
		uint64_t time_ms = i * t->slot_ns / NS_PER_MS;

		if (slots[i] == TIMELINE_EMPTY)
			continue;
		if (peak && i == peak_slot) {
			print_snapshot(out, n++, time_ms, peak, "peak");
			print_peak_tree(out, h, s, z);
		} else {
			print_snapshot(out, n++, time_ms, slots[i], "empty");
		}
	}
}
