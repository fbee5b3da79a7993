// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flame graph: the sites' chains merged into one tree of frames by
 * name, each frame as wide as the value of the sites below it, drawn as
 * SVG with the outermost frame at the bottom.  A short script makes it
 * interactive: hovering shows a frame's value, clicking zooms to it.  A
 * diff's graph is drawn from the chains of two captures, coloured by
 * their change.
 */
#include "config.h"
#include "flamegraph.h"
#include "error.h"
#include "heap.h"
#include "markup.h"
#include "sites.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define GRAPH_WIDTH	1200
#define FRAME_HEIGHT	16
#define GRAPH_TOP	40	/* title and details above the frames */
#define CHAR_WIDTH	7	/* of the 12px font, for labels that fit */
#define MIN_WIDTH	0.3	/* pixels: narrower frames are left out */
#define TITLE_MAX	60	/* characters of the command, after the metric */

struct fnode {
	char *name;
	uint64_t value;		/* the width: in a diff, max(a, b) per chain */
	uint64_t a, b;		/* a diff's values in A and in B */
	uint32_t first_child, next_sibling;	/* 0: none (node 0 is the root) */
};

struct ftree {
	struct fnode *v;
	uint32_t n;
	size_t cap;
	uint32_t depth;		/* the deepest frame's, root 0 */
	bool diff;
};

static uint32_t
child_named(struct ftree *t, uint32_t parent, const char *name)
{
	uint32_t c, last = 0;

	for (c = t->v[parent].first_child; c; c = t->v[c].next_sibling) {
		if (!strcmp(t->v[c].name, name))
			return c;
		last = c;
	}
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = (struct fnode){ .name = xstrdup(name) };
	if (last)
		t->v[last].next_sibling = t->n;
	else
		t->v[parent].first_child = t->n;
	return t->n++;
}

static void
init_tree(struct ftree *t, bool diff)
{
	t->v = xcalloc(1, sizeof(*t->v));
	t->cap = 1;
	t->v[0].name = xstrdup("all");
	t->n = 1;
	t->depth = 0;
	t->diff = diff;
}

static void
build_tree(struct ftree *t, const struct heap_model *h, const struct sites *s,
	   struct symbolizer *z, enum site_metric m)
{
	char label[1024];
	uint32_t site;

	init_tree(t, false);
	for (site = 0; site < h->nsites; site++) {
		uint64_t value = site_metric_value(h, site, m);
		const uint64_t *frames;
		uint32_t n = 0, i, node = 0, depth = 0;
		size_t k, nk;

		if (!value)
			continue;
		t->v[0].value += value;
		frames = sites_frames(s, site, &n);
		if (!frames || !n) {
			node = child_named(t, 0, "[no stack]");
			t->v[node].value += value;
			depth = 1;
		}
		for (i = frames ? n : 0; i-- > 0;) {
			nk = frame_label(label, sizeof(label), z, s, frames[i], 0);
			for (k = nk; k-- > 0; depth++) {
				frame_label(label, sizeof(label), z, s, frames[i], k);
				node = child_named(t, node, label);
				t->v[node].value += value;
			}
		}
		if (depth > t->depth)
			t->depth = depth;
	}
}

/* A diff's tree: its chains' frames are names joined by ';', outermost first. */
static void
build_diff_tree(struct ftree *t, const struct flame_chain *chains, size_t n)
{
	char label[1024];
	size_t i;

	init_tree(t, true);
	for (i = 0; i < n; i++) {
		const struct flame_chain *c = &chains[i];
		uint64_t width = c->a > c->b ? c->a : c->b;
		const char *frame = c->name, *end;
		uint32_t node = 0, depth = 0;

		if (!width)
			continue;
		for (;;) {
			struct fnode *f = &t->v[node];

			f->value += width;
			f->a += c->a;
			f->b += c->b;
			if (!*frame)
				break;
			end = strchr(frame, ';');
			if (!end)
				end = frame + strlen(frame);
			snprintf(label, sizeof(label), "%.*s", (int)(end - frame), frame);
			node = child_named(t, node, label);
			depth++;
			frame = *end ? end + 1 : end;
		}
		if (depth > t->depth)
			t->depth = depth;
	}
}

static void
free_tree(struct ftree *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

/* A warm colour from the name, the same for the same function. */
static void
colour(const char *name, unsigned int rgb[3])
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	rgb[0] = 205 + h % 50;
	rgb[1] = 80 + (h >> 8) % 130;
	rgb[2] = 40 + (h >> 16) % 40;
}

/*
 * A diff's frame: red as it grew from A to B, blue as it shrank, by the
 * change's share of the frame; grey when it did not change, which no
 * shade of red or blue may suggest.
 */
static void
change_colour(const struct fnode *f, unsigned int rgb[3])
{
	uint64_t change = f->b >= f->a ? f->b - f->a : f->a - f->b;
	unsigned int fade = (unsigned int)(200.0 * (1.0 - (double)change / (double)f->value));

	if (!change) {
		rgb[0] = rgb[1] = rgb[2] = 220;
		return;
	}
	rgb[0] = f->b >= f->a ? 255 : fade;
	rgb[1] = fade;
	rgb[2] = f->b >= f->a ? fade : 255;
}

static void
draw(FILE *out, const struct ftree *t, uint32_t node, uint32_t depth, uint64_t start,
     const char *unit)
{
	const struct fnode *f = &t->v[node];
	double total = (double)t->v[0].value;
	double x = 10 + (double)start / total * (GRAPH_WIDTH - 20);
	double w = (double)f->value / total * (GRAPH_WIDTH - 20);
	double y = GRAPH_TOP + (double)(t->depth - depth) * FRAME_HEIGHT;
	size_t fit = w > 2 * CHAR_WIDTH ? (size_t)(w - 6) / CHAR_WIDTH : 0;
	unsigned int rgb[3];
	uint32_t c;

	if (w < MIN_WIDTH)
		return;
	/* data-: where the frame lies, for zooming: start and width in values. */
	fprintf(out, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-w=\"%" PRIu64
		"\" data-d=\"%" PRIu32 "\"><title>", start, f->value, depth);
	markup_text(out, f->name, SIZE_MAX);
	if (t->diff) {
		change_colour(f, rgb);
		fprintf(out, " (%" PRIu64 " to %" PRIu64 " %s, %s%" PRIu64 ")", f->a, f->b,
			unit, f->b >= f->a ? "+" : "-", f->b >= f->a ? f->b - f->a : f->a - f->b);
	} else {
		colour(f->name, rgb);
		fprintf(out, " (%" PRIu64 " %s, %.2f%%)", f->value, unit,
			100.0 * (double)f->value / total);
	}
	fprintf(out, "</title><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">", x, y, w, FRAME_HEIGHT - 1,
		rgb[0], rgb[1], rgb[2], x + 3, y + 11.5);
	if (fit >= 3 && strlen(f->name) > fit) {
		markup_text(out, f->name, fit - 2);
		fputs("..", out);
	} else if (fit >= 3) {
		markup_text(out, f->name, fit);
	}
	fputs("</text></g>\n", out);
	for (c = f->first_child; c; c = t->v[c].next_sibling) {
		draw(out, t, c, depth + 1, start, unit);
		start += t->v[c].value;
	}
}

/* Zoom: the clicked frame fills the width, its ancestors span it, others hide. */
static const char script[] =
	"var W = %d, P = 10;\n"
	"function place(g, s0, w0, d0) {\n"
	"  var s = +g.dataset.s, w = +g.dataset.w, d = +g.dataset.d;\n"
	"  var inside = s >= s0 && s + w <= s0 + w0 && d >= d0;\n"
	"  var above = d < d0 && s <= s0 && s + w >= s0 + w0;\n"
	"  if (!inside && !above) { g.style.display = 'none'; return; }\n"
	"  g.style.display = '';\n"
	"  var x = inside ? P + (s - s0) / w0 * (W - 2 * P) : P;\n"
	"  var width = inside ? w / w0 * (W - 2 * P) : W - 2 * P;\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  var name = g.querySelector('title').textContent.replace(/ \\([^()]*\\)$/, '');\n"
	"  var fit = Math.floor((width - 6) / %d);\n"
	"  r.setAttribute('x', x); r.setAttribute('width', width);\n"
	"  t.setAttribute('x', x + 3);\n"
	"  t.textContent = fit < 3 ? '' : name.length > fit ? name.slice(0, fit - 2) + '..' : name;\n"
	"}\n"
	"function zoom(g) {\n"
	"  var s0 = +g.dataset.s, w0 = +g.dataset.w, d0 = +g.dataset.d;\n"
	"  document.querySelectorAll('g.f').forEach(function (f) { place(f, s0, w0, d0); });\n"
	"}\n"
	"document.querySelectorAll('g.f').forEach(function (g) {\n"
	"  g.addEventListener('click', function () { zoom(g); });\n"
	"  g.addEventListener('mouseover', function () {\n"
	"    document.getElementById('details').textContent = g.querySelector('title').textContent;\n"
	"  });\n"
	"});\n"
	"document.getElementById('reset').addEventListener('click', function () {\n"
	"  zoom(document.querySelector('g.f'));\n"
	"});\n";

static void
write_svg(FILE *out, const struct ftree *t, enum site_metric m, const char *title)
{
	int height = GRAPH_TOP + (int)(t->depth + 1) * FRAME_HEIGHT + 10;

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n"
		"<style>g.f { cursor: pointer; } g.f:hover rect { stroke: #000; "
		"stroke-width: 0.5; } text { pointer-events: none; }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		"<text x=\"%d\" y=\"16\" text-anchor=\"middle\" font-size=\"15\">",
		GRAPH_WIDTH, height, GRAPH_WIDTH, height, GRAPH_WIDTH / 2);
	/*
	 * The metric, then the command: a command's own colons
	 * ("sqlite3 :memory:") ran into a "COMMAND: metric" separator.  Short
	 * enough to clear "Reset zoom" on its left.
	 */
	fprintf(out, "%s%s &#8212; ", site_metric_title(m),
		t->diff ? ", from A to B (red grew, blue shrank)" : "");
	markup_text(out, title, TITLE_MAX);
	if (strlen(title) > TITLE_MAX)
		fputs("...", out);
	fputs("</text>\n<text id=\"reset\" x=\"10\" y=\"16\" "
	      "style=\"cursor: pointer\" fill=\"#06c\">Reset zoom</text>\n"
	      "<text id=\"details\" x=\"10\" y=\"32\"> </text>\n", out);
	if (t->v[0].value)
		draw(out, t, 0, 0, 0, site_metric_title(m));
	else
		fprintf(out, "<text x=\"10\" y=\"%d\">No site has any.</text>\n",
			GRAPH_TOP + 12);
	fputs("<script><![CDATA[\n", out);
	fprintf(out, script, GRAPH_WIDTH, CHAR_WIDTH);
	fputs("]]></script>\n</svg>\n", out);
}

void
flamegraph_svg(FILE *out, const struct heap_model *h, const struct sites *s,
	       struct symbolizer *z, enum site_metric m, const char *title)
{
	struct ftree t;

	build_tree(&t, h, s, z, m);
	write_svg(out, &t, m, title);
	free_tree(&t);
}

void
flamegraph_diff_svg(FILE *out, const struct flame_chain *chains, size_t n,
		    enum site_metric m, const char *title)
{
	struct ftree t;

	build_diff_tree(&t, chains, n);
	write_svg(out, &t, m, title);
	free_tree(&t);
}
