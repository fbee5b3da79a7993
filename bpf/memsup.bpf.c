// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Allocator probes.  vmlinux.h comes first, through clang's -include, so
 * that the build picks the vendored, provided or generated header.
 *
 * An allocation is known only when its call returns, so the entry probe
 * saves the arguments and the return probe sends the record.  Allocators
 * call each other (realloc(NULL, n) calls malloc, reallocarray calls
 * realloc), and every level traps; only the outermost call of a thread is
 * recorded.  A call is nested when the thread already has a pending call
 * whose stack pointer is at or above this one's (stacks grow down; a
 * tail call reuses its caller's frame).
 */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "memsup.h"

char LICENSE[] SEC("license") = "GPL";

struct pending_call {
	__u64 sp;		/* stack pointer at entry */
	__u64 arg;		/* realloc's block, posix_memalign's out pointer */
	__u64 size;
	__u32 call;
	__u32 reserved;
};

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

static __always_inline bool
nested_call(__u32 tid, __u64 sp)
{
	struct pending_call *outer = bpf_map_lookup_elem(&pending, &tid);

	return outer && sp <= outer->sp;
}

static __always_inline void
send_event(__u64 pid_tgid, __u32 call, __u64 ptr, __u64 size, __u64 old_ptr)
{
	struct ms_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&lost_records, 1);
		return;
	}
	e->time_ns = bpf_ktime_get_ns();
	e->ptr = ptr;
	e->size = size;
	e->old_ptr = old_ptr;
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->call = call;
	e->reserved = 0;
	bpf_ringbuf_submit(e, wakeup_flags());
	check_pressure(pid_tgid >> 32);
}

/*
 * Entry of an allocator call.  Returns 0 when the return must be seen
 * (an outermost allocation), 1 when it need not (free, nested calls):
 * session programs skip the return probe on 1.
 */
static __always_inline int
call_entered(struct pt_regs *ctx, __u32 call)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct pending_call pc = {
		.sp = PT_REGS_SP(ctx),
		.call = call,
	};

	if (nested_call(tid, pc.sp))
		return 1;

	switch (call) {
	case MS_CALL_FREE:
		if (PT_REGS_PARM1(ctx))
			send_event(pid_tgid, call, PT_REGS_PARM1(ctx), 0, 0);
		return 1;
	case MS_CALL_MALLOC:
	case MS_CALL_VALLOC:
	case MS_CALL_PVALLOC:
		pc.size = PT_REGS_PARM1(ctx);
		break;
	case MS_CALL_CALLOC:
		pc.size = mul_saturated(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
		break;
	case MS_CALL_REALLOC:
		pc.arg = PT_REGS_PARM1(ctx);
		pc.size = PT_REGS_PARM2(ctx);
		break;
	case MS_CALL_REALLOCARRAY:
		pc.arg = PT_REGS_PARM1(ctx);
		pc.size = mul_saturated(PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx));
		break;
	case MS_CALL_ALIGNED_ALLOC:
	case MS_CALL_MEMALIGN:
		pc.size = PT_REGS_PARM2(ctx);
		break;
	case MS_CALL_POSIX_MEMALIGN:
		pc.arg = PT_REGS_PARM1(ctx);
		pc.size = PT_REGS_PARM3(ctx);
		break;
	default:
		return 1;
	}

	if (bpf_map_update_elem(&pending, &tid, &pc, BPF_ANY)) {
		__sync_fetch_and_add(&lost_calls, 1);
		return 1;
	}
	return 0;
}

static __always_inline int
call_returned(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct pending_call *pc = bpf_map_lookup_elem(&pending, &tid);
	__u64 ptr = PT_REGS_RC(ctx);
	__u64 old_ptr = 0;

	/* After `ret` the stack pointer is one slot above the entry's. */
	if (!pc || PT_REGS_SP(ctx) != pc->sp + 8)
		return 0;

	switch (pc->call) {
	case MS_CALL_REALLOC:
	case MS_CALL_REALLOCARRAY:
		old_ptr = pc->arg;
		break;
	case MS_CALL_POSIX_MEMALIGN:
		/* Returns 0 on success, the block goes through argument 1. */
		if ((int)ptr != 0 ||
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)pc->arg))
			ptr = 0;
		break;
	}
	send_event(pid_tgid, pc->call, ptr, pc->size, old_ptr);
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
