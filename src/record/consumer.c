// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "consumer.h"
#include "record.h"
#include "memsup.skel.h"
#include "error.h"
#include "unwind.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>

uint64_t
consumer_now(const struct consumer *c)
{
	return session_clock_now(&c->clock);
}

/* A call's stack goes to the capture once, before the first call of it. */
static uint32_t
stack_id_of(struct consumer *c, const struct ms_event *e, const uint64_t *frames,
	    uint32_t nframes)
{
	struct record r;
	bool added;

	/* Most calls without stacks: no record to build for them. */
	if (!nframes)
		return 0;
	r = (struct record){ .type = REC_STACK, .pid = e->pid, .tid = e->tid };
	r.stack.id = stack_table_intern(&c->stacks, frames, nframes, &added);
	if (added) {
		r.time_ns = session_clock_from_monotonic(&c->clock, e->time_ns);
		r.stack.nframes = nframes;
		r.stack.frames = frames;
		c->sink(c->sink_ctx, &r);
	}
	return r.stack.id;
}

/* The most bytes a ring record can have: a copy of the largest size. */
#define RECORD_MAX (sizeof(struct ms_stack_copy) + MS_STACK_RECORD_MAX)

/* A stack the BPF program walked: the frames after the event. */
static uint32_t
walked_stack_id(struct consumer *c, const struct ms_event *e, const void *data,
		size_t size, size_t event_bytes)
{
	return stack_id_of(c, e, (const uint64_t *)((const char *)data + event_bytes),
			   (uint32_t)((size - event_bytes) / sizeof(uint64_t)));
}

/* A copied stack, unwound: the same frames are the same stack id. */
static uint32_t
copied_stack_id(struct consumer *c, const struct ms_event *e,
		const struct ms_stack_copy *copy, size_t size)
{
	uint64_t frames[MS_STACK_MAX];
	uint32_t n = unwinder_unwind(c->unwind.unwinder, copy, size, frames,
				     c->stack_depth);

	return stack_id_of(c, e, frames, n);
}

static void
send_region(struct consumer *c, const struct ms_event *e, const struct ms_region_event *re)
{
	char name[MS_REGION_NAME_MAX];
	struct record r = {
		.type = REC_REGION,
		.pid = e->pid,
		.tid = e->tid,
		.region = { .mark = e->call, .name = name },
	};

	memcpy(name, re->name, e->size);
	name[e->size] = '\0';
	r.time_ns = session_clock_from_monotonic(&c->clock, e->time_ns);
	c->sink(c->sink_ctx, &r);
}

/* A record that record_valid() decoded into e, its time restored. */
static void
send_record(struct consumer *c, const struct ms_event *e, const void *data, size_t size,
	    size_t event_bytes)
{
	struct record r;

	if (e->flags & MS_EVENT_REGION) {
		send_region(c, e, data);
		return;
	}
	/*
	 * The call's fields, and no more: zeroing the whole record, a
	 * mapping's room included, took a rep stos on every call.
	 */
	r.type = REC_CALL;
	r.pid = e->pid;
	r.tid = e->tid;
	r.call.call = (uint16_t)e->call;
	r.call.flags = e->flags & MS_EVENT_INTERNAL ? CALL_INTERNAL : 0;
	r.call.ptr = e->ptr;
	r.call.size = e->size;
	r.call.old_ptr = e->old_ptr;
	r.call.site = 0;
	if (e->flags & MS_EVENT_STACK_COPY)
		r.call.stack_id = copied_stack_id(c, e, data, size);
	else
		r.call.stack_id = walked_stack_id(c, e, data, size, event_bytes);
	r.time_ns = session_clock_from_monotonic(&c->clock, e->time_ns);
	c->sink(c->sink_ctx, &r);
}

/*
 * An event, with frames or with a stack copy (only when there is an
 * unwinder), or a region mark; decoded into e, its event_bytes long.  The
 * kinds with a layout of their own come in the wide form only.
 */
static bool
record_valid(const struct consumer *c, const void *data, size_t size, struct ms_event *e,
	     size_t *event_bytes)
{
	*event_bytes = ms_event_decode(data, size, e);
	if (!*event_bytes || e->flags & ~MS_EVENT_KNOWN)
		return false;
	if (e->flags & MS_EVENT_REGION)
		return e->flags == (MS_EVENT_REGION | MS_EVENT_WIDE) &&
		       size == sizeof(struct ms_region_event) && e->size < MS_REGION_NAME_MAX &&
		       (e->call == MS_REGION_BEGIN || e->call == MS_REGION_END);
	if (!e->call || e->call >= MS_CALL_MAX)
		return false;
	if (e->flags & MS_EVENT_STACK_COPY) {
		const struct ms_stack_copy *copy = data;

		return e->flags == (MS_EVENT_STACK_COPY | MS_EVENT_WIDE) &&
		       c->unwind.unwinder && size >= sizeof(*copy) && size <= RECORD_MAX &&
		       (size - sizeof(*copy)) % sizeof(uint64_t) == 0 &&
		       copy->regs.sp >= copy->base && !(copy->regs.sp % sizeof(uint64_t));
	}
	return size <= *event_bytes + MS_STACK_MAX * sizeof(uint64_t) &&
	       (size - *event_bytes) % sizeof(uint64_t) == 0;
}

/*
 * A record later than the drain's limit is kept back for the next drain:
 * libbpf has consumed it already when the callback stops the drain.
 */
int
consumer_take(struct consumer *c, const void *data, size_t size)
{
	struct ms_event e;
	size_t event_bytes;

	if (!record_valid(c, data, size, &e, &event_bytes))
		return -EINVAL;
	e.time_ns = ms_time_unwrap(c->drain_ns, e.time_ns);
	if (e.time_ns > c->limit_ns) {
		memcpy(c->held, data, size);
		c->held_size = size;
		c->held_event = e;
		c->held_event_bytes = event_bytes;
		return -EAGAIN;
	}
	send_record(c, &e, data, size, event_bytes);
	return 0;
}

/* libbpf stops the drain at an error, the record consumed: this one is taken. */
static int
on_event(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
	int err = consumer_take(c, data, size);

	if (!err && c->stop_at_latch && bpf_loader_latched(&c->bpf))
		return -EINTR;
	return err;
}

/* The latch winner's wakeup: the latch itself says what to do. */
static int
on_wakeup(void *ctx, void *data, size_t size)
{
	return 0;
}

static int
on_mapping_wake(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
	const struct ms_mapping_wake *w = data;

	if (size >= sizeof(*w))
		c->on_mapping(c->sink_ctx, (pid_t)w->pid, (pid_t)w->tid);
	return 0;
}

/*
 * A mapping wake first: the thread that mapped code is stopped before
 * anything else is drained, while its dynamic linker may still be adding
 * the library.
 */
static int
read_rings(struct consumer *c, const struct memsup_bpf *skel)
{
	int err;

	if (c->on_mapping) {
		c->ring = ring_buffer__new(bpf_map__fd(skel->maps.mapping_wakes),
					   on_mapping_wake, c, NULL);
		err = c->ring ? ring_buffer__add(c->ring, bpf_map__fd(skel->maps.events),
						 on_event, c) : -errno;
	} else {
		c->ring = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, c, NULL);
		err = c->ring ? 0 : -errno;
	}
	return err ? err : ring_buffer__add(c->ring, bpf_map__fd(skel->maps.wakeups),
					    on_wakeup, c);
}

void
consumer_init(struct consumer *c, unsigned int stack_depth, record_sink sink,
	      void *sink_ctx)
{
	memset(c, 0, sizeof(*c));
	stack_table_init(&c->stacks);
	c->sink = sink;
	c->sink_ctx = sink_ctx;
	session_clock_start(&c->clock);
	c->held = xmalloc(RECORD_MAX);
	c->stack_depth = stack_depth;
	c->limit_ns = UINT64_MAX;
	c->drain_ns = c->clock.start_ns;
}

int
consumer_open(struct consumer *c, const struct consumer_config *cfg,
	      record_sink sink, void *sink_ctx, const char **why)
{
	int err;

	consumer_init(c, cfg->stack_depth, sink, sink_ctx);
	c->on_mapping = cfg->on_mapping;
	err = bpf_loader_open(&c->bpf, cfg, why);
	if (!err)
		err = unwind_driver_open(&c->unwind, &c->bpf, why);
	if (!err) {
		*why = "set up the ring buffers";
		err = read_rings(c, c->bpf.skel);
	}
	if (err)
		consumer_close(c);
	return err;
}

void
consumer_close(struct consumer *c)
{
	ring_buffer__free(c->ring);
	c->ring = NULL;
	unwind_driver_close(&c->unwind);
	bpf_loader_close(&c->bpf);
	stack_table_free(&c->stacks);
	free(c->held);
	c->held = NULL;
}

int
consumer_fd(const struct consumer *c)
{
	return ring_buffer__epoll_fd(c->ring);
}

int
consumer_drain_until(struct consumer *c, uint64_t limit_ns)
{
	int n;

	c->limit_ns = session_clock_to_monotonic(&c->clock, limit_ns);
	c->drain_ns = monotonic_ns();
	if (c->held_size) {
		if (c->held_event.time_ns > c->limit_ns)
			return 0;
		send_record(c, &c->held_event, c->held, c->held_size, c->held_event_bytes);
		c->held_size = 0;
	}
	n = ring_buffer__consume(c->ring);
	return n < 0 && n != -EAGAIN && n != -EINTR ? n : 0;
}

int
consumer_drain(struct consumer *c)
{
	return consumer_drain_until(c, UINT64_MAX);
}

int
consumer_drain_to_latch(struct consumer *c)
{
	int err;

	c->stop_at_latch = true;
	err = consumer_drain(c);
	c->stop_at_latch = false;
	return err;
}

void
consumer_follow(struct consumer *c, const struct record *r)
{
	unwind_driver_follow(&c->unwind, r);
}

bool
consumer_stack_sources(const struct consumer *c, struct stack_sources *out)
{
	bpf_loader_walked_stacks(&c->bpf, &out->tables, &out->frame_pointers);
	return unwind_driver_files_without_room(&c->unwind, &out->files_without_room);
}

void
consumer_unwind_stats(const struct consumer *c, struct unwind_stats *out)
{
	unwind_driver_stats(&c->unwind, out);
}
