// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "pressure.h"
#include "consumer.h"
#include "error.h"
#include "tracer.h"

#include <string.h>

void
pressure_init(struct pressure *p, uint64_t timeout_ns)
{
	memset(p, 0, sizeof(*p));
	p->timeout_ns = timeout_ns;
}

void
pressure_step(struct pressure *p, struct tracer *t, struct consumer *c,
	      uint64_t now_ns)
{
	/* After a timeout the tree is dying: nothing more to hold. */
	if (!p->timeout_ns || p->timed_out)
		return;
	if (!p->holding) {
		if (!consumer_latched(c))
			return;
		p->holding = true;
		p->hold_started_ns = now_ns;
		tracer_hold(t);
	}
	if (tracer_held(t)) {
		histogram_add(&p->latencies, now_ns - p->hold_started_ns);
		/* No thread that can latch runs: the ring empties for good. */
		consumer_drain(c);
		consumer_clear_latch(c);
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
		consumer_clear_latch(c);
		p->holding = false;
		p->timed_out = true;
	}
}

uint64_t
pressure_latency_quantile(const struct pressure *p, double q)
{
	return histogram_quantile(&p->latencies, q);
}
