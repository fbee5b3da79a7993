/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backpressure, supervisor side: when the BPF latch is up, hold the whole
 * tree, drain the ring, lower the latch and release the tree; give up
 * and kill the tree when that takes longer than the pressure timeout.
 */
#ifndef MEMSUP_PRESSURE_H
#define MEMSUP_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histogram.h"

struct consumer;
struct tracer;

#define PRESSURE_WAIT_FOREVER UINT64_MAX

struct pressure {
	uint64_t timeout_ns;	/* 0: off; PRESSURE_WAIT_FOREVER */
	bool holding;
	uint64_t hold_started_ns;
	bool timed_out;		/* the tree was killed */
	uint64_t stops;		/* completed hold-drain-release cycles */
	struct histogram latencies;	/* from the latch seen to the tree held */
};

void pressure_init(struct pressure *p, uint64_t timeout_ns);
/*
 * Moves the cycle on; called after every batch of events the supervisor
 * handles, at now_ns (capture time).
 */
void pressure_step(struct pressure *p, struct tracer *t, struct consumer *c,
		   uint64_t now_ns);
/*
 * The latency within which a fraction q (0..1) of the holds were complete
 * (to within 12.5%, from above).
 */
uint64_t pressure_latency_quantile(const struct pressure *p, double q);

#endif
