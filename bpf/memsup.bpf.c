// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Allocator probes.  vmlinux.h comes first, through clang's -include, so
 * that the build picks the vendored, provided or generated header.
 *
 * An allocation is known only when its call returns, so the entry probe
 * saves the arguments and the return probe sends the record.  Allocators
 * call each other (operator new calls malloc, realloc(NULL, n) calls
 * malloc, operator delete calls free, mimalloc's aligned_alloc calls
 * mi_malloc_aligned), and every probed level traps; only the outermost
 * call of a thread is recorded.  (The C++ runtime's operator new has no
 * probe: its malloc records the call, and the stack starts from its
 * caller, see stack_start().)  A call is nested when the thread already has a
 * pending call whose stack pointer is at or above this one's (stacks grow
 * down; a tail call reuses its caller's frame).  Frees are sent from the
 * entry, but pend like the others until they return, so that the free
 * inside an operator delete is known to be nested; a free whose code
 * makes no allocator call (MS_SHAPE_ENTRY_ONLY) has nothing nested to
 * know, and no return probe.
 */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
/* A spec per distinct argument location, per process with regions. */
#define BPF_USDT_MAX_SPEC_CNT 1024
#include <bpf/usdt.bpf.h>
#include "memsup.h"
#include "pid-namespace.bpf.h"
#include "pressure.bpf.h"
#include "mapping-watch.bpf.h"
#include "escape-watch.bpf.h"
#include "unwind-walk.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct pending_call {
	__u64 sp;		/* stack pointer at entry */
	__u64 ptr;		/* the pointer argument (MS_SHAPE_PTR) */
	__u64 size;
	__u32 call;
	__u32 flags;		/* MS_SHAPE_* */
	/*
	 * Where an allocation's record is built at the return, the thread's
	 * own: its event in either form, ending where the frames begin.
	 */
	struct {
		__u64 event[MS_WIDE_BYTES / sizeof(__u64)];
		__u64 frames[MS_STACK_MAX];
	} out;
};

/* Set by the supervisor before load. */
const volatile __u32 stack_mode = MS_STACK_NONE;	/* enum ms_stack_mode */
const volatile __u32 stack_depth = 0;		/* frames to walk, at most MS_STACK_MAX */
const volatile __u32 stack_copy_bytes = 0;	/* a multiple of MS_STACK_CHUNK; 0: no copies */
/* Moved with the watermark by the supervisor, through the mmapped .bss. */
__u64 stack_room_bytes;		/* ring fill past which no stacks */
/* Count the trap and return, return probes included: the floor bench/run measures. */
const volatile bool probes_only = false;

/* Sized by the supervisor before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} events SEC(".maps");

/*
 * Keyed by tid.  The supervisor deletes a tid's entry when it first sees
 * the thread and when the thread execs, so an entry left by a call that
 * never returned (a thread killed inside malloc) cannot mark later calls
 * of a reused tid as nested.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct pending_call);
} pending SEC(".maps");

extern bool bpf_session_is_return(void) __ksym __weak;

/* Set by the supervisor before load: the inode of /proc/self/ns/pid. */
const volatile __u32 pidns_inum = MS_INITIAL_PIDNS_INUM;

/*
 * Backpressure (pressure.bpf.h).  Set by the supervisor before load; 0
 * disables it.
 */
const volatile __u64 wake_bytes = 0;		/* wake the reader past this */

/* Set, read and cleared by the supervisor through the mmapped .bss. */
__u64 watermark_bytes;	/* latch past this; 0: never */
__u64 latch;
__u64 epoch;
__u64 max_fill;		/* the fullest the ring was seen above the watermark */

/* One record per epoch, from the producer that won the latch. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} wakeups SEC(".maps");

/* Each probed function's MS_SHAPE, by the id its probes' cookies hold. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MS_PROBES_MAX);
	__type(key, __u32);
	__type(value, __u64);
} probe_shapes SEC(".maps");

/* The traps each probed function took, by the same id. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MS_PROBES_MAX);
	__type(key, __u32);
	__type(value, struct ms_probe_traps);
} probe_traps SEC(".maps");

/* The processes the supervisor traces, by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* The libraries memsup -p sees mapped (mapping-watch.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} mapping_wakes SEC(".maps");

/* Wakes that found no room: the supervisor then looks at every process. */
__u64 missed_mapping_wakes;

/*
 * Processes that escape tracing (escape-watch.bpf.h).  Set by the
 * supervisor before load: its process id, in its namespace.
 */
const volatile __u32 supervisor_tgid = 0;

/* The children that escaped, each with the process that made it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MS_ESCAPED_MAX);
	__type(key, __u32);
	__type(value, __u32);
} escaped SEC(".maps");

/* Children that escaped when the map was full. */
__u64 escaped_unnamed;

/*
 * Stacks walked from unwind tables (unwind-walk.bpf.h).  Set by the
 * supervisor before load: whether it fills the tables.
 */
const volatile bool unwind_tables = false;

/* Every table's pages and rows, sized and filled by the supervisor. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ms_unwind_page);
} unwind_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ms_unwind_row_pair);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, MS_UNWIND_RULES);
	__type(key, __u32);
	__type(value, struct ms_unwind_rule);
} unwind_rules SEC(".maps");

/* By tgid: the mappings with a table. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct ms_unwind_space);
} unwind_spaces SEC(".maps");

/*
 * The calls of malloc by operator new that has no probe, by process and
 * return address (struct ms_new_site).  Set by the supervisor before
 * load: whether it fills the map.
 */
const volatile bool new_sites_used = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ms_new_site);
	__type(value, __u32);
} new_sites SEC(".maps");

/* Stacks sent as the tables gave them. */
__u64 stacks_from_tables;

/* Records that could not be sent, read by the supervisor. */
__u64 lost_records;
__u64 lost_calls;	/* no room in the pending map */
__u64 dropped_stacks;	/* records sent without their stack */
__u64 stacks_from_frame_pointers;	/* stacks sent as frame pointers gave them */

/* Flags for submitting a data record: wake the reader only in batches. */
static __always_inline __u64
wakeup_flags(void)
{
	return ring_wakeup_flags(&events, wake_bytes);
}

/*
 * The struct is filled field by field: clang may make an initializer of
 * constants a copy from .rodata, where libbpf puts no map's address.
 */
static __always_inline void
check_pressure(__u32 tgid)
{
	struct pressure p;

	p.events = &events;
	p.wakeups = &wakeups;
	p.tracked = &tracked;
	p.watermark_bytes = &watermark_bytes;
	p.latch = &latch;
	p.epoch = &epoch;
	p.max_fill = &max_fill;
	latch_on_pressure(&p, tgid);
}

static __always_inline __u64
mul_saturated(__u64 a, __u64 b)
{
	__u64 limit;

	if (!a)
		return 0;
	limit = ~0ULL / a;
	/* Keep clang from turning the test into a 128-bit multiply. */
	barrier_var(limit);
	return b > limit ? ~0ULL : a * b;
}

/* What a new pending entry starts from: too large for the BPF stack. */
static const struct pending_call empty_call;

/*
 * The thread's pending entry for a call entered at sp, or NULL when the
 * call is nested in the one pending (or the map is full: *full).  An
 * entry left by a call that has returned is reused.
 */
static __always_inline struct pending_call *
outermost_entry(__u32 tid, __u64 sp, bool *full)
{
	struct pending_call *pc = bpf_map_lookup_elem(&pending, &tid);

	*full = false;
	if (pc)
		return sp <= pc->sp ? NULL : pc;
	if (bpf_map_update_elem(&pending, &tid, &empty_call, BPF_NOEXIST)) {
		*full = true;
		return NULL;
	}
	return bpf_map_lookup_elem(&pending, &tid);
}

static __always_inline void
fill_event(struct ms_event *e, __u64 pid_tgid, __u32 call, __u64 ptr, __u64 size,
	   __u64 old_ptr)
{
	e->time_ns = bpf_ktime_get_ns();
	e->ptr = ptr;
	e->size = size;
	e->old_ptr = old_ptr;
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->call = call;
	e->flags = 0;
}

/* A call's record without a stack, in the shortest form that holds it. */
static __always_inline void
send_event(__u64 pid_tgid, __u32 call, __u64 ptr, __u64 size, __u64 old_ptr,
	   __u32 flags)
{
	struct ms_event e;
	void *rec;

	fill_event(&e, pid_tgid, call, ptr, size, old_ptr);
	e.flags = flags;
	if (ms_event_compact(&e)) {
		rec = bpf_ringbuf_reserve(&events, MS_COMPACT_BYTES, 0);
		if (rec)
			ms_event_encode_compact(rec, &e);
	} else {
		rec = bpf_ringbuf_reserve(&events, MS_WIDE_BYTES, 0);
		if (rec)
			ms_event_encode_wide(rec, &e);
	}
	if (!rec) {
		__sync_fetch_and_add(&lost_records, 1);
		return;
	}
	bpf_ringbuf_submit(rec, wakeup_flags());
	check_pressure(pid_tgid >> 32);
}

/*
 * Walks the frame pointers from the caller's: at the return of the call
 * the registers are the caller's, so no frame is missing.  The walk is
 * complete when it ends at a saved frame pointer of 0, which _start and
 * clone leave for the outermost frame, or at stack_depth.  Returns the
 * frames taken.
 */
static __always_inline __u32
walk_frame_pointers(const struct ms_user_regs *r, __u64 *frames, bool *complete)
{
	struct {
		__u64 next;
		__u64 ret;
	} frame;
	__u64 fp = r->bp, floor = r->sp;
	__u32 i;

	frames[0] = r->ip;
	*complete = false;
	for (i = 1; i < MS_STACK_MAX; i++) {
		if (i >= stack_depth) {
			*complete = true;
			return i;
		}
		if (!fp) {
			/* A lone frame is code that keeps no frame pointer. */
			*complete = i > 1;
			return i;
		}
		/* Frames lie above each other: anything else is not a frame. */
		if (fp < floor || fp & 7 ||
		    bpf_probe_read_user(&frame, sizeof(frame), (void *)fp) || !frame.ret)
			return i;
		frames[i] = frame.ret;
		floor = fp + sizeof(frame);
		fp = frame.next;
	}
	*complete = true;
	return i;
}

static long
mapping_end(struct task_struct *task, struct vm_area_struct *vma, void *end)
{
	*(__u64 *)end = vma->vm_end;
	return 0;
}

/*
 * Sends the event with a copy of the thread's stack: stack_copy_bytes
 * from the stack pointer, in whole chunks, or up to the stack's top.  The
 * top is where the stack's mapping ends (whatever is mapped above it is
 * not stack), or, should the mapping be out of reach (its lock taken),
 * the first page that cannot be read: a read that crosses the top fails
 * whole, so the record is sized first, by reading a byte of each page
 * above the stack pointer.  Returns false when the ring has no room.
 */
static __always_inline bool
send_stack_copy(const struct ms_user_regs *r, struct ms_event *e)
{
	__u64 base = r->sp & ~(__u64)(MS_STACK_CHUNK - 1);
	__u64 end = base + stack_copy_bytes + (r->sp > base ? MS_STACK_CHUNK : 0);
	__u64 top = 0, page, probe;
	struct ms_stack_copy *rec;
	struct bpf_dynptr dp;
	__u32 size, i;
	void *chunk;

	if (!bpf_find_vma(bpf_get_current_task_btf(), r->sp, mapping_end, &top, 0) &&
	    top > r->sp && top < end)
		end = top;
	for (i = 1; i <= MS_STACK_RECORD_MAX / 4096; i++) {
		page = (base & ~4095ULL) + i * 4096ULL;
		if (page >= end)
			break;
		if (bpf_probe_read_user(&probe, 1, (void *)page)) {
			end = page;
			break;
		}
	}
	size = end - base;
	if (bpf_ringbuf_reserve_dynptr(&events, sizeof(*rec) + size, 0, &dp)) {
		bpf_ringbuf_discard_dynptr(&dp, 0);
		return false;
	}
	rec = bpf_dynptr_data(&dp, 0, sizeof(*rec));
	if (!rec) {
		bpf_ringbuf_discard_dynptr(&dp, 0);
		return false;
	}
	e->flags = MS_EVENT_STACK_COPY;
	ms_event_encode_wide(&rec->event, e);
	rec->regs = *r;
	rec->base = base;
	for (i = 0; i < MS_STACK_RECORD_MAX / MS_STACK_CHUNK; i++) {
		if (i * MS_STACK_CHUNK >= size)
			break;
		chunk = bpf_dynptr_data(&dp, sizeof(*rec) + i * MS_STACK_CHUNK,
					MS_STACK_CHUNK);
		if (!chunk)
			break;
		/* Left zeroed if it fails: the unwinder stops there. */
		bpf_probe_read_user(chunk, MS_STACK_CHUNK, (void *)(base + i * MS_STACK_CHUNK));
	}
	bpf_ringbuf_submit_dynptr(&dp, wakeup_flags());
	return true;
}

/*
 * The registers the stack is walked from: the caller's, at the return of
 * the call; for a malloc that an operator new without a probe called,
 * that operator new's caller's, one frame up for each (new_sites gives
 * its size), as operator new's own probe would have seen them.  Its rbp
 * is its caller's (the supervisor chose an operator new that leaves it
 * alone); the other callee-saved registers of a copy are its own.
 */
static __always_inline void
stack_start(struct pt_regs *ctx, __u32 tgid, struct ms_user_regs *r)
{
	__u32 i;

	r->ip = ctx->ip;
	r->sp = ctx->sp;
	r->bp = ctx->bp;
	r->bx = ctx->bx;
	r->r12 = ctx->r12;
	r->r13 = ctx->r13;
	r->r14 = ctx->r14;
	r->r15 = ctx->r15;
	if (!new_sites_used)
		return;
	for (i = 0; i < MS_NEW_SITES_NESTED; i++) {
		struct ms_new_site site = { .tgid = tgid, .unused = 0, .ret = r->ip };
		__u32 *found = bpf_map_lookup_elem(&new_sites, &site);
		__u64 frame, ret;

		if (!found)
			return;
		frame = *found;
		if (frame > MS_NEW_SITE_FRAME_MAX ||
		    bpf_probe_read_user(&ret, sizeof(ret), (void *)(r->sp + frame - 8)))
			return;
		r->sp += frame;
		r->ip = ret;
	}
}

/*
 * An allocation's record with its stack: frame pointers walked into the
 * thread's pending entry (a per-CPU buffer could be overwritten by a
 * preempting program), or a copy of the stack when frame pointers are
 * not to be trusted.  Past stack_room_bytes of fill, or when the copy
 * finds no room, the stack is left out, and counted: a ring under
 * pressure carries calls before stacks.
 */
static __always_inline void
send_stack_event(struct pt_regs *ctx, struct pending_call *pc, __u64 pid_tgid,
		 __u64 ptr, __u64 size, __u64 old_ptr)
{
	void *compact = (void *)pc->out.event + MS_WIDE_BYTES - MS_COMPACT_BYTES;
	struct ms_user_regs regs;
	struct ms_event e;
	bool complete = false, by_tables = false;
	long err;
	__u32 n = 0;

	fill_event(&e, pid_tgid, pc->call, ptr, size, old_ptr);
	stack_start(ctx, pid_tgid >> 32, &regs);
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= stack_room_bytes) {
		e.flags = MS_EVENT_STACK_DROPPED;
		__sync_fetch_and_add(&dropped_stacks, 1);
	} else {
		/*
		 * The tables first: a frame pointer walk through code that
		 * keeps none can end at a 0 it takes for the outermost frame.
		 */
		if (stack_mode == MS_STACK_AUTO && unwind_tables) {
			struct unwind_maps maps;

			/* Field by field, as in check_pressure(). */
			maps.spaces = &unwind_spaces;
			maps.pages = &unwind_pages;
			maps.rows = &unwind_rows;
			maps.rules = &unwind_rules;
			n = walk_unwind_tables(&maps, &regs, pid_tgid >> 32, stack_depth,
					       pc->out.frames, &complete);
			/* With no copy to fall back on, a walk the tables began is kept. */
			by_tables = complete || (!stack_copy_bytes && n > 1);
		}
		if (stack_mode != MS_STACK_DWARF && !by_tables)
			n = walk_frame_pointers(&regs, pc->out.frames, &complete);
		if (stack_mode == MS_STACK_DWARF ||
		    (stack_mode == MS_STACK_AUTO && stack_copy_bytes && !complete)) {
			if (send_stack_copy(&regs, &e)) {
				check_pressure(pid_tgid >> 32);
				return;
			}
			n = 0;
			e.flags = MS_EVENT_STACK_DROPPED;
			__sync_fetch_and_add(&dropped_stacks, 1);
		}
	}
	if (n > MS_STACK_MAX)
		n = MS_STACK_MAX;
	if (ms_event_compact(&e)) {
		ms_event_encode_compact(compact, &e);
		err = bpf_ringbuf_output(&events, compact,
					 MS_COMPACT_BYTES + n * sizeof(__u64), wakeup_flags());
	} else {
		ms_event_encode_wide((void *)pc->out.event, &e);
		err = bpf_ringbuf_output(&events, pc->out.event,
					 MS_WIDE_BYTES + n * sizeof(__u64), wakeup_flags());
	}
	if (err) {
		__sync_fetch_and_add(&lost_records, 1);
		return;
	}
	if (by_tables)
		__sync_fetch_and_add(&stacks_from_tables, 1);
	else if (n)
		__sync_fetch_and_add(&stacks_from_frame_pointers, 1);
	check_pressure(pid_tgid >> 32);
}

/* The integer arguments, read at fixed offsets: the verifier allows no other. */
struct arguments {
	__u64 arg[5];		/* arg[0] is 0, for "none" */
};

static __always_inline void
read_arguments(struct pt_regs *ctx, struct arguments *a)
{
	a->arg[0] = 0;
	a->arg[1] = PT_REGS_PARM1(ctx);
	a->arg[2] = PT_REGS_PARM2(ctx);
	a->arg[3] = PT_REGS_PARM3(ctx);
	a->arg[4] = PT_REGS_PARM4(ctx);
}

static __always_inline __u64
argument(const struct arguments *a, __u32 n)
{
	return n < 5 ? a->arg[n] : 0;
}

/*
 * Whether the call at this entry comes from the code of the function's
 * own file, the pages its cookie gives around the probe: the return
 * address is at [sp] wherever the probe sits before the function's first
 * push.  The C library's thread-exit path hands the blocks of its thread
 * cache, which the program freed already, back through free.
 */
static __always_inline bool
called_from_own_file(struct pt_regs *ctx, __u64 shape)
{
	__u64 above = MS_SHAPE_CODE_ABOVE(shape);
	__u64 page = PT_REGS_IP(ctx) & ~4095ULL, ret;

	if (!above || bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx)))
		return false;
	return ret >= page - MS_SHAPE_CODE_BELOW(shape) * 4096 && ret < page + above * 4096;
}

/*
 * Entry of a free that calls no allocator function: sent unless nested,
 * and never pending.  An entry left by a call that never returned is
 * dropped, as the free's return would have dropped the entry it reused.
 */
static __always_inline int
free_entered(struct pt_regs *ctx, __u64 shape, __u64 pid_tgid, __u64 ptr)
{
	__u32 tid = (__u32)pid_tgid;
	struct pending_call *pc = bpf_map_lookup_elem(&pending, &tid);

	if (pc) {
		if (PT_REGS_SP(ctx) <= pc->sp)
			return 1;	/* nested */
		bpf_map_delete_elem(&pending, &tid);
	}
	send_event(pid_tgid, MS_CALL_FREE, ptr, 0, 0,
		   called_from_own_file(ctx, shape) ? MS_EVENT_INTERNAL : 0);
	return 1;
}

/*
 * Entry of an allocator call, whose cookie is its MS_SHAPE.  Returns 0
 * when the return must be seen (an outermost call), 1 when it need not
 * (nested calls, free(NULL)): session programs skip the return probe on 1.
 */
static __always_inline int
call_entered(struct pt_regs *ctx, __u64 shape)
{
	__u64 pid_tgid = current_pid_tgid(pidns_inum);
	__u32 tid = (__u32)pid_tgid;
	__u32 call = MS_SHAPE_CALL(shape), count_arg = MS_SHAPE_COUNT(shape);
	__u64 sp = PT_REGS_SP(ctx), ptr, size;
	struct pending_call *pc;
	struct arguments args;
	bool full;

	read_arguments(ctx, &args);
	ptr = argument(&args, MS_SHAPE_PTR(shape));
	size = argument(&args, MS_SHAPE_SIZE(shape));
	if (count_arg)
		size = mul_saturated(argument(&args, count_arg), size);
	if (call == MS_CALL_FREE && !ptr)
		return 1;
	if (MS_SHAPE_FLAGS(shape) & MS_SHAPE_ENTRY_ONLY)
		return free_entered(ctx, shape, pid_tgid, ptr);
	pc = outermost_entry(tid, sp, &full);
	if (!pc && !full)
		return 1;	/* nested */
	/* Before the block can be handed out again. */
	if (call == MS_CALL_FREE)
		send_event(pid_tgid, call, ptr, 0, 0,
			   called_from_own_file(ctx, shape) ? MS_EVENT_INTERNAL : 0);
	if (!pc) {
		/* Counted: a free nested in this one would be sent too. */
		__sync_fetch_and_add(&lost_calls, 1);
		return 1;
	}
	pc->sp = sp;
	pc->ptr = ptr;
	pc->size = size;
	pc->call = call;
	pc->flags = MS_SHAPE_FLAGS(shape);
	return 0;
}

static __always_inline int
call_returned(struct pt_regs *ctx)
{
	__u64 pid_tgid = current_pid_tgid(pidns_inum);
	__u32 tid = (__u32)pid_tgid;
	struct pending_call *pc = bpf_map_lookup_elem(&pending, &tid);
	__u64 ret = PT_REGS_RC(ctx);
	__u64 ptr = ret, size, old_ptr = 0;

	/* After `ret` the stack pointer is one slot above the entry's. */
	if (!pc || PT_REGS_SP(ctx) != pc->sp + 8)
		return 0;
	size = pc->size;
	if (pc->call == MS_CALL_FREE) {
		bpf_map_delete_elem(&pending, &tid);
		return 0;
	}
	if (pc->flags & MS_SHAPE_OUT_PTR) {
		/* Returns 0 on success, the block goes through the pointer. */
		if ((int)ret != 0 ||
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)pc->ptr))
			ptr = 0;
	} else if (pc->flags & MS_SHAPE_SIZE_RETURNED) {
		ptr = pc->ptr;
		old_ptr = pc->ptr;
		size = ret;
	} else if (pc->call == MS_CALL_REALLOC || pc->call == MS_CALL_REALLOCARRAY) {
		old_ptr = pc->ptr;
	}
	if (stack_mode != MS_STACK_NONE)
		send_stack_event(ctx, pc, pid_tgid, ptr, size, old_ptr);
	else
		send_event(pid_tgid, pc->call, ptr, size, old_ptr, 0);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
}

/* Counts the trap that ran the program, even at the floor. */
static __always_inline void
count_trap(__u64 cookie, bool at_return)
{
	__u32 id = MS_PROBE_ID(cookie);
	struct ms_probe_traps *traps = bpf_map_lookup_elem(&probe_traps, &id);

	if (!traps)
		return;
	if (at_return)
		traps->returns++;
	else
		traps->entries++;
}

/* The shape of the function the cookie names; 0 if it has none. */
static __always_inline __u64
probe_shape(__u64 cookie)
{
	__u32 id = MS_PROBE_ID(cookie);
	__u64 *shape = bpf_map_lookup_elem(&probe_shapes, &id);

	if (!shape)
		return 0;
	return cookie & MS_PROBE_IN_EXE ? *shape & ~MS_SHAPE_CODE_MASK : *shape;
}

static __always_inline int
probe_entered(struct pt_regs *ctx, __u64 cookie)
{
	__u64 shape;

	count_trap(cookie, false);
	shape = probe_shape(cookie);
	if (probes_only)
		return MS_SHAPE_FLAGS(shape) & MS_SHAPE_ENTRY_ONLY ? 1 : 0;
	return shape ? call_entered(ctx, shape) : 1;
}

static __always_inline int
probe_returned(struct pt_regs *ctx, __u64 cookie)
{
	count_trap(cookie, true);
	return probes_only ? 0 : call_returned(ctx);
}

/*
 * Uprobe session (Linux 6.10+): one program sees both the entry and the
 * return of a call, and one link per process and file carries every
 * probe, so detaching costs one RCU grace period instead of one per probe.
 */
SEC("uprobe")
int BPF_KPROBE(alloc_session)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	if (bpf_session_is_return())
		return probe_returned(ctx, cookie);
	return probe_entered(ctx, cookie);
}

/* The fallback for older kernels: a perf link per probe. */
SEC("uprobe")
int BPF_KPROBE(alloc_enter)
{
	probe_entered(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(alloc_exit)
{
	return probe_returned(ctx, bpf_get_attach_cookie(ctx));
}

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __ksym __weak;

/*
 * A region mark of memsup/region.h: a USDT probe whose cookie is its enum
 * ms_region_mark and whose argument is the region's name.  A literal name
 * lies in a page the program may not have touched yet: where the kernel
 * has bpf_copy_from_user_str (Linux 6.12), the program is made sleepable
 * and faults it in.  The record is built on the stack, so that no ring
 * record is held reserved while the program sleeps.
 */
SEC("usdt")
int BPF_USDT(region_mark, const char *name)
{
	__u64 pid_tgid = current_pid_tgid(pidns_inum);
	struct ms_region_event rec;
	struct ms_event e;
	long n;

	if (probes_only)
		return 0;
	__builtin_memset(&rec, 0, sizeof(rec));
	if (bpf_copy_from_user_str)
		n = bpf_copy_from_user_str(rec.name, sizeof(rec.name), name, 0);
	else
		n = bpf_probe_read_user_str(rec.name, sizeof(rec.name), name);
	if (n <= 0) {
		rec.name[0] = '\0';
		n = 1;
	}
	fill_event(&e, pid_tgid, (__u32)bpf_usdt_cookie(ctx), (__u64)name,
		   (__u64)(n - 1), 0);
	e.flags = MS_EVENT_REGION;
	ms_event_encode_wide(&rec.event, &e);
	if (bpf_ringbuf_output(&events, &rec, sizeof(rec), wakeup_flags())) {
		__sync_fetch_and_add(&lost_records, 1);
		return 0;
	}
	check_pressure(pid_tgid >> 32);
	return 0;
}

/* An executable file mapping by a tracked process (mapping-watch.bpf.h). */
static __always_inline void
mapping_made(unsigned long prot, unsigned long flags)
{
	mapping_wake(&tracked, &mapping_wakes, &missed_mapping_wakes,
		     current_pid_tgid(pidns_inum), prot, flags);
}

SEC("tp/syscalls/sys_enter_mmap")
int mapping_watch(struct sys_enter_mmap_record *r)
{
	mapping_made(r->prot, r->flags);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(mapping_watch_any_syscall, struct pt_regs *regs, long id)
{
	if (id == MS_NR_MMAP)
		mapping_made(PT_REGS_PARM3_CORE_SYSCALL(regs), PT_REGS_PARM4_CORE_SYSCALL(regs));
	return 0;
}

/* Names each child that escaped tracing (escape-watch.bpf.h). */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(escape_watch, struct task_struct *parent, struct task_struct *child)
{
	__u32 pid, made_by;

	if (!escaped_child(parent, child, supervisor_tgid, pidns_inum, &pid, &made_by))
		return 0;
	if (bpf_map_update_elem(&escaped, &pid, &made_by, BPF_ANY))
		__sync_fetch_and_add(&escaped_unnamed, 1);
	return 0;
}
