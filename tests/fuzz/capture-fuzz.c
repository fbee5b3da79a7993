// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: any bytes, read as a capture file and replayed into
 * the report's site resolution and the heap model, must end in a record
 * count or a clear error, never in a crash, a hang or a sanitizer report.
 * A capture read to its end is then reported as JSON, folded stacks,
 * HTML (with its flame graph and chart), massif's file and pprof, its
 * frames named from the names it holds.
 */
#include "capture.h"
#include "flamegraph.h"
#include "heap.h"
#include "record.h"
#include "report-folded.h"
#include "report-html.h"
#include "report-json.h"
#include "report-massif.h"
#include "report-pprof.h"
#include "sites.h"
#include "symbolize.h"
#include "timeline.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_reader *rd;
	struct heap_model heap;
	struct sites sites;
	struct timeline timeline;
	struct symbolizer z;
	struct record r;
	char path[64];
	int n;
	int fd = memfd_create("capture", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rd = capture_open(path);
	close(fd);
	if (!rd)
		return 0;
	heap_init(&heap);
	sites_init(&sites);
	timeline_init(&timeline);
	while ((n = capture_next(rd, &r)) > 0) {
		sites_apply(&sites, &r);
		heap_apply(&heap, &r);
		timeline_apply(&timeline, &heap, &r);
	}
	if (n == 0) {
		static FILE *out;

		if (!out)
			out = fopen("/dev/null", "w");
		symbolizer_init(&z, "/nonexistent");
		z.names = capture_names(rd);
		report_json(out, capture_command(rd), &heap, capture_totals(rd), &sites,
			    &z, 5);
		report_folded(out, &heap, &sites, &z, METRIC_PEAK);
		report_html(out, capture_command(rd), &heap, capture_totals(rd), &timeline,
			    &sites, &z, 5, false);
		report_massif(out, capture_command(rd), &heap, &timeline, &sites, &z);
		fflush(out);
		report_pprof(fileno(out), &heap, &sites, &z);
		symbolizer_free(&z);
	}
	timeline_free(&timeline);
	sites_free(&sites);
	heap_free(&heap);
	capture_close(rd);
	return 0;
}
