// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-text.h"
#include "capture.h"
#include "error.h"
#include "heap.h"
#include "human-numbers.h"
#include "record.h"
#include "report-options.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/*
 * How a wait status reads, after exited ("exited " or "") and killed
 * ("killed by " or ""): "exited 3", "killed by SIGKILL"; or "3", "SIGKILL".
 */
static const char *
wait_status_text(int status, const char *exited, const char *killed, char *buf,
		 size_t size)
{
	const char *name;

	if (WIFEXITED(status)) {
		snprintf(buf, size, "%s%d", exited, WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		name = sigabbrev_np(WTERMSIG(status));
		if (name)
			snprintf(buf, size, "%sSIG%s", killed, name);
		else
			snprintf(buf, size, "%ssignal %d", killed, WTERMSIG(status));
	} else {
		snprintf(buf, size, "wait status 0x%x", (unsigned)status);
	}
	return buf;
}

const char *
describe_wait_status(int status, char *buf, size_t size)
{
	return wait_status_text(status, "exited ", "killed by ", buf, size);
}

static double
seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void
print_stats(FILE *out, const struct heap_stats *st)
{
	char a[HUMAN_MAX], b[HUMAN_MAX];

	fprintf(out, "    allocations:    %s for %s\n", human_count(a, st->allocs),
		human_bytes(b, st->bytes_allocated));
	fprintf(out, "    frees:          %s\n", human_count(a, st->frees));
	fprintf(out, "    temporary:      %s\n", human_count(a, st->temporary));
	fprintf(out, "    peak live heap: %s at %.6f s\n", human_bytes(a, st->peak_bytes),
		seconds(st->peak_time_ns));
	fprintf(out, "    leaked at exit: %s in %s block%s\n", human_bytes(a, st->leaked_bytes),
		human_count(b, st->leaked_blocks), plural(st->leaked_blocks));
	fprintf(out, "    unknown frees:  %s\n", human_count(a, st->unknown_frees));
	fprintf(out, "    failed calls:   %s\n", human_count(a, st->failed_calls));
}

static int
by_peak_descending(const void *a, const void *b)
{
	const struct heap_process *pa = *(const struct heap_process *const *)a;
	const struct heap_process *pb = *(const struct heap_process *const *)b;

	if (pa->stats.peak_bytes != pb->stats.peak_bytes)
		return pa->stats.peak_bytes < pb->stats.peak_bytes ? 1 : -1;
	return pa->pid < pb->pid ? -1 : pa->pid > pb->pid;
}

const struct heap_process **
processes_by_peak(const struct heap_model *h)
{
	const struct heap_process **order = xreallocarray(NULL, h->nprocs ? h->nprocs : 1,
							  sizeof(*order));

	if (h->nprocs)
		memcpy(order, h->procs, h->nprocs * sizeof(*order));
	qsort(order, h->nprocs, sizeof(*order), by_peak_descending);
	return order;
}

/* The one process of a run, with its figures in full. */
static void
print_process(FILE *out, const struct heap_process *p)
{
	char status[64];

	const char *state = "still running";

	if (p->exited)
		state = describe_wait_status(p->wait_status, status, sizeof(status));
	else if (p->untraced)
		state = "not traced: escaped ptrace, calls seen through a shared "
			"address space";
	fprintf(out, "  process %u %s (%s)\n", p->pid,
		p->image ? p->image : "?", state);
	print_stats(out, &p->stats);
}

/* A process's end in a table's column: "0", "SIGKILL", "running". */
static const char *
process_end(const struct heap_process *p, char *buf, size_t size)
{
	if (!p->exited)
		return p->untraced ? "untraced" : "running";
	return wait_status_text(p->wait_status, "", "", buf, size);
}

/*
 * The processes, one line each, largest peak first: the first
 * SUMMARY_PROCESSES of them unless all, then how to see the others.
 */
static void
print_process_table(FILE *out, const struct heap_model *h, const char *capture, bool all)
{
	const struct heap_process **order = processes_by_peak(h);
	size_t i, nshown = h->nprocs;
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], end[32], filter[PATH_MAX];

	if (!all && nshown > SUMMARY_PROCESSES)
		nshown = SUMMARY_PROCESSES;
	fprintf(out, "  processes, largest peak first:\n");
	fprintf(out, "  %9s %-9s %13s %12s %12s  %s\n", "pid", "exit", "allocations",
		"peak", "leaked", "command");
	for (i = 0; i < nshown; i++) {
		const struct heap_process *p = order[i];

		fprintf(out, "  %9u %-9s %13s %12s %12s  %s\n", p->pid,
			process_end(p, end, sizeof(end)), human_count(a, p->stats.allocs),
			human_size(b, p->stats.peak_bytes),
			human_size(c, p->stats.leaked_bytes), p->image ? p->image : "?");
	}
	if (nshown < h->nprocs) {
		fprintf(out, "  %9s %s more", "", human_count(a, h->nprocs - nshown));
		if (capture)
			fprintf(out, ": memsup report --processes%s %s",
				report_filter_options(filter, sizeof(filter), &h->filter), capture);
		fputc('\n', out);
	}
	free(order);
}

void
summary_print(FILE *out, const struct heap_model *h, const struct capture_end *end,
	      const char *capture, bool all_processes)
{
	char n[HUMAN_MAX], filter[PATH_MAX];

	fprintf(out, "memsup summary: %s process%s", human_count(n, h->nprocs),
		h->nprocs == 1 ? "" : "es");
	if (h->filter.pid || h->filter.command)
		fprintf(out, ", counted with%s", report_filter_options(filter, sizeof(filter), &h->filter));
	fputc('\n', out);
	/* One process's figures are the tree's: said once, with no table. */
	if (h->nprocs == 1) {
		print_process(out, h->procs[0]);
	} else {
		fprintf(out, "  whole tree\n");
		print_stats(out, &h->tree);
		if (h->nprocs)
			print_process_table(out, h, capture, all_processes);
	}

	if (end->cut) {
		fprintf(out, "  cut short: the capture ends after record %s, %.3f s into "
			"the run; what came later, losses included, is unknown\n",
			human_count(n, end->records), seconds(end->last_ns));
		return;
	}
	fprintf(out, "  lost records:   %s\n", human_count(n, end->lost_records));
	if (end->lost_calls)
		fprintf(out, "  lost calls:     %s\n", human_count(n, end->lost_calls));
	if (end->pressure_stops)
		fprintf(out, "  pressure stops: %s\n", human_count(n, end->pressure_stops));
	if (end->flags & CAPTURE_END_PRESSURE_TIMEOUT)
		fprintf(out, "  killed: the tree did not stop within the pressure "
			"timeout\n");
	if (end->untraced_processes)
		fprintf(out, "  untraced processes: %s\n",
			human_count(n, end->untraced_processes));
	if (end->unstoppable_processes)
		fprintf(out, "  unstoppable processes: %s\n",
			human_count(n, end->unstoppable_processes));
	if (end->dropped_stacks)
		fprintf(out, "  stacks left out: %s (the ring was full)\n",
			human_count(n, end->dropped_stacks));
	if (end->vanished_threads)
		fprintf(out, "  vanished threads: %s (gone without "
			"memsup seeing them go)\n", human_count(n, end->vanished_threads));
	if (end->flags & CAPTURE_END_INTERRUPTED)
		fprintf(out, "  interrupted: memsup was ended by a signal before "
			"the tree exited\n");
}

void
sizes_print(FILE *out, const struct heap_stats *st)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];
	unsigned int k;

	fprintf(out, "allocations by size (bytes):\n");
	for (k = 0; k < HEAP_SIZE_CLASSES; k++) {
		uint64_t low = k ? UINT64_C(1) << (k - 1) : 0;
		uint64_t high = k ? low * 2 - 1 : 0;

		if (st->size_classes[k])
			fprintf(out, "  %13s - %-13s %s\n", human_count(a, low),
				human_count(b, high), human_count(c, st->size_classes[k]));
	}
}

void
regions_print(FILE *out, const struct region_table *t)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX];
	size_t i;

	if (!t->nregions)
		return;
	fprintf(out, "regions (allocations while open; peak: the most the heap rose "
		"above its level at the begin):\n");
	fprintf(out, "  %10s %15s %20s %20s  %s\n", "entries", "allocations", "bytes",
		"peak", "name");
	for (i = 0; i < t->nregions; i++) {
		const struct region_stats *r = &t->regions[i];

		fprintf(out, "  %10s %15s %20s %20s  %s\n", human_count(a, r->entries),
			human_count(b, r->allocs), human_count(c, r->bytes_allocated),
			human_count(d, r->peak_bytes), r->name);
		if (r->unmatched_ends)
			fprintf(out, "  %10s warning: ended %s time%s without a begin\n",
				"", human_count(a, r->unmatched_ends), plural(r->unmatched_ends));
		if (r->left_open)
			fprintf(out, "  %10s warning: still open %s time%s when its "
				"process exited or exec'd\n", "", human_count(a, r->left_open),
				plural(r->left_open));
	}
}

void
event_print(FILE *out, const struct record *r)
{
	fprintf(out, "%.6f %u %u ", seconds(r->time_ns), r->pid, r->tid);
	switch (r->type) {
	case REC_CALL:
		fputs(call_name(r->call.call), out);
		if (r->call.call != MS_CALL_FREE)
			fprintf(out, " size=%" PRIu64, r->call.size);
		if (r->call.call == MS_CALL_REALLOC ||
		    r->call.call == MS_CALL_REALLOCARRAY)
			fprintf(out, " old=0x%" PRIx64, r->call.old_ptr);
		fprintf(out, " ptr=0x%" PRIx64, r->call.ptr);
		if (r->call.stack_id)
			fprintf(out, " stack=%" PRIu32, r->call.stack_id);
		if (r->call.flags & CALL_INTERNAL)
			fputs(" internal", out);
		fputc('\n', out);
		break;
	case REC_STACK: {
		uint32_t i;

		fprintf(out, "Stack id=%" PRIu32 " frames=", r->stack.id);
		for (i = 0; i < r->stack.nframes; i++)
			fprintf(out, "%s0x%" PRIx64, i ? "," : "", r->stack.frames[i]);
		fputc('\n', out);
		break;
	}
	case REC_MAPPING: {
		uint8_t i;

		fprintf(out, "Mapping start=0x%" PRIx64 " end=0x%" PRIx64
			" offset=0x%" PRIx64 " build-id=", r->mapping.start,
			r->mapping.end, r->mapping.offset);
		for (i = 0; i < r->mapping.build_id_len; i++)
			fprintf(out, "%02x", r->mapping.build_id[i]);
		fprintf(out, "%s path=%s\n", r->mapping.build_id_len ? "" : "-",
			r->mapping.path);
		break;
	}
	case REC_FORK:
		fprintf(out, "Fork child=%u\n", r->fork.child);
		break;
	case REC_EXEC:
		fprintf(out, "Exec path=%s\n", r->exec.path);
		break;
	case REC_ATTACH:
		fprintf(out, "Attach path=%s\n", r->exec.path);
		break;
	case REC_EXIT:
		if (WIFSIGNALED(r->exit.wait_status))
			fprintf(out, "Exit signal=%d\n", WTERMSIG(r->exit.wait_status));
		else
			fprintf(out, "Exit code=%d\n", WEXITSTATUS(r->exit.wait_status));
		break;
	case REC_REGION:
		fprintf(out, "Region %s name=%s\n",
			r->region.mark == MS_REGION_BEGIN ? "begin" : "end", r->region.name);
		break;
	}
}
