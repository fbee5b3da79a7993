// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-text.h"
#include "capture.h"
#include "error.h"
#include "heap.h"
#include "record.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Past this many processes the summary lists the largest peaks only. */
enum { SUMMARY_MAX_PROCESSES = 16 };

const char *
describe_wait_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status)) {
		snprintf(buf, size, "exited %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		const char *name = sigabbrev_np(WTERMSIG(status));

		if (name)
			snprintf(buf, size, "killed by SIG%s", name);
		else
			snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	} else {
		snprintf(buf, size, "wait status 0x%x", (unsigned)status);
	}
	return buf;
}

static double
seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void
print_stats(FILE *out, const struct heap_stats *st)
{
	fprintf(out, "    allocations:    %" PRIu64 " (%" PRIu64 " bytes)\n",
		st->allocs, st->bytes_allocated);
	fprintf(out, "    frees:          %" PRIu64 "\n", st->frees);
	fprintf(out, "    temporary:      %" PRIu64 "\n", st->temporary);
	fprintf(out, "    peak live heap: %" PRIu64 " bytes at %.6f s\n",
		st->peak_bytes, seconds(st->peak_time_ns));
	fprintf(out, "    leaked at exit: %" PRIu64 " bytes in %" PRIu64 " block%s\n",
		st->leaked_bytes, st->leaked_blocks, st->leaked_blocks == 1 ? "" : "s");
	fprintf(out, "    unknown frees:  %" PRIu64 "\n", st->unknown_frees);
	fprintf(out, "    failed calls:   %" PRIu64 "\n", st->failed_calls);
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

void
summary_print(FILE *out, const struct heap_model *h, const struct capture_end *end)
{
	const struct heap_process *const *order = (const struct heap_process *const *)h->procs;
	const struct heap_process **by_peak = NULL;
	size_t i, nshown = h->nprocs;

	fprintf(out, "memsup summary: %zu process%s\n", h->nprocs,
		h->nprocs == 1 ? "" : "es");
	fprintf(out, "  whole tree\n");
	print_stats(out, &h->tree);

	if (h->nprocs > SUMMARY_MAX_PROCESSES) {
		order = by_peak = processes_by_peak(h);
		nshown = SUMMARY_MAX_PROCESSES;
	}
	for (i = 0; i < nshown; i++)
		print_process(out, order[i]);
	if (nshown < h->nprocs)
		fprintf(out, "  (%zu more processes with smaller peaks)\n",
			h->nprocs - nshown);
	free(by_peak);

	fprintf(out, "  lost records:   %" PRIu64 "\n", end->lost_records);
	if (end->lost_calls)
		fprintf(out, "  lost calls:     %" PRIu64 "\n", end->lost_calls);
	if (end->pressure_stops)
		fprintf(out, "  pressure stops: %" PRIu64 "\n", end->pressure_stops);
	if (end->flags & CAPTURE_END_PRESSURE_TIMEOUT)
		fprintf(out, "  killed: the tree did not stop within the pressure "
			"timeout\n");
	if (end->untraced_processes)
		fprintf(out, "  untraced processes: %" PRIu64 "\n",
			end->untraced_processes);
	if (end->unstoppable_processes)
		fprintf(out, "  unstoppable processes: %" PRIu64 "\n",
			end->unstoppable_processes);
	if (end->dropped_stacks)
		fprintf(out, "  stacks left out: %" PRIu64 " (the ring was full)\n",
			end->dropped_stacks);
	if (end->vanished_threads)
		fprintf(out, "  vanished threads: %" PRIu64 " (gone without "
			"memsup seeing them go)\n", end->vanished_threads);
	if (end->flags & CAPTURE_END_INTERRUPTED)
		fprintf(out, "  interrupted: memsup was ended by a signal before "
			"the tree exited\n");
}

void
sizes_print(FILE *out, const struct heap_stats *st)
{
	unsigned int k;

	fprintf(out, "allocations by size (bytes):\n");
	for (k = 0; k < HEAP_SIZE_CLASSES; k++) {
		uint64_t low = k ? UINT64_C(1) << (k - 1) : 0;
		uint64_t high = k ? low * 2 - 1 : 0;

		if (st->size_classes[k])
			fprintf(out, "  %20" PRIu64 " - %-20" PRIu64 " %" PRIu64 "\n",
				low, high, st->size_classes[k]);
	}
}

void
regions_print(FILE *out, const struct region_table *t)
{
	size_t i;

	if (!t->nregions)
		return;
	fprintf(out, "regions (allocations while open; peak: the most the heap rose "
		"above its level at the begin):\n");
	fprintf(out, "  %8s %12s %16s %16s  %s\n", "entries", "allocations", "bytes",
		"peak", "name");
	for (i = 0; i < t->nregions; i++) {
		const struct region_stats *r = &t->regions[i];

		fprintf(out, "  %8" PRIu64 " %12" PRIu64 " %16" PRIu64 " %16" PRIu64 "  %s\n",
			r->entries, r->allocs, r->bytes_allocated, r->peak_bytes, r->name);
		if (r->unmatched_ends)
			fprintf(out, "  %8s warning: ended %" PRIu64 " time%s without a begin\n",
				"", r->unmatched_ends, r->unmatched_ends == 1 ? "" : "s");
		if (r->left_open)
			fprintf(out, "  %8s warning: still open %" PRIu64 " time%s when its "
				"process exited or exec'd\n", "", r->left_open,
				r->left_open == 1 ? "" : "s");
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
