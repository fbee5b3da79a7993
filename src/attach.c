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

int
attach_process(pid_t pid, struct tracer *t, char *why, size_t why_size)
{
	char comm[64], tracer_comm[64];
	unsigned long flags;
	pid_t tracer;
	int n;

	if (pid <= 0 || !read_stat(pid, comm, sizeof(comm), &flags)) {
		snprintf(why, why_size, "there is no process %d", pid);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		snprintf(why, why_size, "process %d (%s) is a kernel thread", pid, comm);
		return -1;
	}
	tracer = tracer_of(pid);
	if (tracer) {
		if (!read_stat(tracer, tracer_comm, sizeof(tracer_comm), &flags))
			snprintf(tracer_comm, sizeof(tracer_comm), "?");
		snprintf(why, why_size, "process %d (%s) is traced already, by "
			 "process %d (%s)", pid, comm, tracer, tracer_comm);
		return -1;
	}
	/* Seizing the leader first makes it the root.  Threads started
	 * meanwhile by a seized thread are attached by the kernel; the
	 * others are found by the next pass. */
	if (ptrace(PTRACE_SEIZE, pid, 0L, (long)TRACER_FOLLOW_OPTIONS)) {
		snprintf(why, why_size, "cannot trace process %d (%s): %s", pid,
			 comm, strerror(errno));
		return -1;
	}
	tracer_adopt(t, pid, pid);
	while ((n = seize_new_threads(pid, t)) > 0)
		;
	if (n < 0) {
		snprintf(why, why_size, "cannot trace the threads of process %d "
			 "(%s): %s", pid, comm, strerror(-n));
		return -1;
	}
	return 0;
}
