// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The copied-stack unwinder (libunwind's) on this program's own call
 * frame information: a stack through two functions of
 * tests/unwind-frames.S gives exactly their two frames, from libunwind
 * and from the memo of past unwinds.  And once the memo's slots have
 * grown, unwinding more stacks than it has slots, over and over, takes no
 * memory: a long run's resident set stays flat (tests/soak.test), even
 * where two hot stacks share a slot.  Allocations are counted by wrapping
 * the C library's allocator at link time.
 */
#include "config.h"
#include "address-spaces.h"
#include "unwind.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void frames_fp(void), frames_sub(void);

/* memsup's allocations, through the wrappers below. */
static unsigned long allocations;

void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__real_reallocarray(void *ptr, size_t nmemb, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
void *__wrap_reallocarray(void *ptr, size_t nmemb, size_t size);

void *
__wrap_malloc(size_t size)
{
	allocations++;
	return __real_malloc(size);
}

void *
__wrap_calloc(size_t nmemb, size_t size)
{
	allocations++;
	return __real_calloc(nmemb, size);
}

void *
__wrap_realloc(void *ptr, size_t size)
{
	allocations++;
	return __real_realloc(ptr, size);
}

void *
__wrap_reallocarray(void *ptr, size_t nmemb, size_t size)
{
	allocations++;
	return __real_reallocarray(ptr, nmemb, size);
}

/* Where the stacks lie, how many, and how far apart. */
#define STACK_START	UINT64_C(0x7ffe00000000)
#define STACKS		4096	/* more than the memo has slots */
#define STACK_BYTES	64

/* This program's own mappings, as MAPPING records of process 1. */
static void
map_self(struct address_spaces *spaces)
{
	char exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX];
	unsigned long long start, end, offset;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *maps = fopen("/proc/self/maps", "r");

	if (len < 0 || !maps)
		tap_bail("cannot read this program's mappings");
	exe[len] = '\0';
	while (fgets(line, sizeof(line), maps)) {
		struct record r = { .type = REC_MAPPING, .pid = 1 };

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &offset,
			   path) != 4 || strcmp(path, exe))
			continue;
		r.mapping.start = start;
		r.mapping.end = end;
		r.mapping.offset = offset;
		r.mapping.path = path;
		address_spaces_apply(spaces, &r);
	}
	fclose(maps);
}

/*
 * A stack at sp stopped in frames_fp past its prologue (rbp = rsp, the
 * caller's rbp saved at 0, the return at 8), called from frames_sub past
 * its `sub $40,%rsp` (its return at 16 + 40), which was called from
 * nowhere (a return address of 0 ends the stack).
 */
static void
stack_at(struct ms_stack_copy *copy, uint64_t sp)
{
	uint64_t words[STACK_BYTES / 8] = { 0 };

	memset(copy, 0, sizeof(*copy));
	copy->event.pid = 1;
	copy->regs.ip = (uint64_t)(uintptr_t)frames_fp + 4;
	copy->regs.sp = sp;
	copy->regs.bp = sp;
	copy->base = sp;
	words[1] = (uint64_t)(uintptr_t)frames_sub + 5;
	memcpy(copy->bytes, words, sizeof(words));
}

/* Unwinds every stack once; how many gave the two frames exactly. */
static unsigned
unwind_all(struct unwinder *u, struct ms_stack_copy *copy)
{
	uint64_t frames[MS_STACK_MAX];
	unsigned i, right = 0;

	for (i = 0; i < STACKS; i++) {
		stack_at(copy, STACK_START + (uint64_t)i * 2 * STACK_BYTES);
		right += unwinder_unwind(u, copy, sizeof(*copy) + STACK_BYTES, frames,
					 MS_STACK_MAX) == 2 &&
			 frames[0] == (uint64_t)(uintptr_t)frames_fp + 4 &&
			 frames[1] == (uint64_t)(uintptr_t)frames_sub + 5;
	}
	return right;
}

int
main(void)
{
	_Alignas(8) uint8_t rec[sizeof(struct ms_stack_copy) + STACK_BYTES];
	struct ms_stack_copy *copy = (struct ms_stack_copy *)rec;
	struct address_spaces spaces;
	struct unwind_stats before, after;
	uint64_t frames[MS_STACK_MAX];
	struct unwinder *u;
	unsigned long allocated;
	uint32_t n;

	tap_plan(10);
	address_spaces_init(&spaces);
	map_self(&spaces);
	u = unwinder_new(&spaces);
	if (!u)
		tap_bail("no unwinder");

	stack_at(copy, STACK_START);
	n = unwinder_unwind(u, copy, sizeof(rec), frames, MS_STACK_MAX);
	tap_eq_u64(n, 2, "a stack through two functions: two frames");
	tap_eq_u64(frames[0], (uint64_t)(uintptr_t)frames_fp + 4, "the first: where it stopped");
	tap_eq_u64(n > 1 ? frames[1] : 0, (uint64_t)(uintptr_t)frames_sub + 5,
		   "the second: the return address");
	unwinder_stats(u, &before);
	memset(frames, 0, sizeof(frames));
	n = unwinder_unwind(u, copy, sizeof(rec), frames, MS_STACK_MAX);
	unwinder_stats(u, &after);
	tap_eq_u64(after.unwound - before.unwound, 0, "the same stack again: from the memo");
	tap_ok(n == 2 && frames[0] == (uint64_t)(uintptr_t)frames_fp + 4 &&
	       frames[1] == (uint64_t)(uintptr_t)frames_sub + 5,
	       "the memo's frames are the same two");

	/* The memo's slots grow to what their unwinds need. */
	tap_eq_u64(unwind_all(u, copy), STACKS, "%d stacks apart: each gives the two frames",
		   STACKS);
	unwinder_stats(u, &before);
	allocated = allocations;
	tap_eq_u64(unwind_all(u, copy), STACKS, "again: the same frames");
	tap_eq_u64(unwind_all(u, copy), STACKS, "a third time: the same frames");
	unwinder_stats(u, &after);
	tap_ok(after.unwound - before.unwound >= STACKS,
	       "more stacks than memo slots: unwound again (%llu of %d)",
	       (unsigned long long)(after.unwound - before.unwound), 2 * STACKS);
	tap_eq_u64(allocations - allocated, 0, "unwound again, into the slots they share: "
		   "no allocation");

	unwinder_free(u);
	address_spaces_free(&spaces);
	return tap_done();
}
