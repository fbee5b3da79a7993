// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-sites.h"
#include "error.h"
#include "heap.h"
#include "sites.h"
#include "symbolize.h"

#include <inttypes.h>
#include <stdlib.h>

struct ranked {
	uint32_t site;
	uint64_t value;
};

static int
by_value_descending(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static void
print_chain(FILE *out, const struct sites *s, struct symbolizer *z, uint32_t site)
{
	const uint64_t *frames;
	uint32_t n, i;

	frames = sites_frames(s, site, &n);
	if (!frames) {
		fprintf(out, "        (no stack)\n");
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t module = SITE_FRAME_MODULE(frames[i]);
		const char *path = module ? s->spaces.modules[module - 1].path : "?";
		const char *why, *name;
		char where[4200];
		uint64_t offset;

		name = symbolize(z, s, frames[i], &offset, &why, where, sizeof(where));
		if (name && where[0])
			fprintf(out, "        %s+0x%" PRIx64 " (%s, %s)\n", name, offset,
				where, path);
		else if (name)
			fprintf(out, "        %s+0x%" PRIx64 " (%s)\n", name, offset, path);
		else
			fprintf(out, "        %s+0x%" PRIx64 " (%s)\n", path,
				SITE_FRAME_OFFSET(frames[i]), why);
	}
}

static void
print_top(FILE *out, const struct heap_model *h, const struct sites *s,
	  struct symbolizer *z, size_t n, const char *title,
	  uint64_t (*value)(const struct heap_model *h, uint32_t site))
{
	struct ranked *order = xcalloc(h->nsites, sizeof(*order));
	size_t i, count = 0;

	for (i = 0; i < h->nsites; i++) {
		uint64_t v = value(h, (uint32_t)i);

		if (v)
			order[count++] = (struct ranked){ (uint32_t)i, v };
	}
	qsort(order, count, sizeof(*order), by_value_descending);
	fprintf(out, "top sites by %s:\n", title);
	if (!count)
		fprintf(out, "  none\n");
	for (i = 0; i < count && i < n; i++) {
		const struct heap_site *st = &h->sites[order[i].site];

		fprintf(out, "  #%zu %" PRIu64 " allocations, %" PRIu64 " bytes; %"
			PRIu64 " bytes live at the peak; %" PRIu64 " bytes leaked in %"
			PRIu64 " blocks\n", i + 1, st->allocs, st->bytes_allocated,
			heap_site_peak_bytes(h, order[i].site), st->leaked_bytes,
			st->leaked_blocks);
		print_chain(out, s, z, order[i].site);
	}
	free(order);
}

static uint64_t
peak_of(const struct heap_model *h, uint32_t site)
{
	return heap_site_peak_bytes(h, site);
}

static uint64_t
leaked_of(const struct heap_model *h, uint32_t site)
{
	return h->sites[site].leaked_bytes;
}

static uint64_t
allocs_of(const struct heap_model *h, uint32_t site)
{
	return h->sites[site].allocs;
}

void
sites_print(FILE *out, const struct heap_model *h, const struct sites *s,
	    struct symbolizer *z, size_t n)
{
	print_top(out, h, s, z, n, "bytes live at the peak", peak_of);
	print_top(out, h, s, z, n, "leaked bytes", leaked_of);
	print_top(out, h, s, z, n, "allocations", allocs_of);
}
