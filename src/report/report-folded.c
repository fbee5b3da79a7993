// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-folded.h"
#include "heap.h"
#include "report-sites.h"
#include "sites.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A name with the separators of the format (";" and newlines) replaced. */
static void
print_name(FILE *out, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == '\n' ? ' ' : *name, out);
}

void
folded_chain(FILE *out, const struct sites *s, struct symbolizer *z, uint32_t site)
{
	const uint64_t *frames;
	uint32_t n = 0, i;

	frames = sites_frames(s, site, &n);
	if (!frames || !n) {
		fputs("[no stack]", out);
		return;
	}
	for (i = n; i-- > 0;) {
		folded_frame(out, s, z, frames[i]);
		if (i)
			fputc(';', out);
	}
}

void
folded_frame(FILE *out, const struct sites *s, struct symbolizer *z, uint64_t frame)
{
	char label[1024];
	size_t k, nk;

	nk = frame_label(label, sizeof(label), z, s, frame, 0);
	for (k = nk; k-- > 0;) {
		frame_label(label, sizeof(label), z, s, frame, k);
		print_name(out, label);
		if (k)
			fputc(';', out);
	}
}

void
report_folded(FILE *out, const struct heap_model *h, const struct sites *s,
	      struct symbolizer *z, enum site_metric m)
{
	size_t i, count;
	uint32_t *order = sites_ranked(h, m, &count);

	for (i = 0; i < count; i++) {
		folded_chain(out, s, z, order[i]);
		fprintf(out, " %" PRIu64 "\n", site_metric_value(h, order[i], m));
	}
	free(order);
}
