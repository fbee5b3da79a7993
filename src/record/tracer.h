/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-tree state machine: owns every thread of the traced tree
 * through ptrace, turns wait statuses into process events, and resumes
 * each stop with the action it calls for.  See doc/design.md, "ptrace".
 */
#ifndef MEMSUP_TRACER_H
#define MEMSUP_TRACER_H

#include <stdbool.h>
#include <sys/types.h>
#include "u64map.h"

/* Called while the thread concerned is held in a ptrace-stop. */
struct tracer_ops {
	/* A new process; shares_vm for vfork and CLONE_VM children. */
	void (*process_forked)(void *ctx, pid_t parent, pid_t child, bool shares_vm);
	/* A thread the tracer has not seen run yet (including a new process's). */
	void (*thread_started)(void *ctx, pid_t tid);
	/* pid runs a new image, not one instruction of which has run. */
	void (*process_exec)(void *ctx, pid_t pid, pid_t former_tid);
	/* The last thread of pid is gone. */
	void (*process_exited)(void *ctx, pid_t pid, int wait_status);
	/*
	 * Thread tid of pid stopped for a SIGTRAP: true if it was memsup's
	 * breakpoint, handled, and the signal is not to be delivered.
	 */
	bool (*breakpoint)(void *ctx, pid_t pid, pid_t tid);
	/*
	 * Thread tid (of pid, 0 if never known) is no longer memsup's to
	 * wait for, and memsup never saw it go: its entry was wrong.
	 */
	void (*thread_vanished)(void *ctx, pid_t pid, pid_t tid);
	/* Thread tid of pid stopped, as tracer_interrupt() asked. */
	void (*interrupted)(void *ctx, pid_t pid, pid_t tid);
};

struct tracer {
	const struct tracer_ops *ops;
	void *ctx;
	struct u64map threads;		/* tid -> struct tracee * */
	pid_t root;
	int root_status;
	bool holding;			/* a pressure hold is under way */
};

/* The options every tracee is seized with. */
#define TRACER_FOLLOW_OPTIONS \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
	 PTRACE_O_TRACEEXEC)
/* A workload memsup started dies with memsup; one it attached to lives on. */
#define TRACER_PTRACE_OPTIONS (TRACER_FOLLOW_OPTIONS | PTRACE_O_EXITKILL)

void tracer_init(struct tracer *t, const struct tracer_ops *ops, void *ctx);
void tracer_free(struct tracer *t);
/* Adopts root, already seized and about to exec. */
void tracer_add_root(struct tracer *t, pid_t root);
/* Adopts thread tid of process pid, seized while it runs (memsup -p). */
void tracer_adopt(struct tracer *t, pid_t tid, pid_t pid);
/* Handles one wait status of tid and resumes it when that is due. */
void tracer_handle(struct tracer *t, pid_t tid, int status);
/* tid is a thread of the tree, not yet reaped. */
bool tracer_traces(const struct tracer *t, pid_t tid);
/* Nothing is left to trace. */
bool tracer_done(const struct tracer *t);
/*
 * Drops, through ops->thread_vanished, every entry of a thread memsup
 * can no longer wait for: nothing of it will ever be reported.  For when
 * the tree has been quiet for a while.  Returns how many it dropped.
 */
size_t tracer_forget_vanished(struct tracer *t);

/*
 * Stops thread tid, if it runs, and calls ops->interrupted at its next
 * stop.  Returns false, and asks for nothing, when tid is not running
 * code memsup knows of: not in the tree, stopped, or not identified yet.
 */
bool tracer_interrupt(struct tracer *t, pid_t tid);

/*
 * The pressure hold: interrupts every running thread and keeps every stop
 * from then on, newborns included, until tracer_release().  Threads in a
 * group-stop and vfork parents cannot run workload code meanwhile and are
 * not waited for.
 */
void tracer_hold(struct tracer *t);
/* Every thread that can stop has. */
bool tracer_held(const struct tracer *t);
/* Resumes every held thread with the action its last stop calls for. */
void tracer_release(struct tracer *t);
/*
 * Lets every thread go, the tree held (tracer_held): each keeps the
 * signal its stop was delivering, a group-stopped one stays stopped.
 */
void tracer_detach_all(struct tracer *t);
/* SIGKILL to every traced process: what a hold that cannot end comes to. */
void tracer_kill_all(const struct tracer *t);

#endif
