/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backpressure, BPF side: when the event ring fills past the watermark, a
 * producer that the supervisor can stop raises the latch and wakes the
 * supervisor once.  BPF never stops anything itself: the supervisor stops
 * the tree with PTRACE_INTERRUPT, drains the ring, clears the latch and
 * resumes the tree (doc/design.md, "Backpressure").
 */
#ifndef MEMSUP_PRESSURE_BPF_H
#define MEMSUP_PRESSURE_BPF_H

/* Set by the supervisor before load; 0 disables it. */
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

/* The processes the supervisor traces, by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/*
 * Only a producer the supervisor can stop may latch: one that escaped
 * tracing (CLONE_UNTRACED) would wait for a stop that never comes.
 */
static __always_inline bool
stoppable(__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->ptrace && bpf_map_lookup_elem(&tracked, &tgid);
}

/* Flags for submitting a data record: wake the reader only in batches. */
static __always_inline __u64
wakeup_flags(void)
{
	if (wake_bytes && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wake_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void
check_pressure(__u32 tgid)
{
	__u64 fill, *wake;

	if (!watermark_bytes)
		return;
	fill = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	if (fill < watermark_bytes)
		return;
	/* A racy maximum: it is a statistic, and updated only above the mark. */
	if (fill > max_fill)
		max_fill = fill;
	if (latch || !stoppable(tgid) ||
	    __sync_val_compare_and_swap(&latch, 0, 1) != 0)
		return;
	/* Should this fail, the supervisor still sees the latch on its timer. */
	wake = bpf_ringbuf_reserve(&wakeups, sizeof(*wake), 0);
	if (!wake)
		return;
	*wake = epoch;
	bpf_ringbuf_submit(wake, BPF_RB_FORCE_WAKEUP);
}

#endif
