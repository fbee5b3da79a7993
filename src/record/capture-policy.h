/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a capture's options come to: the default sizes, and what memsup
 * derives from the options given for the ring (when the reader wakes,
 * when the tree stops, when stacks give way) and for the stacks this
 * build can take.  The policy logs nothing and reads no global, so that
 * tests/unit-capture-policy.c checks every branch.
 */
#ifndef MEMSUP_CAPTURE_POLICY_H
#define MEMSUP_CAPTURE_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include "run.h"

/* What a build of memsup can do with stacks. */
struct stack_support {
	bool dwarf_unwinder;	/* it unwinds stack copies */
	bool unwind_tables;	/* it walks unwind tables (libdw) */
};

/* This build's. */
struct stack_support stack_support_built(void);

/* The options whose absence the policy fills in. */
struct capture_choices {
	uint64_t watermark;		/* --watermark; 0: not given */
	bool pressure_timeout_given;	/* o->pressure_timeout_ns is the user's */
};

enum capture_policy_error {
	CAPTURE_POLICY_OK,
	CAPTURE_POLICY_WATERMARK_PAST_RING,	/* not below ring_bytes */
	CAPTURE_POLICY_NO_DWARF_UNWINDER,	/* --stack=dwarf in a build without */
};

/* The options of a capture none of which was given. */
void capture_options_init(struct run_options *o);

/*
 * Completes o, as parsed, with what the choices and the build's support
 * imply: the pressure timeout, whether the watermark follows the stops,
 * o->bpf's wake_bytes, watermark_bytes and stack_room_bytes, and the
 * stack mode the build takes for the one asked.  On an error, o is left
 * partly completed.
 */
enum capture_policy_error
capture_policy_apply(struct run_options *o, const struct capture_choices *given,
		     const struct stack_support *can);

#endif
