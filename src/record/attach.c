// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "attach.h"
#include "procfs.h"
#include "tracer.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/* The name and the flags of a process, from /proc/PID/stat. */
static bool
read_stat(pid_t pid, char *comm, size_t size, unsigned long *flags)
{
	char path[64], buf[1024], *open, *close;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The name may hold spaces and parentheses: it ends at the last ')'. */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return false;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	/* After the name: state ppid pgrp session tty_nr tpgid flags. */
	return sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %lu", flags) == 1;
}

static pid_t
tracer_of(pid_t pid)
{
	pid_t tracer = 0;

	proc_status_scan(pid, "TracerPid", "%d", &tracer);
	return tracer;
}

/* attach_process's *why: the main thread alone attaches. */
static char why_buf[256];

/* One pass over /proc/PID/task: how many threads it seized, or -errno. */
static int
seize_new_threads(pid_t pid, struct tracer *t)
{
	char path[64];
	struct dirent *d;
	int seized = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

		if (tid <= 0 || tracer_traces(t, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0L, (long)TRACER_FOLLOW_OPTIONS)) {
			/* Gone meanwhile, or started by a seized thread and
			 * so attached already: its first stop will tell. */
			if (errno == ESRCH ||
			    (errno == EPERM && tracer_of(tid) == getpid()))
				continue;
			closedir(dir);
			return -errno;
		}
		tracer_adopt(t, tid, pid);
		seized++;
	}
	closedir(dir);
	return seized;
}

/* A pidfd names one process for good, where its pid can be reused. */
static int
process_handle(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static bool
still_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/*
 * Checks that pid may be traced, then seizes it and its threads.  The
 * process checked must be the one seized: pidfd holds it while memsup
 * looks at it through /proc, and if it is still alive once seized, its
 * pid was never free for another process to take meanwhile.
 */
static int
check_and_seize(pid_t pid, int pidfd, struct tracer *t)
{
	char comm[64], tracer_comm[64];
	unsigned long flags;
	pid_t tracer;
	int n;

	if (!read_stat(pid, comm, sizeof(comm), &flags)) {
		snprintf(why_buf, sizeof(why_buf), "there is no process %d",
			 pid);
		return -ESRCH;
	}
	if (flags & PF_KTHREAD) {
		snprintf(why_buf, sizeof(why_buf), "process %d (%s) is a kernel "
			 "thread", pid, comm);
		return -EPERM;
	}
	tracer = tracer_of(pid);
	if (tracer) {
		if (!read_stat(tracer, tracer_comm, sizeof(tracer_comm), &flags))
			snprintf(tracer_comm, sizeof(tracer_comm), "?");
		snprintf(why_buf, sizeof(why_buf), "process %d (%s) is traced "
			 "already, by process %d (%s)", pid, comm, tracer,
			 tracer_comm);
		return -EBUSY;
	}
	/* Seizing the leader first makes it the root.  Threads started
	 * meanwhile by a seized thread are attached by the kernel; the
	 * others are found by the next pass. */
	if (ptrace(PTRACE_SEIZE, pid, 0L, (long)TRACER_FOLLOW_OPTIONS)) {
		int err = errno;

		snprintf(why_buf, sizeof(why_buf), "cannot trace process %d "
			 "(%s): %s", pid, comm, strerror(err));
		return -err;
	}
	tracer_adopt(t, pid, pid);
	if (!still_alive(pidfd)) {
		/* What was seized, if anything, is let go when memsup exits. */
		snprintf(why_buf, sizeof(why_buf), "process %d (%s) exited while "
			 "memsup attached to it", pid, comm);
		return -ESRCH;
	}
	while ((n = seize_new_threads(pid, t)) > 0)
		;
	if (n < 0) {
		snprintf(why_buf, sizeof(why_buf), "cannot trace the threads of "
			 "process %d (%s): %s", pid, comm, strerror(-n));
		return n;
	}
	return 0;
}

int
attach_process(pid_t pid, struct tracer *t, const char **why)
{
	pid_t tgid = 0;
	int pidfd, ret;

	pidfd = pid > 0 ? process_handle(pid) : -1;
	if (pidfd < 0) {
		/* No call was made for pid <= 0: errno says nothing then. */
		int err = pid > 0 ? errno : ESRCH;

		/* A thread's tid is refused with ENOENT (EINVAL before 6.9). */
		if (pid > 0 && (err == ENOENT || err == EINVAL) &&
		    proc_status_scan(pid, "Tgid", "%d", &tgid) == 1 && tgid != pid)
			snprintf(why_buf, sizeof(why_buf), "%d is a thread of "
				 "process %d: give the process ID", pid, tgid);
		else if (pid <= 0 || err == ESRCH || err == ENOENT || err == EINVAL)
			snprintf(why_buf, sizeof(why_buf), "there is no "
				 "process %d", pid);
		else
			snprintf(why_buf, sizeof(why_buf), "cannot open "
				 "process %d: %s", pid, strerror(err));
		*why = why_buf;
		return -err;
	}
	ret = check_and_seize(pid, pidfd, t);
	close(pidfd);
	if (ret)
		*why = why_buf;
	return ret;
}
