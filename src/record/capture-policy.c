// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "capture-policy.h"
#include "capture.h"
#include "pressure.h"
#include "unwind.h"

#include <string.h>

/* Defaults; doc/design.md explains the sizes. */
enum {
	DEFAULT_RING_BYTES = 16 << 20,
	DEFAULT_MAX_THREADS = 4096,
	DEFAULT_MAX_PROCESSES = 16384,
	DEFAULT_STACK_DEPTH = 64,
	DEFAULT_STACK_COPY = 32768,
	DEFAULT_UNWIND_MEMORY = 8 << 20,
};

struct stack_support
stack_support_built(void)
{
	return (struct stack_support){
		.dwarf_unwinder = unwind_backend != NULL,
#ifdef HAVE_LIBDW
		.unwind_tables = true,
#endif
	};
}

void
capture_options_init(struct run_options *o)
{
	memset(o, 0, sizeof(*o));
	o->bpf.ring_bytes = DEFAULT_RING_BYTES;
	o->bpf.max_threads = DEFAULT_MAX_THREADS;
	o->bpf.max_processes = DEFAULT_MAX_PROCESSES;
	o->bpf.stack_mode = MS_STACK_AUTO;
	o->bpf.stack_depth = DEFAULT_STACK_DEPTH;
	o->bpf.stack_copy_bytes = DEFAULT_STACK_COPY;
	o->bpf.unwind_bytes = DEFAULT_UNWIND_MEMORY;
	o->compress_level = CAPTURE_LEVEL_DEFAULT;
}

enum capture_policy_error
capture_policy_apply(struct run_options *o, const struct capture_choices *given,
		     const struct stack_support *can)
{
	struct consumer_config *bpf = &o->bpf;
	uint64_t watermark = given->watermark;

	/*
	 * A launched workload is stopped rather than its records lost; a
	 * running service attached to with -p only when the user asks.
	 */
	if (!given->pressure_timeout_given)
		o->pressure_timeout_ns = o->attach_pid ? 0 : PRESSURE_WAIT_FOREVER;
	o->watermark_follows = !watermark;
	if (!watermark)
		watermark = bpf->ring_bytes / 2;
	if (watermark >= bpf->ring_bytes)
		return CAPTURE_POLICY_WATERMARK_PAST_RING;
	/* Batched wakeups: often enough that the ring rarely gets near the mark. */
	bpf->wake_bytes = watermark / 4 < bpf->ring_bytes / 16 ? watermark / 4
							       : bpf->ring_bytes / 16;
	if (!bpf->wake_bytes)
		bpf->wake_bytes = 1;
	bpf->watermark_bytes = o->pressure_timeout_ns ? watermark : 0;
	/* Stacks give way first: past the watermark, or half the ring. */
	bpf->stack_room_bytes = o->pressure_timeout_ns ? watermark : bpf->ring_bytes / 2;
	if (can->dwarf_unwinder)
		return CAPTURE_POLICY_OK;
	if (bpf->stack_mode == MS_STACK_DWARF)
		return CAPTURE_POLICY_NO_DWARF_UNWINDER;
	/* Auto without copies still walks unwind tables where it has them. */
	if (bpf->stack_mode == MS_STACK_AUTO && !can->unwind_tables)
		bpf->stack_mode = MS_STACK_FP;
	return CAPTURE_POLICY_OK;
}
