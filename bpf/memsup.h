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
 * The kinds of allocator call a record describes.  Every probed function
 * is recorded as one of them (operator new as Malloc, mi_zalloc as
 * Calloc, dallocx as Free...).  Never reorder: the numbers are written to
 * capture files.
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
 * A probe's BPF cookie: the kind of call it records and where the probed
 * function takes its arguments, so that one program serves every
 * allocator's signature.  Argument numbers count from 1 (the first
 * integer argument register); 0 means none.
 *
 *   bits 0-7    enum ms_call
 *   bits 8-11   the size argument
 *   bits 12-15  the count argument: the size is count * size
 *   bits 16-19  the pointer argument: the block freed or resized, or
 *               where posix_memalign stores its result
 *   bits 20-23  MS_SHAPE_* flags
 *   bits 24-43  the code of the file that defines the function, in pages
 *               below the page of the probe
 *   bits 44-63  and in pages from the page of the probe up: a call whose
 *               return address lies there is the file's own
 *               (MS_EVENT_INTERNAL); 0 for a function whose callers are
 *               not told apart
 */
#define MS_SHAPE_OUT_PTR	0x1	/* returns 0 and the block through ptr */
#define MS_SHAPE_SIZE_RETURNED	0x2	/* resizes ptr in place, returns its size */
/* Its calls from the code of its own file are told apart: the C library's free. */
#define MS_SHAPE_OWN_CALLERS	0x4

#define MS_SHAPE(call, size_arg, count_arg, ptr_arg, flags) \
	((__u64)(call) | (__u64)(size_arg) << 8 | (__u64)(count_arg) << 12 | \
	 (__u64)(ptr_arg) << 16 | (__u64)(flags) << 20)
#define MS_SHAPE_CALL(shape)	((__u32)((shape) & 0xff))
#define MS_SHAPE_SIZE(shape)	((__u32)((shape) >> 8 & 0xf))
#define MS_SHAPE_COUNT(shape)	((__u32)((shape) >> 12 & 0xf))
#define MS_SHAPE_PTR(shape)	((__u32)((shape) >> 16 & 0xf))
#define MS_SHAPE_FLAGS(shape)	((__u32)((shape) >> 20 & 0xf))

#define MS_SHAPE_CODE_PAGES_MAX	0xfffff
#define MS_SHAPE_CODE(below, above) ((__u64)(below) << 24 | (__u64)(above) << 44)
#define MS_SHAPE_CODE_MASK	(~0ULL << 24)
#define MS_SHAPE_CODE_BELOW(shape)	((shape) >> 24 & MS_SHAPE_CODE_PAGES_MAX)
#define MS_SHAPE_CODE_ABOVE(shape)	((shape) >> 44)

/*
 * One completed allocator call.  Allocations are sent from the return
 * probe, when the result is known; frees from the entry probe, before the
 * address can be handed out again.
 *
 * ptr:     the block returned (0 when the call failed) or freed
 * size:    the bytes requested (count * size for calloc-like calls,
 *          saturated at ~0 on overflow; for a resize in place, the size
 *          the allocator returned)
 * old_ptr: the block passed to a realloc-like call
 */
struct ms_event {
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ptr;
	__u64 size;
	__u64 old_ptr;
	__u32 pid;		/* thread group id */
	__u32 tid;
	__u32 call;		/* enum ms_call */
	__u32 flags;		/* MS_EVENT_* */
};

/* The event of an allocation whose stack was not taken: the ring was full. */
#define MS_EVENT_STACK_DROPPED	0x1
/* The record is a struct ms_stack_copy, to be unwound from DWARF. */
#define MS_EVENT_STACK_COPY	0x2
/* The record is a struct ms_region_event, not an allocator call. */
#define MS_EVENT_REGION		0x4
/*
 * A free called from the code of the file that defines it (MS_SHAPE_CODE):
 * the C library freeing for itself, as its thread-exit path does.
 */
#define MS_EVENT_INTERNAL	0x8

/* How allocations' stacks are taken: the BPF programs' stack_mode. */
enum ms_stack_mode {
	MS_STACK_NONE = 0,
	MS_STACK_FP = 1,	/* walk frame pointers */
	MS_STACK_DWARF = 2,	/* copy the stack, for DWARF unwinding */
	MS_STACK_AUTO = 3,	/* frame pointers; a copy when they break */
};

/*
 * The most return addresses an allocation's record carries (the kernel's
 * own limit for a stack is kernel.perf_event_max_stack, 127 by default).
 */
#define MS_STACK_MAX 127

/*
 * An allocation's record in the ring: the event, then the user stack from
 * the call's return address outwards, as many frames as the record's
 * length says (frame pointers, walked by the kernel).  Frees and calls
 * recorded without stacks are the event alone.
 */
struct ms_stack_event {
	struct ms_event event;
	__u64 frames[MS_STACK_MAX];
};

/*
 * Stack copies are taken in chunks, from the stack pointer rounded down
 * to a chunk, until the copy size (at most MS_STACK_COPY_MAX) is taken
 * from the stack pointer or the stack's top is reached.  A record's copy
 * is at most MS_STACK_RECORD_MAX bytes.
 */
#define MS_STACK_CHUNK		512
#define MS_STACK_COPY_MAX	65536
#define MS_STACK_RECORD_MAX	(MS_STACK_COPY_MAX + MS_STACK_CHUNK)

/*
 * The registers DWARF unwinding starts from: at the return of the call,
 * the caller's, with the callee-saved ones restored.
 */
struct ms_user_regs {
	__u64 ip;
	__u64 sp;
	__u64 bp;
	__u64 bx;
	__u64 r12;
	__u64 r13;
	__u64 r14;
	__u64 r15;
};

/*
 * An allocation's record with a copy of its thread's stack: the event
 * (flags MS_EVENT_STACK_COPY), the registers, and the stack's bytes from
 * address base to the end of the record.
 */
struct ms_stack_copy {
	struct ms_event event;
	struct ms_user_regs regs;
	__u64 base;
	__u8 bytes[];
};

/*
 * The USDT probes of memsup/region.h, which mark where a named region of
 * the workload begins and ends.  Never reorder: written to capture files.
 */
enum ms_region_mark {
	MS_REGION_BEGIN = 1,
	MS_REGION_END = 2,
};

/* A region's name is cut to this many bytes, its NUL included. */
#define MS_REGION_NAME_MAX 256

/*
 * A region mark's record: the event (flags MS_EVENT_REGION, call the
 * enum ms_region_mark, size the name's length) and the name, read from
 * the probe's argument and NUL-terminated; empty when it was unreadable.
 */
struct ms_region_event {
	struct ms_event event;
	char name[MS_REGION_NAME_MAX];
};

/* memsup -p: thread tid of process pid maps an executable file. */
struct ms_mapping_wake {
	__u32 pid;
	__u32 tid;
};

#endif /* MEMSUP_BPF_SHARED_H */
