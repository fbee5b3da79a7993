// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The heap model against the accounting rules of DESIGN.md: records in,
 * exact statistics out, for each process and for the whole tree.
 */
#include "config.h"
#include "heap.h"
#include "record.h"
#include "tap.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* A call by thread tid of process pid. */
static void
thread_call(struct heap_model *h, uint64_t t, uint32_t pid, uint32_t tid, uint32_t what,
	    uint64_t ptr, uint64_t size, uint64_t old_ptr)
{
	struct record r = {
		.type = REC_CALL, .time_ns = t, .pid = pid, .tid = tid,
		.call = { .call = what, .ptr = ptr, .size = size,
			  .old_ptr = old_ptr },
	};

	heap_apply(h, &r);
}

/* A call by the main thread of process pid. */
static void
call(struct heap_model *h, uint64_t t, uint32_t pid, uint32_t what,
     uint64_t ptr, uint64_t size, uint64_t old_ptr)
{
	thread_call(h, t, pid, pid, what, ptr, size, old_ptr);
}

static void
do_malloc(struct heap_model *h, uint64_t t, uint32_t pid, uint64_t ptr,
	  uint64_t size)
{
	call(h, t, pid, MS_CALL_MALLOC, ptr, size, 0);
}

static void
do_free(struct heap_model *h, uint64_t t, uint32_t pid, uint64_t ptr)
{
	call(h, t, pid, MS_CALL_FREE, ptr, 0, 0);
}

/* A free from the C library's own code (CALL_INTERNAL). */
static void
do_internal_free(struct heap_model *h, uint64_t t, uint32_t pid, uint32_t tid,
		 uint64_t ptr)
{
	struct record r = {
		.type = REC_CALL, .time_ns = t, .pid = pid, .tid = tid,
		.call = { .call = MS_CALL_FREE, .flags = CALL_INTERNAL, .ptr = ptr },
	};

	heap_apply(h, &r);
}

/* realloc(old, size) returned ptr. */
static void
do_realloc(struct heap_model *h, uint64_t t, uint32_t pid, uint64_t old,
	   uint64_t size, uint64_t ptr)
{
	call(h, t, pid, MS_CALL_REALLOC, ptr, size, old);
}

static void
do_fork(struct heap_model *h, uint64_t t, uint32_t pid, uint32_t child)
{
	struct record r = { .type = REC_FORK, .time_ns = t, .pid = pid,
			    .tid = pid, .fork = { .child = child } };

	heap_apply(h, &r);
}

static void
do_exec(struct heap_model *h, uint64_t t, uint32_t pid, const char *path)
{
	struct record r = { .type = REC_EXEC, .time_ns = t, .pid = pid,
			    .tid = pid, .exec = { .path = path } };

	heap_apply(h, &r);
}

static void
do_exit(struct heap_model *h, uint64_t t, uint32_t pid, int32_t status)
{
	struct record r = { .type = REC_EXIT, .time_ns = t, .pid = pid,
			    .tid = pid, .exit = { .wait_status = status } };

	heap_apply(h, &r);
}

/* The latest process of that pid. */
static struct heap_process *
proc(const struct heap_model *h, uint32_t pid)
{
	size_t i;

	for (i = h->nprocs; i > 0; i--)
		if (h->procs[i - 1]->pid == pid)
			return h->procs[i - 1];
	tap_bail("the model has no process %u", pid);
}

static const struct {
	const char *name;
	size_t offset;
} stat_fields[] = {
#define FIELD(f) { #f, offsetof(struct heap_stats, f) }
	FIELD(allocs),
	FIELD(frees),
	FIELD(bytes_allocated),
	FIELD(failed_calls),
	FIELD(unknown_frees),
	FIELD(live_bytes),
	FIELD(live_blocks),
	FIELD(peak_bytes),
	FIELD(peak_time_ns),
	FIELD(leaked_bytes),
	FIELD(leaked_blocks),
	FIELD(temporary),
#undef FIELD
};

static uint64_t
stat_field(const struct heap_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + stat_fields[i].offset, sizeof(v));
	return v;
}

/* One test point: every field of got equals the one of want. */
static bool
stats_eq_(const char *file, int line, const struct heap_stats *got,
	  const struct heap_stats *want, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static bool
stats_eq_(const char *file, int line, const struct heap_stats *got,
	  const struct heap_stats *want, const char *fmt, ...)
{
	size_t i, n = sizeof(stat_fields) / sizeof(stat_fields[0]);
	bool ok = true;
	va_list ap;

	/* The size classes have tests of their own. */
	if (sizeof(struct heap_stats) != n * sizeof(uint64_t) + sizeof(got->size_classes))
		tap_bail("struct heap_stats has fields this test does not know");
	for (i = 0; i < n; i++)
		ok &= stat_field(got, i) == stat_field(want, i);
	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	for (i = 0; !ok && i < n; i++)
		if (stat_field(got, i) != stat_field(want, i))
			tap_diag("  %-16s got %" PRIu64 " (0x%" PRIx64
				 "), expected %" PRIu64,
				 stat_fields[i].name, stat_field(got, i),
				 stat_field(got, i), stat_field(want, i));
	return ok;
}

#define stats_eq(got, ...) stats_eq_(__FILE__, __LINE__, (got), __VA_ARGS__)
#define STATS(...) (&(const struct heap_stats){ __VA_ARGS__ })

static void
test_malloc_free(void)
{
	struct heap_model h;
	struct heap_process *p;

	heap_init(&h);
	do_malloc(&h, 10, 100, 0x1000, 100);
	do_malloc(&h, 20, 100, 0x2000, 50);
	do_free(&h, 30, 100, 0x1000);
	p = proc(&h, 100);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1,
				  .bytes_allocated = 150, .live_bytes = 50,
				  .live_blocks = 1, .peak_bytes = 150,
				  .peak_time_ns = 20),
		 "malloc, malloc, free: process");
	stats_eq(&h.tree, STATS(.allocs = 2, .frees = 1,
				.bytes_allocated = 150, .live_bytes = 50,
				.live_blocks = 1, .peak_bytes = 150,
				.peak_time_ns = 20),
		 "malloc, malloc, free: tree");
	tap_ok(h.nprocs == 1 && p->parent == 0 && !p->image && !p->exited,
	       "the first record of a pid starts a root process");

	do_exit(&h, 40, 100, 0x0300);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1,
				  .bytes_allocated = 150, .peak_bytes = 150,
				  .peak_time_ns = 20, .leaked_bytes = 50,
				  .leaked_blocks = 1),
		 "EXIT: what was live is leaked, nothing is live");
	stats_eq(&h.tree, STATS(.allocs = 2, .frees = 1,
				.bytes_allocated = 150, .peak_bytes = 150,
				.peak_time_ns = 20, .leaked_bytes = 50,
				.leaked_blocks = 1),
		 "EXIT: the tree's leaks");
	tap_ok(p->exited && p->wait_status == 0x0300,
	       "EXIT records the wait status");

	/* A pid seen again after its exit is a new process. */
	do_malloc(&h, 50, 100, 0x1000, 7);
	tap_ok(h.nprocs == 2 && proc(&h, 100) != p &&
	       proc(&h, 100)->stats.live_bytes == 7 && p->stats.live_bytes == 0,
	       "a record of an exited pid starts a new process");
	heap_free(&h);
}

static void
test_alloc_calls(void)
{
	static const uint32_t calls[] = {
		MS_CALL_MALLOC, MS_CALL_CALLOC, MS_CALL_REALLOCARRAY,
		MS_CALL_ALIGNED_ALLOC, MS_CALL_MEMALIGN,
		MS_CALL_POSIX_MEMALIGN, MS_CALL_VALLOC, MS_CALL_PVALLOC,
	};
	struct heap_model h;
	struct heap_process *p;
	size_t i;

	heap_init(&h);
	/* calloc(10, 12): the record holds nmemb * size. */
	call(&h, 1, 7, MS_CALL_CALLOC, 0x5000, 120, 0);
	p = proc(&h, 7);
	stats_eq(&p->stats, STATS(.allocs = 1, .bytes_allocated = 120,
				  .live_bytes = 120, .live_blocks = 1,
				  .peak_bytes = 120, .peak_time_ns = 1),
		 "calloc of 120 bytes");
	/* calloc(SIZE_MAX, 2): saturated size, NULL. */
	call(&h, 2, 7, MS_CALL_CALLOC, 0, UINT64_MAX, 0);
	stats_eq(&p->stats, STATS(.allocs = 1, .bytes_allocated = 120,
				  .failed_calls = 1, .live_bytes = 120,
				  .live_blocks = 1, .peak_bytes = 120,
				  .peak_time_ns = 1),
		 "a calloc returning NULL is a failed call and nothing else");
	do_free(&h, 3, 7, 0x5000);
	heap_free(&h);

	heap_init(&h);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		call(&h, 10 + i, 8, calls[i], 0x10000 + 0x100 * i, 1 + i, 0);
	p = proc(&h, 8);
	stats_eq(&p->stats, STATS(.allocs = 8, .bytes_allocated = 36,
				  .live_bytes = 36, .live_blocks = 8,
				  .peak_bytes = 36, .peak_time_ns = 17),
		 "every allocating call (reallocarray of NULL too) allocates");
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		call(&h, 20 + i, 8, calls[i], 0, 5, 0);
	tap_eq_u64(p->stats.failed_calls, 8,
		   "each of them failing counts a failed call");
	tap_eq_u64(p->stats.live_bytes, 36, "failed calls leave the live bytes");
	heap_free(&h);
}

static void
test_realloc(void)
{
	struct heap_model h;
	struct heap_process *p;

	/* Grow, moving: p -> q. */
	heap_init(&h);
	do_malloc(&h, 1, 5, 0xa000, 100);
	do_realloc(&h, 2, 5, 0xa000, 300, 0xb000);
	p = proc(&h, 5);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1,
				  .bytes_allocated = 400, .live_bytes = 300,
				  .live_blocks = 1, .peak_bytes = 300,
				  .peak_time_ns = 2),
		 "realloc grow p -> q: one alloc, one free, live = new size");
	stats_eq(&h.tree, STATS(.allocs = 2, .frees = 1,
				.bytes_allocated = 400, .live_bytes = 300,
				.live_blocks = 1, .peak_bytes = 300,
				.peak_time_ns = 2),
		 "realloc grow p -> q: tree");
	do_free(&h, 3, 5, 0xa000);
	tap_eq_u64(p->stats.unknown_frees, 1, "the old block is no longer live");
	/* Shrink in place. */
	do_realloc(&h, 4, 5, 0xb000, 40, 0xb000);
	stats_eq(&p->stats, STATS(.allocs = 3, .frees = 2,
				  .bytes_allocated = 440, .unknown_frees = 1,
				  .live_bytes = 40, .live_blocks = 1,
				  .peak_bytes = 300, .peak_time_ns = 2),
		 "realloc shrinking in place");
	do_free(&h, 5, 5, 0xb000);
	tap_ok(p->stats.live_bytes == 0 && p->stats.live_blocks == 0 &&
	       p->stats.unknown_frees == 1,
	       "the block realloc returned is freed");
	heap_free(&h);

	/* realloc(NULL, n) */
	heap_init(&h);
	do_realloc(&h, 1, 5, 0, 64, 0xc000);
	p = proc(&h, 5);
	stats_eq(&p->stats, STATS(.allocs = 1, .bytes_allocated = 64,
				  .live_bytes = 64, .live_blocks = 1,
				  .peak_bytes = 64, .peak_time_ns = 1),
		 "realloc(NULL, 64) is an allocation");
	do_realloc(&h, 2, 5, 0, 64, 0);
	tap_eq_u64(p->stats.failed_calls, 1,
		   "realloc(NULL, 64) returning NULL fails");
	heap_free(&h);

	/* realloc(p, 0) returning NULL: glibc freed p. */
	heap_init(&h);
	do_malloc(&h, 1, 5, 0xd000, 80);
	do_realloc(&h, 2, 5, 0xd000, 0, 0);
	p = proc(&h, 5);
	stats_eq(&p->stats, STATS(.allocs = 1, .frees = 1,
				  .bytes_allocated = 80, .peak_bytes = 80,
				  .peak_time_ns = 1),
		 "realloc(p, 0) returning NULL frees p, no failure");
	do_free(&h, 3, 5, 0xd000);
	tap_eq_u64(p->stats.unknown_frees, 1, "p is gone after realloc(p, 0)");
	heap_free(&h);

	/* A failed realloc leaves p live. */
	heap_init(&h);
	do_malloc(&h, 1, 5, 0xe000, 80);
	do_realloc(&h, 2, 5, 0xe000, 1 << 20, 0);
	call(&h, 3, 5, MS_CALL_REALLOCARRAY, 0, UINT64_MAX, 0xe000);
	p = proc(&h, 5);
	stats_eq(&p->stats, STATS(.allocs = 1, .bytes_allocated = 80,
				  .failed_calls = 2, .live_bytes = 80,
				  .live_blocks = 1, .peak_bytes = 80,
				  .peak_time_ns = 1),
		 "failed realloc and reallocarray leave p live");
	do_free(&h, 4, 5, 0xe000);
	/* Temporary: a failed call allocates nothing in between. */
	stats_eq(&p->stats, STATS(.allocs = 1, .frees = 1,
				  .bytes_allocated = 80, .failed_calls = 2,
				  .peak_bytes = 80, .peak_time_ns = 1, .temporary = 1),
		 "p is freed normally after the failed realloc");
	stats_eq(&h.tree, STATS(.allocs = 1, .frees = 1,
				.bytes_allocated = 80, .failed_calls = 2,
				.peak_bytes = 80, .peak_time_ns = 1, .temporary = 1),
		 "failed realloc: tree");
	heap_free(&h);

	/* reallocarray moves like realloc. */
	heap_init(&h);
	do_malloc(&h, 1, 5, 0xf000, 10);
	call(&h, 2, 5, MS_CALL_REALLOCARRAY, 0xf800, 200, 0xf000);
	p = proc(&h, 5);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1,
				  .bytes_allocated = 210, .live_bytes = 200,
				  .live_blocks = 1, .peak_bytes = 200,
				  .peak_time_ns = 2),
		 "reallocarray p -> q");
	heap_free(&h);
}

static void
test_unknown_frees(void)
{
	struct heap_model h;
	struct heap_process *p;

	heap_init(&h);
	do_free(&h, 1, 9, 0xdead0);
	p = proc(&h, 9);
	stats_eq(&p->stats, STATS(.unknown_frees = 1),
		 "free of an unknown address in a new process");
	stats_eq(&h.tree, STATS(.unknown_frees = 1),
		 "free of an unknown address: tree");
	do_malloc(&h, 2, 9, 0x1000, 10);
	do_free(&h, 3, 9, 0x2000);
	do_free(&h, 4, 9, 0x1000);
	do_free(&h, 5, 9, 0x1000);
	stats_eq(&p->stats, STATS(.allocs = 1, .frees = 1,
				  .bytes_allocated = 10, .unknown_frees = 3,
				  .peak_bytes = 10, .peak_time_ns = 2, .temporary = 1),
		 "unknown and double frees never make live bytes negative");
	/* realloc of an address allocated before tracking began */
	do_realloc(&h, 6, 9, 0x3000, 30, 0x4000);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1,
				  .bytes_allocated = 40, .unknown_frees = 4,
				  .live_bytes = 30, .live_blocks = 1,
				  .peak_bytes = 30, .peak_time_ns = 6, .temporary = 1),
		 "realloc of an unknown block: unknown free, new block live");
	stats_eq(&h.tree, STATS(.allocs = 2, .frees = 1,
				.bytes_allocated = 40, .unknown_frees = 4,
				.live_bytes = 30, .live_blocks = 1,
				.peak_bytes = 30, .peak_time_ns = 6, .temporary = 1),
		 "unknown frees: tree");
	/* The same address handed out twice: its free was not seen. */
	do_malloc(&h, 7, 9, 0x4000, 8);
	stats_eq(&p->stats, STATS(.allocs = 3, .frees = 1,
				  .bytes_allocated = 48, .unknown_frees = 4,
				  .live_bytes = 8, .live_blocks = 1,
				  .peak_bytes = 30, .peak_time_ns = 6, .temporary = 1),
		 "an address allocated twice is live once, with its new size");
	heap_free(&h);
}

/*
 * The C library's own frees: of a live block (fclose's buffer), a free
 * like any other; of an address not live (its thread cache handed back
 * at thread exit, blocks the program freed already), nothing at all.
 */
static void
test_internal_frees(void)
{
	struct heap_model h;
	struct heap_process *p;

	heap_init(&h);
	do_exec(&h, 1, 9, "/bin/x");
	p = proc(&h, 9);
	do_malloc(&h, 2, 9, 0x1000, 10);
	do_malloc(&h, 3, 9, 0x2000, 20);
	do_free(&h, 4, 9, 0x1000);
	do_internal_free(&h, 5, 9, 10, 0x1000);
	do_internal_free(&h, 6, 9, 10, 0x3000);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 1, .bytes_allocated = 30,
				  .live_bytes = 20, .live_blocks = 1,
				  .peak_bytes = 30, .peak_time_ns = 3),
		 "the C library's frees of addresses not live count nowhere");
	do_internal_free(&h, 7, 9, 10, 0x2000);
	stats_eq(&p->stats, STATS(.allocs = 2, .frees = 2, .bytes_allocated = 30,
				  .peak_bytes = 30, .peak_time_ns = 3),
		 "the C library's free of a live block is a free");
	do_free(&h, 8, 9, 0x2000);
	stats_eq(&h.tree, STATS(.allocs = 2, .frees = 2, .bytes_allocated = 30,
				.unknown_frees = 1, .peak_bytes = 30, .peak_time_ns = 3),
		 "the program's own free of it again is an unknown free: tree");
	heap_free(&h);
}

static void
test_peak(void)
{
	struct heap_model h;
	struct heap_process *p;

	heap_init(&h);
	do_malloc(&h, 100, 3, 0xa0, 100);	/* live 100 */
	do_malloc(&h, 200, 3, 0xb0, 200);	/* 300 */
	do_free(&h, 300, 3, 0xa0);		/* 200 */
	do_malloc(&h, 400, 3, 0xc0, 100);	/* 300 again: not a new peak */
	p = proc(&h, 3);
	tap_ok(p->stats.peak_bytes == 300 && p->stats.peak_time_ns == 200,
	       "reaching the peak again keeps the time it was first reached");
	do_malloc(&h, 500, 3, 0xd0, 1);		/* 301 */
	do_free(&h, 600, 3, 0xb0);
	do_free(&h, 700, 3, 0xc0);
	do_free(&h, 800, 3, 0xd0);
	do_malloc(&h, 900, 3, 0xe0, 250);
	/* 0xd0 is not temporary: the frees of 0xb0 and 0xc0 came between. */
	stats_eq(&p->stats, STATS(.allocs = 5, .frees = 4,
				  .bytes_allocated = 651, .live_bytes = 250,
				  .live_blocks = 1, .peak_bytes = 301,
				  .peak_time_ns = 500),
		 "peak is the maximum of live bytes, at the record setting it");
	stats_eq(&h.tree, STATS(.allocs = 5, .frees = 4,
				.bytes_allocated = 651, .live_bytes = 250,
				.live_blocks = 1, .peak_bytes = 301,
				.peak_time_ns = 500),
		 "one process: the tree's peak is the process's");
	heap_free(&h);
}

static void
test_fork(void)
{
	struct heap_model h;
	struct heap_process *parent, *child;

	heap_init(&h);
	do_exec(&h, 1, 10, "/usr/bin/parent");
	do_malloc(&h, 2, 10, 0xa000, 1000);
	do_malloc(&h, 3, 10, 0xb000, 500);
	do_malloc(&h, 4, 10, 0xc000, 70);
	do_fork(&h, 5, 10, 11);
	parent = proc(&h, 10);
	child = proc(&h, 11);
	tap_ok(h.nprocs == 2 && child->parent == 10 && parent->parent == 0,
	       "FORK creates a child of the forking process");
	tap_ok(child->image && parent->image && child->image != parent->image &&
	       !strcmp(child->image, "/usr/bin/parent"),
	       "the child runs a copy of its parent's image");
	stats_eq(&child->stats, STATS(0),
		 "inherited blocks are not the child's live heap");
	stats_eq(&h.tree, STATS(.allocs = 3, .bytes_allocated = 1570,
				.live_bytes = 1570, .live_blocks = 3,
				.peak_bytes = 1570, .peak_time_ns = 4),
		 "FORK does not add to the tree's live heap");

	do_free(&h, 6, 11, 0xa000);
	stats_eq(&child->stats, STATS(.frees = 1),
		 "the child frees an inherited block: a free, not an unknown one");
	do_realloc(&h, 7, 11, 0xc000, 90, 0xd000);
	do_malloc(&h, 8, 11, 0xe000, 10);
	stats_eq(&child->stats, STATS(.allocs = 2, .frees = 2,
				      .bytes_allocated = 100,
				      .live_bytes = 100, .live_blocks = 2,
				      .peak_bytes = 100, .peak_time_ns = 8),
		 "realloc of an inherited block, then malloc, in the child");
	do_free(&h, 9, 11, 0xa000);
	tap_eq_u64(child->stats.unknown_frees, 1,
		   "freeing the inherited block twice is an unknown free");

	do_free(&h, 10, 10, 0xa000);
	stats_eq(&parent->stats, STATS(.allocs = 3, .frees = 1,
				       .bytes_allocated = 1570,
				       .live_bytes = 570, .live_blocks = 2,
				       .peak_bytes = 1570, .peak_time_ns = 4),
		 "the parent still owns the block its child freed");

	do_exit(&h, 11, 11, 0);
	stats_eq(&child->stats, STATS(.allocs = 2, .frees = 2,
				      .bytes_allocated = 100,
				      .unknown_frees = 1,
				      .peak_bytes = 100, .peak_time_ns = 8,
				      .leaked_bytes = 100, .leaked_blocks = 2),
		 "the child's leaks are its own blocks, not the inherited one");
	do_exit(&h, 12, 10, 0);
	stats_eq(&parent->stats, STATS(.allocs = 3, .frees = 1,
				       .bytes_allocated = 1570,
				       .peak_bytes = 1570, .peak_time_ns = 4,
				       .leaked_bytes = 570, .leaked_blocks = 2),
		 "the parent's leaks");
	/* At t=8: parent 1570, child 100, the summed peak. */
	stats_eq(&h.tree, STATS(.allocs = 5, .frees = 3,
				.bytes_allocated = 1670, .unknown_frees = 1,
				.peak_bytes = 1670, .peak_time_ns = 8,
				.leaked_bytes = 670, .leaked_blocks = 4),
		 "fork: tree totals");
	heap_free(&h);
}

/*
 * A FORK whose child has the forking pid (a damaged capture): the calls
 * after it are the new process's, as the last record's process was the
 * forking one.
 */
static void
test_fork_of_itself(void)
{
	struct heap_model h;

	heap_init(&h);
	do_malloc(&h, 1, 20, 0x100, 10);
	do_fork(&h, 2, 20, 20);
	do_malloc(&h, 3, 20, 0x200, 7);
	tap_ok(h.nprocs == 2 && h.procs[0]->stats.allocs == 1 &&
	       h.procs[1]->stats.allocs == 1 && h.procs[1]->stats.bytes_allocated == 7,
	       "a process forking its own pid: its calls go to the new process");
	heap_free(&h);
}

static void
test_exec(void)
{
	struct heap_model h;
	struct heap_process *p;

	heap_init(&h);
	do_malloc(&h, 1, 20, 0x100, 100);
	do_malloc(&h, 2, 20, 0x200, 200);
	do_exec(&h, 3, 20, "/bin/true");
	p = proc(&h, 20);
	stats_eq(&p->stats, STATS(.allocs = 2, .bytes_allocated = 300,
				  .peak_bytes = 300, .peak_time_ns = 2),
		 "EXEC discards the live blocks without calling them leaks");
	tap_str_eq(p->image, "/bin/true", "EXEC sets the image");
	tap_ok(h.nprocs == 1, "EXEC keeps the process");
	do_free(&h, 4, 20, 0x100);
	tap_eq_u64(p->stats.unknown_frees, 1,
		   "a block of the old image is unknown after EXEC");
	do_malloc(&h, 5, 20, 0x300, 30);
	do_exec(&h, 6, 20, "/bin/sh");
	tap_str_eq(p->image, "/bin/sh", "a second EXEC replaces the image");
	do_exit(&h, 7, 20, 0);
	stats_eq(&p->stats, STATS(.allocs = 3, .bytes_allocated = 330,
				  .unknown_frees = 1, .peak_bytes = 300,
				  .peak_time_ns = 2),
		 "nothing leaked after EXEC then EXIT");
	stats_eq(&h.tree, STATS(.allocs = 3, .bytes_allocated = 330,
				.unknown_frees = 1, .peak_bytes = 300,
				.peak_time_ns = 2),
		 "EXEC: tree");
	heap_free(&h);

	/* fork, then exec in the child: the inherited blocks go too. */
	heap_init(&h);
	do_malloc(&h, 1, 30, 0x100, 100);
	do_fork(&h, 2, 30, 31);
	do_exec(&h, 3, 31, "/bin/ls");
	do_free(&h, 4, 31, 0x100);
	p = proc(&h, 31);
	stats_eq(&p->stats, STATS(.unknown_frees = 1),
		 "after EXEC the child no longer holds its inherited blocks");
	tap_ok(proc(&h, 30)->stats.live_bytes == 100 && !proc(&h, 30)->image,
	       "the child's EXEC leaves its parent alone");
	tap_eq_u64(h.tree.live_bytes, 100,
		   "the child's EXEC leaves the tree's live bytes");
	heap_free(&h);
}

static void
test_tree_peak(void)
{
	struct heap_model h;

	heap_init(&h);
	do_malloc(&h, 1, 40, 0x1000, 1000);	/* tree 1000 */
	do_fork(&h, 2, 40, 41);
	do_free(&h, 3, 40, 0x1000);		/* tree 0 */
	do_malloc(&h, 4, 41, 0x2000, 700);	/* tree 700 */
	do_free(&h, 5, 41, 0x2000);		/* tree 0 */
	do_malloc(&h, 6, 42, 0x3000, 400);	/* another root; tree 400 */
	do_malloc(&h, 7, 41, 0x4000, 500);	/* tree 900 */
	do_malloc(&h, 8, 40, 0x5000, 300);	/* tree 1200 */
	do_free(&h, 9, 42, 0x3000);		/* tree 800 */
	do_malloc(&h, 10, 41, 0x6000, 250);	/* 41 at 750; tree 1050 */
	stats_eq(&proc(&h, 40)->stats,
		 STATS(.allocs = 2, .frees = 1, .bytes_allocated = 1300,
		       .live_bytes = 300, .live_blocks = 1,
		       .peak_bytes = 1000, .peak_time_ns = 1, .temporary = 1),
		 "first process peaks at t=1");
	stats_eq(&proc(&h, 41)->stats,
		 STATS(.allocs = 3, .frees = 1, .bytes_allocated = 1450,
		       .live_bytes = 750, .live_blocks = 2,
		       .peak_bytes = 750, .peak_time_ns = 10, .temporary = 1),
		 "second process peaks at t=10");
	stats_eq(&proc(&h, 42)->stats,
		 STATS(.allocs = 1, .frees = 1, .bytes_allocated = 400,
		       .peak_bytes = 400, .peak_time_ns = 6, .temporary = 1),
		 "third process peaks at t=6");
	stats_eq(&h.tree, STATS(.allocs = 6, .frees = 3,
				.bytes_allocated = 3150, .live_bytes = 1050,
				.live_blocks = 3, .peak_bytes = 1200,
				.peak_time_ns = 8, .temporary = 3),
		 "tree peak 1200 at t=8, less than the 2150 of summed peaks");
	do_exit(&h, 11, 41, 0);
	do_exit(&h, 12, 40, 0);
	do_exit(&h, 13, 42, 0);
	stats_eq(&h.tree, STATS(.allocs = 6, .frees = 3,
				.bytes_allocated = 3150, .peak_bytes = 1200,
				.peak_time_ns = 8, .leaked_bytes = 1050,
				.leaked_blocks = 3, .temporary = 3),
		 "tree after every exit: leaks summed, nothing live");
	heap_free(&h);
}

/* Temporary: freed by its thread before that thread allocated again. */
static void
test_temporary(void)
{
	struct heap_model h;

	heap_init(&h);
	/* Another thread's allocation in between does not count. */
	thread_call(&h, 1, 50, 50, MS_CALL_MALLOC, 0x100, 8, 0);
	thread_call(&h, 2, 50, 51, MS_CALL_MALLOC, 0x200, 8, 0);
	thread_call(&h, 3, 50, 50, MS_CALL_FREE, 0x100, 0, 0);
	tap_eq_u64(h.tree.temporary, 1, "another thread's allocation in between: temporary");
	/* Its own does. */
	thread_call(&h, 4, 50, 51, MS_CALL_MALLOC, 0x300, 8, 0);
	thread_call(&h, 5, 50, 51, MS_CALL_FREE, 0x200, 0, 0);
	tap_eq_u64(h.tree.temporary, 1, "its own allocation in between: not temporary");
	/* A free by another thread is not the allocating thread's. */
	thread_call(&h, 6, 50, 50, MS_CALL_FREE, 0x300, 0, 0);
	tap_eq_u64(h.tree.temporary, 1, "freed by another thread: not temporary");
	/* A realloc is an allocation; the block it frees is not temporary. */
	thread_call(&h, 7, 50, 50, MS_CALL_MALLOC, 0x400, 8, 0);
	thread_call(&h, 8, 50, 50, MS_CALL_REALLOC, 0x500, 16, 0x400);
	tap_eq_u64(h.tree.temporary, 1, "the block a realloc frees: not temporary");
	thread_call(&h, 9, 50, 50, MS_CALL_FREE, 0x500, 0, 0);
	tap_eq_u64(h.tree.temporary, 2, "the block a realloc returned, freed next: temporary");
	/* A vector's growth: the new buffer, the old one freed, then the new. */
	thread_call(&h, 10, 50, 50, MS_CALL_MALLOC, 0x600, 8, 0);
	thread_call(&h, 11, 50, 50, MS_CALL_MALLOC, 0x700, 16, 0);
	thread_call(&h, 12, 50, 50, MS_CALL_FREE, 0x600, 0, 0);
	thread_call(&h, 13, 50, 50, MS_CALL_FREE, 0x700, 0, 0);
	tap_eq_u64(h.tree.temporary, 2, "another block freed in between: not temporary");
	/* An unknown free is no free of a block. */
	thread_call(&h, 14, 50, 50, MS_CALL_MALLOC, 0x800, 8, 0);
	thread_call(&h, 15, 50, 50, MS_CALL_FREE, 0x900, 0, 0);
	thread_call(&h, 16, 50, 50, MS_CALL_FREE, 0x800, 0, 0);
	tap_eq_u64(h.tree.temporary, 3, "an unknown free in between: temporary");
	tap_eq_u64(proc(&h, 50)->stats.temporary, 3, "the process counts the same");
	heap_free(&h);
}

/* A call of the main thread of pid 80, from site. */
static void
site_call(struct heap_model *h, uint64_t t, uint32_t site, uint32_t what, uint64_t ptr,
	  uint64_t size, uint64_t old_ptr)
{
	struct record r = {
		.type = REC_CALL, .time_ns = t, .pid = 80, .tid = 80,
		.call = { .call = what, .ptr = ptr, .size = size,
			  .old_ptr = old_ptr, .site = site },
	};

	heap_apply(h, &r);
}

/*
 * The live model knows no sites (every call's is 0), the report's does:
 * the figures must not depend on them, malloc(0) included.
 */
static void
test_site_blind(void)
{
	struct heap_model h[2];
	uint32_t site[2] = { 0, 7 };
	int i;

	for (i = 0; i < 2; i++) {
		heap_init(&h[i]);
		site_call(&h[i], 1, site[i], MS_CALL_MALLOC, 0x10, 0, 0);
		site_call(&h[i], 2, site[i], MS_CALL_FREE, 0x10, 0, 0);
		site_call(&h[i], 3, site[i], MS_CALL_MALLOC, 0x20, 0, 0);
		site_call(&h[i], 4, site[i], MS_CALL_REALLOC, 0, 0, 0x20);
		site_call(&h[i], 5, site[i], MS_CALL_FREE, 0x30, 0, 0);
		site_call(&h[i], 6, site[i], MS_CALL_MALLOC, 0x40, 0, 0);
		do_exit(&h[i], 7, 80, 0);
	}
	stats_eq(&h[0].tree, STATS(.allocs = 3, .frees = 2, .unknown_frees = 1,
				   .leaked_blocks = 1, .temporary = 1),
		 "malloc(0) freed next is temporary, with no site known");
	stats_eq(&h[0].tree, &h[1].tree, "the same figures with a site known");
	heap_free(&h[0]);
	heap_free(&h[1]);
}

static void
test_size_classes(void)
{
	static const uint64_t sizes[] = { 0, 1, 2, 3, 4, 1023, 1024, UINT64_MAX };
	static const unsigned int classes[] = { 0, 1, 2, 2, 3, 10, 11, 64 };
	struct heap_model h;
	size_t i;
	bool ok = true;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ok = ok && heap_size_class(sizes[i]) == classes[i];
	tap_ok(ok, "size classes: 0; 1; 2-3; 4-7...; 2^63 and above in 64");
	heap_init(&h);
	do_malloc(&h, 1, 60, 0x10, 3);
	do_malloc(&h, 2, 60, 0x20, 2);
	call(&h, 3, 60, MS_CALL_REALLOC, 0x30, 1024, 0x20);
	do_malloc(&h, 4, 60, 0, 5);	/* failed: no class */
	tap_ok(h.tree.size_classes[2] == 2 && h.tree.size_classes[11] == 1 &&
	       h.tree.size_classes[3] == 0 && proc(&h, 60)->stats.size_classes[2] == 2,
	       "allocations counted by class, failed calls not");
	heap_free(&h);
}

static void
mark(struct heap_model *h, uint64_t t, uint32_t pid, uint32_t tid, uint32_t mark,
     const char *name)
{
	struct record r = { .type = REC_REGION, .time_ns = t, .pid = pid, .tid = tid,
			    .region = { .mark = mark, .name = name } };

	heap_apply(h, &r);
}

/* "name:entries/allocs/bytes/peak/unmatched/left open" of every region. */
static const char *
regions_line(const struct heap_model *h)
{
	static char line[512];
	size_t i, len = 0;

	line[0] = '\0';
	for (i = 0; i < h->regions.nregions && len < sizeof(line); i++) {
		const struct region_stats *r = &h->regions.regions[i];

		len += (size_t)snprintf(line + len, sizeof(line) - len,
					"%s%s:%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
					"/%" PRIu64 "/%" PRIu64, i ? " " : "", r->name,
					r->entries, r->allocs, r->bytes_allocated,
					r->peak_bytes, r->unmatched_ends, r->left_open);
	}
	return line;
}

static void
test_regions(void)
{
	struct heap_model h;

	heap_init(&h);
	do_malloc(&h, 1, 70, 0x10, 100);	/* before: the level of the begin */
	mark(&h, 2, 70, 70, MS_REGION_BEGIN, "a");
	do_malloc(&h, 3, 70, 0x20, 50);
	do_free(&h, 4, 70, 0x10);		/* below the begin's level */
	do_malloc(&h, 5, 70, 0x30, 60);		/* live 110; the peak rise was 50 */
	/* Another thread's allocation counts; a nested begin deepens it. */
	mark(&h, 6, 70, 71, MS_REGION_BEGIN, "a");
	thread_call(&h, 7, 70, 71, MS_CALL_MALLOC, 0x40, 30, 0);
	mark(&h, 8, 70, 70, MS_REGION_END, "a");
	do_malloc(&h, 9, 70, 0x50, 5);		/* still open: one end to go */
	mark(&h, 10, 70, 70, MS_REGION_END, "a");
	do_malloc(&h, 11, 70, 0x60, 1000);	/* closed: not counted */
	tap_str_eq(regions_line(&h), "a:1/4/145/50/0/0",
		   "allocations of every thread, the peak rise over the begin's level");

	mark(&h, 12, 70, 70, MS_REGION_END, "b");
	tap_str_eq(regions_line(&h), "a:1/4/145/50/0/0 b:0/0/0/0/1/0",
		   "an end without a begin is counted");

	/* A child starts inside the region, from 0; exec and exit close it. */
	mark(&h, 13, 70, 70, MS_REGION_BEGIN, "a");
	do_fork(&h, 14, 70, 72);
	do_malloc(&h, 15, 72, 0x20, 7);
	do_exec(&h, 16, 72, "/bin/x");
	do_malloc(&h, 17, 72, 0x20, 900);
	do_exit(&h, 18, 70, 0);
	tap_str_eq(regions_line(&h), "a:2/5/152/50/0/2 b:0/0/0/0/1/0",
		   "a forked child's allocations count from a heap of 0 until it execs");
	heap_free(&h);
}

int
main(void)
{
	tap_plan(79);
	test_malloc_free();
	test_alloc_calls();
	test_realloc();
	test_unknown_frees();
	test_internal_frees();
	test_peak();
	test_fork();
	test_fork_of_itself();
	test_exec();
	test_tree_peak();
	test_temporary();
	test_site_blind();
	test_size_classes();
	test_regions();
	return tap_done();
}
