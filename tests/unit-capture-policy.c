// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for what a capture's options come to: the defaults, the
 * ring's wakeups, watermark and stack room, the pressure timeout, and
 * the stack mode each build takes.
 */
#include "config.h"
#include "capture-policy.h"
#include "pressure.h"
#include "tap.h"
#include "unwind.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FOREVER PRESSURE_WAIT_FOREVER
#define SECONDS(n) ((n) * 1000000000ULL)

/* What the policy derives for the ring. */
struct ring_outcome {
	uint64_t pressure_timeout_ns;
	bool watermark_follows;
	size_t wake_bytes;
	size_t watermark_bytes;
	size_t stack_room_bytes;
};

/* The user's ring and pressure choices on top of the defaults. */
static const struct ring_case {
	const char *name;
	size_t ring_bytes;		/* --ring-size; 0: not given */
	struct capture_choices given;
	uint64_t pressure_timeout_ns;	/* with given.pressure_timeout_given */
	pid_t attach_pid;
	enum capture_policy_error error;
	struct ring_outcome want;
} ring_cases[] = {
	/* pressure timeout, follows, wake, watermark, stack room */
	{ "defaults: wakes at a sixteenth of the ring",
	  .want = { FOREVER, true, 1 << 20, 8 << 20, 8 << 20 } },
	{ "-p: no pressure stops, stacks give way at half the ring",
	  .attach_pid = 1234,
	  .want = { 0, true, 1 << 20, 0, 8 << 20 } },
	{ "-p --pressure-timeout=2s",
	  .attach_pid = 1234, .given.pressure_timeout_given = true,
	  .pressure_timeout_ns = SECONDS(2),
	  .want = { SECONDS(2), true, 1 << 20, 8 << 20, 8 << 20 } },
	{ "--pressure-timeout=0 for a command",
	  .given.pressure_timeout_given = true,
	  .want = { 0, true, 1 << 20, 0, 8 << 20 } },
	{ "--ring-size=4K: a sixteenth of it, under a quarter of the watermark",
	  .ring_bytes = 4096,
	  .want = { FOREVER, true, 256, 2048, 2048 } },
	{ "--watermark=64K: wakes at a quarter of it",
	  .given.watermark = 64 << 10,
	  .want = { FOREVER, false, 16 << 10, 64 << 10, 64 << 10 } },
	{ "--watermark=3: wakes at every byte, not never",
	  .ring_bytes = 4096, .given.watermark = 3,
	  .want = { FOREVER, false, 1, 3, 3 } },
	{ "--watermark at the ring size",
	  .ring_bytes = 4096, .given.watermark = 4096,
	  .error = CAPTURE_POLICY_WATERMARK_PAST_RING },
};

static const struct stack_support everything = {
	.dwarf_unwinder = true, .unwind_tables = true,
};
static const struct stack_support tables_only = { .unwind_tables = true };
static const struct stack_support frame_pointers_only = { 0 };

/* --stack in a build that can do so much. */
static const struct stack_case {
	const char *name;
	enum ms_stack_mode asked;
	const struct stack_support *can;
	enum capture_policy_error error;
	enum ms_stack_mode want;
} stack_cases[] = {
	{ "auto with an unwinder",
	  MS_STACK_AUTO, &everything, 0, MS_STACK_AUTO },
	{ "auto without an unwinder: the tables, no copies",
	  MS_STACK_AUTO, &tables_only, 0, MS_STACK_AUTO },
	{ "auto without an unwinder or tables: frame pointers",
	  MS_STACK_AUTO, &frame_pointers_only, 0, MS_STACK_FP },
	{ "dwarf with an unwinder",
	  MS_STACK_DWARF, &everything, 0, MS_STACK_DWARF },
	{ "dwarf without an unwinder",
	  MS_STACK_DWARF, &tables_only, CAPTURE_POLICY_NO_DWARF_UNWINDER, 0 },
	{ "fp without an unwinder",
	  MS_STACK_FP, &frame_pointers_only, 0, MS_STACK_FP },
	{ "none without an unwinder",
	  MS_STACK_NONE, &frame_pointers_only, 0, MS_STACK_NONE },
};

static void
check_ring(const struct ring_case *t)
{
	const struct ring_outcome *want = &t->want;
	enum capture_policy_error error;
	struct run_options o;

	capture_options_init(&o);
	if (t->ring_bytes)
		o.bpf.ring_bytes = t->ring_bytes;
	o.pressure_timeout_ns = t->pressure_timeout_ns;
	o.attach_pid = t->attach_pid;
	error = capture_policy_apply(&o, &t->given, &everything);
	tap_eq_u64(error, t->error, "%s: error", t->name);
	if (t->error)
		return;
	tap_eq_u64(o.pressure_timeout_ns, want->pressure_timeout_ns,
		   "%s: pressure timeout", t->name);
	tap_eq_u64(o.watermark_follows, want->watermark_follows,
		   "%s: watermark follows", t->name);
	tap_eq_u64(o.bpf.wake_bytes, want->wake_bytes, "%s: wake_bytes", t->name);
	tap_eq_u64(o.bpf.watermark_bytes, want->watermark_bytes,
		   "%s: watermark_bytes", t->name);
	tap_eq_u64(o.bpf.stack_room_bytes, want->stack_room_bytes,
		   "%s: stack_room_bytes", t->name);
}

static void
check_stack(const struct stack_case *t)
{
	struct capture_choices given = { 0 };
	enum capture_policy_error error;
	struct run_options o;

	capture_options_init(&o);
	o.bpf.stack_mode = t->asked;
	error = capture_policy_apply(&o, &given, t->can);
	tap_eq_u64(error, t->error, "--stack=%s: error", t->name);
	if (!t->error)
		tap_eq_u64(o.bpf.stack_mode, t->want, "--stack=%s: mode",
			   t->name);
}

/* Points: the defaults' 10, then per case the error and what follows it. */
static unsigned int
planned(void)
{
	unsigned int n = 10;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ring_cases); i++)
		n += ring_cases[i].error ? 1 : 6;
	for (i = 0; i < ARRAY_SIZE(stack_cases); i++)
		n += stack_cases[i].error ? 1 : 2;
	return n;
}

static void
check_defaults(void)
{
	struct stack_support built = stack_support_built();
	struct run_options o;

	capture_options_init(&o);
	tap_eq_u64(o.bpf.ring_bytes, 16 << 20, "default ring: 16M");
	tap_eq_u64(o.bpf.max_threads, 4096, "default --max-threads");
	tap_eq_u64(o.bpf.max_processes, 16384, "default --max-processes");
	tap_eq_u64(o.bpf.stack_mode, MS_STACK_AUTO, "default --stack: auto");
	tap_eq_u64(o.bpf.stack_depth, 64, "default --stack-depth");
	tap_eq_u64(o.bpf.stack_copy_bytes, 32768, "default --stack-copy: 32K");
	tap_eq_u64(o.bpf.unwind_bytes, 8 << 20, "default --unwind-memory: 8M");
	tap_ok(!o.output && !o.quiet && !o.attach_pid && !o.bpf.probes_only,
	       "the rest not given");
	tap_eq_u64(built.dwarf_unwinder, unwind_backend != NULL,
		   "this build unwinds copies when it has a backend");
#ifdef HAVE_LIBDW
	tap_ok(built.unwind_tables, "this build walks unwind tables (libdw)");
#else
	tap_ok(!built.unwind_tables, "this build walks none (no libdw)");
#endif
}

int
main(void)
{
	size_t i;

	tap_plan(planned());
	check_defaults();
	for (i = 0; i < ARRAY_SIZE(ring_cases); i++)
		check_ring(&ring_cases[i]);
	for (i = 0; i < ARRAY_SIZE(stack_cases); i++)
		check_stack(&stack_cases[i]);
	return tap_done();
}
