// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the stack table, the report's sites (stacks resolved
 * against each process's mappings) and the heap model's per-site figures.
 */
#include "config.h"
#include "heap.h"
#include "record.h"
#include "sites.h"
#include "stack-table.h"
#include "tap.h"

#include <string.h>

static void
test_stack_table(void)
{
	static const uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2 }, c[] = { 3, 2, 1 };
	struct stack_table t;
	const uint64_t *got;
	bool added;
	uint32_t n;

	stack_table_init(&t);
	tap_eq_u64(stack_table_intern(&t, a, 3, &added), 1, "the first stack is id 1");
	tap_ok(added, "and is new");
	tap_eq_u64(stack_table_intern(&t, b, 2, &added), 2, "a prefix of it is another stack");
	tap_eq_u64(stack_table_intern(&t, c, 3, &added), 3, "so is its reverse");
	tap_eq_u64(stack_table_intern(&t, a, 3, &added), 1, "the first again is id 1");
	tap_ok(!added, "and not new");
	got = stack_table_get(&t, 3, &n);
	tap_ok(got && n == 3 && !memcmp(got, c, sizeof(c)), "id 3 gives its frames back");
	tap_ok(!stack_table_get(&t, 4, &n) && !stack_table_get(&t, 0, &n),
	       "unknown ids give nothing");
	stack_table_free(&t);
	stack_table_init(&t);
	tap_eq_u64(stack_table_intern(&t, NULL, 0, &added), 1,
		   "an empty stack, first, is a stack too");
	got = stack_table_get(&t, 1, &n);
	tap_ok(got && n == 0 && stack_table_intern(&t, NULL, 0, &added) == 1 && !added,
	       "with no frames, and found again");
	stack_table_free(&t);
}

static struct record
mapping(uint32_t pid, uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
	struct record r = { .type = REC_MAPPING, .pid = pid, .tid = pid };

	r.mapping.start = start;
	r.mapping.end = end;
	r.mapping.offset = offset;
	r.mapping.path = path;
	return r;
}

static uint32_t
call_site(struct sites *s, uint32_t pid, uint32_t stack_id)
{
	struct record r = { .type = REC_CALL, .pid = pid, .tid = pid };

	r.call.call = MS_CALL_MALLOC;
	r.call.stack_id = stack_id;
	sites_apply(s, &r);
	return r.call.site;
}

static void
stack(struct sites *s, uint32_t pid, uint32_t id, const uint64_t *frames, uint32_t n)
{
	struct record r = { .type = REC_STACK, .pid = pid, .tid = pid };

	r.stack.id = id;
	r.stack.frames = frames;
	r.stack.nframes = n;
	sites_apply(s, &r);
}

static void
test_sites(void)
{
	/* One program, loaded at two bases (ASLR) in two processes. */
	static const uint64_t in_a[] = { 0x1000 + 0x234, 0x1000 + 0x100 };
	static const uint64_t in_b[] = { 0x9000 + 0x234, 0x9000 + 0x100 };
	static const uint64_t outside[] = { 0x50 };
	struct sites s;
	struct record r;
	const uint64_t *f;
	uint32_t n, site_a, site_b;

	sites_init(&s);
	r = mapping(10, 0x1000, 0x2000, 0x4000, "/bin/prog");
	sites_apply(&s, &r);
	r = mapping(20, 0x9000, 0xa000, 0x4000, "/bin/prog");
	sites_apply(&s, &r);
	stack(&s, 10, 1, in_a, 2);
	stack(&s, 20, 2, in_b, 2);
	stack(&s, 10, 3, outside, 1);
	site_a = call_site(&s, 10, 1);
	site_b = call_site(&s, 20, 2);
	tap_ok(site_a && site_a == site_b,
	       "one code path at two load addresses is one site (%u, %u)", site_a, site_b);
	f = sites_frames(&s, site_a, &n);
	tap_ok(f && n == 2 && SITE_FRAME_MODULE(f[0]) == 1 &&
	       SITE_FRAME_OFFSET(f[0]) == 0x4234 && SITE_FRAME_OFFSET(f[1]) == 0x4100,
	       "frames resolve to (file, file offset)");
	f = sites_frames(&s, call_site(&s, 10, 3), &n);
	tap_ok(f && n == 1 && SITE_FRAME_MODULE(f[0]) == 0 && SITE_FRAME_OFFSET(f[0]) == 0x50,
	       "an address in no mapping stays an address");
	tap_eq_u64(call_site(&s, 10, 0), 0, "a call without a stack has site 0");
	tap_eq_u64(call_site(&s, 10, 99), 0, "a call with an unknown stack has site 0");
	/* A damaged capture may send an id again, with other frames. */
	n = call_site(&s, 20, 1);
	stack(&s, 20, 1, in_b, 2);
	tap_ok(n != site_b && call_site(&s, 20, 1) == site_b,
	       "a stack id sent again resolves to its new frames (%u, then %u)", n, site_b);
	stack(&s, 20, 1, in_a, 2);

	/* A fork child sees its parent's mappings; a new one replaces the overlap. */
	r = (struct record){ .type = REC_FORK, .pid = 10, .tid = 10, .fork.child = 11 };
	sites_apply(&s, &r);
	tap_eq_u64(call_site(&s, 11, 1), site_a, "a fork child resolves against its parent's maps");
	r = mapping(11, 0x1000, 0x3000, 0, "/lib/other.so");
	sites_apply(&s, &r);
	f = sites_frames(&s, call_site(&s, 11, 1), &n);
	tap_ok(f && SITE_FRAME_MODULE(f[0]) == 2 && SITE_FRAME_OFFSET(f[0]) == 0x234,
	       "a new mapping replaces the one it overlaps");
	tap_eq_u64(call_site(&s, 10, 1), site_a, "and the parent is not touched");

	/* An exec leaves nothing mapped until its MAPPINGs. */
	r = (struct record){ .type = REC_EXEC, .pid = 10, .tid = 10, .exec.path = "/bin/new" };
	sites_apply(&s, &r);
	f = sites_frames(&s, call_site(&s, 10, 1), &n);
	tap_ok(f && SITE_FRAME_MODULE(f[0]) == 0, "after an exec the old mappings are gone");
	sites_free(&s);
}

static void
call(struct heap_model *h, uint32_t site, uint32_t c, uint64_t ptr, uint64_t size,
     uint64_t time)
{
	struct record r = { .type = REC_CALL, .pid = 7, .tid = 7, .time_ns = time };

	r.call.call = c;
	r.call.ptr = ptr;
	r.call.size = size;
	r.call.site = site;
	heap_apply(h, &r);
}

static void
test_heap_sites(void)
{
	struct heap_model h;
	struct record r = { .type = REC_EXEC, .pid = 7, .tid = 7, .exec.path = "/bin/x" };

	heap_init(&h);
	heap_apply(&h, &r);
	call(&h, 1, MS_CALL_MALLOC, 0x100, 1000, 1);
	call(&h, 2, MS_CALL_MALLOC, 0x200, 500, 2);	/* peak: 1500 */
	call(&h, 1, MS_CALL_FREE, 0x100, 0, 3);
	call(&h, 2, MS_CALL_MALLOC, 0x300, 700, 4);	/* 1200: no new peak */
	call(&h, 3, MS_CALL_MALLOC, 0x400, 10, 5);
	tap_eq_u64(h.tree.peak_bytes, 1500, "the tree peaked at 1500");
	tap_eq_u64(heap_site_peak_bytes(&h, 1), 1000, "site 1 held 1000 at the peak, freed since");
	tap_eq_u64(heap_site_peak_bytes(&h, 2), 500, "site 2 held 500 at the peak, more since");
	tap_eq_u64(heap_site_peak_bytes(&h, 3), 0, "site 3 came after the peak");
	call(&h, 3, MS_CALL_MALLOC, 0x500, 1000, 6);	/* 2210: a new peak */
	tap_eq_u64(heap_site_peak_bytes(&h, 1), 0, "at the new peak, site 1 held nothing");
	tap_eq_u64(heap_site_peak_bytes(&h, 2), 1200, "site 2 held 1200");
	tap_eq_u64(heap_site_peak_bytes(&h, 3), 1010, "site 3 held 1010");
	call(&h, 2, MS_CALL_REALLOC, 0x600, 50, 7);	/* realloc from nothing */
	r = (struct record){ .type = REC_EXIT, .pid = 7, .tid = 7 };
	heap_apply(&h, &r);
	tap_eq_u64(h.sites[2].allocs, 3, "site 2: three allocations");
	tap_eq_u64(h.sites[2].bytes_allocated, 1250, "site 2: 1250 bytes");
	tap_eq_u64(h.sites[2].leaked_bytes, 1250, "site 2: all leaked at exit");
	tap_eq_u64(h.sites[2].leaked_blocks, 3, "site 2: in three blocks");
	tap_eq_u64(h.sites[1].leaked_bytes, 0, "site 1: nothing leaked");
	tap_eq_u64(h.sites[3].live_bytes, 0, "after the exit no site holds anything");
	heap_free(&h);
}

int
main(void)
{
	tap_plan(10 + 10 + 13);
	test_stack_table();
	test_sites();
	test_heap_sites();
	return tap_done();
}
