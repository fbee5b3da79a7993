/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF loader: memsup's BPF programs opened, their maps sized and their
 * tunables set in rodata, loaded, and their watchers attached (the probes
 * are attached per process, by probe-attach.c).  Then the supervisor's
 * side of their maps and globals: the tracked set, the pressure latch and
 * watermark, the processes that escaped tracing, and the counters.
 */
#ifndef MEMSUP_BPF_LOADER_H
#define MEMSUP_BPF_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct consumer_config;
struct memsup_bpf;

struct bpf_loader {
	struct memsup_bpf *skel;
	bool session_links;	/* the kernel has uprobe sessions */
	bool copies_stacks;	/* the programs send stack copies to unwind */
	bool unwind_tables;	/* they walk unwind tables before they copy */
};

/*
 * Opens, loads and attaches the programs.  Returns 0 or a negative errno,
 * with *why saying which step failed.
 */
int bpf_loader_open(struct bpf_loader *l, const struct consumer_config *cfg,
		    const char **why);
void bpf_loader_close(struct bpf_loader *l);

/* Drops any allocator call tid left half-done (new thread, exec). */
void bpf_loader_forget_thread(struct bpf_loader *l, pid_t tid);

/* Only the processes memsup traces, and so can stop, may raise the latch. */
int bpf_loader_track(struct bpf_loader *l, pid_t pid);
void bpf_loader_untrack(struct bpf_loader *l, pid_t pid);

/*
 * A call of malloc by an operator new without a probe (struct
 * ms_new_site): its return address in pid, and operator new's frame
 * size there.  Returns 0 or a negative errno (-E2BIG: the map is full).
 */
int bpf_loader_add_new_site(struct bpf_loader *l, pid_t pid, uint64_t ret, uint32_t frame);
void bpf_loader_remove_new_site(struct bpf_loader *l, pid_t pid, uint64_t ret);

/* A producer raised the pressure latch: the tree must stop and drain. */
bool bpf_loader_latched(const struct bpf_loader *l);
/* Starts a new epoch with the latch down, once the ring is drained. */
void bpf_loader_clear_latch(struct bpf_loader *l);
/*
 * The fullest the ring was seen above the watermark since the last call,
 * in bytes; the next call starts again from 0.
 */
uint64_t bpf_loader_take_max_fill(struct bpf_loader *l);
/* Moves the watermark, and the fill past which stacks are left out with it. */
void bpf_loader_set_watermark(struct bpf_loader *l, uint64_t bytes);

/*
 * Calls each(ctx, child, parent) for every process a traced one made
 * with CLONE_UNTRACED, which ptrace did not follow; returns how many more
 * did so than BPF could name.
 */
typedef void (*bpf_loader_escape_fn)(void *ctx, pid_t child, pid_t parent);
uint64_t bpf_loader_escaped(const struct bpf_loader *l, bpf_loader_escape_fn each,
			    void *ctx);

uint64_t bpf_loader_lost_records(const struct bpf_loader *l);
uint64_t bpf_loader_lost_calls(const struct bpf_loader *l);
/* Allocations recorded without their stack: the ring was too full. */
uint64_t bpf_loader_dropped_stacks(const struct bpf_loader *l);
/* Mapping wakes lost for want of room since the capture started. */
uint64_t bpf_loader_missed_mapping_wakes(const struct bpf_loader *l);
/* The stacks sent so far walked from unwind tables, and from frame pointers. */
void bpf_loader_walked_stacks(const struct bpf_loader *l, uint64_t *tables,
			      uint64_t *frame_pointers);

#endif
