/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A capture session's state, shared by the files that run it: run.c wires
 * the parts and owns the data path, session-start.c starts or attaches to
 * the workload, session-probing.c probes each traced process as the
 * tracer reports it, session-loop.c waits, drains and holds until the
 * tree is done, and session-end.c writes the end of the capture and
 * chooses memsup's exit status.
 */
#ifndef MEMSUP_SESSION_H
#define MEMSUP_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "consumer.h"
#include "credentials.h"
#include "dl-hook.h"
#include "file-cache.h"
#include "heap.h"
#include "link-reaper.h"
#include "pressure.h"
#include "probe-attach.h"
#include "probe-targets.h"
#include "probe-traps.h"
#include "run.h"
#include "sites.h"
#include "status.h"
#include "tracer.h"
#include "u64map.h"

struct record;

struct traced_process {
	struct image_targets targets;
	struct process_probes probes;
	struct dl_hook hook;
	struct u64map mapped;		/* recorded mappings: start -> inode */
	struct new_site *told;		/* the new_sites BPF holds for it */
	size_t ntold, told_cap;
	bool rescan_due;		/* memsup -p: it mapped code, not looked at yet */
	bool python_seen;		/* its image is a Python interpreter, looked at */
	bool untraced;			/* counted in the session's untraced */
};

struct session {
	struct consumer consumer;
	struct capture_writer *capture;
	struct heap_model heap;
	struct sites sites;		/* the calls' sites, for the summary and
					 * the names */
	struct live_status status;
	uint64_t events;		/* allocator calls recorded */
	struct tracer tracer;
	struct pressure pressure;
	struct u64map processes;	/* pid -> struct traced_process * */
	struct file_cache files;	/* what the processes' images hold */
	struct link_reaper reaper;	/* closes the links of processes gone */
	struct probe_traps traps;	/* the probed functions' ids and traps */
	uint64_t untraced;		/* processes whose probes failed */
	uint64_t unstoppable;		/* processes the tracked set had no room for */
	uint64_t vanished;		/* threads gone without a report */
	bool rescans_due;		/* some process's rescan_due is set */
	uint64_t missed_wakes_seen;	/* bpf_loader_missed_mapping_wakes() */
	uint64_t last_report_ns;	/* when a wait status last came */
	uint64_t last_sync_ns;		/* when the capture was last synced */
	size_t max_processes;		/* the tracked set's size */
	size_t max_threads;		/* the per-thread map's size */
	bool stacks;			/* record stacks, and mappings for them */
	bool new_sites;			/* tell BPF where operator new calls malloc */
	enum symbolize_mode symbolize;
	struct probe_plan probe_plan;
	bool allow_partial;		/* --allow-partial */
	bool print_traps;		/* --traps */
	bool told_pymalloc;		/* the notice on Python's allocator is out */
	uint64_t observed_ns;		/* when the status at hand was reaped */
	/* memsup -p: when to let the process go (UINT64_MAX: at a signal) */
	bool attached;
	uint64_t detach_at_ns;
	unsigned int end_signals;	/* SIGINT, SIGTERM and SIGHUP taken */
	int ended_by;			/* the signal that ended tracing, or 0 */
	bool job_stop;			/* a stop signal came: memsup stops once
					 * the tree is held */
};

/* run.c: the data path.  Every record goes to the capture and the models. */
void session_sink(void *ctx, const struct record *r);
/* A process record, after the calls made before the stop it reports. */
void session_emit_process_record(struct session *s, struct record *r);

/* session-probing.c */
extern const struct tracer_ops session_tracer_ops;
/* The state of process pid, made on first sight. */
struct traced_process *session_traced(struct session *s, pid_t pid);
bool session_refuse_partial(const struct session *s, pid_t pid, const char *what);
void session_track(struct session *s, pid_t pid);
void session_probe_new_image(struct session *s, pid_t pid, struct traced_process *tp);
/* memsup -p: a drain saw thread tid of process pid map code. */
void session_on_mapping(void *ctx, pid_t pid, pid_t tid);
void session_rescan_when_due(struct session *s);
void session_disarm_hooks(struct session *s);
void session_untrace_all(struct session *s);

/* session-start.c: 0, or memsup's exit status when the workload cannot start. */
int session_start_command(struct session *s, const struct run_options *o,
			  const struct workload_user *wu);
int session_start_attached(struct session *s, const struct run_options *o);

/* session-loop.c */
/*
 * Blocks the signals the loop takes (SIGCHLD, the end and job-stop
 * signals, SIGQUIT) and returns a signalfd for them, or -1 with errno.
 */
int session_signal_fd(void);
void session_reap(struct session *s);
/* Traces until the tree is done or a signal ends tracing: 0 or -errno. */
int session_trace_until_done(struct session *s, int sfd);
void session_unblock_signals(void);
bool session_end_signal_pending(void);

/* session-end.c: writes the capture's end, says what the run did, and
 * returns memsup's exit status. */
int session_finish(struct session *s, const char *output, bool quiet);

#endif
