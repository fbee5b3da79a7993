// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "pressure.h"
#include "consumer.h"
#include "error.h"
#include "tracer.h"

#include <string.h>

void
pressure_init(struct pressure *p, uint64_t timeout_ns, uint64_t ring_bytes,
	      uint64_t watermark, bool watermark_follows)
{
	memset(p, 0, sizeof(*p));
	p->timeout_ns = timeout_ns;
	p->ring_bytes = ring_bytes;
	p->watermark = watermark;
	p->watermark_follows = watermark_follows;
}

/*
 * What the ring keeps above the watermark must hold what comes in between
 * the latch and the drain: twice the recent worst.  The watermark stays
 * between an eighth of the ring, so that stops do not come on every few
 * records and stacks are not given up at once, and half of it, the
 * default.
 */
static uint64_t
following_watermark(const struct pressure *p)
{
	uint64_t lowest = p->ring_bytes / 8, highest = p->ring_bytes / 2;
	uint64_t headroom = 2 * p->overshoot;

	if (headroom >= p->ring_bytes - lowest)
		return lowest;
	return p->ring_bytes - headroom < highest ? p->ring_bytes - headroom : highest;
}

/* What came in past the watermark since the last drain. */
static void
measure_fill(struct pressure *p, struct consumer *c)
{
	uint64_t fill = bpf_loader_take_max_fill(&c->bpf);
	uint64_t over = fill > p->watermark ? fill - p->watermark : 0;

	if (fill > p->max_fill)
		p->max_fill = fill;
	if (over > p->worst_overshoot)
		p->worst_overshoot = over;
	/* A slow decay: one calm stop does not undo what a busy one showed. */
	p->overshoot -= p->overshoot / 16;
	if (over > p->overshoot)
		p->overshoot = over;
}

/* What the stop just ended let through, and the watermark that follows. */
static void
measure_stop(struct pressure *p, struct consumer *c)
{
	measure_fill(p, c);
	if (!p->watermark_follows)
		return;
	p->watermark = following_watermark(p);
	bpf_loader_set_watermark(&c->bpf, p->watermark);
}

/* Whether a latch is acted on: after a timeout the tree is dying, nothing more to hold. */
static bool
acts_on_latch(const struct pressure *p)
{
	return p->timeout_ns && !p->timed_out;
}

void
pressure_step(struct pressure *p, struct tracer *t, struct consumer *c,
	      uint64_t now_ns)
{
	if (!acts_on_latch(p))
		return;
	if (!p->holding) {
		if (!bpf_loader_latched(&c->bpf))
			return;
		p->holding = true;
		p->hold_started_ns = now_ns;
		tracer_hold(t);
	}
	if (tracer_held(t)) {
		histogram_add(&p->latencies, now_ns - p->hold_started_ns);
		/* No thread that can latch runs: the ring empties for good. */
		consumer_drain(c);
		measure_stop(p, c);
		bpf_loader_clear_latch(&c->bpf);
		tracer_release(t);
		p->holding = false;
		p->stops++;
		return;
	}
	if (p->timeout_ns != PRESSURE_WAIT_FOREVER &&
	    now_ns - p->hold_started_ns > p->timeout_ns) {
		error_msg("the process tree did not stop within the pressure "
			  "timeout (%.3f s) to drain the ring; killing it",
			  (double)p->timeout_ns / 1e9);
		tracer_kill_all(t);
		tracer_release(t);
		bpf_loader_clear_latch(&c->bpf);
		p->holding = false;
		p->timed_out = true;
	}
}

int
pressure_drain(const struct pressure *p, struct consumer *c)
{
	if (acts_on_latch(p))
		return consumer_drain_to_latch(c);
	return consumer_drain(c);
}

uint64_t
pressure_latency_quantile(const struct pressure *p, double q)
{
	return histogram_quantile(&p->latencies, q);
}

void
pressure_finish(struct pressure *p, struct consumer *c)
{
	if (p->timeout_ns)
		measure_fill(p, c);
}

uint64_t
pressure_ring_needed(const struct pressure *p, uint64_t lost_bytes)
{
	uint64_t through = p->worst_overshoot + lost_bytes, ring = p->ring_bytes;

	if (!p->timeout_ns || p->timed_out || !lost_bytes)
		return 0;
	/* At the lowest watermark, an eighth of the ring, twice the worst fits. */
	while (ring - ring / 8 < 2 * through && ring < RING_BYTES_MAX)
		ring *= 2;
	return ring;
}
