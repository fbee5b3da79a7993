// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracer's thread table against the orders in which wait can report a
 * tree: real processes, seized by this test, their wait statuses handed to
 * the tracer in an order the test chooses.  Needs ptrace of a child only.
 */
#include "config.h"
#include "tap.h"
#include "tracer.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_STATUS 7

/* What the tracer told the session. */
static struct {
	unsigned int forked, exited, vanished;
	pid_t fork_parent, fork_child;
	pid_t exited_pid[4];
	int exit_status[4];
	pid_t vanished_pid, vanished_tid;
	unsigned int interrupted;
	pid_t interrupted_pid, interrupted_tid;
} told;

static void
on_forked(void *ctx, pid_t parent, pid_t child, bool shares_vm)
{
	told.forked++;
	told.fork_parent = parent;
	told.fork_child = child;
}

static void
on_started(void *ctx, pid_t tid)
{
}

static void
on_exec(void *ctx, pid_t pid, pid_t former_tid)
{
}

static void
on_exited(void *ctx, pid_t pid, int wait_status)
{
	if (told.exited < 4) {
		told.exited_pid[told.exited] = pid;
		told.exit_status[told.exited] = wait_status;
	}
	told.exited++;
}

static bool
on_breakpoint(void *ctx, pid_t pid, pid_t tid)
{
	return false;
}

static void
on_vanished(void *ctx, pid_t pid, pid_t tid)
{
	told.vanished++;
	told.vanished_pid = pid;
	told.vanished_tid = tid;
}

static void
on_interrupted(void *ctx, pid_t pid, pid_t tid)
{
	told.interrupted++;
	told.interrupted_pid = pid;
	told.interrupted_tid = tid;
}

static const struct tracer_ops ops = {
	.process_forked = on_forked,
	.thread_started = on_started,
	.process_exec = on_exec,
	.process_exited = on_exited,
	.breakpoint = on_breakpoint,
	.thread_vanished = on_vanished,
	.interrupted = on_interrupted,
};

/* Skips the file, but not where CI wants every privileged test to run. */
static void
skip_all(const char *why)
{
	const char *require = getenv("MEMSUP_REQUIRE_BPF");

	if (require && !strcmp(require, "1"))
		tap_bail("MEMSUP_REQUIRE_BPF=1 but: %s", why);
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/*
 * A process seized with memsup's options that, once released, forks
 * (or vforks) a child that exits at once with CHILD_STATUS, waits for
 * it, and exits 0.
 */
static pid_t
start_forker(bool use_vfork, int *release)
{
	int gate[2];
	pid_t pid;
	char c;

	if (pipe(gate))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		pid_t child;
		int status;

		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(100);
		child = use_vfork ? vfork() : fork();
		if (child == 0)
			_exit(CHILD_STATUS);
		_exit(waitpid(child, &status, 0) == child &&
		      WIFEXITED(status) && WEXITSTATUS(status) == CHILD_STATUS ? 0 : 101);
	}
	close(gate[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0L, (long)TRACER_PTRACE_OPTIONS)) {
		int err = errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (err == EPERM)
			skip_all("ptrace is not allowed here");
		tap_bail("PTRACE_SEIZE: %s", strerror(err));
	}
	*release = gate[1];
	return pid;
}

/* Hands the tracer every status until nothing is left to wait for. */
static void
run_to_end(struct tracer *t)
{
	int status;
	pid_t tid;

	while (!tracer_done(t) && (tid = waitpid(-1, &status, __WALL)) > 0)
		tracer_handle(t, tid, status);
}

/*
 * wait reports the newest tracee first: a child's first stop and its
 * death can both be reaped before its parent's fork or vfork event.
 */
static void
child_reaped_before_parent_event(bool use_vfork)
{
	const char *how = use_vfork ? "vfork" : "fork";
	int want_event = use_vfork ? PTRACE_EVENT_VFORK : PTRACE_EVENT_FORK;
	struct tracer t;
	unsigned long msg = 0;
	int release, parent_status, status;
	pid_t parent, child;

	memset(&told, 0, sizeof(told));
	tracer_init(&t, &ops, NULL);
	parent = start_forker(use_vfork, &release);
	tracer_add_root(&t, parent);
	if (write(release, "", 1) != 1)
		tap_bail("write: %s", strerror(errno));
	close(release);

	/* The parent's event, held back from the tracer for now. */
	if (waitpid(parent, &parent_status, __WALL) != parent)
		tap_bail("waitpid: %s", strerror(errno));
	tap_eq_u64((unsigned)parent_status >> 16, want_event, "%s: the parent's event", how);
	if (ptrace(PTRACE_GETEVENTMSG, parent, 0L, &msg))
		tap_bail("PTRACE_GETEVENTMSG: %s", strerror(errno));
	child = (pid_t)msg;

	/* The child's whole life first: its first stop, then its death. */
	do {
		if (waitpid(child, &status, __WALL) != child)
			tap_bail("waitpid of the child: %s", strerror(errno));
		tracer_handle(&t, child, status);
	} while (!WIFEXITED(status) && !WIFSIGNALED(status));
	tap_ok(!tracer_traces(&t, child), "%s: the child's death drops it", how);

	tracer_handle(&t, parent, parent_status);
	tap_ok(!tracer_traces(&t, child),
	       "%s: the parent's late event does not bring the child back", how);
	run_to_end(&t);

	tap_ok(tracer_done(&t), "%s: the tracer ends with the tree", how);
	tap_eq_u64(told.forked, 1, "%s: the child is announced once", how);
	tap_ok(told.fork_parent == parent && told.fork_child == child,
	       "%s: as the parent's child", how);
	tap_eq_u64(told.exited, 2, "%s: two exits", how);
	tap_ok(told.exited_pid[0] == child && WIFEXITED(told.exit_status[0]) &&
	       WEXITSTATUS(told.exit_status[0]) == CHILD_STATUS,
	       "%s: the child's, with its status", how);
	tap_ok(told.exited_pid[1] == parent && WIFEXITED(told.exit_status[1]) &&
	       WEXITSTATUS(told.exit_status[1]) == 0,
	       "%s: then the parent's, which saw its child exit %d", how, CHILD_STATUS);
	tap_eq_u64(told.vanished, 0, "%s: no entry had to be forgotten", how);
	tracer_free(&t);
}

/* An entry nothing will ever be reported of goes; a live one stays. */
static void
forget_vanished(void)
{
	struct tracer t;
	int release, status;
	pid_t live, gone;

	memset(&told, 0, sizeof(told));
	tracer_init(&t, &ops, NULL);
	live = start_forker(false, &release);
	tracer_add_root(&t, live);
	gone = fork();
	if (gone == 0)
		_exit(0);
	if (waitpid(gone, &status, 0) != gone)
		tap_bail("waitpid: %s", strerror(errno));
	/* As a wrong table would hold it: memsup can no longer wait for it. */
	tracer_adopt(&t, gone, gone);

	tap_eq_u64(tracer_forget_vanished(&t), 1, "one entry forgotten");
	tap_ok(told.vanished == 1 && told.vanished_pid == gone &&
	       told.vanished_tid == gone, "reported once, with its pid and tid");
	tap_ok(!tracer_traces(&t, gone), "the gone one is dropped");
	tap_ok(tracer_traces(&t, live), "the live one is kept");
	tap_eq_u64(tracer_forget_vanished(&t), 0, "a second look forgets nothing");

	close(release);		/* the forker exits 100 without its gate */
	run_to_end(&t);
	tap_ok(tracer_done(&t), "the tracer ends when the live one exits");
	tap_ok(told.exited == 1 && told.exited_pid[0] == live &&
	       WIFEXITED(told.exit_status[0]) && WEXITSTATUS(told.exit_status[0]) == 100,
	       "with its exit");
	tracer_free(&t);
}

/*
 * tracer_interrupt: a running thread is stopped and told of once, then
 * resumed; nothing is asked of a thread the tracer does not know.
 */
static void
interrupt(void)
{
	struct tracer t;
	int release, status;
	pid_t pid;

	memset(&told, 0, sizeof(told));
	tracer_init(&t, &ops, NULL);
	pid = start_forker(false, &release);
	tracer_add_root(&t, pid);

	tap_ok(!tracer_interrupt(&t, pid + 100000), "interrupt: a thread not in the tree is not asked");
	tap_ok(tracer_interrupt(&t, pid), "interrupt: the running root is asked");
	if (waitpid(pid, &status, __WALL) != pid)
		tap_bail("waitpid: %s", strerror(errno));
	tap_eq_u64((unsigned)status >> 16, PTRACE_EVENT_STOP, "interrupt: it stops");
	tracer_handle(&t, pid, status);
	tap_ok(told.interrupted == 1 && told.interrupted_pid == pid &&
	       told.interrupted_tid == pid, "interrupt: its stop is told once, with its pid and tid");

	/* Resumed, its read of the gate goes on. */
	if (write(release, "", 1) != 1)
		tap_bail("write: %s", strerror(errno));
	close(release);
	run_to_end(&t);
	tap_ok(told.exited == 2 && told.exited_pid[1] == pid &&
	       WIFEXITED(told.exit_status[1]) && WEXITSTATUS(told.exit_status[1]) == 0,
	       "interrupt: it runs on to its exit 0");
	tap_eq_u64(told.interrupted, 1, "interrupt: no later stop is told as one");
	tracer_free(&t);
}

int
main(void)
{
	tap_plan(2 * 10 + 7 + 6);
	child_reaped_before_parent_event(false);
	child_reaped_before_parent_event(true);
	forget_vanished();
	interrupt();
	return tap_done();
}
