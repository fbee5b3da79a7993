// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "heap.h"
#include "error.h"
#include "record.h"

#include <stdlib.h>
#include <string.h>

/*
 * A forked child starts with a copy of its parent's heap.  Those blocks
 * are the child's to free, but it did not allocate them, so they never
 * count towards its live heap, its peak or its leaks.
 */
#define HEAP_INHERITED (1ULL << 63)

/*
 * A live block's value: its size in the low 40 bits (a larger one counts
 * as 1 TiB - 1), the site that allocated it above, and HEAP_INHERITED.
 */
#define HEAP_SIZE_BITS 40
#define HEAP_SIZE_MAX ((1ULL << HEAP_SIZE_BITS) - 1)
#define HEAP_SITE_MAX ((1ULL << (63 - HEAP_SIZE_BITS)) - 1)

static uint64_t
block_value(uint64_t size, uint32_t site)
{
	return (size < HEAP_SIZE_MAX ? size : HEAP_SIZE_MAX) |
	       (uint64_t)(site < HEAP_SITE_MAX ? site : 0) << HEAP_SIZE_BITS;
}

static uint64_t
block_size(uint64_t value)
{
	return value & HEAP_SIZE_MAX;
}

static uint32_t
block_site(uint64_t value)
{
	return (uint32_t)((value & ~HEAP_INHERITED) >> HEAP_SIZE_BITS);
}

/* Every site below nsites has an entry, zero until it is used. */
static struct heap_site *
site_new(struct heap_model *h, uint32_t site)
{
	size_t n = h->nsites;

	h->sites = xgrow(h->sites, &n, (size_t)site + 1, sizeof(*h->sites));
	memset(h->sites + h->nsites, 0, (n - h->nsites) * sizeof(*h->sites));
	h->nsites = n;
	return &h->sites[site];
}

/* Inline where the site is known, as nearly every call's is. */
static inline struct heap_site *
site_of(struct heap_model *h, uint32_t site)
{
	return site < h->nsites ? &h->sites[site] : site_new(h, site);
}

/*
 * A site's live bytes are about to change: if the tree has peaked since
 * they last did, they are what the site held at that peak.  So the
 * contribution to the last peak is known without a copy at every peak.
 */
static void
site_live_add(struct heap_model *h, uint32_t site, int64_t bytes)
{
	struct heap_site *st = site_of(h, site);

	if (st->peak_version != h->peak_version) {
		st->live_at_peak = st->live_bytes;
		st->peak_version = h->peak_version;
	}
	st->live_bytes += (uint64_t)bytes;
}

static void
process_free(struct heap_process *p)
{
	u64map_free(&p->live);
	free(p->regions.open);
	free(p->image);
	free(p);
}

void
heap_init(struct heap_model *h)
{
	u64map_init(&h->running);
	h->last_process = NULL;
	h->procs = NULL;
	h->nprocs = 0;
	h->procs_cap = 0;
	h->tree = (struct heap_stats){ 0 };
	h->sites = NULL;
	h->nsites = 0;
	h->peak_version = 0;
	u64map_init(&h->last_alloc);
	h->last_thread = NULL;
	h->regions = (struct region_table){ 0 };
	h->filter = (struct heap_filter){ 0 };
}

void
heap_select(struct heap_model *h, const struct heap_filter *f)
{
	h->filter = *f;
}

/* Whether the filter takes p, as it is now. */
static void
process_filter(const struct heap_model *h, struct heap_process *p)
{
	const struct heap_filter *f = &h->filter;

	const char *name = p->image ? strrchr(p->image, '/') : NULL;

	name = name ? name + 1 : p->image;
	p->counted = (!f->pid || p->pid == f->pid) &&
		     (!f->command || (name && !strcmp(f->command, name)));
}

/* The processes never counted are no part of what the reports show. */
void
heap_finish(struct heap_model *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->nprocs; i++) {
		struct heap_process *p = h->procs[i];
		const struct heap_stats *st = &p->stats;
		struct u64map_slot *slot;

		if (p->counted || st->allocs || st->frees || st->unknown_frees ||
		    st->failed_calls) {
			h->procs[n++] = p;
			continue;
		}
		/* Its pid may be another running process's now. */
		slot = u64map_find(&h->running, p->pid);
		if (slot && slot->value == (uintptr_t)p)
			u64map_remove(&h->running, p->pid, NULL);
		process_free(p);
	}
	h->nprocs = n;
	h->last_process = NULL;
}

void
heap_free(struct heap_model *h)
{
	size_t i;

	for (i = 0; i < h->nprocs; i++)
		process_free(h->procs[i]);
	free(h->procs);
	free(h->sites);
	u64map_free(&h->running);
	u64map_free(&h->last_alloc);
	region_table_free(&h->regions);
}

unsigned int
heap_size_class(uint64_t size)
{
	return size ? 64 - (unsigned int)__builtin_clzll(size) : 0;
}

static struct heap_process *
process_new(struct heap_model *h, uint32_t pid, uint32_t parent)
{
	struct heap_process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->parent = parent;
	u64map_init(&p->live);
	h->procs = xgrow(h->procs, &h->procs_cap, h->nprocs + 1, sizeof(*h->procs));
	h->procs[h->nprocs++] = p;
	u64map_put(&h->running, pid, (uintptr_t)p);
	h->last_process = NULL;
	process_filter(h, p);
	return p;
}

/*
 * Records of a pid the model has not seen start a process of their own.
 * When the first is a call, the process was never seen to start: it
 * escaped tracing (see struct heap_process).
 */
static struct heap_process *
process_of(struct heap_model *h, uint32_t pid, bool first_is_call)
{
	struct u64map_slot *s;
	struct heap_process *p = h->last_process;

	if (p && p->pid == pid)
		return p;
	s = u64map_find(&h->running, pid);
	if (s) {
		p = (struct heap_process *)(uintptr_t)s->value;
	} else {
		p = process_new(h, pid, 0);
		p->untraced = first_is_call;
	}
	h->last_process = p;
	return p;
}

/* Every live block of p in its table, for what reads the whole of it. */
static void
live_settle(struct heap_process *p)
{
	if (p->pending_ptr) {
		u64map_put(&p->live, p->pending_ptr, p->pending_value);
		p->pending_ptr = 0;
	}
}

/* A new block, not live before: the pending one goes to the table. */
static void
live_add(struct heap_process *p, uint64_t ptr, uint64_t value)
{
	live_settle(p);
	p->pending_ptr = ptr;
	p->pending_value = value;
}

/* Whether ptr is live; if so, it no longer is, and *value was its. */
static bool
live_take(struct heap_process *p, uint64_t ptr, uint64_t *value)
{
	if (ptr && ptr == p->pending_ptr) {
		*value = p->pending_value;
		p->pending_ptr = 0;
		return true;
	}
	return p->live.count && u64map_remove(&p->live, ptr, value);
}

static bool
live_has(const struct heap_process *p, uint64_t ptr)
{
	return (ptr && ptr == p->pending_ptr) || u64map_find(&p->live, ptr);
}

static void
note_peak(struct heap_stats *st, uint64_t time_ns)
{
	if (st->live_bytes > st->peak_bytes) {
		st->peak_bytes = st->live_bytes;
		st->peak_time_ns = time_ns;
	}
}

/* A block leaves the live heap: freed, or its address space gone. */
static void
block_gone(struct heap_model *h, struct heap_process *p, uint64_t value)
{
	uint64_t size = block_size(value);

	p->stats.live_bytes -= size;
	p->stats.live_blocks--;
	h->tree.live_bytes -= size;
	h->tree.live_blocks--;
	site_live_add(h, block_site(value), -(int64_t)size);
}

static void
block_allocated(struct heap_model *h, struct heap_process *p,
		uint64_t ptr, uint64_t size, uint32_t site, uint64_t time_ns)
{
	struct heap_site *st;
	uint64_t old, peak = h->tree.peak_bytes;
	unsigned int class = heap_size_class(size);

	/* An address handed out twice means its free was not seen. */
	if (live_take(p, ptr, &old) && !(old & HEAP_INHERITED))
		block_gone(h, p, old);
	size = block_size(block_value(size, site));
	live_add(p, ptr, block_value(size, site));
	site_live_add(h, site, (int64_t)size);
	st = site_of(h, site);
	st->allocs++;
	st->bytes_allocated += size;
	p->stats.allocs++;
	p->stats.bytes_allocated += size;
	p->stats.live_bytes += size;
	p->stats.live_blocks++;
	p->stats.size_classes[class]++;
	h->tree.size_classes[class]++;
	h->tree.allocs++;
	h->tree.bytes_allocated += size;
	h->tree.live_bytes += size;
	h->tree.live_blocks++;
	note_peak(&p->stats, time_ns);
	note_peak(&h->tree, time_ns);
	if (h->tree.peak_bytes > peak)
		h->peak_version++;
	if (p->regions.nopen)
		regions_allocated(&h->regions, &p->regions, size, p->stats.live_bytes);
}

/*
 * Whether ptr was live; *value is then the block's.  A value of 0 is a
 * block too: malloc(0) where no site is known (the live model's).
 */
static bool
block_freed(struct heap_model *h, struct heap_process *p, uint64_t ptr,
	    uint64_t *value)
{
	if (!live_take(p, ptr, value)) {
		p->stats.unknown_frees++;
		h->tree.unknown_frees++;
		return false;
	}
	p->stats.frees++;
	h->tree.frees++;
	if (!(*value & HEAP_INHERITED))
		block_gone(h, p, *value);
	return true;
}

/* Thread tid's entry in last_alloc, made if new: see struct heap_model. */
static struct u64map_slot *
thread_slot(struct heap_model *h, uint32_t tid)
{
	struct u64map_slot *s = h->last_thread;

	if (s && s->key == tid)
		return s;
	s = u64map_find(&h->last_alloc, tid);
	if (!s) {
		u64map_put(&h->last_alloc, tid, 0);
		s = u64map_find(&h->last_alloc, tid);
	}
	h->last_thread = s;
	return s;
}

/*
 * A block freed by the thread that allocated it last, before that thread
 * allocated or freed anything else, was temporary (heaptrack's rule, per
 * thread).  Keyed by tid: the same thread in another process after a
 * fork is another tid.
 */
static void
note_allocated(struct heap_model *h, uint32_t tid, uint64_t ptr)
{
	if (tid && ptr)
		thread_slot(h, tid)->value = ptr;
}

/* known: ptr was a live block, whose value is value. */
static void
note_freed(struct heap_model *h, struct heap_process *p, uint32_t tid, uint64_t ptr,
	   bool known, uint64_t value)
{
	struct u64map_slot *last;
	bool freed_last;

	/* An unknown free is no free of a block: it changes nothing. */
	if (!tid || !known)
		return;
	last = thread_slot(h, tid);
	if (!last->value)
		return;
	/* A known block's address is never 0, which stands for none. */
	freed_last = last->value == ptr;
	last->value = 0;
	if (!freed_last || (value & HEAP_INHERITED))
		return;
	p->stats.temporary++;
	h->tree.temporary++;
	site_of(h, block_site(value))->temporary++;
}

static void
call_failed(struct heap_model *h, struct heap_process *p)
{
	p->stats.failed_calls++;
	h->tree.failed_calls++;
}

/*
 * A call of a process the filter leaves out: its table is kept (a child
 * it forks may be counted, and free what it inherits), nothing counted.
 */
static void
track_call(struct heap_process *p, const struct record *r)
{
	uint64_t value;

	switch (r->call.call) {
	case MS_CALL_FREE:
		live_take(p, r->call.ptr, &value);
		return;
	case MS_CALL_REALLOC:
	case MS_CALL_REALLOCARRAY:
		if (r->call.old_ptr && (r->call.ptr || r->call.size == 0))
			live_take(p, r->call.old_ptr, &value);
		break;
	}
	if (r->call.ptr) {
		live_take(p, r->call.ptr, &value);
		live_add(p, r->call.ptr, block_value(r->call.size, r->call.site));
	}
}

static void
apply_call(struct heap_model *h, const struct record *r)
{
	struct heap_process *p = process_of(h, r->pid, true);
	uint64_t ptr = r->call.ptr, old = r->call.old_ptr, value = 0;
	bool known;

	if (!p->counted) {
		track_call(p, r);
		return;
	}
	switch (r->call.call) {
	case MS_CALL_FREE:
		/*
		 * The C library's own free of an address not live is its
		 * business, not the program's: counted nowhere.
		 */
		if ((r->call.flags & CALL_INTERNAL) && !live_has(p, ptr))
			return;
		known = block_freed(h, p, ptr, &value);
		note_freed(h, p, r->tid, ptr, known, value);
		return;
	case MS_CALL_REALLOC:
	case MS_CALL_REALLOCARRAY:
		if (!old)
			break;
		if (ptr) {
			block_freed(h, p, old, &value);
			block_allocated(h, p, ptr, r->call.size, r->call.site, r->time_ns);
			note_allocated(h, r->tid, ptr);
		} else if (r->call.size == 0) {
			/* glibc: realloc(p, 0) frees p and returns NULL */
			block_freed(h, p, old, &value);
		} else {
			/* A failed realloc leaves the block live. */
			call_failed(h, p);
		}
		return;
	}
	if (ptr) {
		block_allocated(h, p, ptr, r->call.size, r->call.site, r->time_ns);
		note_allocated(h, r->tid, ptr);
	} else {
		call_failed(h, p);
	}
}

/*
 * The process's blocks leave the tree's live heap with its address
 * space: those it counted, that is.
 */
static void
release_blocks(struct heap_model *h, struct heap_process *p, bool leaked)
{
	struct u64map_slot *s;

	live_settle(p);
	if (!p->counted) {
		u64map_free(&p->live);
		return;
	}
	u64map_foreach(&p->live, s) {
		if (s->value & HEAP_INHERITED)
			continue;
		if (leaked) {
			struct heap_site *st = site_of(h, block_site(s->value));

			st->leaked_bytes += block_size(s->value);
			st->leaked_blocks++;
		}
		block_gone(h, p, s->value);
	}
	u64map_free(&p->live);
}

static void
apply_fork(struct heap_model *h, const struct record *r)
{
	struct heap_process *parent = process_of(h, r->pid, false);
	struct heap_process *child = process_new(h, r->fork.child, r->pid);
	struct u64map_slot *s;

	if (parent->image) {
		child->image = xstrdup(parent->image);
		process_filter(h, child);
	}
	live_settle(parent);
	u64map_foreach(&parent->live, s)
		u64map_put(&child->live, s->key, s->value | HEAP_INHERITED);
	if (child->counted)
		regions_inherit(&child->regions, &parent->regions);
}

static void
apply_exec(struct heap_model *h, const struct record *r)
{
	struct heap_process *p = process_of(h, r->pid, false);

	/* The old image's heap is gone with its address space. */
	release_blocks(h, p, false);
	regions_close(&h->regions, &p->regions);
	p->untraced = false;
	free(p->image);
	p->image = xstrdup(r->exec.path);
	process_filter(h, p);
}

static void
apply_exit(struct heap_model *h, const struct record *r)
{
	struct heap_process *p = process_of(h, r->pid, false);

	if (p->counted) {
		p->stats.leaked_bytes = p->stats.live_bytes;
		p->stats.leaked_blocks = p->stats.live_blocks;
		h->tree.leaked_bytes += p->stats.live_bytes;
		h->tree.leaked_blocks += p->stats.live_blocks;
	}
	p->exited = true;
	p->wait_status = r->exit.wait_status;
	h->exited_counted = p->counted;
	release_blocks(h, p, true);
	regions_close(&h->regions, &p->regions);
	u64map_remove(&h->running, p->pid, NULL);
	h->last_process = NULL;
}

static void
apply_region(struct heap_model *h, const struct record *r)
{
	struct heap_process *p = process_of(h, r->pid, true);

	if (!p->counted)
		return;
	if (r->region.mark == MS_REGION_BEGIN)
		regions_begin(&h->regions, &p->regions, r->region.name, p->stats.live_bytes);
	else
		regions_end(&h->regions, &p->regions, r->region.name);
}

bool
heap_counts(const struct heap_model *h, const struct record *r)
{
	const struct u64map_slot *s;

	if (!h->filter.pid && !h->filter.command)
		return true;
	/* An exit takes the process out of running: it was the last looked up. */
	if (r->type == REC_EXIT)
		return h->exited_counted;
	s = u64map_find(&h->running, r->pid);
	return s && ((const struct heap_process *)(uintptr_t)s->value)->counted;
}

void
heap_apply(struct heap_model *h, const struct record *r)
{
	switch (r->type) {
	case REC_CALL:
		apply_call(h, r);
		break;
	case REC_FORK:
		apply_fork(h, r);
		break;
	case REC_EXEC:
	case REC_ATTACH:	/* a process seen from the middle of its life */
		apply_exec(h, r);
		break;
	case REC_EXIT:
		apply_exit(h, r);
		break;
	case REC_REGION:
		apply_region(h, r);
		break;
	case REC_STACK:		/* where calls come from, for the reports */
	case REC_MAPPING:
		break;
	}
}

uint64_t
heap_site_peak_bytes(const struct heap_model *h, uint32_t site)
{
	const struct heap_site *st;

	if (site >= h->nsites)
		return 0;
	st = &h->sites[site];
	return st->peak_version == h->peak_version ? st->live_at_peak : st->live_bytes;
}
