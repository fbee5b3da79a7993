// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ring records' packing (bpf/memsup.h): what the BPF programs encode
 * the consumer must decode to the same call, at every field's widest
 * value and at the first value that needs the wide form.
 */
#include "config.h"
#include "memsup.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

#define PTR_MAX ((1ULL << MS_COMPACT_PTR_BITS) - 1)
#define SIZE_MAX_COMPACT ((1ULL << MS_COMPACT_SIZE_BITS) - 1)
#define ID_MAX ((1U << MS_COMPACT_ID_BITS) - 1)

/* Room for an event in either form and a stack of frames after it. */
struct record_buf {
	__u64 w[MS_WIDE_BYTES / sizeof(uint64_t) + MS_STACK_MAX];
};

/* Encodes e as the BPF programs do: the compact form where it fits. */
static size_t
encode(struct record_buf *b, const struct ms_event *e)
{
	memset(b, 0xa5, sizeof(*b));
	if (ms_event_compact(e)) {
		ms_event_encode_compact(b->w, e);
		return MS_COMPACT_BYTES;
	}
	ms_event_encode_wide((struct ms_wide_event *)b->w, e);
	return MS_WIDE_BYTES;
}

static bool
same_event(const struct ms_event *got, const struct ms_event *want, uint32_t extra_flags)
{
	return got->time_ns == (want->time_ns & MS_TIME_MASK) && got->ptr == want->ptr &&
	       got->size == want->size && got->old_ptr == want->old_ptr &&
	       got->pid == want->pid && got->tid == want->tid && got->call == want->call &&
	       got->flags == (want->flags | extra_flags);
}

/* A round trip through the form expected: the bytes it takes. */
static void
round_trip(const struct ms_event *e, size_t want_bytes, const char *what)
{
	struct record_buf b;
	struct ms_event got;
	size_t n = encode(&b, e);
	uint32_t wide = want_bytes == MS_WIDE_BYTES ? MS_EVENT_WIDE : 0;

	memset(&got, 0, sizeof(got));
	tap_eq_u64(n, want_bytes, "%s: encoded in %zu bytes", what, want_bytes);
	tap_eq_u64(ms_event_decode(b.w, n, &got), want_bytes, "%s: decoded", what);
	if (!tap_ok(same_event(&got, e, wide), "%s: the same fields back", what))
		tap_diag("got ptr 0x%llx size 0x%llx old 0x%llx pid %u tid %u call %u flags 0x%x",
			 (unsigned long long)got.ptr, (unsigned long long)got.size,
			 (unsigned long long)got.old_ptr, got.pid, got.tid, got.call, got.flags);
	tap_eq_u64(ms_event_decode(b.w, n - 1, &got), 0, "%s: refused one byte short", what);
}

static const struct ms_event base = {
	.time_ns = 0x123456789abcULL, .ptr = 0x7f0012345670ULL, .size = 32,
	.pid = 4242, .tid = 4243, .call = MS_CALL_MALLOC,
};

static void
test_calls_and_flags(void)
{
	static const uint32_t flags[] = {
		MS_EVENT_STACK_DROPPED, MS_EVENT_STACK_COPY, MS_EVENT_REGION,
		MS_EVENT_INTERNAL, MS_EVENT_KNOWN & ~MS_EVENT_WIDE,
	};
	struct ms_event e = base;
	uint32_t call;
	size_t i;

	for (call = MS_CALL_MALLOC; call < MS_CALL_MAX; call++) {
		char what[64];

		e.call = call;
		e.size = call == MS_CALL_FREE ? 0 : base.size;
		snprintf(what, sizeof(what), "call %u", call);
		round_trip(&e, MS_COMPACT_BYTES, what);
	}
	e = base;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char what[64];

		e.flags = flags[i];
		snprintf(what, sizeof(what), "flags 0x%x", flags[i]);
		round_trip(&e, MS_COMPACT_BYTES, what);
		snprintf(what, sizeof(what), "flags 0x%x, wide", flags[i]);
		e.old_ptr = 1;
		round_trip(&e, MS_WIDE_BYTES, what);
		e.old_ptr = 0;
	}
}

static void
test_limits(void)
{
	struct ms_event e = base;

	e.ptr = PTR_MAX;
	e.size = SIZE_MAX_COMPACT;
	e.pid = ID_MAX;
	e.tid = ID_MAX;
	e.time_ns = MS_TIME_MASK;
	round_trip(&e, MS_COMPACT_BYTES, "every field at its widest compact value");
	e.ptr = PTR_MAX + 1;
	round_trip(&e, MS_WIDE_BYTES, "ptr 2^48");
	e.ptr = PTR_MAX;
	e.size = SIZE_MAX_COMPACT + 1;
	round_trip(&e, MS_WIDE_BYTES, "size 2^36");
	e.size = ~0ULL;
	round_trip(&e, MS_WIDE_BYTES, "size saturated");
	e.size = SIZE_MAX_COMPACT;
	e.pid = ID_MAX + 1;
	round_trip(&e, MS_WIDE_BYTES, "pid 2^22");
	e.pid = ID_MAX;
	e.tid = ID_MAX + 1;
	round_trip(&e, MS_WIDE_BYTES, "tid 2^22");
	e = base;
	e.call = MS_CALL_REALLOC;
	e.old_ptr = 0x7f0012345000ULL;
	round_trip(&e, MS_WIDE_BYTES, "realloc with a block");
	e.old_ptr = 0;
	round_trip(&e, MS_COMPACT_BYTES, "realloc(NULL, n)");
	e.ptr = 0;
	round_trip(&e, MS_COMPACT_BYTES, "a failed call");
}

/* The frames after the event are where the consumer counts them from. */
static void
test_frames(void)
{
	struct record_buf b;
	struct ms_event e = base, got;
	size_t n = encode(&b, &e), nframes = 5, i;

	for (i = 0; i < nframes; i++)
		b.w[n / sizeof(uint64_t) + i] = 0x401000 + i;
	tap_eq_u64(ms_event_decode(b.w, n + nframes * sizeof(uint64_t), &got), MS_COMPACT_BYTES,
		   "a compact record with frames: the event's bytes");
	tap_eq_u64((n + nframes * sizeof(uint64_t) - MS_COMPACT_BYTES) / sizeof(uint64_t), 5,
		   "five frames after it");
	tap_eq_u64(b.w[MS_COMPACT_BYTES / sizeof(uint64_t)], 0x401000, "the first frame");
	e.ptr = PTR_MAX + 1;
	n = encode(&b, &e);
	tap_eq_u64(ms_event_decode(b.w, n + nframes * sizeof(uint64_t), &got), MS_WIDE_BYTES,
		   "a wide record with frames: the event's bytes");
}

static void
test_time(void)
{
	const uint64_t wrap = MS_TIME_MASK + 1;

	tap_eq_u64(ms_time_unwrap(5 * wrap + 1000, 900), 5 * wrap + 900, "100 ns before");
	tap_eq_u64(ms_time_unwrap(5 * wrap + 1000, 1100), 5 * wrap + 1100, "100 ns after");
	tap_eq_u64(ms_time_unwrap(5 * wrap + 10, wrap - 10), 5 * wrap - 10,
		   "before a 2^48 boundary the reader has crossed");
	tap_eq_u64(ms_time_unwrap(5 * wrap - 10, 10), 5 * wrap + 10,
		   "after a 2^48 boundary the reader has not crossed yet");
	tap_eq_u64(ms_time_unwrap(3 * wrap, (3 * wrap - (1ULL << 47)) & MS_TIME_MASK),
		   3 * wrap - (1ULL << 47), "2^47 ns before: the farthest back");
	tap_eq_u64(ms_time_unwrap(3 * wrap, ((1ULL << 47) - 1)), 3 * wrap + (1ULL << 47) - 1,
		   "2^47 - 1 ns after: the farthest ahead");
	tap_eq_u64(ms_time_unwrap(1000, 10), 10, "soon after boot");
}

static void
test_sizes(void)
{
	tap_eq_u64(MS_WIDE_BYTES, 40, "the wide form is 40 bytes");
	tap_eq_u64(sizeof(struct ms_stack_copy), 40 + 8 * 8 + 8,
		   "a stack copy: the wide event, registers, base");
	tap_eq_u64(sizeof(struct ms_region_event), 40 + MS_REGION_NAME_MAX,
		   "a region mark: the wide event and the name");
}

int
main(void)
{
	tap_plan((MS_CALL_MAX - MS_CALL_MALLOC) * 4 + 5 * 2 * 4 + 9 * 4 + 4 + 7 + 3);
	test_calls_and_flags();
	test_limits();
	test_frames();
	test_time();
	test_sizes();
	return tap_done();
}
