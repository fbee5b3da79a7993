/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ring consumer: turns what memsup's BPF programs send into records
 * for the data path.  It owns the programs it reads (bpf-loader.c), whose
 * maps and globals the session uses through bpf, and the unwinding of the
 * stacks they copy (unwind-driver.c); its records carry the session's
 * clock (session-clock.h).
 */
#ifndef MEMSUP_CONSUMER_H
#define MEMSUP_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "bpf-loader.h"
#include "memsup.h"
#include "session-clock.h"
#include "stack-table.h"
#include "unwind-driver.h"

struct record;
struct ring_buffer;
struct unwind_stats;

typedef void (*record_sink)(void *ctx, const struct record *r);
/* Thread tid of process pid maps an executable file. */
typedef void (*mapping_sink)(void *ctx, pid_t pid, pid_t tid);

/* How probes are attached: see process_probes_attach(). */
enum probe_links {
	PROBE_LINKS_AUTO,	/* session links where the kernel has them */
	PROBE_LINKS_SESSION,
	PROBE_LINKS_PERF,
};

struct consumer {
	struct bpf_loader bpf;		/* the programs, loaded */
	struct ring_buffer *ring;
	struct session_clock clock;
	record_sink sink;
	void *sink_ctx;
	uint64_t limit_ns;	/* of the drain under way, CLOCK_MONOTONIC */
	/* What a record's low time bits are restored against: the drain's start. */
	uint64_t drain_ns;
	void *held;		/* the first record past the last limit */
	size_t held_size;	/* its bytes; 0: none held */
	struct ms_event held_event;	/* decoded, its time restored */
	size_t held_event_bytes;
	struct stack_table stacks;	/* the stacks sent so far */
	unsigned int stack_depth;
	struct unwind_driver unwind;	/* of the copies among the stacks */
	mapping_sink on_mapping;
	bool stop_at_latch;	/* the drain under way gives way to the latch */
};

/* The kernel's rule for BPF ring buffers: a power of two, at most this. */
#define RING_BYTES_MAX (1ULL << 31)

struct consumer_config {
	enum probe_links links;
	size_t ring_bytes;		/* a power of two, at least a page */
	size_t wake_bytes;		/* wake the reader past this fill */
	size_t watermark_bytes;		/* raise the latch past this; 0: never */
	size_t max_threads;		/* inside an allocator call at once */
	size_t max_processes;		/* traced at once */
	enum ms_stack_mode stack_mode;
	unsigned int stack_depth;	/* frames per allocation */
	size_t stack_copy_bytes;	/* of a stack copy: a multiple of MS_STACK_CHUNK */
	size_t stack_room_bytes;	/* ring fill past which stacks are left out */
	size_t unwind_bytes;		/* for the rows of auto's unwind tables */
	bool probes_only;		/* record nothing: the probes' own cost */
	/* operator new unprobed with stacks: its calls of malloc are told (new_sites). */
	bool new_sites;
	/* memsup's PID namespace (proc_own_pid_namespace): the ids BPF gives. */
	unsigned int pidns_inum;
	/*
	 * Given, the tracked processes' executable file mappings are told
	 * to it (with the sink's context) as the records are drained.
	 */
	mapping_sink on_mapping;
};

/*
 * Loads the BPF programs and reads their rings into sink.  Returns 0 or a
 * negative errno, with *why saying which step failed.
 */
int consumer_open(struct consumer *c, const struct consumer_config *cfg,
		  record_sink sink, void *sink_ctx, const char **why);
/*
 * The decoding alone, with no BPF programs, no ring and no unwinder: what
 * consumer_open() starts from, and what bench/consume feeds records to
 * through consumer_take().  Its limit is never: every record is taken.
 */
void consumer_init(struct consumer *c, unsigned int stack_depth, record_sink sink,
		   void *sink_ctx);
/* Accepts a consumer that consumer_open() failed or consumer_init() set up. */
void consumer_close(struct consumer *c);
/*
 * One ring record of size bytes, as a drain hands it over: decoded,
 * checked, its time restored and sent to the sink, its stack first if new.
 * Returns 0, -EINVAL for a record that is not valid, or -EAGAIN for one
 * stamped later than the drain's limit, held back for the next drain.
 */
int consumer_take(struct consumer *c, const void *data, size_t size);

/* The fd to poll for records. */
int consumer_fd(const struct consumer *c);
/* Hands every committed record to the sink.  Returns 0 or a negative errno. */
int consumer_drain(struct consumer *c);
/*
 * The same, but it stops at the first record taken with the latch up, the
 * rest left for later: producers that keep the ring busy must not keep
 * the supervisor from stopping them.
 */
int consumer_drain_to_latch(struct consumer *c);
/*
 * The same for the records stamped no later than limit_ns (capture time):
 * what a process did before a stop the supervisor observed at that time.
 */
int consumer_drain_until(struct consumer *c, uint64_t limit_ns);
/*
 * Follows a record handed to the sink: its mappings, forks, execs and
 * exits keep what the unwinding sees each process map.  Call it for every
 * record, in the sink's order, while the process is stopped.
 */
void consumer_follow(struct consumer *c, const struct record *r);

/* Nanoseconds since the capture started. */
uint64_t consumer_now(const struct consumer *c);

/* How the stacks sent so far were taken, where unwind tables are walked. */
struct stack_sources {
	uint64_t tables;		/* walked from unwind tables */
	uint64_t frame_pointers;	/* walked from frame pointers */
	uint64_t files_without_room;	/* tables the BPF arrays could not hold */
};
/* Returns false when no unwind table is walked (not auto, or no libdw). */
bool consumer_stack_sources(const struct consumer *c, struct stack_sources *out);
/* What unwinding the stack copies took: unwinder_stats(). */
void consumer_unwind_stats(const struct consumer *c, struct unwind_stats *out);

#endif
