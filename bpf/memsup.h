/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What memsup's BPF programs and its supervisor share: the record that
 * crosses the ring buffer and the allocator calls it can describe.
 *
 * Included by BPF code (types from vmlinux.h) and by userspace (types
 * from <linux/types.h>).  Changing a layout here changes both sides in
 * one build; the capture file has its own, versioned layout.
 */
#ifndef MEMSUP_BPF_SHARED_H
#define MEMSUP_BPF_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The allocator entry points.  The value is also the BPF cookie of the
 * probe, so one entry program serves every call.  Never reorder: the
 * numbers are written to capture files.
 */
enum ms_call {
	MS_CALL_MALLOC = 1,
	MS_CALL_CALLOC = 2,
	MS_CALL_REALLOC = 3,
	MS_CALL_REALLOCARRAY = 4,
	MS_CALL_FREE = 5,
	MS_CALL_ALIGNED_ALLOC = 6,
	MS_CALL_MEMALIGN = 7,
	MS_CALL_POSIX_MEMALIGN = 8,
	MS_CALL_VALLOC = 9,
	MS_CALL_PVALLOC = 10,
	MS_CALL_MAX,
};

/*
 * One completed allocator call.  Allocations are sent from the return
 * probe, when the result is known; frees from the entry probe, before the
 * address can be handed out again.
 *
 * ptr:     the block returned (0 when the call failed) or freed
 * size:    the bytes requested (nmemb * size for calloc/reallocarray,
 *          saturated at ~0 on overflow)
 * old_ptr: the block passed to realloc/reallocarray
 */
struct ms_event {
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ptr;
	__u64 size;
	__u64 old_ptr;
	__u32 pid;		/* thread group id */
	__u32 tid;
	__u32 call;		/* enum ms_call */
	__u32 reserved;
};

#endif /* MEMSUP_BPF_SHARED_H */
