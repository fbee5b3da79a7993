// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Allocator probes.  vmlinux.h comes first, through clang's -include, so
 * that the build picks the vendored, provided or generated header.
 *
 * An allocation is known only when its call returns, so the entry probe
 * saves the arguments and the return probe sends the record.  Allocators
 * call each other (operator new calls malloc, realloc(NULL, n) calls
 * malloc, operator delete calls free, mimalloc's aligned_alloc calls
 * mi_malloc_aligned), and every level traps; only the outermost call of a
 * thread is recorded.  A call is nested when the thread already has a
 * pending call whose stack pointer is at or above this one's (stacks grow
 * down; a tail call reuses its caller's frame).  Frees are sent from the
 * entry, but pend like the others until they return, so that the free
 * inside an operator delete is known to be nested.
 */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "memsup.h"

char LICENSE[] SEC("license") = "GPL";

struct pending_call {
	__u64 sp;		/* stack pointer at entry */
	__u64 ptr;		/* the pointer argument (MS_SHAPE_PTR) */
	__u64 size;
	__u32 call;
	__u32 flags;		/* MS_SHAPE_* */
	/* Where the record is built at the return: the thread's own. */
	struct ms_stack_event out;
};

/* Set by the supervisor before load. */
const volatile __u32 stack_depth = 0;		/* frames to take; 0: none */
const volatile __u64 stack_room_bytes = 0;	/* ring fill past which none */

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

#include "pressure.bpf.h"

/* Records that could not be sent, read by the supervisor. */
__u64 lost_records;
__u64 lost_calls;	/* no room in the pending map */
__u64 dropped_stacks;	/* records sent without their stack */

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

static __always_inline void
send_event(__u64 pid_tgid, __u32 call, __u64 ptr, __u64 size, __u64 old_ptr)
{
	struct ms_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&lost_records, 1);
		return;
	}
	fill_event(e, pid_tgid, call, ptr, size, old_ptr);
	bpf_ringbuf_submit(e, wakeup_flags());
	check_pressure(pid_tgid >> 32);
}

/*
 * An allocation's record with its stack, built in the thread's pending
 * entry (a per-CPU buffer could be overwritten by a preempting program).
 * At the return, the user registers are the caller's, so the walk starts
 * at the call's return address: no frame is missing.  Past
 * stack_room_bytes of fill the stack is left out, and counted: a ring
 * under pressure carries calls before stacks.
 */
static __always_inline void
send_stack_event(struct pt_regs *ctx, struct pending_call *pc, __u64 pid_tgid,
		 __u64 ptr, __u64 size, __u64 old_ptr)
{
	struct ms_event *e = &pc->out.event;
	long n = 0;

	fill_event(e, pid_tgid, pc->call, ptr, size, old_ptr);
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) < stack_room_bytes) {
		n = bpf_get_stack(ctx, pc->out.frames, stack_depth * sizeof(__u64),
				  BPF_F_USER_STACK);
		if (n < 0)
			n = 0;
	} else {
		e->flags = MS_EVENT_STACK_DROPPED;
		__sync_fetch_and_add(&dropped_stacks, 1);
	}
	if (n > (long)sizeof(pc->out.frames))
		n = sizeof(pc->out.frames);
	if (bpf_ringbuf_output(&events, &pc->out, sizeof(*e) + n, wakeup_flags())) {
		__sync_fetch_and_add(&lost_records, 1);
		return;
	}
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
 * Entry of an allocator call, whose cookie is its MS_SHAPE.  Returns 0
 * when the return must be seen (an outermost call), 1 when it need not
 * (nested calls, free(NULL)): session programs skip the return probe on 1.
 */
static __always_inline int
call_entered(struct pt_regs *ctx, __u64 shape)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
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
	pc = outermost_entry(tid, sp, &full);
	if (!pc && !full)
		return 1;	/* nested */
	/* Before the block can be handed out again. */
	if (call == MS_CALL_FREE)
		send_event(pid_tgid, call, ptr, 0, 0);
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
	__u64 pid_tgid = bpf_get_current_pid_tgid();
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
	if (stack_depth)
		send_stack_event(ctx, pc, pid_tgid, ptr, size, old_ptr);
	else
		send_event(pid_tgid, pc->call, ptr, size, old_ptr);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
}

/*
 * Uprobe session (Linux 6.10+): one program sees both the entry and the
 * return of a call, and one link per process and file carries every
 * probe, so detaching costs one RCU grace period instead of one per probe.
 */
SEC("uprobe")
int BPF_KPROBE(alloc_session)
{
	if (bpf_session_is_return())
		return call_returned(ctx);
	return call_entered(ctx, bpf_get_attach_cookie(ctx));
}

/* The fallback for older kernels: a perf link per probe. */
SEC("uprobe")
int BPF_KPROBE(alloc_enter)
{
	call_entered(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(alloc_exit)
{
	return call_returned(ctx);
}
