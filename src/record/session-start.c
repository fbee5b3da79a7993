// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload's start: memsup -- CMD launched stopped under ptrace, or
 * memsup -p PID seized and probed while it is held.
 */
#include "config.h"
#include "session.h"
#include "attach.h"
#include "error.h"
#include "launch.h"
#include "procfs.h"
#include "record.h"

#include <errno.h>
#include <sys/wait.h>

/* memsup -- CMD: returns 0, or memsup's exit status when CMD cannot start. */
int
session_start_command(struct session *s, const struct run_options *o,
	      const struct workload_user *wu)
{
	struct launch_failure failure;
	pid_t root = launch_traced(o->argv, wu, &failure);

	if (root < 0) {
		errno = -root;
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
	session_track(s, root);
	return 0;
}

/* memsup -p PID: returns 0, or memsup's exit status. */
int
session_start_attached(struct session *s, const struct run_options *o)
{
	char path[4096];
	const char *why;
	struct record r = { .type = REC_ATTACH, .pid = (uint32_t)o->attach_pid,
			    .tid = (uint32_t)o->attach_pid, .exec.path = path };

	if (attach_process(o->attach_pid, &s->tracer, &why)) {
		error_msg("%s", why);
		return MS_EXIT_FAILURE;
	}
	s->attached = true;
	session_track(s, o->attach_pid);
	proc_exe_path(o->attach_pid, path, sizeof(path));
	s->observed_ns = consumer_now(&s->consumer);
	session_emit_process_record(s, &r);
	/*
	 * The process runs: the probes go on while it is held, or a call
	 * could meet its free probed and its malloc not yet, and the next
	 * free of that block would count as unknown.
	 */
	tracer_hold(&s->tracer);
	session_reap(s);
	while (!tracer_held(&s->tracer)) {
		siginfo_t si;

		/* Wait for the next status without taking it: session_reap() does. */
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) &&
		    errno != EINTR)
			break;
		session_reap(s);
	}
	if (tracer_traces(&s->tracer, o->attach_pid))
		session_probe_new_image(s, o->attach_pid, session_traced(s, o->attach_pid));
	tracer_release(&s->tracer);
	/* The duration is of recording: the setup above may take a while. */
	s->detach_at_ns = o->duration_ns ? consumer_now(&s->consumer) + o->duration_ns
					 : UINT64_MAX;
	return 0;
}
