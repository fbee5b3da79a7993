// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-top.h"
#include "heap.h"
#include "human-numbers.h"
#include "report-sites.h"
#include "sites.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool
has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * What the distribution installed is not the program's own code: the
 * libraries, and the headers whose templates are inlined into it.
 */
static bool
system_file(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/",
					    "/usr/lib64/", "/usr/include/" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_prefix(path, dirs[i]))
			return true;
	return false;
}

void
site_user_frame(struct symbolizer *z, const struct sites *s, uint32_t site, char *label,
		size_t size, const char **where)
{
	const uint64_t *frames;
	struct frame_name f;
	uint32_t n, i;
	size_t k, nk;

	frames = sites_frames(s, site, &n);
	snprintf(label, size, "(no stack)");
	*where = "";
	for (i = 0; frames && i < n; i++) {
		for (k = 0, nk = 1; k < nk; k++) {
			nk = frame_describe(z, s, frames[i], k, &f);
			if (!f.function || system_file(f.path) || system_file(f.where))
				continue;
			frame_label(label, size, z, s, frames[i], k);
			*where = f.where;
			return;
		}
	}
	if (frames && n) {
		frame_label(label, size, z, s, frames[0], 0);
		frame_describe(z, s, frames[0], 0, &f);
		*where = f.where;
	}
}

void
report_top_sites(FILE *out, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z, const char *path, size_t n)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], label[512];
	const char *where;
	size_t i, count;
	uint32_t *order = sites_ranked(h, METRIC_PEAK, &count);

	if (count && path)
		fprintf(out, "top sites by bytes live at the peak (all of them: "
			"memsup report %s):\n", path);
	else if (count)
		fprintf(out, "top sites by bytes live at the peak:\n");
	for (i = 0; i < count && i < n; i++) {
		const struct heap_site *st = &h->sites[order[i]];

		site_user_frame(z, s, order[i], label, sizeof(label), &where);
		fprintf(out, "  #%zu %s in %s allocation%s at %s", i + 1,
			human_bytes(a, heap_site_peak_bytes(h, order[i])),
			human_count(b, st->allocs), plural(st->allocs), label);
		if (where[0])
			fprintf(out, " (%s)", where);
		fputc('\n', out);
	}
	free(order);
}
