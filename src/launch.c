// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "launch.h"
#include "error.h"
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: only async-signal-safe calls, and out through _exit(). */
static void __attribute__((noreturn))
run_child(char *const argv[], int go_fd, int err_fd)
{
	sigset_t none;
	char go;
	int err;

	/* The workload gets the signal state memsup was started with. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);

	/* Wait until the parent has seized us; EOF means it died. */
	if (read(go_fd, &go, 1) != 1)
		_exit(MS_EXIT_FAILURE);
	execvp(argv[0], argv);
	err = errno;
	if (write(err_fd, &err, sizeof(err)) != sizeof(err))
		_exit(MS_EXIT_FAILURE);
	_exit(err == ENOENT ? MS_EXIT_NOT_FOUND : MS_EXIT_CANNOT_EXEC);
}

pid_t
launch_traced(char *const argv[], int *exec_errno)
{
	int go[2], err[2], saved;
	ssize_t n;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(err, O_CLOEXEC))
		goto fail_go;
	pid = fork();
	if (pid < 0)
		goto fail_err;
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		run_child(argv, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);

	if (ptrace(PTRACE_SEIZE, pid, 0L, (long)TRACER_PTRACE_OPTIONS)) {
		saved = errno;
		close(go[1]);		/* the child reads EOF and exits */
		close(err[0]);
		waitpid(pid, NULL, 0);
		errno = saved;
		return -1;
	}
	if (write(go[1], "g", 1) != 1) {
		saved = errno;
		close(go[1]);
		close(err[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		errno = saved;
		return -1;
	}
	close(go[1]);

	/* The pipe closes on a successful exec, or carries execvp's errno. */
	*exec_errno = 0;
	do
		n = read(err[0], exec_errno, sizeof(*exec_errno));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(*exec_errno))
		*exec_errno = 0;
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
	errno = saved;
	return -1;
}
