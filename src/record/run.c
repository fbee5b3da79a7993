// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A capture session wires the parts together: the tracer reports process
 * events, the consumer reports allocator calls, and both become records
 * that go, in order, to the capture file and the heap model.
 */
#include "config.h"
#include "session.h"
#include "capture.h"
#include "error.h"
#include "launch.h"
#include "link-reaper.h"
#include "privileges.h"
#include "realtime.h"
#include "record.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
session_sink(void *ctx, const struct record *r)
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

/*
 * A process record goes after every call made before the stop it reports
 * and before any made since: reaping a child's exit is what releases its
 * parent's wait(), so a parent's next call would otherwise overtake it.
 */
void
session_emit_process_record(struct session *s, struct record *r)
{
	consumer_drain_until(&s->consumer, s->observed_ns);
	r->time_ns = s->observed_ns;
	session_sink(s, r);
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
/* The session as the options set it up, before anything runs. */
static void
session_init(struct session *s, const struct run_options *o)
{
	heap_init(&s->heap);
	sites_init(&s->sites);
	pressure_init(&s->pressure, o->pressure_timeout_ns, o->bpf.ring_bytes,
		      o->bpf.watermark_bytes, o->watermark_follows);
	s->max_processes = o->bpf.max_processes;
	s->max_threads = o->bpf.max_threads;
	s->stacks = o->bpf.stack_mode != MS_STACK_NONE;
	s->new_sites = o->bpf.new_sites;
	s->symbolize = o->symbolize;
	s->probe_plan = o->probe_plan;
	s->allow_partial = o->allow_partial;
	s->print_traps = o->print_traps;
	u64map_init(&s->processes);
	file_cache_init(&s->files);
	tracer_init(&s->tracer, &session_tracer_ops, s);
}

/*
 * What must hold before the workload runs: the environment, the user it
 * runs as, the BPF programs loaded.  Returns 0, or memsup's exit status
 * once the user is told why not.
 */
static int
session_prepare(struct session *s, const struct run_options *o,
		struct workload_user *wu)
{
	struct consumer_config bpf = o->bpf;
	const char *why;
	int err;

	if (o->attach_pid)
		bpf.on_mapping = session_on_mapping;
	if (check_environment(&bpf.pidns_inum))
		return MS_EXIT_FAILURE;
	if (workload_user_resolve(wu, o->user, o->keep_root, &why)) {
		error_msg("cannot run the workload as %s: %s",
			  o->user ? o->user : "the user who ran sudo", why);
		return MS_EXIT_FAILURE;
	}
	if (o->keep_root && getuid() == 0)
		warning_msg("--keep-root: the workload runs as root");
	err = consumer_open(&s->consumer, &bpf, session_sink, s, &why);
	if (err) {
		explain_bpf_failure(why, err);
		return MS_EXIT_FAILURE;
	}
	probe_traps_init(&s->traps, &s->consumer.bpf);
	return 0;
}

/*
 * The capture file, owned by the workload's user, its header naming the
 * command line (or -p PID).  Returns 0, or memsup's exit status once the
 * user is told why not.
 */
static int
session_create_capture(struct session *s, const struct run_options *o,
		       const struct workload_user *wu, const char *output,
		       const char *output_name)
{
	char pid_arg[16];
	char *attach_argv[] = { "-p", pid_arg, NULL };
	int err;

	snprintf(pid_arg, sizeof(pid_arg), "%d", o->attach_pid);
	s->capture = o->attach_pid
		     ? capture_create(output, o->compress_level, 2, attach_argv)
		     : capture_create(output, o->compress_level, o->argc, o->argv);
	if (!s->capture) {
		if (errno == ENOTTY)
			error_msg("cannot write capture %s: it is a terminal", output_name);
		else
			perror_msg("cannot create capture %s", output_name);
		return MS_EXIT_FAILURE;
	}
	/* The workload's output must not run into the capture's. */
	if (!strcmp(output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		perror_msg("cannot give the workload standard error for its output");
		return MS_EXIT_FAILURE;
	}
	err = wu->change ? capture_set_owner(s->capture, wu->uid, wu->gid) : 0;
	if (err) {
		errno = -err;
		perror_msg("cannot give capture %s to uid %u", output, (unsigned)wu->uid);
		return MS_EXIT_FAILURE;
	}
	return 0;
}

/* Starts the workload and traces it to its end: memsup's exit status. */
static int
session_run(struct session *s, const struct run_options *o,
	    const struct workload_user *wu, int sfd, const char *output_name)
{
	int err;

	launch_raise_file_limit();
	err = o->attach_pid ? session_start_attached(s, o)
			    : session_start_command(s, o, wu);
	if (err)
		return err;
	/* After the fork: a child of a real-time task loses its nice value. */
	realtime_take();
	status_init(&s->status, stderr,
		    o->status ? STATUS_ON : o->quiet ? STATUS_OFF : STATUS_AUTO,
		    o->attach_pid ? o->attach_pid : s->tracer.root);
	err = session_trace_until_done(s, sfd);
	if (err) {
		/* PTRACE_O_EXITKILL takes a launched tree down with memsup;
		 * an attached one is let go. */
		errno = -err;
		perror_msg("tracing failed");
		return MS_EXIT_FAILURE;
	}
	return session_finish(s, output_name, o->quiet);
}

/* Whatever the session took, released; a process memsup -p let go keeps no breakpoint. */
static void
session_free(struct session *s)
{
	status_clear(&s->status);
	if (s->attached)
		session_disarm_hooks(s);
	capture_abort(s->capture);
	tracer_free(&s->tracer);
	session_untrace_all(s);
	link_reaper_wait(&s->reaper);
	probe_traps_free(&s->traps);
	consumer_close(&s->consumer);
	file_cache_free(&s->files);
	heap_free(&s->heap);
	sites_free(&s->sites);
}

int
run_capture(const struct run_options *o)
{
	struct session s = { 0 };
	struct workload_user wu = { .change = false };
	char pid_arg[16];
	char *output;
	const char *output_name;
	int sfd = -1, ret = MS_EXIT_FAILURE;

	snprintf(pid_arg, sizeof(pid_arg), "%d", o->attach_pid);
	output = o->output ? xstrdup(o->output)
			   : default_output(o->attach_pid ? pid_arg : o->argv[0]);
	output_name = strcmp(output, "-") ? output : "standard output";
	session_init(&s, o);
	if (session_prepare(&s, o, &wu) ||
	    session_create_capture(&s, o, &wu, output, output_name))
		goto out;
	sfd = session_signal_fd();
	if (sfd < 0) {
		perror_msg("signalfd");
		goto out;
	}
	ret = session_run(&s, o, &wu, sfd, output_name);
out:
	session_free(&s);
	if (sfd >= 0)
		close(sfd);
	workload_user_free(&wu);
	free(output);
	return ret;
}
