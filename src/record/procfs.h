/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading what /proc says of a process. */
#ifndef MEMSUP_PROCFS_H
#define MEMSUP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/maps that maps a file. */
struct proc_mapping {
	uint64_t start, end, offset;
	bool exec;
	dev_t dev;
	ino_t ino;
	/* Valid during proc_maps_foreach's callback, or kept by proc_maps_read: */
	const char *path;	/* as the process names it */
	/*
	 * Where memsup opens the very file mapped: path, or where path may
	 * name nothing or another file (a process whose root or mount
	 * namespace is not memsup's, a file deleted, a name escaped),
	 * /proc/PID/map_files/START-END.
	 */
	const char *open_path;
};

/*
 * Calls fn for each file mapping of pid, in address order, until fn
 * returns non-zero, which is returned.  Returns 0, or a negative errno
 * when the maps cannot be read.
 */
int proc_maps_foreach(pid_t pid, int (*fn)(void *ctx, const struct proc_mapping *m),
		      void *ctx);

/*
 * A process's file mappings as one read of /proc/PID/maps found them,
 * their paths kept: a stop reads them once for all that looks at them.
 */
struct proc_maps {
	struct proc_mapping *mappings;
	size_t n, cap;
};

/*
 * Reads pid's file mappings into maps, in address order.  Returns 0, or
 * a negative errno with maps empty.  Either way proc_maps_free frees it.
 */
int proc_maps_read(pid_t pid, struct proc_maps *maps);
void proc_maps_free(struct proc_maps *maps);
/* proc_maps_foreach over what proc_maps_read kept. */
int proc_maps_each(const struct proc_maps *maps,
		   int (*fn)(void *ctx, const struct proc_mapping *m), void *ctx);

/*
 * The executable pid runs, as /proc/PID/exe names it, in buf (empty when
 * the link cannot be read).  Returns 0 or a negative errno.
 */
int proc_exe_path(pid_t pid, char *buf, size_t size);
/*
 * The value of the environment variable name of pid, as its exec left
 * it, into buf (cut to size).  Returns 1, 0 when it has none, or a
 * negative errno.
 */
int proc_environ_value(pid_t pid, const char *name, char *buf, size_t size);

/*
 * Scans what follows "KEY:" in /proc/PID/status with fmt, as sscanf does.
 * Returns the number of items converted, or a negative errno (-ENOENT
 * when the line is missing).
 */
int proc_status_scan(pid_t pid, const char *key, const char *fmt, ...)
	__attribute__((format(scanf, 3, 4)));

/*
 * The inode of memsup's own PID namespace.  Returns 0, -EXDEV when /proc
 * is another namespace's (its pids are not those memsup's children
 * have), or another negative errno.
 */
int proc_own_pid_namespace(unsigned int *inum);

/*
 * pid is gone or on its way out (PF_EXITING): whatever it runs or maps
 * no longer matters.
 */
bool proc_exiting(pid_t pid);
/*
 * The number in /proc/sys/kernel/name (threads-max, pid_max): 0 when it
 * cannot be read (no /proc in a build chroot).
 */
unsigned long proc_kernel_limit(const char *name);

#endif
