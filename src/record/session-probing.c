// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each traced process probed as the tracer reports it: its executable at
 * exec, its libraries at the dynamic linker's hook (or, under memsup -p,
 * when a drain sees it map code), its probes copied at fork and released
 * at exit.  A process memsup cannot probe is counted as untraced.
 */
#include "config.h"
#include "session.h"
#include "credentials.h"
#include "error.h"
#include "mappings.h"
#include "procfs.h"
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

struct traced_process *
session_traced(struct session *s, pid_t pid)
{
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);
	struct traced_process *tp;

	if (slot)
		return (struct traced_process *)(uintptr_t)slot->value;
	tp = xcalloc(1, sizeof(*tp));
	u64map_put(&s->processes, (uint64_t)pid, (uintptr_t)tp);
	return tp;
}

/* A process counts once as untraced, whatever failed for it. */
static void
count_untraced(struct session *s, struct traced_process *tp)
{
	if (!tp->untraced)
		s->untraced++;
	tp->untraced = true;
}

/*
 * What --allow-partial accepts (a process run untraced by design): a
 * warning with it, an error without, and then the caller counts the
 * process as untraced.  Returns whether it must.
 */
bool
session_refuse_partial(const struct session *s, pid_t pid, const char *what)
{
	if (s->allow_partial) {
		warning_msg("process %d: %s", pid, what);
		return false;
	}
	error_msg("process %d: %s (--allow-partial accepts that)", pid, what);
	return true;
}

/*
 * A process killed while memsup probes it (SIGKILL ends even the stop
 * memsup holds it in) runs nothing more: that is not a loss.
 */
static void
mark_untraced(struct session *s, struct traced_process *tp, pid_t pid,
	      const char *what, int err)
{
	struct rlimit files;
	char why[128];

	if (proc_exiting(pid))
		return;
	/* The processes traced when the limit is reached: how many it lets memsup follow. */
	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &files))
		snprintf(why, sizeof(why), "memsup reached its limit of %llu open "
			 "files (ulimit -Hn) with %zu processes traced",
			 (unsigned long long)files.rlim_cur, s->processes.count);
	else if (err == -ENOSPC)
		snprintf(why, sizeof(why), "the session has probed %d allocator "
			 "functions, as many as memsup can count", MS_PROBES_MAX);
	else if (err == -E2BIG)
		snprintf(why, sizeof(why), "the session's processes hold %d, as many "
			 "as memsup can", MS_NEW_SITES_MAX);
	else
		snprintf(why, sizeof(why), "%s", strerror(-err));
	error_msg("process %d: cannot probe %s: %s; its allocations are not traced",
		  pid, what, why);
	count_untraced(s, tp);
}

static bool
holds_site(const struct new_site *sites, size_t n, const struct new_site *site)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sites[i].ret == site->ret && sites[i].frame == site->frame)
			return true;
	return false;
}

/*
 * Where pid's operator new without a probe calls malloc (the stack of
 * that malloc is operator new's caller's), told to BPF before the process
 * runs on: what BPF holds of it that its mappings no longer hold is
 * dropped, what they hold now added.
 */
static int
tell_new_sites(struct session *s, pid_t pid, struct traced_process *tp)
{
	const struct image_targets *it = &tp->targets;
	size_t i, kept = 0;
	int err = 0;

	if (!s->new_sites)
		return 0;
	for (i = 0; i < tp->ntold; i++) {
		if (holds_site(it->new_sites, it->nnew_sites, &tp->told[i]))
			tp->told[kept++] = tp->told[i];
		else
			bpf_loader_remove_new_site(&s->consumer.bpf, pid, tp->told[i].ret);
	}
	tp->ntold = kept;
	for (i = 0; i < it->nnew_sites; i++) {
		const struct new_site *site = &it->new_sites[i];

		if (holds_site(tp->told, tp->ntold, site))
			continue;
		err = bpf_loader_add_new_site(&s->consumer.bpf, pid, site->ret, site->frame);
		if (err)
			break;
		tp->told = xgrow(tp->told, &tp->told_cap, tp->ntold + 1, sizeof(*tp->told));
		tp->told[tp->ntold++] = *site;
	}
	return err;
}

/* Before pid execs or is gone: its sites would mislead a reused address or pid. */
static void
forget_new_sites(struct session *s, pid_t pid, struct traced_process *tp)
{
	size_t i;

	for (i = 0; i < tp->ntold; i++)
		bpf_loader_remove_new_site(&s->consumer.bpf, pid, tp->told[i].ret);
	tp->ntold = 0;
}

/* links: pid needs links of its own (see on_process_forked). */
static void
attach_targets(struct session *s, pid_t pid, struct traced_process *tp, bool links)
{
	int err = tell_new_sites(s, pid, tp);

	if (err) {
		mark_untraced(s, tp, pid, "the calls of malloc in its operator new", err);
		return;
	}
	if (!links)
		return;
	err = process_probes_attach(&tp->probes, &s->consumer.bpf, &s->traps, pid,
				    &tp->targets);
	if (err)
		mark_untraced(s, tp, pid, "its allocator functions", err);
}

/*
 * Once a run: a Python interpreter takes its objects from its own
 * allocator (pymalloc), in arenas it maps itself, unless PYTHONMALLOC
 * says malloc: memsup sees the arenas' mmap, not the objects.
 */
static void
tell_pymalloc(struct session *s, pid_t pid)
{
	char value[32], exe[4096];

	if (s->told_pymalloc)
		return;
	if (proc_environ_value(pid, "PYTHONMALLOC", value, sizeof(value)) == 1 &&
	    (!strcmp(value, "malloc") || !strcmp(value, "malloc_debug")))
		return;
	if (proc_exe_path(pid, exe, sizeof(exe)))
		snprintf(exe, sizeof(exe), "?");
	warning_msg("process %d (%s) is a Python interpreter: Python objects come "
		    "from pymalloc and are not seen; run it with PYTHONMALLOC=malloc "
		    "to see them", pid, exe);
	s->told_pymalloc = true;
}

static void
emit_mapping(void *ctx, struct record *r)
{
	session_emit_process_record(ctx, r);
}

/*
 * Probes what pid maps now, from one read of its maps, which the caller
 * frees: at an exec stop, the executable; at the dynamic linker's hook,
 * the libraries too.
 */
static void
probe_mapped_files(struct session *s, pid_t pid, struct traced_process *tp,
		   struct proc_maps *maps)
{
	const char *why = "its mappings";
	int err = proc_maps_read(pid, maps);

	if (!err)
		err = image_targets_find(&s->files, maps, pid, &s->probe_plan,
					 &tp->targets, &why);
	if (err)
		mark_untraced(s, tp, pid, why, err);
	else
		attach_targets(s, pid, tp, true);
	/* Its environment is its exec's: read once an image. */
	if (!err && tp->targets.python && !tp->python_seen) {
		tp->python_seen = true;
		tell_pymalloc(s, pid);
	}
	/* The mappings serve to symbolize stacks. */
	if (s->stacks)
		mappings_record_new(&s->files, maps, pid, &tp->mapped, emit_mapping, s);
}

/*
 * A new image: its executable now, its libraries when the dynamic linker
 * maps them.  A static executable must define its allocator functions.
 */
void
session_probe_new_image(struct session *s, pid_t pid, struct traced_process *tp)
{
	const struct probe_target *exe;
	char unprobed[PATH_MAX + 256];
	struct proc_maps maps;
	const char *why;
	int err;

	tp->python_seen = false;
	probe_mapped_files(s, pid, tp, &maps);
	/*
	 * A process memsup attached to keeps nothing of memsup's: its
	 * mappings are watched instead, and its dynamic linker only read.
	 */
	if (s->attached) {
		dl_hook_find(&s->files, &maps, pid, &tp->hook, &why);
	} else {
		err = dl_hook_arm(&s->files, &maps, pid, &tp->hook, &why);
		if (err && !proc_exiting(pid)) {
			error_msg("process %d: cannot hook its dynamic linker: %s (%s); "
				  "the libraries it loads are not traced", pid, why,
				  strerror(-err));
			count_untraced(s, tp);
		}
	}
	proc_maps_free(&maps);
	exe = tp->targets.exe;
	if (!exe || exe->dynamic || exe->ncalls || tp->hook.addr)
		return;
	snprintf(unprobed, sizeof(unprobed), "%s is statically linked and defines "
		 "no allocator function memsup knows (stripped?): malloc, free, "
		 "operator new and the others cannot be probed, and its "
		 "allocations are not traced", exe->path);
	if (session_refuse_partial(s, pid, unprobed))
		count_untraced(s, tp);
}

/*
 * memsup -p: pid has mapped code, and the thread that did is stopped or
 * cannot run.  What its dynamic linker is still adding has not run yet;
 * a library added before this look may have called its own allocator
 * functions unseen (its constructors, say), and the user is told.
 */
static void
probe_mapped_late(struct session *s, pid_t pid, struct traced_process *tp)
{
	bool adding = dl_hook_adding(pid, &tp->hook);
	size_t i = tp->probes.ntargets;
	struct proc_maps maps;

	tp->rescan_due = false;
	probe_mapped_files(s, pid, tp, &maps);
	proc_maps_free(&maps);
	for (; !adding && i < tp->probes.ntargets; i++) {
		const struct probe_target *t = tp->probes.per_target[i].target;

		if (!t->ncalls)
			continue;
		warning_msg("process %d: %s was probed only after its code could "
			    "run: calls to its allocator functions before that are "
			    "not in the capture", pid, t->path);
	}
}

/*
 * The tracked set: only processes in it may raise the pressure latch,
 * and under memsup -p only theirs are the mappings watched.  One that
 * cannot be tracked voids the promise that pressure loses nothing, or
 * has the libraries it loads untraced, so it fails the capture like a
 * lost record.
 */
void
session_track(struct session *s, pid_t pid)
{
	char why[96];
	int err;

	if (!s->pressure.timeout_ns && !s->attached)
		return;
	err = bpf_loader_track(&s->consumer.bpf, pid);
	if (!err)
		return;
	if (err == -E2BIG)
		snprintf(why, sizeof(why), "the tracked set is full (--max-processes=%zu)",
			 s->max_processes);
	else
		snprintf(why, sizeof(why), "%s", strerror(-err));
	if (s->pressure.timeout_ns) {
		error_msg("process %d cannot ask for pressure stops: %s", pid, why);
		s->unstoppable++;
	}
	if (s->attached) {
		error_msg("process %d: the libraries it loads cannot be watched, "
			  "and are not traced: %s", pid, why);
		s->untraced++;
	}
}

static void
untrace(struct traced_process *tp, struct link_reaper *reaper)
{
	process_probes_release(&tp->probes, reaper);
	image_targets_free(&tp->targets);
	u64map_free(&tp->mapped);
	free(tp->told);
	free(tp);
}

void
session_untrace_all(struct session *s)
{
	struct u64map_slot *slot;

	u64map_foreach(&s->processes, slot)
		untrace((struct traced_process *)(uintptr_t)slot->value, &s->reaper);
	u64map_free(&s->processes);
}

static void
on_process_forked(void *ctx, pid_t parent, pid_t child, bool shares_vm)
{
	struct session *s = ctx;
	struct record r = { .type = REC_FORK, .pid = (uint32_t)parent,
			    .tid = (uint32_t)parent, .fork.child = (uint32_t)child };
	struct traced_process *tp = session_traced(s, child);

	session_emit_process_record(s, &r);
	session_track(s, child);
	/* The child maps what its parent maps, the hook's breakpoint too. */
	image_targets_free(&tp->targets);
	image_targets_copy(&tp->targets, &session_traced(s, parent)->targets);
	tp->hook = session_traced(s, parent)->hook;
	u64map_copy(&tp->mapped, &session_traced(s, parent)->mapped);
	/*
	 * Perf links filter by address space: a vfork child's calls already
	 * reach its parent's, and links of its own would count them twice.
	 * Session links filter by thread group: it needs its own.
	 */
	attach_targets(s, child, tp, !shares_vm || s->consumer.bpf.session_links);
}

static void
on_thread_started(void *ctx, pid_t tid)
{
	struct session *s = ctx;

	bpf_loader_forget_thread(&s->consumer.bpf, tid);
}

/*
 * The user should know when a traced program runs with more privilege
 * than its user (memsup -p, --keep-root), and when it runs with less than
 * it would outside memsup.
 */
static void
warn_if_setid(pid_t pid, const char *path)
{
	uid_t euid;
	gid_t egid;

	switch (exec_setid(pid, &euid, &egid)) {
	case SETID_HONOURED:
		warning_msg("process %d runs %s set-user-ID or set-group-ID (euid "
			    "%u, egid %u): memsup holds CAP_SYS_PTRACE, so it "
			    "keeps that privilege while traced", pid, path,
			    (unsigned)euid, (unsigned)egid);
		break;
	case SETID_IGNORED:
		warning_msg("process %d runs %s without its set-user-ID or "
			    "set-group-ID privilege (euid %u, egid %u): a workload "
			    "gains no privilege under memsup", pid, path,
			    (unsigned)euid, (unsigned)egid);
		break;
	case SETID_NONE:
		break;
	}
}

static void
on_process_exec(void *ctx, pid_t pid, pid_t former_tid)
{
	struct session *s = ctx;
	struct traced_process *tp = session_traced(s, pid);
	char path[4096];
	struct record r = { .type = REC_EXEC, .pid = (uint32_t)pid,
			    .tid = (uint32_t)pid, .exec.path = path };

	proc_exe_path(pid, path, sizeof(path));

	/*
	 * Links belong to the task they were made for: when another thread
	 * execs, it carries on as a new task under the leader's pid.
	 */
	if (former_tid != pid)
		process_probes_release(&tp->probes, &s->reaper);
	bpf_loader_forget_thread(&s->consumer.bpf, pid);
	bpf_loader_forget_thread(&s->consumer.bpf, former_tid);
	session_emit_process_record(s, &r);
	u64map_clear(&tp->mapped);
	forget_new_sites(s, pid, tp);
	session_probe_new_image(s, pid, tp);
	warn_if_setid(pid, path);
}

static void
on_process_exited(void *ctx, pid_t pid, int wait_status)
{
	struct session *s = ctx;
	struct record r = { .type = REC_EXIT, .pid = (uint32_t)pid,
			    .tid = (uint32_t)pid, .exit.wait_status = wait_status };
	uint64_t value;

	session_emit_process_record(s, &r);
	bpf_loader_untrack(&s->consumer.bpf, pid);
	if (u64map_remove(&s->processes, (uint64_t)pid, &value)) {
		forget_new_sites(s, pid, (struct traced_process *)(uintptr_t)value);
		untrace((struct traced_process *)(uintptr_t)value, &s->reaper);
	}
}

/* The dynamic linker has mapped or unmapped libraries, or is about to. */
static bool
on_breakpoint(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);
	struct traced_process *tp;
	struct proc_maps maps;

	if (!slot)
		return false;
	tp = (struct traced_process *)(uintptr_t)slot->value;
	if (!dl_hook_hit(&tp->hook, tid))
		return false;
	/* Nothing is mapped yet before a change: the stop after it probes. */
	if (!dl_hook_changing(pid, &tp->hook)) {
		probe_mapped_files(s, pid, tp, &maps);
		proc_maps_free(&maps);
	}
	return true;
}

static void
on_thread_vanished(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;

	error_msg("thread %d of process %d is gone, and memsup never saw it "
		  "go: it no longer waits for it", tid, pid);
	s->vanished++;
}

static void
on_interrupted(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);

	if (slot)
		probe_mapped_late(s, pid, (struct traced_process *)(uintptr_t)slot->value);
}

/*
 * memsup -p, from a drain: tid maps code.  It is stopped to be looked at;
 * one that cannot be stopped is looked at after the drain.
 */
void
session_on_mapping(void *ctx, pid_t pid, pid_t tid)
{
	struct session *s = ctx;
	struct u64map_slot *slot = u64map_find(&s->processes, (uint64_t)pid);

	if (!slot || tracer_interrupt(&s->tracer, tid))
		return;
	((struct traced_process *)(uintptr_t)slot->value)->rescan_due = true;
	s->rescans_due = true;
}

/*
 * The rescans the drains asked for; every process when a wake found no
 * room in its ring.
 */
void
session_rescan_when_due(struct session *s)
{
	uint64_t missed = bpf_loader_missed_mapping_wakes(&s->consumer.bpf);
	struct u64map_slot *slot;

	if (!s->rescans_due && missed == s->missed_wakes_seen)
		return;
	u64map_foreach(&s->processes, slot) {
		struct traced_process *tp = (struct traced_process *)(uintptr_t)slot->value;

		if (tp->rescan_due || missed != s->missed_wakes_seen)
			probe_mapped_late(s, (pid_t)slot->key, tp);
	}
	s->rescans_due = false;
	s->missed_wakes_seen = missed;
}

/* A process memsup lets go must not keep its breakpoint. */
void
session_disarm_hooks(struct session *s)
{
	struct u64map_slot *slot;

	u64map_foreach(&s->processes, slot)
		dl_hook_disarm((pid_t)slot->key,
			       &((struct traced_process *)(uintptr_t)slot->value)->hook);
}

const struct tracer_ops session_tracer_ops = {
	.process_forked = on_process_forked,
	.thread_started = on_thread_started,
	.process_exec = on_process_exec,
	.process_exited = on_process_exited,
	.breakpoint = on_breakpoint,
	.thread_vanished = on_thread_vanished,
	.interrupted = on_interrupted,
};
