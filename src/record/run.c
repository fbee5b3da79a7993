// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A capture session wires the parts together: the tracer reports process
 * events, the consumer reports allocator calls, and both become records
 * that go, in order, to the capture file and the heap model.
 */
#include "config.h"
#include "run.h"
#include "attach.h"
#include "capture.h"
#include "consumer.h"
#include "credentials.h"
#include "dl-hook.h"
#include "error.h"
#include "frame-names.h"
#include "heap.h"
#include "launch.h"
#include "link-reaper.h"
#include "mappings.h"
#include "pressure.h"
#include "realtime.h"
#include "privileges.h"
#include "probe-attach.h"
#include "probe-targets.h"
#include "procfs.h"
#include "record.h"
#include "report-text.h"
#include "report-top.h"
#include "sites.h"
#include "status.h"
#include "symbolize.h"
#include "tracer.h"
#include "unwind.h"

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

struct traced_process {
	struct image_targets targets;
	struct process_probes probes;
	struct dl_hook hook;
	struct u64map mapped;		/* recorded mappings: start -> inode */
	bool rescan_due;		/* memsup -p: it mapped code, not looked at yet */
	bool untraced;			/* counted in the session's untraced */
};

struct session {
	struct consumer consumer;
	struct capture_writer *capture;
	struct heap_model heap;
	struct sites sites;		/* the calls' sites, for the summary and
					 * the names; its spaces unwind copies */
	struct live_status status;
	uint64_t events;		/* allocator calls recorded */
	struct tracer tracer;
	struct pressure pressure;
	struct u64map processes;	/* pid -> struct traced_process * */
	uint64_t untraced;		/* processes whose probes failed */
	uint64_t unstoppable;		/* processes the tracked set had no room for */
	uint64_t vanished;		/* threads gone without a report */
	bool rescans_due;		/* some process's rescan_due is set */
	uint64_t missed_wakes_seen;	/* consumer_missed_mapping_wakes() */
	uint64_t last_report_ns;	/* when a wait status last came */
	uint64_t last_sync_ns;		/* when the capture was last synced */
	size_t max_processes;		/* the tracked set's size */
	size_t max_threads;		/* the per-thread map's size */
	bool stacks;			/* record stacks, and mappings for them */
	enum symbolize_mode symbolize;
	enum probe_sites probe_sites;
	bool allow_partial;		/* --allow-partial */
	uint64_t observed_ns;		/* when the status at hand was reaped */
	/* memsup -p: when to let the process go (UINT64_MAX: at a signal) */
	bool attached;
	uint64_t detach_at_ns;
	unsigned int end_signals;	/* SIGINT, SIGTERM and SIGHUP taken */
	int ended_by;			/* the signal that ended tracing, or 0 */
	bool job_stop;			/* a stop signal came: memsup stops once
					 * the tree is held */
};

static void
sink(void *ctx, const struct record *r)
{
	struct session *s = ctx;
	struct record applied = *r;

	/* An error sticks in the writer: capture_finish reports it. */
	capture_write(s->capture, r);
	/* Its site first: the summary ranks the sites a report would. */
	sites_apply(&s->sites, &applied);
	heap_apply(&s->heap, &applied);
	consumer_follow(&s->consumer, r);
	if (r->type == REC_CALL)
		s->events++;
}

static void
show_status(struct session *s)
{
	struct status_figures f = {
		.events = s->events,
		.live_bytes = s->heap.tree.live_bytes,
		.pressure_stops = s->pressure.stops,
		.lost = consumer_lost_records(&s->consumer) + consumer_lost_calls(&s->consumer),
	};

	status_update(&s->status, consumer_now(&s->consumer), &f);
}

/*
 * A process record goes after every call made before the stop it reports
 * and before any made since: reaping a child's exit is what releases its
 * parent's wait(), so a parent's next call would otherwise overtake it.
 */
static void
emit_process_record(struct session *s, struct record *r)
{
	consumer_drain_until(&s->consumer, s->observed_ns);
	r->time_ns = s->observed_ns;
	sink(s, r);
}

static struct traced_process *
traced(struct session *s, pid_t pid)
{
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);
	struct traced_process *tp;

	if (slot)
		return (struct traced_process *)(uintptr_t)slot->value;
	tp = xcalloc(1, sizeof(*tp));
	u64map_put(&s->processes, (uint64_t)pid, (uintptr_t)tp);
	return tp;
}

/* A process counts once as untraced, whatever failed for it. */
static void
count_untraced(struct session *s, struct traced_process *tp)
{
	if (!tp->untraced)
		s->untraced++;
	tp->untraced = true;
}

/*
 * What --allow-partial accepts (a process run untraced by design): a
 * warning with it, an error without, and then the caller counts the
 * process as untraced.  Returns whether it must.
 */
static bool
refuse_partial(const struct session *s, pid_t pid, const char *what)
{
	if (s->allow_partial) {
		warning_msg("process %d: %s", pid, what);
		return false;
	}
	error_msg("process %d: %s (--allow-partial accepts that)", pid, what);
	return true;
}

/*
 * A process killed while memsup probes it (SIGKILL ends even the stop
 * memsup holds it in) runs nothing more: that is not a loss.
 */
static void
mark_untraced(struct session *s, struct traced_process *tp, pid_t pid,
	      const char *what, int err)
{
	struct rlimit files;
	char why[128];

	if (proc_exiting(pid))
		return;
	/* The processes traced when the limit is reached: how many it lets memsup follow. */
	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &files))
		snprintf(why, sizeof(why), "memsup reached its limit of %llu open "
			 "files (ulimit -Hn) with %zu processes traced",
			 (unsigned long long)files.rlim_cur, s->processes.count);
	else
		snprintf(why, sizeof(why), "%s", strerror(-err));
	error_msg("process %d: cannot probe %s: %s; its allocations are not traced",
		  pid, what, why);
	count_untraced(s, tp);
}

static void
attach_targets(struct session *s, pid_t pid, struct traced_process *tp)
{
	int err = process_probes_attach(&tp->probes, s->consumer.skel,
					s->consumer.session_links, pid, &tp->targets);

	if (err)
		mark_untraced(s, tp, pid, "its allocator functions", err);
}

/*
 * Probes what pid maps now: at an exec stop, the executable; at the
 * dynamic linker's hook, the libraries too.
 */
static void
emit_mapping(void *ctx, struct record *r)
{
	emit_process_record(ctx, r);
}

static void
probe_mapped_files(struct session *s, pid_t pid, struct traced_process *tp)
{
	const char *why = "";
	int err = image_targets_find(pid, s->probe_sites, &tp->targets, &why);

	if (err)
		mark_untraced(s, tp, pid, why, err);
	else
		attach_targets(s, pid, tp);
	/* The mappings serve to symbolize stacks. */
	if (s->stacks)
		mappings_record_new(pid, &tp->mapped, emit_mapping, s);
}

/*
 * A new image: its executable now, its libraries when the dynamic linker
 * maps them.  A static executable must define its allocator functions.
 */
static void
probe_new_image(struct session *s, pid_t pid, struct traced_process *tp)
{
	const struct probe_target *exe;
	char unprobed[PATH_MAX + 256];
	const char *why;
	int err;

	probe_mapped_files(s, pid, tp);
	/*
	 * A process memsup attached to keeps nothing of memsup's: its
	 * mappings are watched instead, and its dynamic linker only read.
	 */
	if (s->attached) {
		dl_hook_find(pid, &tp->hook, &why);
	} else {
		err = dl_hook_arm(pid, &tp->hook, &why);
		if (err && !proc_exiting(pid)) {
			error_msg("process %d: cannot hook its dynamic linker: %s (%s); "
				  "the libraries it loads are not traced", pid, why,
				  strerror(-err));
			count_untraced(s, tp);
		}
	}
	exe = tp->targets.exe;
	if (!exe || exe->dynamic || exe->ncalls || tp->hook.addr)
		return;
	snprintf(unprobed, sizeof(unprobed), "%s is statically linked and defines "
		 "no allocator function memsup knows (stripped?): malloc, free, "
		 "operator new and the others cannot be probed, and its "
		 "allocations are not traced", exe->path);
	if (refuse_partial(s, pid, unprobed))
		count_untraced(s, tp);
}

/*
 * memsup -p: pid has mapped code, and the thread that did is stopped or
 * cannot run.  What its dynamic linker is still adding has not run yet;
 * a library added before this look may have called its own allocator
 * functions unseen (its constructors, say), and the user is told.
 */
static void
probe_mapped_late(struct session *s, pid_t pid, struct traced_process *tp)
{
	bool adding = dl_hook_adding(pid, &tp->hook);
	size_t i = tp->probes.ntargets;

	tp->rescan_due = false;
	probe_mapped_files(s, pid, tp);
	for (; !adding && i < tp->probes.ntargets; i++) {
		const struct probe_target *t = tp->probes.per_target[i].target;

		if (!t->ncalls)
			continue;
		warning_msg("process %d: %s was probed only after its code could "
			    "run: calls to its allocator functions before that are "
			    "not in the capture", pid, t->path);
	}
}

/*
 * The tracked set: only processes in it may raise the pressure latch,
 * and under memsup -p only theirs are the mappings watched.  One that
 * cannot be tracked voids the promise that pressure loses nothing, or
 * has the libraries it loads untraced, so it fails the capture like a
 * lost record.
 */
static void
track(struct session *s, pid_t pid)
{
	char why[96];
	int err;

	if (!s->pressure.timeout_ns && !s->attached)
		return;
	err = consumer_track(&s->consumer, pid);
	if (!err)
		return;
	if (err == -E2BIG)
		snprintf(why, sizeof(why), "the tracked set is full (--max-processes=%zu)",
			 s->max_processes);
	else
		snprintf(why, sizeof(why), "%s", strerror(-err));
	if (s->pressure.timeout_ns) {
		error_msg("process %d cannot ask for pressure stops: %s", pid, why);
		s->unstoppable++;
	}
	if (s->attached) {
		error_msg("process %d: the libraries it loads cannot be watched, "
			  "and are not traced: %s", pid, why);
		s->untraced++;
	}
}

static void
untrace(struct traced_process *tp)
{
	process_probes_release(&tp->probes);
	image_targets_free(&tp->targets);
	u64map_free(&tp->mapped);
	free(tp);
}

static void
untrace_all(struct session *s)
{
	struct u64map_slot *slot;

	u64map_foreach(&s->processes, slot)
		untrace((struct traced_process *)(uintptr_t)slot->value);
	u64map_free(&s->processes);
}

static void
on_process_forked(void *ctx, pid_t parent, pid_t child, bool shares_vm)
{
	struct session *s = ctx;
	struct record r = { .type = REC_FORK, .pid = (uint32_t)parent,
			    .tid = (uint32_t)parent, .fork.child = (uint32_t)child };
	struct traced_process *tp = traced(s, child);

	emit_process_record(s, &r);
	track(s, child);
	/* The child maps what its parent maps, the hook's breakpoint too. */
	image_targets_free(&tp->targets);
	image_targets_copy(&tp->targets, &traced(s, parent)->targets);
	tp->hook = traced(s, parent)->hook;
	u64map_copy(&tp->mapped, &traced(s, parent)->mapped);
	/*
	 * Perf links filter by address space: a vfork child's calls already
	 * reach its parent's, and links of its own would count them twice.
	 * Session links filter by thread group: it needs its own.
	 */
	if (!shares_vm || s->consumer.session_links)
		attach_targets(s, child, tp);
}

static void
on_thread_started(void *ctx, pid_t tid)
{
	struct session *s = ctx;

	consumer_forget_thread(&s->consumer, tid);
}

/*
 * The user should know when a traced program runs with more privilege
 * than its user (memsup -p, --keep-root), and when it runs with less than
 * it would outside memsup.
 */
static void
warn_if_setid(pid_t pid, const char *path)
{
	uid_t euid;
	gid_t egid;

	switch (exec_setid(pid, &euid, &egid)) {
	case SETID_HONOURED:
		warning_msg("process %d runs %s set-user-ID or set-group-ID (euid "
			    "%u, egid %u): memsup holds CAP_SYS_PTRACE, so it "
			    "keeps that privilege while traced", pid, path,
			    (unsigned)euid, (unsigned)egid);
		break;
	case SETID_IGNORED:
		warning_msg("process %d runs %s without its set-user-ID or "
			    "set-group-ID privilege (euid %u, egid %u): a workload "
			    "gains no privilege under memsup", pid, path,
			    (unsigned)euid, (unsigned)egid);
		break;
	case SETID_NONE:
		break;
	}
}

static void
on_process_exec(void *ctx, pid_t pid, pid_t former_tid)
{
	struct session *s = ctx;
	struct traced_process *tp = traced(s, pid);
	char path[4096];
	struct record r = { .type = REC_EXEC, .pid = (uint32_t)pid,
			    .tid = (uint32_t)pid, .exec.path = path };

	proc_exe_path(pid, path, sizeof(path));

	/*
	 * Links belong to the task they were made for: when another thread
	 * execs, it carries on as a new task under the leader's pid.
	 */
	if (former_tid != pid)
		process_probes_release(&tp->probes);
	consumer_forget_thread(&s->consumer, pid);
	consumer_forget_thread(&s->consumer, former_tid);
	emit_process_record(s, &r);
	u64map_clear(&tp->mapped);
	probe_new_image(s, pid, tp);
	warn_if_setid(pid, path);
}

static void
on_process_exited(void *ctx, pid_t pid, int wait_status)
{
	struct session *s = ctx;
	struct record r = { .type = REC_EXIT, .pid = (uint32_t)pid,
			    .tid = (uint32_t)pid, .exit.wait_status = wait_status };
	uint64_t value;

	emit_process_record(s, &r);
	consumer_untrack(&s->consumer, pid);
	if (u64map_remove(&s->processes, (uint64_t)pid, &value))
		untrace((struct traced_process *)(uintptr_t)value);
}

/* The dynamic linker has mapped or unmapped libraries, or is about to. */
static bool
on_breakpoint(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);
	struct traced_process *tp;

	if (!slot)
		return false;
	tp = (struct traced_process *)(uintptr_t)slot->value;
	if (!dl_hook_hit(&tp->hook, tid))
		return false;
	probe_mapped_files(s, pid, tp);
	return true;
}

static void
on_thread_vanished(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;

	error_msg("thread %d of process %d is gone, and memsup never saw it "
		  "go: it no longer waits for it", tid, pid);
	s->vanished++;
}

static void
on_interrupted(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);

	if (slot)
		probe_mapped_late(s, pid, (struct traced_process *)(uintptr_t)slot->value);
}

/*
 * memsup -p, from a drain: tid maps code.  It is stopped to be looked at;
 * one that cannot be stopped is looked at after the drain.
 */
static void
on_mapping(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);

	if (!slot || tracer_interrupt(&s->tracer, tid))
		return;
	((struct traced_process *)(uintptr_t)slot->value)->rescan_due = true;
	s->rescans_due = true;
}

/*
 * The rescans the drains asked for; every process when a wake found no
 * room in its ring.
 */
static void
rescan_when_due(struct session *s)
{
	uint64_t missed = consumer_missed_mapping_wakes(&s->consumer);
	struct u64map_slot *slot;

	if (!s->rescans_due && missed == s->missed_wakes_seen)
		return;
	u64map_foreach(&s->processes, slot) {
		struct traced_process *tp = (struct traced_process *)(uintptr_t)slot->value;

		if (tp->rescan_due || missed != s->missed_wakes_seen)
			probe_mapped_late(s, (pid_t)slot->key, tp);
	}
	s->rescans_due = false;
	s->missed_wakes_seen = missed;
}

static const struct tracer_ops session_tracer_ops = {
	.process_forked = on_process_forked,
	.thread_started = on_thread_started,
	.process_exec = on_process_exec,
	.process_exited = on_process_exited,
	.breakpoint = on_breakpoint,
	.thread_vanished = on_thread_vanished,
	.interrupted = on_interrupted,
};

static void
reap(struct session *s)
{
	int status;
	pid_t tid;

	for (;;) {
		s->observed_ns = consumer_now(&s->consumer);
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid <= 0)
			break;
		s->last_report_ns = s->observed_ns;
		tracer_handle(&s->tracer, tid, status);
	}
}

/*
 * Signals sent to memsup with kill(1) go on to the workload.  A terminal's
 * ^C already reached the whole foreground process group, workload included.
 * A process memsup attached to is not memsup's to signal: the signal
 * means "let it go".  Returns whether a process was there to take it.
 */
static bool
forward_signal(struct session *s, const struct signalfd_siginfo *si)
{
	if (s->attached) {
		s->detach_at_ns = 0;
		return true;
	}
	/* Once reaped, the root's pid may be another process's. */
	if (!tracer_traces(&s->tracer, s->tracer.root))
		return false;
	if (si->ssi_code == SI_USER || si->ssi_code == SI_QUEUE)
		kill(s->tracer.root, (int)si->ssi_signo);
	return true;
}

/* The signals that ask memsup to end: a second one is memsup's own. */
static void
add_end_signals(sigset_t *set)
{
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* Whether sig is one of the signals add puts in a set. */
static bool
signal_in(void (*add)(sigset_t *), int sig)
{
	sigset_t set;

	sigemptyset(&set);
	add(&set);
	return sigismember(&set, sig) == 1;
}

/* The signals that stop a job: ^Z, a read or write from the background. */
static void
add_job_stop_signals(sigset_t *set)
{
	sigaddset(set, SIGTSTP);
	sigaddset(set, SIGTTIN);
	sigaddset(set, SIGTTOU);
}

/*
 * Tracing is over: from now on SIGINT, SIGTERM and SIGHUP end memsup on
 * the spot, and a stop signal stops it.
 */
static void
unblock_signals_after_tracing(void)
{
	sigset_t ends;

	sigemptyset(&ends);
	add_end_signals(&ends);
	add_job_stop_signals(&ends);
	sigprocmask(SIG_UNBLOCK, &ends, NULL);
}

/*
 * Tracing ends now, the tree still running: memsup drains, writes the
 * capture, and exits, and PTRACE_O_EXITKILL takes the tree with it (an
 * attached one is let go).  A further signal is not waited for: it ends
 * memsup at once, and the temporary capture file stays.
 */
static void
end_tracing(struct session *s, int sig)
{
	s->ended_by = sig;
	unblock_signals_after_tracing();
}

/*
 * The first SIGINT, SIGTERM or SIGHUP is the workload's; a second, or a
 * first that no traced process is left to take, is memsup's own.
 */
static void
take_signal(struct session *s, const struct signalfd_siginfo *si)
{
	bool taken = forward_signal(s, si);

	if (!signal_in(add_end_signals, (int)si->ssi_signo))
		return;
	if (++s->end_signals > 1 || !taken)
		end_tracing(s, (int)si->ssi_signo);
}

static int
handle_signals(struct session *s, int sfd)
{
	struct signalfd_siginfo si;

	while (!s->ended_by && read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(s);
		else if (signal_in(add_job_stop_signals, (int)si.ssi_signo))
			s->job_stop = true;
		else
			take_signal(s, &si);
	}
	return 0;
}

/*
 * Holds the tree (again, if a pressure stop ended and released it);
 * true once every thread that can stop has, and the ring is drained.
 */
static bool
held_and_drained(struct session *s)
{
	if (!s->tracer.holding)
		tracer_hold(&s->tracer);
	if (!tracer_held(&s->tracer))
		return false;
	consumer_drain(&s->consumer);
	return true;
}

/*
 * memsup stopped on its own would leave the tree running with nobody to
 * drain the ring: threads not stopped yet fill it, and lose records.  So
 * a stop signal first holds the tree, as a pressure stop does, then
 * stops memsup; SIGCONT lets both go on.  The tree's own stop signal,
 * if the job got one, waits in the hold, and SIGCONT cancels it as the
 * kernel cancels any stop it ends.
 */
static void
stop_when_held(struct session *s)
{
	if (!s->job_stop || !held_and_drained(s))
		return;
	status_clear(&s->status);
	raise(SIGSTOP);
	s->job_stop = false;
	if (!s->pressure.holding)
		tracer_release(&s->tracer);
}

/* A process memsup lets go must not keep its breakpoint. */
static void
disarm_hooks(struct session *s)
{
	struct u64map_slot *slot;

	u64map_foreach(&s->processes, slot)
		dl_hook_disarm((pid_t)slot->key,
			       &((struct traced_process *)(uintptr_t)slot->value)->hook);
}

/*
 * memsup -p, at the end: the process and its tree go on untraced.  They
 * are held meanwhile, so that no call falls between the last drain and
 * the probes' removal, and no probe is left to fire once they run.
 */
static void
detach_when_due(struct session *s)
{
	struct u64map_slot *slot;

	if (consumer_now(&s->consumer) < s->detach_at_ns || s->pressure.holding ||
	    !held_and_drained(s))
		return;
	disarm_hooks(s);
	u64map_foreach(&s->processes, slot)
		process_probes_detach(&((struct traced_process *)(uintptr_t)slot->value)->probes);
	consumer_clear_latch(&s->consumer);
	tracer_detach_all(&s->tracer);
}

/*
 * The data ring wakes the supervisor only in batches; the tick drains
 * what trickles in below that, and sees a latch whose wakeup was lost.
 */
#define TICK_NS 10000000
/*
 * A tree that reported nothing for this long has its thread table
 * checked: an entry whose thread memsup can no longer wait for must not
 * keep memsup waiting.
 */
#define QUIET_NS 1000000000ULL

/* Whether interval_ns passed since *last_ns, which then becomes now. */
static bool
due(struct session *s, uint64_t *last_ns, uint64_t interval_ns)
{
	uint64_t now = consumer_now(&s->consumer);

	if (now - *last_ns < interval_ns)
		return false;
	*last_ns = now;
	return true;
}

static void
forget_vanished_when_quiet(struct session *s)
{
	if (due(s, &s->last_report_ns, QUIET_NS))
		tracer_forget_vanished(&s->tracer);
}

/*
 * How long records may wait in the compressor: a memsup killed leaves a
 * capture that holds all but the last second (see capture_sync).
 */
#define SYNC_NS 1000000000ULL

static void
sync_capture_when_due(struct session *s)
{
	if (due(s, &s->last_sync_ns, SYNC_NS))
		capture_sync(s->capture);
}

static int
trace_until_done(struct session *s, int sfd)
{
	struct itimerspec tick = {
		.it_interval = { .tv_nsec = TICK_NS },
		.it_value = { .tv_nsec = TICK_NS },
	};
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int err = 0;

	if (ep < 0 || tfd < 0 || timerfd_settime(tfd, 0, &tick, NULL))
		goto fail;
	ev.data.fd = sfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev))
		goto fail;
	ev.data.fd = tfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev))
		goto fail;
	ev.data.fd = consumer_fd(&s->consumer);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto fail;

	/* SIGCHLD may have come before the signalfd was polled. */
	s->last_report_ns = consumer_now(&s->consumer);
	s->last_sync_ns = s->last_report_ns;
	reap(s);
	while (!tracer_done(&s->tracer) && !s->ended_by) {
		struct epoll_event events[3];
		int i, n = epoll_wait(ep, events, 3, -1);
		uint64_t ticks;

		if (n < 0 && errno != EINTR)
			goto fail;
		/* Stop the producers before anything else, draining included. */
		pressure_step(&s->pressure, &s->tracer, &s->consumer,
			      consumer_now(&s->consumer));
		for (i = 0; i < n; i++) {
			if (events[i].data.fd == sfd) {
				handle_signals(s, sfd);
				continue;
			}
			if (events[i].data.fd == tfd &&
			    read(tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
				goto fail;
			consumer_drain(&s->consumer);
		}
		pressure_step(&s->pressure, &s->tracer, &s->consumer,
			      consumer_now(&s->consumer));
		stop_when_held(s);
		if (s->attached) {
			rescan_when_due(s);
			detach_when_due(s);
		}
		forget_vanished_when_quiet(s);
		sync_capture_when_due(s);
		show_status(s);
	}
	/* Tracing ended by a signal: was anything really left running? */
	if (s->ended_by && tracer_forget_vanished(&s->tracer) &&
	    tracer_done(&s->tracer))
		s->ended_by = 0;
	consumer_drain(&s->consumer);
	goto out;
fail:
	err = -errno;
out:
	/* Before the summary, or the message that says why tracing failed. */
	status_clear(&s->status);
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	return err;
}

/* memsup -- CMD: returns 0, or memsup's exit status when CMD cannot start. */
static int
start_command(struct session *s, const struct run_options *o,
	      const struct workload_user *wu)
{
	struct launch_failure failure;
	pid_t root = launch_traced(o->argv, wu, &failure);

	if (root < 0) {
		perror_msg("cannot start %s under ptrace", o->argv[0]);
		return MS_EXIT_FAILURE;
	}
	if (failure.step != LAUNCH_OK) {
		waitpid(root, NULL, __WALL);
		errno = failure.err;
		if (failure.step == LAUNCH_CREDENTIALS) {
			perror_msg("cannot take uid %u and gid %u for the workload",
				   (unsigned)wu->uid, (unsigned)wu->gid);
			return MS_EXIT_FAILURE;
		}
		perror_msg("cannot run '%s'", o->argv[0]);
		return failure.err == ENOENT ? MS_EXIT_NOT_FOUND : MS_EXIT_CANNOT_EXEC;
	}
	tracer_add_root(&s->tracer, root);
	track(s, root);
	return 0;
}

/* memsup -p PID: returns 0, or memsup's exit status. */
static int
start_attached(struct session *s, const struct run_options *o)
{
	char why[256], path[4096];
	struct record r = { .type = REC_ATTACH, .pid = (uint32_t)o->attach_pid,
			    .tid = (uint32_t)o->attach_pid, .exec.path = path };

	if (attach_process(o->attach_pid, &s->tracer, why, sizeof(why))) {
		error_msg("%s", why);
		return MS_EXIT_FAILURE;
	}
	s->attached = true;
	s->detach_at_ns = o->duration_ns ? consumer_now(&s->consumer) + o->duration_ns
					 : UINT64_MAX;
	track(s, o->attach_pid);
	proc_exe_path(o->attach_pid, path, sizeof(path));
	s->observed_ns = consumer_now(&s->consumer);
	emit_process_record(s, &r);
	/*
	 * The process runs: the probes go on while it is held, or a call
	 * could meet its free probed and its malloc not yet, and the next
	 * free of that block would count as unknown.
	 */
	tracer_hold(&s->tracer);
	reap(s);
	while (!tracer_held(&s->tracer)) {
		siginfo_t si;

		/* Wait for the next status without taking it: reap() does. */
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) &&
		    errno != EINTR)
			break;
		reap(s);
	}
	if (tracer_traces(&s->tracer, o->attach_pid))
		probe_new_image(s, o->attach_pid, traced(s, o->attach_pid));
	tracer_release(&s->tracer);
	return 0;
}

static char *
default_output(const char *cmd)
{
	char *copy = xstrdup(cmd);
	char *name = xmalloc(strlen(cmd) + 64);

	sprintf(name, "memsup.%s.%d.cap", basename(copy), getpid());
	free(copy);
	return name;
}

static int
exit_status_of(int wait_status)
{
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return WEXITSTATUS(wait_status);
}

static int
check_environment(struct consumer_config *bpf)
{
	char missing[128];
	int err = check_capabilities(missing, sizeof(missing));

	if (err == -EPERM) {
		error_msg("memsup needs root, or CAP_BPF, CAP_PERFMON and "
			  "CAP_SYS_PTRACE; missing: %s", missing);
		return -1;
	}
	if (check_kernel_btf()) {
		error_msg("this kernel exposes no BTF (/sys/kernel/btf/vmlinux); "
			  "memsup needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -1;
	}
	/* BPF names tasks by memsup's PID namespace; /proc must too. */
	err = proc_own_pid_namespace(&bpf->pidns_inum);
	if (err == -EXDEV) {
		error_msg("/proc is not of memsup's PID namespace, in which memsup "
			  "is process %d: mount a /proc of its own there (as "
			  "unshare --pid --fork --mount-proc does)", getpid());
		return -1;
	}
	if (err) {
		error_msg("cannot tell memsup's PID namespace from /proc/self: %s",
			  strerror(-err));
		return -1;
	}
	return 0;
}

static void
explain_bpf_failure(const char *what, int err)
{
	if (err == -ENOSYS)
		error_msg("cannot %s: this kernel has no BPF support "
			  "(CONFIG_BPF_SYSCALL)", what);
	else if (err == -EPERM || err == -EACCES)
		error_msg("cannot %s: %s (a verifier rejection, or BPF is restricted here: check "
			  "kernel.unprivileged_bpf_disabled, lockdown and seccomp)",
			  what, strerror(-err));
	else
		error_msg("cannot %s: %s", what, strerror(-err));
}

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
	if (refuse_partial(s, pid, what))
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
	unnamed = consumer_escaped(&s->consumer, escaped_unseen, s);
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

/* Whether SIGINT, SIGTERM or SIGHUP waits: the user wants memsup done. */
static bool
end_signal_pending(void)
{
	sigset_t pending, ends;

	sigemptyset(&ends);
	add_end_signals(&ends);
	if (sigpending(&pending) || sigandset(&pending, &pending, &ends))
		return false;
	return !sigisemptyset(&pending);
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
	z.give_up = end_signal_pending;
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
finish(struct session *s, const char *output, bool quiet)
{
	struct capture_end end = {
		.lost_records = consumer_lost_records(&s->consumer),
		.lost_calls = consumer_lost_calls(&s->consumer),
		.untraced_processes = s->untraced,
		.unstoppable_processes = s->unstoppable,
		.dropped_stacks = consumer_dropped_stacks(&s->consumer),
		.vanished_threads = s->vanished,
		.pressure_stops = s->pressure.stops,
		.flags = (s->pressure.timed_out ? CAPTURE_END_PRESSURE_TIMEOUT : 0) |
			 (s->ended_by ? CAPTURE_END_INTERRUPTED : 0),
		.exit_status = s->tracer.root_status,
	};
	bool kept_cut;
	int err;
	bool readable = !capture_direct(s->capture);
	struct frame_names names;
	struct unwind_stats unwinding;
	struct stack_sources sources;
	char status[64];
	uint64_t ring_needed;
	char ring_option[24];

	pressure_finish(&s->pressure, &s->consumer);
	frame_names_init(&names);
	if (s->stacks && s->symbolize == SYMBOLIZE_CAPTURE)
		name_frames(s, &names);
	err = capture_finish(s->capture, &end, &kept_cut);
	s->capture = NULL;
	/*
	 * The capture is written and the tree is gone: a signal now is
	 * memsup's own, and ends what is left (naming the top sites may
	 * wait on debuginfod servers) at once.
	 */
	unblock_signals_after_tracing();
	if (!quiet)
		summary_print(stderr, &s->heap, &end);
	if (err && kept_cut)
		error_msg("cannot write capture %s: %s; it holds the records "
			  "written until then, a capture cut short", output,
			  strerror(-err));
	else if (err)
		error_msg("cannot write capture %s: %s", output, strerror(-err));
	if (!err && !quiet && s->stacks)
		print_top_sites(s, &names, readable ? output : NULL);
	frame_names_free(&names);
	if (err)
		return MS_EXIT_FAILURE;
	if (!quiet && s->pressure.stops)
		print_pressure(s);
	consumer_unwind_stats(&s->consumer, &unwinding);
	if (!quiet && consumer_stack_sources(&s->consumer, &sources))
		print_stack_sources(&sources, &unwinding, end.dropped_stacks);
	if (!quiet && unwinding.copies)
		print_unwinding(&unwinding);
	if (!quiet)
		fprintf(stderr, "memsup: capture written to %s\n", output);
	if (s->pressure.timed_out) {
		error_msg("capture incomplete: the tree was killed because it "
			  "could not be stopped to drain the ring in time");
		return MS_EXIT_INCOMPLETE;
	}
	/* A lost record is most often one without its stack: they give way first. */
	ring_needed = pressure_ring_needed(&s->pressure, end.lost_records *
					   (BPF_RINGBUF_HDR_SZ + MS_COMPACT_BYTES));
	if (ring_needed)
		error_msg("the ring is too small for what a pressure stop lets "
			  "through (%llu bytes came in past the watermark before "
			  "the tree stopped, and more was lost): try --ring-size=%s",
			  (unsigned long long)s->pressure.worst_overshoot,
			  ring_size_option(ring_option, ring_needed));
	if (end.lost_calls)
		error_msg("%llu allocator calls found no room in the per-thread "
			  "map: raise --max-threads (now %zu)",
			  (unsigned long long)end.lost_calls, s->max_threads);
	if (end.lost_records || end.lost_calls || end.untraced_processes ||
	    end.unstoppable_processes || end.vanished_threads) {
		error_msg("capture incomplete: %llu records lost, %llu calls lost, "
			  "%llu processes untraced, %llu processes unstoppable, "
			  "%llu threads vanished (workload %s)",
			  (unsigned long long)end.lost_records,
			  (unsigned long long)end.lost_calls,
			  (unsigned long long)end.untraced_processes,
			  (unsigned long long)end.unstoppable_processes,
			  (unsigned long long)end.vanished_threads,
			  s->ended_by ? "still running" :
			  describe_wait_status(end.exit_status, status, sizeof(status)));
		return MS_EXIT_INCOMPLETE;
	}
	if (s->ended_by) {
		error_msg("tracing ended by SIG%s before the tree exited: what it "
			  "did until then is in the capture", sigabbrev_np(s->ended_by));
		return 128 + s->ended_by;
	}
	return exit_status_of(end.exit_status);
}

int
run_capture(const struct run_options *o)
{
	struct session s = { 0 };
	char pid_arg[16];
	char *attach_argv[] = { "-p", pid_arg, NULL };
	char *const *argv = o->attach_pid ? attach_argv : o->argv;
	int argc = o->attach_pid ? 2 : o->argc;
	char *output;
	const char *output_name;
	struct workload_user wu = { .change = false };
	struct consumer_config bpf;
	const char *what;
	sigset_t mask;
	int err, sfd = -1, ret = MS_EXIT_FAILURE;

	snprintf(pid_arg, sizeof(pid_arg), "%d", o->attach_pid);
	output = o->output ? xstrdup(o->output)
			   : default_output(o->attach_pid ? pid_arg : o->argv[0]);
	output_name = strcmp(output, "-") ? output : "standard output";
	heap_init(&s.heap);
	sites_init(&s.sites);
	bpf = o->bpf;
	bpf.spaces = &s.sites.spaces;
	if (o->attach_pid)
		bpf.on_mapping = on_mapping;
	pressure_init(&s.pressure, o->pressure_timeout_ns, o->bpf.ring_bytes,
		      o->bpf.watermark_bytes, o->watermark_follows);
	s.max_processes = o->bpf.max_processes;
	s.max_threads = o->bpf.max_threads;
	s.stacks = o->bpf.stack_mode != MS_STACK_NONE;
	s.symbolize = o->symbolize;
	s.probe_sites = o->probe_sites;
	s.allow_partial = o->allow_partial;
	u64map_init(&s.processes);
	tracer_init(&s.tracer, &session_tracer_ops, &s);

	if (check_environment(&bpf))
		goto out;
	if (workload_user_resolve(&wu, o->user, o->keep_root, &what)) {
		error_msg("cannot run the workload as %s: %s",
			  o->user ? o->user : "the user who ran sudo", what);
		goto out;
	}
	if (o->keep_root && getuid() == 0)
		warning_msg("--keep-root: the workload runs as root");
	err = consumer_open(&s.consumer, &bpf, sink, &s, &what);
	if (err) {
		explain_bpf_failure(what, err);
		goto out;
	}
	s.capture = capture_create(output, argc, argv);
	if (!s.capture) {
		if (errno == ENOTTY)
			error_msg("cannot write capture %s: it is a terminal", output_name);
		else
			perror_msg("cannot create capture %s", output_name);
		goto out;
	}
	/* The workload's output must not run into the capture's. */
	if (!strcmp(output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		perror_msg("cannot give the workload standard error for its output");
		goto out;
	}
	err = wu.change ? capture_set_owner(s.capture, wu.uid, wu.gid) : 0;
	if (err) {
		errno = -err;
		perror_msg("cannot give capture %s to uid %u", output, (unsigned)wu.uid);
		goto out;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	add_end_signals(&mask);
	add_job_stop_signals(&mask);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		perror_msg("signalfd");
		goto out;
	}

	launch_raise_file_limit();
	err = o->attach_pid ? start_attached(&s, o) : start_command(&s, o, &wu);
	if (err) {
		ret = err;
		goto out;
	}
	/* After the fork: a child of a real-time task loses its nice value. */
	realtime_take();
	status_init(&s.status, stderr,
		    o->status ? STATUS_ON : o->quiet ? STATUS_OFF : STATUS_AUTO,
		    o->attach_pid ? o->attach_pid : s.tracer.root);

	err = trace_until_done(&s, sfd);
	if (err) {
		/* PTRACE_O_EXITKILL takes a launched tree down with memsup;
		 * an attached one is let go. */
		errno = -err;
		perror_msg("tracing failed");
		goto out;
	}
	count_escaped_processes(&s);
	ret = finish(&s, output_name, o->quiet);

out:
	status_clear(&s.status);
	if (s.attached)
		disarm_hooks(&s);
	capture_abort(s.capture);
	if (sfd >= 0)
		close(sfd);
	tracer_free(&s.tracer);
	untrace_all(&s);
	link_reaper_wait();
	consumer_close(&s.consumer);
	probe_targets_release();
	mappings_release();
	heap_free(&s.heap);
	sites_free(&s.sites);
	workload_user_free(&wu);
	free(output);
	return ret;
}
