/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a line of /proc/PID/status. */
#ifndef MEMSUP_PROCFS_H
#define MEMSUP_PROCFS_H

#include <sys/types.h>

/*
 * Scans what follows "KEY:" in /proc/PID/status with fmt, as sscanf does.
 * Returns the number of items converted, or -1 when the process or the
 * line is missing.
 */
int proc_status_scan(pid_t pid, const char *key, const char *fmt, ...)
	__attribute__((format(scanf, 3, 4)));

#endif
