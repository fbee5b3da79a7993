// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's event loop: wait statuses, signals, ring wakeups and a
 * tick, until the tree is done or a signal ends tracing.  Pressure stops,
 * job-control stops and memsup -p's detach all hold the tree here.
 */
#include "config.h"
#include "session.h"
#include "capture.h"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

static void
show_status(struct session *s)
{
	struct status_figures f = {
		.events = s->events,
		.live_bytes = s->heap.tree.live_bytes,
		.pressure_stops = s->pressure.stops,
		.lost = bpf_loader_lost_records(&s->consumer.bpf) +
			bpf_loader_lost_calls(&s->consumer.bpf),
	};

	status_update(&s->status, consumer_now(&s->consumer), &f);
}

void
session_reap(struct session *s)
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
void
session_unblock_signals(void)
{
	sigset_t ends;

	sigemptyset(&ends);
	add_end_signals(&ends);
	add_job_stop_signals(&ends);
	sigprocmask(SIG_UNBLOCK, &ends, NULL);
}

/* SIGQUIT is passed on to the workload as the end signals are. */
int
session_signal_fd(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	add_end_signals(&mask);
	add_job_stop_signals(&mask);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
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
	session_unblock_signals();
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
			session_reap(s);
		else if (signal_in(add_job_stop_signals, (int)si.ssi_signo))
			s->job_stop = true;
		else
			take_signal(s, &si);
	}
	return 0;
}

/* Whether SIGINT, SIGTERM or SIGHUP waits: the user wants memsup done. */
bool
session_end_signal_pending(void)
{
	sigset_t pending, ends;

	sigemptyset(&ends);
	add_end_signals(&ends);
	if (sigpending(&pending) || sigandset(&pending, &pending, &ends))
		return false;
	return !sigisemptyset(&pending);
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
	session_disarm_hooks(s);
	u64map_foreach(&s->processes, slot)
		process_probes_detach(&((struct traced_process *)(uintptr_t)slot->value)->probes);
	bpf_loader_clear_latch(&s->consumer.bpf);
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

int
session_trace_until_done(struct session *s, int sfd)
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
	session_reap(s);
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
			pressure_drain(&s->pressure, &s->consumer);
		}
		pressure_step(&s->pressure, &s->tracer, &s->consumer,
			      consumer_now(&s->consumer));
		stop_when_held(s);
		if (s->attached) {
			session_rescan_when_due(s);
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
