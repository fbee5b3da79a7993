// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "pressure.h"
#include "consumer.h"
#include "error.h"
#include "tracer.h"

#include <stdlib.h>
#include <string.h>

void
pressure_init(struct pressure *p, uint64_t timeout_ns)
{
	memset(p, 0, sizeof(*p));
	p->timeout_ns = timeout_ns;
}

void
pressure_free(struct pressure *p)
{
	free(p->latencies_ns);
	p->latencies_ns = NULL;
}

static void
note_latency(struct pressure *p, uint64_t ns)
{
	/* Grows by doubling: one slot per cycle, realloc'd at powers of two. */
	if (!(p->nlatencies & (p->nlatencies - 1)))
		p->latencies_ns = xreallocarray(p->latencies_ns,
						p->nlatencies ? 2 * p->nlatencies : 1,
						sizeof(*p->latencies_ns));
	p->latencies_ns[p->nlatencies++] = ns;
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
		note_latency(p, now_ns - p->hold_started_ns);
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

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
pressure_latency_quantile(struct pressure *p, double q)
{
	size_t i;

	if (!p->nlatencies)
		return 0;
	qsort(p->latencies_ns, p->nlatencies, sizeof(*p->latencies_ns), compare_u64);
	i = (size_t)(q * (double)(p->nlatencies - 1) + 0.5);
	return p->latencies_ns[i];
}
