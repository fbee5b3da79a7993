/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who the workload runs as.  memsup needs root or its capabilities; the
 * workload does not: under sudo it runs as the user who called sudo,
 * with --user as another, with --keep-root as root.
 */
#ifndef MEMSUP_CREDENTIALS_H
#define MEMSUP_CREDENTIALS_H

#include <stdbool.h>
#include <sys/types.h>

struct workload_user {
	bool change;		/* else the workload keeps memsup's identity */
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* supplementary groups */
	int ngroups;
};

/*
 * Decides from --user NAME (or NULL), --keep-root, and sudo's SUDO_UID and
 * SUDO_GID.  Returns 0, or a negative errno with *why saying what is
 * wrong, complete (the caller adds nothing).
 */
int workload_user_resolve(struct workload_user *wu, const char *user,
			  bool keep_root, const char **why);
/*
 * In the forked child, before exec: async-signal-safe.  A workload that
 * is not root also gets no_new_privs.  Returns 0 or a negative errno.
 */
int workload_user_apply(const struct workload_user *wu);
void workload_user_free(struct workload_user *wu);

/* What an exec did with a set-user-ID or set-group-ID bit. */
enum setid_exec {
	SETID_NONE,		/* no bit, or one that changes nothing */
	SETID_HONOURED,		/* the effective ids differ from the real ones */
	SETID_IGNORED,		/* no_new_privs (or a nosuid mount) withheld it */
};

/* After an exec of pid, with its effective ids. */
enum setid_exec exec_setid(pid_t pid, uid_t *euid, gid_t *egid);

#endif
