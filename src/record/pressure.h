/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backpressure, supervisor side: when the BPF latch is up, hold the whole
 * tree, drain the ring, lower the latch and release the tree; give up
 * and kill the tree when that takes longer than the pressure timeout.
 * Unless the user set it, the watermark follows what the stops let
 * through (doc/design.md, "A watermark that follows the machine").
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
	uint64_t ring_bytes;
	uint64_t watermark;	/* the latch's, now */
	bool watermark_follows;	/* no --watermark: moved after every stop */
	/* Bytes past the watermark before a stop drained the ring: */
	uint64_t overshoot;	/* the recent worst, decaying */
	uint64_t worst_overshoot;	/* the run's worst */
	uint64_t max_fill;	/* the fullest the ring was, above the watermark */
};

void pressure_init(struct pressure *p, uint64_t timeout_ns, uint64_t ring_bytes,
		   uint64_t watermark, bool watermark_follows);
/*
 * Moves the cycle on; called after every batch of events the supervisor
 * handles, at now_ns (capture time).
 */
void pressure_step(struct pressure *p, struct tracer *t, struct consumer *c,
		   uint64_t now_ns);
/*
 * Drains the ring outside a stop's own drain: up to the latch, when the
 * pressure acts on it, all of it otherwise.  While the tree is stopping,
 * the latch up, that is a record at a time, between the stops the
 * supervisor reaps.
 */
int pressure_drain(const struct pressure *p, struct consumer *c);
/*
 * The latency within which a fraction q (0..1) of the holds were complete
 * (to within 12.5%, from above).
 */
uint64_t pressure_latency_quantile(const struct pressure *p, double q);
/* Takes in what came past the watermark after the last stop. */
void pressure_finish(struct pressure *p, struct consumer *c);
/*
 * The ring size that would have held what the worst stop let through,
 * lost_bytes that found the ring full included, with the headroom the
 * watermark keeps; 0 when this ring did.
 */
uint64_t pressure_ring_needed(const struct pressure *p, uint64_t lost_bytes);

#endif
