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
#include <stdbool.h>
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
 * A probed function's shape: the kind of call it records and where it
 * takes its arguments, so that one program serves every allocator's
 * signature.  Argument numbers count from 1 (the first integer argument
 * register); 0 means none.
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
/* A free that makes no nested allocator call: recorded at its entry, no return probed. */
#define MS_SHAPE_ENTRY_ONLY	0x8

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
 * A probe's BPF cookie: the probed function's id in the session, which
 * indexes its shape (probe_shapes) and the traps it took (probe_traps),
 * and whether it is probed in the executable, whose code around the
 * function is the program's own (a static program has the C library
 * linked in), so that the shape's code pages do not apply.
 */
#define MS_PROBES_MAX		16384
#define MS_PROBE_IN_EXE		(1ULL << 32)
#define MS_PROBE_COOKIE(id, in_exe)	((__u64)(id) | ((in_exe) ? MS_PROBE_IN_EXE : 0))
#define MS_PROBE_ID(cookie)	((__u32)(cookie))

/* The traps a probe took, per CPU: a run of the entry or the return program each. */
struct ms_probe_traps {
	__u64 entries;
	__u64 returns;
};

/*
 * One completed allocator call, or a region mark, its fields in full: what
 * the BPF programs fill in and what the consumer gets back from a record.
 * Allocations are sent from the return probe, when the result is known;
 * frees from the entry probe, before the address can be handed out again.
 *
 * time_ns: CLOCK_MONOTONIC; a record carries its low MS_TIME_BITS only
 * ptr:     the block returned (0 when the call failed) or freed
 * size:    the bytes requested (count * size for calloc-like calls,
 *          saturated at ~0 on overflow; for a resize in place, the size
 *          the allocator returned)
 * old_ptr: the block passed to a realloc-like call
 */
struct ms_event {
	__u64 time_ns;
	__u64 ptr;
	__u64 size;
	__u64 old_ptr;
	__u32 pid;		/* thread group id */
	__u32 tid;
	__u32 call;		/* enum ms_call, or enum ms_region_mark */
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
/* The event is in the wide form, struct ms_wide_event. */
#define MS_EVENT_WIDE		0x10
#define MS_EVENT_KNOWN		0x1f

/*
 * A ring record begins with its event, in one of two forms, and goes on
 * with what its kind adds: an allocation's frames, a stack copy, a
 * region's name.  Every record begins with one word, the head:
 *
 *   bits 0-7    MS_EVENT_* flags
 *   bits 8-15   the call (enum ms_call, or enum ms_region_mark)
 *   bits 16-63  the low 48 bits of the time: the reader restores the rest
 *               from its own clock (ms_time_unwrap)
 *
 * The compact form, 24 bytes, the head and two words that pack the rest:
 *
 *   word 1      bits 0-47 ptr, bits 48-63 size's bits 0-15
 *   word 2      bits 0-19 size's bits 16-35, bits 20-41 pid, bits 42-63 tid
 *
 * It holds every call whose ptr is below 2^48, whose size is below 2^36
 * (64 GiB), and which has no old_ptr; a pid or tid always fits, for the
 * kernel's PID_MAX_LIMIT is 2^22.  Everything else, realloc-like calls
 * with a block to resize among them, takes the wide form, 40 bytes.
 * Records with a layout of their own after the event (stack copies,
 * region marks) always take the wide form, so that their fields lie at
 * fixed offsets.
 */
#define MS_TIME_BITS		48
#define MS_TIME_MASK		((1ULL << MS_TIME_BITS) - 1)
#define MS_COMPACT_BYTES	24
#define MS_COMPACT_PTR_BITS	48
#define MS_COMPACT_SIZE_BITS	36
#define MS_COMPACT_ID_BITS	22

struct ms_wide_event {
	__u64 head;		/* flags MS_EVENT_WIDE */
	__u64 ptr;
	__u64 size;
	__u64 old_ptr;
	__u32 pid;
	__u32 tid;
};

#define MS_WIDE_BYTES		sizeof(struct ms_wide_event)

/* Inlined, as the BPF programs' own helpers are: the verifier sees each use. */
#define MS_INLINE static inline __attribute__((always_inline))

MS_INLINE __u64
ms_head(const struct ms_event *e, __u32 flags)
{
	return (__u64)(flags & 0xff) | (__u64)(e->call & 0xff) << 8 |
	       (e->time_ns & MS_TIME_MASK) << 16;
}

/* Whether the event fits the compact form. */
MS_INLINE bool
ms_event_compact(const struct ms_event *e)
{
	return !(e->ptr >> MS_COMPACT_PTR_BITS) && !(e->size >> MS_COMPACT_SIZE_BITS) &&
	       !e->old_ptr && !(e->pid >> MS_COMPACT_ID_BITS) &&
	       !(e->tid >> MS_COMPACT_ID_BITS);
}

/* Only for an event that ms_event_compact() accepts: MS_COMPACT_BYTES. */
MS_INLINE void
ms_event_encode_compact(__u64 *w, const struct ms_event *e)
{
	w[0] = ms_head(e, e->flags);
	w[1] = e->ptr | e->size << MS_COMPACT_PTR_BITS;
	w[2] = e->size >> 16 | (__u64)e->pid << 20 | (__u64)e->tid << 42;
}

/* Any event: MS_WIDE_BYTES. */
MS_INLINE void
ms_event_encode_wide(struct ms_wide_event *w, const struct ms_event *e)
{
	w->head = ms_head(e, e->flags | MS_EVENT_WIDE);
	w->ptr = e->ptr;
	w->size = e->size;
	w->old_ptr = e->old_ptr;
	w->pid = e->pid;
	w->tid = e->tid;
}

/*
 * The event a record of size bytes begins with, its time_ns the low
 * MS_TIME_BITS as sent and its flags as the head says (MS_EVENT_WIDE
 * included).  Returns the bytes of the event, 0 when the record is too
 * short for the form its head gives.
 */
MS_INLINE __u32
ms_event_decode(const void *data, __u64 size, struct ms_event *e)
{
	const __u64 *w = data;
	const struct ms_wide_event *wide = data;

	if (size < sizeof(w[0]))
		return 0;
	e->flags = w[0] & 0xff;
	e->call = w[0] >> 8 & 0xff;
	e->time_ns = w[0] >> 16;
	if (e->flags & MS_EVENT_WIDE) {
		if (size < MS_WIDE_BYTES)
			return 0;
		e->ptr = wide->ptr;
		e->size = wide->size;
		e->old_ptr = wide->old_ptr;
		e->pid = wide->pid;
		e->tid = wide->tid;
		return MS_WIDE_BYTES;
	}
	if (size < MS_COMPACT_BYTES)
		return 0;
	e->ptr = w[1] & ((1ULL << MS_COMPACT_PTR_BITS) - 1);
	e->size = w[1] >> MS_COMPACT_PTR_BITS |
		  (w[2] & ((1ULL << (MS_COMPACT_SIZE_BITS - 16)) - 1)) << 16;
	e->old_ptr = 0;
	e->pid = w[2] >> 20 & ((1U << MS_COMPACT_ID_BITS) - 1);
	e->tid = w[2] >> 42;
	return MS_COMPACT_BYTES;
}

/*
 * A record's time in full, from its low MS_TIME_BITS and a time near_ns
 * it lies less than 2^47 ns (39 hours) from, before or after: the reader
 * drains at least every few milliseconds, and a record may be committed
 * while a drain that took near_ns at its start goes on.
 */
MS_INLINE __u64
ms_time_unwrap(__u64 near_ns, __u64 low)
{
	__u64 ahead = (low - near_ns) & MS_TIME_MASK;

	return ahead >> (MS_TIME_BITS - 1) ? near_ns - (MS_TIME_MASK + 1 - ahead)
					   : near_ns + ahead;
}

/* How allocations' stacks are taken: the BPF programs' stack_mode. */
enum ms_stack_mode {
	MS_STACK_NONE = 0,
	MS_STACK_FP = 1,	/* walk frame pointers */
	MS_STACK_DWARF = 2,	/* copy the stack, for DWARF unwinding */
	MS_STACK_AUTO = 3,	/* unwind tables, frame pointers, then a copy */
};

/*
 * The most return addresses an allocation's record carries (the kernel's
 * own limit for a stack is kernel.perf_event_max_stack, 127 by default).
 */
#define MS_STACK_MAX 127

/*
 * An allocation's record with its stack walked: the event, in either
 * form, then the user stack from the call's return address outwards, as
 * many frames as the record's length says (frame pointers, walked by the
 * kernel).  Frees and calls recorded without stacks are the event alone.
 */

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
 * A call of malloc by the C++ runtime's operator new, which has no probe
 * (src/record/probe-targets.h): malloc's return address ret in process
 * tgid.  Its value in the map is operator new's frame size there, for the
 * stack to be walked from operator new's caller, as its probe would have.
 */
struct ms_new_site {
	__u32 tgid;
	__u32 unused;
	__u64 ret;
};

#define MS_NEW_SITE_FRAME_MAX	4096
/* The frames stepped over at most: libstdc++'s nothrow new[] over new is 2. */
#define MS_NEW_SITES_NESTED	3
/* The sites of all processes at once: libstdc++ has 3 a process. */
#define MS_NEW_SITES_MAX	65536

/*
 * An allocation's record with a copy of its thread's stack: the event
 * (flags MS_EVENT_STACK_COPY), the registers, and the stack's bytes from
 * address base to the end of the record.
 */
struct ms_stack_copy {
	struct ms_wide_event event;
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
	struct ms_wide_event event;
	char name[MS_REGION_NAME_MAX];
};

/*
 * Unwind tables (src/record/unwind-table.h), as the walker reads them.  Pages
 * and rows of every file in two arrays, each file's pages in a run, each
 * page's rows sorted by address; rules shared by all; and per process,
 * its mappings that have a table, sorted.
 */
enum ms_cfa {
	MS_CFA_NONE,		/* no frame description covers it */
	MS_CFA_RSP,		/* CFA = rsp + cfa_offset */
	MS_CFA_RBP,		/* CFA = rbp + cfa_offset */
	MS_CFA_PLT,		/* rsp + 8, 8 more once rip & 15 >= plt_limit */
	MS_CFA_OUTERMOST,	/* no return address: the stack's first frame */
	MS_CFA_MARKED,		/* a rule the walker does not apply */
};

enum ms_rbp {
	MS_RBP_SAME,		/* the caller's rbp is the callee's */
	MS_RBP_SAVED,		/* the caller's rbp is at CFA + rbp_offset */
};

/* 16 bytes: an array map's elements are 8-byte aligned, also mapped. */
struct ms_unwind_rule {
	__s32 cfa_offset;
	__s32 rbp_offset;
	__u8 cfa;		/* enum ms_cfa */
	__u8 rbp;		/* enum ms_rbp */
	__u8 plt_limit;
	__u8 unused[5];
};

/* From where in its page (src/record/unwind-pages.h) a rule holds. */
struct ms_unwind_row {
	__u16 pc;		/* the address's low 16 bits */
	__u16 rule;
};

/* The rows array's element: an array map's elements take 8 bytes at least. */
struct ms_unwind_row_pair {
	struct ms_unwind_row row[2];
};

#define MS_UNWIND_PAGE_SHIFT 16

/* 64 KiB of a file's addresses: its rows. */
struct ms_unwind_page {
	__u32 first_row, nrows;
};

struct ms_unwind_mapping {
	__u64 start, end;	/* in the process */
	__u64 base;		/* where the file's lowest address is mapped */
	__u32 first_page, npages;
};

#define MS_UNWIND_MAPPINGS 128	/* a power of two: the search's steps */
#define MS_UNWIND_RULES 4096

struct ms_unwind_space {
	__u32 n;
	__u32 unused;
	struct ms_unwind_mapping m[MS_UNWIND_MAPPINGS];
};

/* The escaped children BPF names; more are only counted. */
#define MS_ESCAPED_MAX 1024

/* memsup -p: thread tid of process pid maps an executable file. */
struct ms_mapping_wake {
	__u32 pid;
	__u32 tid;
};

#endif /* MEMSUP_BPF_SHARED_H */
