// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "consumer.h"
#include "record.h"
#include "memsup.skel.h"
#include "error.h"
#include "probe-attach.h"
#include "unwind.h"
#ifdef HAVE_LIBDW
#include "unwind-maps.h"
#endif

#include <errno.h>
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

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
	struct record r = { .type = REC_STACK, .pid = e->pid, .tid = e->tid };
	bool added;

	if (!nframes)
		return 0;
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
	uint32_t n = unwinder_unwind(c->unwinder, copy, size, frames, c->stack_depth);

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
	struct record r = {
		.type = REC_CALL,
		.pid = e->pid,
		.tid = e->tid,
		.call = {
			.call = (uint16_t)e->call,
			.flags = e->flags & MS_EVENT_INTERNAL ? CALL_INTERNAL : 0,
			.ptr = e->ptr,
			.size = e->size,
			.old_ptr = e->old_ptr,
		},
	};

	if (e->flags & MS_EVENT_REGION) {
		send_region(c, e, data);
		return;
	}
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

		return e->flags == (MS_EVENT_STACK_COPY | MS_EVENT_WIDE) && c->unwinder &&
		       size >= sizeof(*copy) && size <= RECORD_MAX &&
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
static int
on_event(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
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

/* libbpf's own messages for what is expected to fail on some machines. */
static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/*
 * The mmap tracepoint where tracefs says where it is, else the entry of
 * every system call (bpf/mapping-watch.bpf.h).
 */
static int
watch_mappings(struct memsup_bpf *skel)
{
	libbpf_print_fn_t print = libbpf_set_print(quiet_libbpf);

	skel->links.mapping_watch = bpf_program__attach(skel->progs.mapping_watch);
	libbpf_set_print(print);
	if (skel->links.mapping_watch)
		return 0;
	skel->links.mapping_watch_any_syscall =
		bpf_program__attach(skel->progs.mapping_watch_any_syscall);
	return skel->links.mapping_watch_any_syscall ? 0 : -errno;
}

/* The unwind tables' pages of 64 KiB (8 bytes each): 4 GiB of code. */
#define UNWIND_PAGES (1u << 16)

/* Stacks are copied by dwarf, and by auto where an unwinder reads the copies. */
static bool
copies_stacks(const struct consumer_config *cfg)
{
	return cfg->stack_mode == MS_STACK_DWARF ||
	       (cfg->stack_mode == MS_STACK_AUTO && unwind_backend);
}

/* auto stacks walk unwind tables before they copy, where libdw builds them. */
static bool
unwind_tables(const struct consumer_config *cfg)
{
#ifdef HAVE_LIBDW
	return cfg->stack_mode == MS_STACK_AUTO;
#else
	return false;
#endif
}

/*
 * Opens and loads the programs for one way of attaching: session links,
 * or a perf link per probe.
 */
static int
load_once(struct consumer *c, bool session_links, bool sleepable_regions,
	  const struct consumer_config *cfg, const char **what)
{
	struct memsup_bpf *skel;
	int err;

	*what = "open the BPF programs";
	skel = memsup_bpf__open();
	if (!skel)
		return -errno;

	*what = "size the BPF maps";
	skel->rodata->wake_bytes = cfg->wake_bytes;
	skel->bss->watermark_bytes = cfg->watermark_bytes;
	skel->rodata->stack_mode = cfg->stack_mode;
	skel->rodata->stack_depth = cfg->stack_depth;
	skel->rodata->stack_copy_bytes = copies_stacks(cfg) ? cfg->stack_copy_bytes : 0;
	skel->bss->stack_room_bytes = cfg->stack_room_bytes;
	skel->rodata->probes_only = cfg->probes_only;
	skel->rodata->pidns_inum = cfg->pidns_inum;
	skel->rodata->supervisor_tgid = (__u32)getpid();
	skel->rodata->unwind_tables = unwind_tables(cfg);
	err = bpf_map__set_max_entries(skel->maps.events, cfg->ring_bytes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.pending, cfg->max_threads);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.tracked, cfg->max_processes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_pages,
					       unwind_tables(cfg) ? UNWIND_PAGES : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_rows, unwind_tables(cfg) ?
			cfg->unwind_bytes / sizeof(struct ms_unwind_row_pair) : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_spaces, cfg->max_processes);
	if (!err && session_links)
		err = bpf_program__set_expected_attach_type(skel->progs.alloc_session,
				probes_session_attach_type());
	if (!err && sleepable_regions)
		err = bpf_program__set_flags(skel->progs.region_mark, BPF_F_SLEEPABLE);
	if (!err) {
		bpf_program__set_autoload(skel->progs.alloc_session, session_links);
		bpf_program__set_autoload(skel->progs.alloc_enter, !session_links);
		bpf_program__set_autoload(skel->progs.alloc_exit, !session_links);
		bpf_program__set_autoload(skel->progs.mapping_watch, cfg->on_mapping != NULL);
		bpf_program__set_autoload(skel->progs.mapping_watch_any_syscall,
					  cfg->on_mapping != NULL);
	}
	if (err)
		goto fail;

	*what = "load the BPF programs";
	err = memsup_bpf__load(skel);
	if (err)
		goto fail;
	c->skel = skel;
	c->session_links = session_links;
	return 0;
fail:
	memsup_bpf__destroy(skel);
	return err;
}

/*
 * The region mark is sleepable where uprobes can be (Linux 5.19), so
 * that it can fault in a region's name.
 */
static int
load(struct consumer *c, bool session_links, const struct consumer_config *cfg,
     const char **what)
{
	libbpf_print_fn_t print = libbpf_set_print(quiet_libbpf);
	int err = load_once(c, session_links, true, cfg, what);

	libbpf_set_print(print);
	if (err)
		err = load_once(c, session_links, false, cfg, what);
	return err;
}

int
consumer_open(struct consumer *c, const struct consumer_config *cfg,
	      record_sink sink, void *sink_ctx, const char **what)
{
	int err;

	memset(c, 0, sizeof(*c));
	stack_table_init(&c->stacks);
	c->sink = sink;
	c->sink_ctx = sink_ctx;
	session_clock_start(&c->clock);
	c->held = xmalloc(RECORD_MAX);
	c->stack_depth = cfg->stack_depth;
	c->spaces = cfg->spaces;
	if (copies_stacks(cfg)) {
		*what = "set up the unwinder";
		c->unwinder = unwinder_new(cfg->spaces);
		if (!c->unwinder) {
			consumer_close(c);
			return -ENOTSUP;
		}
	}

	if (cfg->links == PROBE_LINKS_AUTO) {
		/* The kernel tells whether it has uprobe sessions by loading one. */
		libbpf_set_print(quiet_libbpf);
		err = load(c, true, cfg, what);
		libbpf_set_print(NULL);
		if (err)
			err = load(c, false, cfg, what);
	} else {
		err = load(c, cfg->links == PROBE_LINKS_SESSION, cfg, what);
	}
	if (err) {
		consumer_close(c);
		return err;
	}

	/*
	 * A mapping wake first: the thread that mapped code is stopped
	 * before anything else is drained, while its dynamic linker may
	 * still be adding the library.
	 */
	*what = "set up the ring buffers";
	if (cfg->on_mapping) {
		c->on_mapping = cfg->on_mapping;
		c->ring = ring_buffer__new(bpf_map__fd(c->skel->maps.mapping_wakes),
					   on_mapping_wake, c, NULL);
		err = c->ring ? ring_buffer__add(c->ring, bpf_map__fd(c->skel->maps.events),
						 on_event, c) : -errno;
	} else {
		c->ring = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_event, c, NULL);
		err = c->ring ? 0 : -errno;
	}
	if (err)
		goto fail;
	err = ring_buffer__add(c->ring, bpf_map__fd(c->skel->maps.wakeups), on_wakeup, c);
	if (err)
		goto fail;
	if (cfg->on_mapping) {
		*what = "watch the processes' mappings";
		err = watch_mappings(c->skel);
		if (err)
			goto fail;
	}
#ifdef HAVE_LIBDW
	if (unwind_tables(cfg)) {
		*what = "map the unwind tables";
		c->unwind_maps = xmalloc(sizeof(*c->unwind_maps));
		err = unwind_maps_open(c->unwind_maps, c->skel->maps.unwind_pages,
				       c->skel->maps.unwind_rows,
				       c->skel->maps.unwind_rules, c->skel->maps.unwind_spaces);
		if (err) {
			free(c->unwind_maps);
			c->unwind_maps = NULL;
			goto fail;
		}
	}
#endif
	*what = "watch for processes that escape tracing";
	c->skel->links.escape_watch = bpf_program__attach(c->skel->progs.escape_watch);
	if (!c->skel->links.escape_watch) {
		err = -errno;
		goto fail;
	}
	return 0;

fail:
	consumer_close(c);
	return err;
}

void
consumer_close(struct consumer *c)
{
#ifdef HAVE_LIBDW
	if (c->unwind_maps)
		unwind_maps_close(c->unwind_maps);
#endif
	free(c->unwind_maps);
	c->unwind_maps = NULL;
	ring_buffer__free(c->ring);
	c->ring = NULL;
	memsup_bpf__destroy(c->skel);
	c->skel = NULL;
	stack_table_free(&c->stacks);
	unwinder_free(c->unwinder);
	c->unwinder = NULL;
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
	return n < 0 && n != -EAGAIN ? n : 0;
}

int
consumer_drain(struct consumer *c)
{
	return consumer_drain_until(c, UINT64_MAX);
}

static void
delete_pid(const struct bpf_map *map, pid_t pid)
{
	__u32 key = (__u32)pid;

	bpf_map__delete_elem(map, &key, sizeof(key), 0);
}

void
consumer_follow(struct consumer *c, const struct record *r)
{
#ifdef HAVE_LIBDW
	if (c->unwind_maps)
		unwind_maps_follow(c->unwind_maps, c->spaces, r);
#endif
}

void
consumer_forget_thread(struct consumer *c, pid_t tid)
{
	delete_pid(c->skel->maps.pending, tid);
}

bool
consumer_latched(const struct consumer *c)
{
	return __atomic_load_n(&c->skel->bss->latch, __ATOMIC_ACQUIRE);
}

void
consumer_clear_latch(struct consumer *c)
{
	/* A new epoch first, so that no wakeup is taken for the old one. */
	__atomic_store_n(&c->skel->bss->epoch, c->skel->bss->epoch + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&c->skel->bss->latch, 0, __ATOMIC_RELEASE);
}

int
consumer_track(struct consumer *c, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	return bpf_map__update_elem(c->skel->maps.tracked, &key, sizeof(key),
				    &one, sizeof(one), BPF_ANY) ? -errno : 0;
}

void
consumer_untrack(struct consumer *c, pid_t pid)
{
	delete_pid(c->skel->maps.tracked, pid);
}

uint64_t
consumer_take_max_fill(struct consumer *c)
{
	return __atomic_exchange_n(&c->skel->bss->max_fill, 0, __ATOMIC_RELAXED);
}

void
consumer_set_watermark(struct consumer *c, uint64_t bytes)
{
	__atomic_store_n(&c->skel->bss->watermark_bytes, bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&c->skel->bss->stack_room_bytes, bytes, __ATOMIC_RELAXED);
}

uint64_t
consumer_lost_records(const struct consumer *c)
{
	return __atomic_load_n(&c->skel->bss->lost_records, __ATOMIC_RELAXED);
}

uint64_t
consumer_escaped(const struct consumer *c, consumer_escape_fn each, void *ctx)
{
	const struct bpf_map *map = c->skel->maps.escaped;
	__u32 key, next, parent;
	__u32 *prev = NULL;

	while (!bpf_map__get_next_key(map, prev, &next, sizeof(next))) {
		if (!bpf_map__lookup_elem(map, &next, sizeof(next), &parent,
					  sizeof(parent), 0))
			each(ctx, (pid_t)next, (pid_t)parent);
		key = next;
		prev = &key;
	}
	return __atomic_load_n(&c->skel->bss->escaped_unnamed, __ATOMIC_RELAXED);
}

uint64_t
consumer_missed_mapping_wakes(const struct consumer *c)
{
	return __atomic_load_n(&c->skel->bss->missed_mapping_wakes, __ATOMIC_RELAXED);
}

uint64_t
consumer_lost_calls(const struct consumer *c)
{
	return __atomic_load_n(&c->skel->bss->lost_calls, __ATOMIC_RELAXED);
}

uint64_t
consumer_dropped_stacks(const struct consumer *c)
{
	return __atomic_load_n(&c->skel->bss->dropped_stacks, __ATOMIC_RELAXED);
}

bool
consumer_stack_sources(const struct consumer *c, struct stack_sources *out)
{
	out->tables = __atomic_load_n(&c->skel->bss->stacks_from_tables, __ATOMIC_RELAXED);
	out->frame_pointers = __atomic_load_n(&c->skel->bss->stacks_from_frame_pointers,
					      __ATOMIC_RELAXED);
	out->files_without_room = 0;
#ifdef HAVE_LIBDW
	if (c->unwind_maps)
		out->files_without_room = c->unwind_maps->files_without_room;
#endif
	return c->unwind_maps;
}

void
consumer_unwind_stats(const struct consumer *c, struct unwind_stats *out)
{
	if (c->unwinder)
		unwinder_stats(c->unwinder, out);
	else
		memset(out, 0, sizeof(*out));
}
