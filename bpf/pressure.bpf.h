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

#include <bpf/bpf_helpers.h>

/*
 * What the latch works on, all of it memsup.bpf.c's: the ring it watches,
 * the maps it uses, and the supervisor's fields in the mmapped .bss, by
 * address, for every use to read them afresh.
 */
struct pressure {
	void *events;		/* the ring watched */
	void *wakeups;		/* one record per epoch, from the producer that won the latch */
	void *tracked;		/* the processes the supervisor traces, by tgid */
	__u64 *watermark_bytes;	/* latch past this; 0: never */
	__u64 *latch;
	__u64 *epoch;
	__u64 *max_fill;	/* the fullest the ring was seen above the watermark */
};

/*
 * Only a producer the supervisor can stop may latch: one that escaped
 * tracing (CLONE_UNTRACED) would wait for a stop that never comes.
 */
static __always_inline bool
stoppable(void *tracked, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->ptrace && bpf_map_lookup_elem(tracked, &tgid);
}

/*
 * Flags for submitting a data record to ring: wake the reader only in
 * batches of wake_bytes; 0: never.
 */
static __always_inline __u64
ring_wakeup_flags(void *ring, __u64 wake_bytes)
{
	if (wake_bytes && bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wake_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void
latch_on_pressure(const struct pressure *p, __u32 tgid)
{
	__u64 fill, *wake;

	if (!*p->watermark_bytes)
		return;
	fill = bpf_ringbuf_query(p->events, BPF_RB_AVAIL_DATA);
	if (fill < *p->watermark_bytes)
		return;
	/* A racy maximum: it is a statistic, and updated only above the mark. */
	if (fill > *p->max_fill)
		*p->max_fill = fill;
	if (*p->latch || !stoppable(p->tracked, tgid) ||
	    __sync_val_compare_and_swap(p->latch, 0, 1) != 0)
		return;
	/* Should this fail, the supervisor still sees the latch on its timer. */
	wake = bpf_ringbuf_reserve(p->wakeups, sizeof(*wake), 0);
	if (!wake)
		return;
	*wake = *p->epoch;
	bpf_ringbuf_submit(wake, BPF_RB_FORCE_WAKEUP);
}

#endif
