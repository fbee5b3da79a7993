// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "tracer.h"
#include "error.h"
#include "procfs.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>

enum tracee_state {
	TRACEE_RUNNING,		/* resumed with PTRACE_CONT */
	TRACEE_LISTENING,	/* group-stopped, resumed with PTRACE_LISTEN */
	TRACEE_STOPPED,		/* in a ptrace-stop memsup has not ended */
};

struct tracee {
	pid_t tid;
	pid_t pid;		/* thread group; 0 until known */
	enum tracee_state state;
	bool first_stop_seen;
	/* What its stop calls for, once nothing holds it. */
	int resume_request;
	int resume_sig;
	/* A vfork parent cannot stop before its child execs or exits. */
	pid_t vfork_child;
	bool interrupt_wanted;	/* by tracer_interrupt() */
};

/* The tracee a slot of the threads map holds. */
#define tracee_of(slot) ((struct tracee *)(uintptr_t)(slot)->value)

void
tracer_init(struct tracer *t, const struct tracer_ops *ops, void *ctx)
{
	t->ops = ops;
	t->ctx = ctx;
	u64map_init(&t->threads);
	t->root = 0;
	t->root_status = 0;
	t->holding = false;
}

void
tracer_free(struct tracer *t)
{
	struct u64map_slot *s;

	u64map_foreach(&t->threads, s)
		free(tracee_of(s));
	u64map_free(&t->threads);
}

static struct tracee *
find(const struct tracer *t, pid_t tid)
{
	struct u64map_slot *s = u64map_find(&t->threads, (uint64_t)tid);

	return s ? tracee_of(s) : NULL;
}

static struct tracee *
add(struct tracer *t, pid_t tid)
{
	struct tracee *tr = xcalloc(1, sizeof(*tr));

	tr->tid = tid;
	tr->state = TRACEE_RUNNING;
	u64map_put(&t->threads, (uint64_t)tid, (uintptr_t)tr);
	return tr;
}

static void
drop(struct tracer *t, struct tracee *tr)
{
	u64map_remove(&t->threads, (uint64_t)tr->tid, NULL);
	free(tr);
}

void
tracer_add_root(struct tracer *t, pid_t root)
{
	tracer_adopt(t, root, root);
}

void
tracer_adopt(struct tracer *t, pid_t tid, pid_t pid)
{
	struct tracee *tr = add(t, tid);

	tr->pid = pid;
	tr->first_stop_seen = true;	/* seized, not auto-attached */
	if (tid == pid && !t->root)
		t->root = pid;
}

bool
tracer_traces(const struct tracer *t, pid_t tid)
{
	return find(t, tid) != NULL;
}

bool
tracer_done(const struct tracer *t)
{
	return t->threads.count == 0;
}

/*
 * A tracee that died since its stop makes ptrace fail with ESRCH; its
 * death is reported by wait, so there is nothing to do here.
 */
static void
resume_now(struct tracee *tr)
{
	if (ptrace(tr->resume_request, tr->tid, 0L, (long)tr->resume_sig) &&
	    errno != ESRCH)
		perror_msg("ptrace(%s) of %d",
			   tr->resume_request == PTRACE_LISTEN ? "LISTEN" : "CONT",
			   tr->tid);
	tr->state = tr->resume_request == PTRACE_LISTEN ? TRACEE_LISTENING
							: TRACEE_RUNNING;
}

/*
 * Ends a stop with the action it calls for, unless a pressure hold is
 * under way: then the thread waits, stopped, for tracer_release().
 * This and tracer_release() are the only places a tracee is resumed.
 */
static void
settle(struct tracer *t, struct tracee *tr, int request, int sig)
{
	tr->state = TRACEE_STOPPED;
	tr->resume_request = request;
	tr->resume_sig = sig;
	if (!t->holding)
		resume_now(tr);
}

/* The thread group and parent of tid, from /proc; false if it is gone. */
static bool
read_lineage(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	return proc_status_scan(tid, "Tgid", "%d", tgid) == 1 &&
	       proc_status_scan(tid, "PPid", "%d", ppid) == 1;
}

static bool
same_vm(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_VM, 0L, 0L) == 0;
}

/* Makes a new thread, of a new process or not, known to the session. */
static void
announce(struct tracer *t, struct tracee *child, pid_t child_pid,
	 pid_t parent_pid, bool shares_vm)
{
	child->pid = child_pid;
	if (child_pid != parent_pid)
		t->ops->process_forked(t->ctx, parent_pid, child_pid, shares_vm);
	t->ops->thread_started(t->ctx, child->tid);
}

/*
 * A newborn whose first stop came before its parent's fork, vfork or
 * clone event (which never comes if the parent is killed meanwhile):
 * /proc says who it is, so it need not wait.
 */
static void
identify_newborn(struct tracer *t, struct tracee *tr)
{
	pid_t tgid, ppid;

	if (!read_lineage(tr->tid, &tgid, &ppid))
		return;		/* gone already: its exit is on its way */
	if (tgid != tr->tid)
		announce(t, tr, tgid, tgid, true);
	else
		announce(t, tr, tr->tid, ppid, same_vm(ppid, tr->tid));
}

/*
 * Whether memsup still has tid to wait for: a tracee, or its own child,
 * not reaped yet.  Nothing is taken from the wait queue.
 */
static bool
waitable(pid_t tid)
{
	siginfo_t si;

	return waitid(P_PID, (id_t)tid, &si,
		      WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) == 0 ||
	       errno != ECHILD;
}

/* The child of a fork, vfork or clone event, unless its first stop told. */
static void
adopt_child(struct tracer *t, struct tracee *parent, int event, pid_t child_tid)
{
	struct tracee *child = find(t, child_tid);
	pid_t tgid = child_tid, ppid;

	/*
	 * wait reports the newest tracee first, so a short-lived child's
	 * first stop, its whole life and its death can all be reaped before
	 * its parent's event: then there is nobody left to wait for.
	 */
	if (!child && !waitable(child_tid))
		return;
	if (!child)
		child = add(t, child_tid);
	if (!child->pid) {
		if (event == PTRACE_EVENT_CLONE)
			read_lineage(child_tid, &tgid, &ppid);
		announce(t, child, tgid, parent->pid,
			 event == PTRACE_EVENT_VFORK ||
			 (event == PTRACE_EVENT_CLONE && same_vm(parent->tid, child_tid)));
		/* Its first stop came and /proc could not tell who it was. */
		if (child->state == TRACEE_STOPPED)
			settle(t, child, PTRACE_CONT, 0);
	}
	if (event == PTRACE_EVENT_VFORK)
		parent->vfork_child = child->pid;
}

/* A vfork child that execs or exits lets its parent run again. */
static void
vfork_ended(struct tracer *t, pid_t child_pid)
{
	struct u64map_slot *s;

	u64map_foreach(&t->threads, s) {
		struct tracee *tr = tracee_of(s);

		if (tr->vfork_child == child_pid)
			tr->vfork_child = 0;
	}
}

static void
handle_event(struct tracer *t, struct tracee *tr, int event)
{
	unsigned long msg = 0;

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tr->tid, 0L, &msg) == 0)
			adopt_child(t, tr, event, (pid_t)msg);
		break;
	case PTRACE_EVENT_EXEC:
		/*
		 * A non-leader that execs takes the leader's tid; the old
		 * leader is gone without an exit report.
		 */
		if (ptrace(PTRACE_GETEVENTMSG, tr->tid, 0L, &msg) == 0 &&
		    (pid_t)msg != tr->tid) {
			struct tracee *former = find(t, (pid_t)msg);

			if (former)
				drop(t, former);
		}
		vfork_ended(t, tr->pid);
		t->ops->process_exec(t->ctx, tr->pid, (pid_t)msg);
		break;
	}
	settle(t, tr, PTRACE_CONT, 0);
}

static bool
is_group_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void
handle_stop(struct tracer *t, struct tracee *tr, int status)
{
	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;
	bool first = !tr->first_stop_seen;

	tr->first_stop_seen = true;
	tr->state = TRACEE_STOPPED;
	tr->vfork_child = 0;
	if (!tr->pid)
		identify_newborn(t, tr);
	if (!tr->pid)
		return;		/* its parent's event or its death will tell */
	if (tr->interrupt_wanted) {
		tr->interrupt_wanted = false;
		t->ops->interrupted(t->ctx, tr->pid, tr->tid);
	}

	if (event == PTRACE_EVENT_STOP) {
		/*
		 * A newborn's first stop and an interrupt are resumed; a
		 * group-stop is listened to, so that job control still
		 * keeps it stopped until SIGCONT.
		 */
		if (!first && is_group_stop_signal(sig))
			settle(t, tr, PTRACE_LISTEN, 0);
		else
			settle(t, tr, PTRACE_CONT, 0);
	} else if (event) {
		handle_event(t, tr, event);
	} else if (sig == SIGTRAP && t->ops->breakpoint(t->ctx, tr->pid, tr->tid)) {
		/* memsup's own breakpoint: the workload never sees it. */
		settle(t, tr, PTRACE_CONT, 0);
	} else {
		/* Signal-delivery-stop: deliver the signal. */
		settle(t, tr, PTRACE_CONT, sig);
	}
}

static void
handle_death(struct tracer *t, struct tracee *tr, int status)
{
	pid_t pid = tr->pid, tid = tr->tid;
	bool interrupted = tr->interrupt_wanted;

	drop(t, tr);
	/* The stop it was asked for will not come; its process lives on. */
	if (interrupted && tid != pid)
		t->ops->interrupted(t->ctx, pid, tid);
	if (tid == t->root)
		t->root_status = status;
	/* The leader is reported only once its whole group is gone. */
	if (pid && tid == pid) {
		vfork_ended(t, pid);
		t->ops->process_exited(t->ctx, pid, status);
	}
}

size_t
tracer_forget_vanished(struct tracer *t)
{
	struct u64map_slot *s;
	pid_t *gone = xmalloc((t->threads.count + 1) * sizeof(*gone));
	size_t i, n = 0;

	/* Dropping an entry moves others in the map: list them first. */
	u64map_foreach(&t->threads, s) {
		if (!waitable((pid_t)s->key))
			gone[n++] = (pid_t)s->key;
	}
	for (i = 0; i < n; i++) {
		struct tracee *tr = find(t, gone[i]);

		t->ops->thread_vanished(t->ctx, tr->pid, tr->tid);
		drop(t, tr);
	}
	free(gone);
	return n;
}

bool
tracer_interrupt(struct tracer *t, pid_t tid)
{
	struct tracee *tr = find(t, tid);

	if (!tr || !tr->pid || tr->state != TRACEE_RUNNING)
		return false;
	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) && errno != ESRCH)
		perror_msg("ptrace(INTERRUPT) of %d", tid);
	tr->interrupt_wanted = true;
	return true;
}

void
tracer_hold(struct tracer *t)
{
	struct u64map_slot *s;

	t->holding = true;
	u64map_foreach(&t->threads, s) {
		struct tracee *tr = tracee_of(s);

		/*
		 * A group-stopped thread runs nothing until SIGCONT, and
		 * then it traps to memsup first.  A vfork parent takes the
		 * interrupt when its child lets it go.
		 */
		if (tr->state == TRACEE_RUNNING &&
		    ptrace(PTRACE_INTERRUPT, tr->tid, 0L, 0L) && errno != ESRCH)
			perror_msg("ptrace(INTERRUPT) of %d", tr->tid);
	}
}

bool
tracer_held(const struct tracer *t)
{
	struct u64map_slot *s;

	u64map_foreach(&t->threads, s) {
		const struct tracee *tr = tracee_of(s);

		if (tr->state == TRACEE_RUNNING && !tr->vfork_child)
			return false;
	}
	return true;
}

void
tracer_release(struct tracer *t)
{
	struct u64map_slot *s;

	t->holding = false;
	u64map_foreach(&t->threads, s) {
		struct tracee *tr = tracee_of(s);

		/* A newborn not known yet waits for its parent's event. */
		if (tr->state == TRACEE_STOPPED && tr->pid)
			resume_now(tr);
	}
}

void
tracer_detach_all(struct tracer *t)
{
	struct u64map_slot *s;

	u64map_foreach(&t->threads, s) {
		struct tracee *tr = tracee_of(s);
		/* A group-stopped thread stays stopped, as job control wants. */
		int sig = tr->state == TRACEE_STOPPED &&
			  tr->resume_request == PTRACE_CONT ? tr->resume_sig : 0;

		if (tr->state != TRACEE_RUNNING &&
		    ptrace(PTRACE_DETACH, tr->tid, 0L, (long)sig) && errno != ESRCH)
			perror_msg("ptrace(DETACH) of %d", tr->tid);
		free(tr);
	}
	/* Any other thread is detached by the kernel when memsup exits. */
	u64map_clear(&t->threads);
	t->holding = false;
}

void
tracer_kill_all(const struct tracer *t)
{
	struct u64map_slot *s;

	u64map_foreach(&t->threads, s) {
		const struct tracee *tr = tracee_of(s);

		kill(tr->pid ? tr->pid : tr->tid, SIGKILL);
	}
}

void
tracer_handle(struct tracer *t, pid_t tid, int status)
{
	struct tracee *tr = find(t, tid);

	if (WIFSTOPPED(status)) {
		if (!tr)
			tr = add(t, tid);	/* auto-attached, event not seen yet */
		handle_stop(t, tr, status);
	} else if (tr && (WIFEXITED(status) || WIFSIGNALED(status))) {
		handle_death(t, tr, status);
	}
}
