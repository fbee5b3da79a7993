// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of a run: the frames named into the capture, its END record,
 * the summary, and memsup's exit status: the workload's, unless the
 * capture is incomplete or could not be written.
 */
#include "config.h"
#include "session.h"
#include "capture.h"
#include "error.h"
#include "frame-names.h"
#include "human-numbers.h"
#include "report-text.h"
#include "report-top.h"
#include "symbolize.h"
#include "unwind.h"

#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void
print_pressure(struct session *s)
{
	fprintf(stderr, "memsup: %llu pressure stops; the tree stopped within "
		"%.0f us (median), %.0f us (99th percentile); fullest ring "
		"%llu bytes; watermark %llu bytes at the end\n",
		(unsigned long long)s->pressure.stops,
		(double)pressure_latency_quantile(&s->pressure, 0.5) / 1e3,
		(double)pressure_latency_quantile(&s->pressure, 0.99) / 1e3,
		(unsigned long long)s->pressure.max_fill,
		(unsigned long long)s->pressure.watermark);
}

/* How auto took its stacks: the tables first, the copies last. */
static void
print_stack_sources(const struct stack_sources *from, const struct unwind_stats *u,
		    uint64_t left_out)
{
	fprintf(stderr, "memsup: stacks: %llu walked from unwind tables, %llu from "
		"frame pointers, %llu copied, %llu left out\n",
		(unsigned long long)from->tables, (unsigned long long)from->frame_pointers,
		(unsigned long long)u->copies, (unsigned long long)left_out);
	if (from->files_without_room == 1)
		fputs("memsup: 1 file found no room for its unwind table: its stacks "
		      "were copied (--unwind-memory gives more)\n", stderr);
	else if (from->files_without_room)
		fprintf(stderr, "memsup: %llu files found no room for their unwind "
			"tables: their stacks were copied (--unwind-memory gives more)\n",
			(unsigned long long)from->files_without_room);
}

/* What DWARF unwinding took. */
static void
print_unwinding(const struct unwind_stats *u)
{
	fprintf(stderr, "memsup: %llu stacks copied for DWARF unwinding (%llu bytes "
		"each on average): %llu unwound in %.1f ms, the others the same "
		"as one unwound before\n",
		(unsigned long long)u->copies,
		(unsigned long long)(u->copy_bytes / u->copies),
		(unsigned long long)u->unwound, (double)u->unwind_ns / 1e6);
}

/*
 * A process a traced one made with CLONE_UNTRACED escaped ptrace.  BPF
 * names it as it is made; with perf links the heap also knows it by its
 * calls, which then came through BPF but never through the tracer.  It is
 * untraced unless the user accepts that.
 */
static void
escaped_process(struct session *s, pid_t pid, const char *what)
{
	if (session_refuse_partial(s, pid, what))
		s->untraced++;
}

static bool
calls_seen_untraced(const struct heap_model *heap, pid_t pid)
{
	size_t i;

	for (i = 0; i < heap->nprocs; i++)
		if (heap->procs[i]->untraced && heap->procs[i]->pid == (uint32_t)pid)
			return true;
	return false;
}

static void
escaped_unseen(void *ctx, pid_t child, pid_t parent)
{
	struct session *s = ctx;
	char what[128];

	if (calls_seen_untraced(&s->heap, child))
		return;
	snprintf(what, sizeof(what), "made by process %d with CLONE_UNTRACED: it "
		 "escaped ptrace, and its calls are not in the capture", parent);
	escaped_process(s, child, what);
}

static void
count_escaped_processes(struct session *s)
{
	uint64_t unnamed;
	size_t i;

	for (i = 0; i < s->heap.nprocs; i++)
		if (s->heap.procs[i]->untraced)
			escaped_process(s, (pid_t)s->heap.procs[i]->pid,
					"its calls were recorded, but it escaped "
					"ptrace and memsup never traced it");
	unnamed = bpf_loader_escaped(&s->consumer.bpf, escaped_unseen, s);
	if (!unnamed)
		return;
	if (s->allow_partial) {
		warning_msg("%llu more processes escaped ptrace",
			    (unsigned long long)unnamed);
		return;
	}
	error_msg("%llu more processes escaped ptrace, and their calls are not "
		  "in the capture (--allow-partial accepts that)",
		  (unsigned long long)unnamed);
	s->untraced += unnamed;
}

/* A ring size as --ring-size takes it: a power of two from 4K. */
static const char *
ring_size_option(char buf[24], uint64_t bytes)
{
	if (bytes >= 1 << 30)
		snprintf(buf, 24, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes >= 1 << 20)
		snprintf(buf, 24, "%lluM", (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, 24, "%lluK", (unsigned long long)(bytes >> 10));
	return buf;
}

/*
 * The names of every frame the capture holds, while its files are at
 * hand, in full: a report shortens them or not.
 */
static void
name_frames(struct session *s, struct frame_names *names)
{
	struct symbolizer z;

	symbolizer_init(&z, NULL);
	z.full_names = true;
	z.give_up = session_end_signal_pending;
	symbolizer_name_all(&z, &s->sites, names);
	symbolizer_free(&z);
	capture_write_names(s->capture, names);
}

/*
 * The top sites, from the model the run built: named as the capture
 * names them (what it could not name, no file here names now), from the
 * files with --symbolize=report, or not at all with none.
 */
static void
print_top_sites(struct session *s, const struct frame_names *names, const char *output)
{
	struct symbolizer z;

	symbolizer_init(&z, NULL);
	z.names = names;
	z.files_unread = s->symbolize != SYMBOLIZE_REPORT;
	report_top_sites(stderr, &s->heap, &s->sites, &z, output, 3);
	symbolizer_free(&z);
}

static int
exit_status_of(int wait_status)
{
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return WEXITSTATUS(wait_status);
}

/*
 * Names the frames into the capture and writes its END (which counts the
 * records into end); then the summary and the top sites.  Returns 0 or a negative errno, the user told why.
 */
static int
write_end(struct session *s, struct capture_end *end, const char *output,
	  bool quiet)
{
	bool readable = !capture_direct(s->capture);
	struct frame_names names;
	bool kept_cut;
	int err;

	frame_names_init(&names);
	if (s->stacks && s->symbolize == SYMBOLIZE_CAPTURE)
		name_frames(s, &names);
	err = capture_finish(s->capture, end, &kept_cut);
	s->capture = NULL;
	/*
	 * The capture is written and the tree is gone: a signal now is
	 * memsup's own, and ends what is left (naming the top sites may
	 * wait on debuginfod servers) at once.
	 */
	session_unblock_signals();
	if (!quiet)
		summary_print(stderr, &s->heap, end, readable ? output : NULL, false);
	if (err && kept_cut)
		error_msg("cannot write capture %s: %s; it holds the records "
			  "written until then, a capture cut short", output,
			  strerror(-err));
	else if (err)
		error_msg("cannot write capture %s: %s", output, strerror(-err));
	if (!err && !quiet && s->stacks)
		print_top_sites(s, &names, readable ? output : NULL);
	frame_names_free(&names);
	return err;
}

/* --traps: what the probes cost, by function, and per recorded call. */
static void
print_traps(const struct session *s)
{
	char entries[HUMAN_MAX], returns[HUMAN_MAX];
	struct function_traps *f;
	uint64_t all_entries = 0, all_returns = 0;
	ssize_t n = probe_traps_read(&s->traps, &f), i;

	if (n < 0) {
		errno = (int)-n;
		perror_msg("cannot read the probes' trap counts");
		return;
	}
	for (i = 0; i < n; i++) {
		all_entries += f[i].entries;
		all_returns += f[i].returns;
	}
	fprintf(stderr, "memsup: traps: %s at entries, %s at returns",
		human_count(entries, all_entries), human_count(returns, all_returns));
	if (s->events)
		fprintf(stderr, ": %.2f a recorded call\n",
			(double)(all_entries + all_returns) / (double)s->events);
	else
		fputs(" (no call recorded)\n", stderr);
	if (n)
		fprintf(stderr, "  %11s %11s  function (file)\n", "entries", "returns");
	for (i = 0; i < n; i++)
		fprintf(stderr, "  %11s %11s  %s (%s)\n", human_count(entries, f[i].entries),
			human_count(returns, f[i].returns), f[i].name, f[i].path);
	free(f);
}

/* What the recording itself took: pressure stops, stacks, unwinding. */
static void
print_recording(struct session *s, const struct capture_end *end)
{
	struct unwind_stats unwinding;
	struct stack_sources sources;

	if (s->pressure.stops)
		print_pressure(s);
	consumer_unwind_stats(&s->consumer, &unwinding);
	if (consumer_stack_sources(&s->consumer, &sources))
		print_stack_sources(&sources, &unwinding, end->dropped_stacks);
	if (unwinding.copies)
		print_unwinding(&unwinding);
}

/*
 * The workload's exit status, unless the capture is incomplete (each
 * loss told with what would have avoided it) or a signal ended tracing.
 */
static int
exit_status_policy(const struct session *s, const struct capture_end *end)
{
	char status[64];
	uint64_t ring_needed;
	char ring_option[24];

	if (s->pressure.timed_out) {
		error_msg("capture incomplete: the tree was killed because it "
			  "could not be stopped to drain the ring in time");
		return MS_EXIT_INCOMPLETE;
	}
	/* A lost record is most often one without its stack: they give way first. */
	ring_needed = pressure_ring_needed(&s->pressure, end->lost_records *
					   (BPF_RINGBUF_HDR_SZ + MS_COMPACT_BYTES));
	if (ring_needed)
		error_msg("the ring is too small for what a pressure stop lets "
			  "through (%llu bytes came in past the watermark before "
			  "the tree stopped, and more was lost): try --ring-size=%s",
			  (unsigned long long)s->pressure.worst_overshoot,
			  ring_size_option(ring_option, ring_needed));
	if (end->lost_calls)
		error_msg("%llu allocator calls found no room in the per-thread "
			  "map: raise --max-threads (now %zu)",
			  (unsigned long long)end->lost_calls, s->max_threads);
	if (end->lost_records || end->lost_calls || end->untraced_processes ||
	    end->unstoppable_processes || end->vanished_threads) {
		error_msg("capture incomplete: %llu records lost, %llu calls lost, "
			  "%llu processes untraced, %llu processes unstoppable, "
			  "%llu threads vanished (workload %s)",
			  (unsigned long long)end->lost_records,
			  (unsigned long long)end->lost_calls,
			  (unsigned long long)end->untraced_processes,
			  (unsigned long long)end->unstoppable_processes,
			  (unsigned long long)end->vanished_threads,
			  s->ended_by ? "still running" :
			  describe_wait_status(end->exit_status, status, sizeof(status)));
		return MS_EXIT_INCOMPLETE;
	}
	if (s->ended_by) {
		error_msg("tracing ended by SIG%s before the tree exited: what it "
			  "did until then is in the capture", sigabbrev_np(s->ended_by));
		return 128 + s->ended_by;
	}
	return exit_status_of(end->exit_status);
}

int
session_finish(struct session *s, const char *output, bool quiet)
{
	struct capture_end end;

	count_escaped_processes(s);
	end = (struct capture_end) {
		.lost_records = bpf_loader_lost_records(&s->consumer.bpf),
		.lost_calls = bpf_loader_lost_calls(&s->consumer.bpf),
		.untraced_processes = s->untraced,
		.unstoppable_processes = s->unstoppable,
		.dropped_stacks = bpf_loader_dropped_stacks(&s->consumer.bpf),
		.vanished_threads = s->vanished,
		.pressure_stops = s->pressure.stops,
		.flags = (s->pressure.timed_out ? CAPTURE_END_PRESSURE_TIMEOUT : 0) |
			 (s->ended_by ? CAPTURE_END_INTERRUPTED : 0),
		.exit_status = s->tracer.root_status,
	};
	pressure_finish(&s->pressure, &s->consumer);
	if (write_end(s, &end, output, quiet))
		return MS_EXIT_FAILURE;
	if (!quiet)
		print_recording(s, &end);
	if (s->print_traps)
		print_traps(s);
	if (!quiet)
		fprintf(stderr, "memsup: capture written to %s\n", output);
	return exit_status_policy(s, &end);
}
