/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session's clock: CLOCK_MONOTONIC, which the BPF programs stamp
 * records with, counted from when the capture started.  Capture time is
 * what records carry.
 */
#ifndef MEMSUP_SESSION_CLOCK_H
#define MEMSUP_SESSION_CLOCK_H

#include <stdint.h>
#include <time.h>

struct session_clock {
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the capture started */
};

static inline uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static inline void
session_clock_start(struct session_clock *k)
{
	k->start_ns = monotonic_ns();
}

/* Capture time now. */
static inline uint64_t
session_clock_now(const struct session_clock *k)
{
	return monotonic_ns() - k->start_ns;
}

/* The capture time of a CLOCK_MONOTONIC time: 0 for one before the start. */
static inline uint64_t
session_clock_from_monotonic(const struct session_clock *k, uint64_t ns)
{
	return ns > k->start_ns ? ns - k->start_ns : 0;
}

/* The CLOCK_MONOTONIC time of a capture time; UINT64_MAX stays: never. */
static inline uint64_t
session_clock_to_monotonic(const struct session_clock *k, uint64_t capture_ns)
{
	return capture_ns == UINT64_MAX ? UINT64_MAX : k->start_ns + capture_ns;
}

#endif
