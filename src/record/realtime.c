// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "realtime.h"
#include "error.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

void
realtime_take(void)
{
	/*
	 * The lowest real-time priority is enough to run before every
	 * SCHED_OTHER thread; the kernel's real-time throttling
	 * (kernel.sched_rt_runtime_us) still bounds it, and the supervisor
	 * only ever sleeps in epoll or wait between its steps.
	 */
	const struct sched_param param = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param))
		warning_msg("cannot take a real-time priority (%s): a pressure stop "
			    "may wait for a CPU behind the workload", strerror(errno));
}
