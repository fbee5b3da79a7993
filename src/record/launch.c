// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "launch.h"
#include "credentials.h"
#include "error.h"
#include "trace-guard.h"
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The limit on open files memsup was given, if it raised its own. */
static struct rlimit workload_files;
static bool files_raised;

void
launch_raise_file_limit(void)
{
	struct rlimit files;

	if (getrlimit(RLIMIT_NOFILE, &files) || files.rlim_cur >= files.rlim_max)
		return;
	workload_files = files;
	files.rlim_cur = files.rlim_max;
	files_raised = !setrlimit(RLIMIT_NOFILE, &files);
}

static void __attribute__((noreturn))
child_failed(int err_fd, int step, int err, int status)
{
	struct launch_failure f = { .step = step, .err = err };

	if (write(err_fd, &f, sizeof(f)) != sizeof(f))
		_exit(MS_EXIT_FAILURE);
	_exit(status);
}

/* In the child: only async-signal-safe calls, and out through _exit(). */
static void __attribute__((noreturn))
run_child(char *const argv[], const struct workload_user *wu,
	  const struct trace_guard *guard, int go_fd, int err_fd)
{
	sigset_t none;
	char go;
	int err;

	/* The workload gets the signal state memsup was started with. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (files_raised)
		setrlimit(RLIMIT_NOFILE, &workload_files);

	/* Wait until the parent has seized us; EOF means it died. */
	if (read(go_fd, &go, 1) != 1)
		_exit(MS_EXIT_FAILURE);
	trace_guard_install(guard);
	err = workload_user_apply(wu);
	if (err)
		child_failed(err_fd, LAUNCH_CREDENTIALS, -err, MS_EXIT_FAILURE);
	execvp(argv[0], argv);
	err = errno;
	child_failed(err_fd, LAUNCH_EXEC, err,
		     err == ENOENT ? MS_EXIT_NOT_FOUND : MS_EXIT_CANNOT_EXEC);
}

pid_t
launch_traced(char *const argv[], const struct workload_user *wu,
	      struct launch_failure *failure)
{
	struct trace_guard guard;
	int go[2], err[2], saved;
	ssize_t n;
	pid_t pid;

	trace_guard_build(&guard, getpid());

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC))
		goto fail_go;
	pid = fork();
	if (pid < 0)
		goto fail_err;
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		run_child(argv, wu, &guard, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);

	if (ptrace(PTRACE_SEIZE, pid, 0L, (long)TRACER_PTRACE_OPTIONS)) {
		saved = errno;
		close(go[1]);		/* the child reads EOF and exits */
		close(err[0]);
		waitpid(pid, NULL, 0);
		return -saved;
	}
	if (write(go[1], "g", 1) != 1) {
		saved = errno;
		close(go[1]);
		close(err[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -saved;
	}
	close(go[1]);

	/* The pipe closes on a successful exec, or says what failed. */
	do
		n = read(err[0], failure, sizeof(*failure));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(*failure))
		failure->step = LAUNCH_OK;
	close(err[0]);
	return pid;

fail_err:
	saved = errno;
	close(err[0]);
	close(err[1]);
	errno = saved;
fail_go:
	saved = errno;
	close(go[0]);
	close(go[1]);
	return -saved;
}
