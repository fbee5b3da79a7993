/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor at a real-time priority, so that a pressure stop does
 * not wait for a CPU behind the workload's threads (doc/design.md,
 * "Backpressure").  Nothing memsup starts inherits it.
 */
#ifndef MEMSUP_REALTIME_H
#define MEMSUP_REALTIME_H

/*
 * Puts the calling thread at SCHED_FIFO priority 1, reset on fork, so
 * that memsup's other threads run as before.  Taken once the workload
 * runs: a task forked by a real-time one starts at nice 0, not at its
 * parent's nice value.  Says once
 * on stderr when it cannot (no CAP_SYS_NICE, a cgroup without real-time
 * runtime), and memsup goes on as it is.
 */
void realtime_take(void);

#endif
