// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "credentials.h"
#include "error.h"
#include "human-numbers.h"
#include "procfs.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The user's groups, as login would set them. */
static int
load_groups(struct workload_user *wu, const char *name)
{
	int n = 0;

	getgrouplist(name, wu->gid, NULL, &n);
	wu->groups = xcalloc((size_t)n, sizeof(*wu->groups));
	/* Only if the list grew since the count a moment ago. */
	if (getgrouplist(name, wu->gid, wu->groups, &n) < 0)
		return -EAGAIN;
	wu->ngroups = n;
	return 0;
}

static bool
parse_id(const char *s, unsigned long *id)
{
	uint64_t n;

	if (!human_parse(s, &n, NULL) || n > ULONG_MAX)
		return false;
	*id = (unsigned long)n;
	return true;
}

int
workload_user_resolve(struct workload_user *wu, const char *user,
		      bool keep_root, const char **why)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned long uid, gid;
	int err;

	memset(wu, 0, sizeof(*wu));
	if (keep_root)
		return 0;
	if (user) {
		pw = getpwnam(user);
		if (!pw) {
			*why = "no such user";
			return -ENOENT;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	} else {
		/* sudo sets these; they mean nothing unless memsup is root. */
		if (getuid() != 0 || !sudo_uid)
			return 0;
		if (!parse_id(sudo_uid, &uid) || !sudo_gid || !parse_id(sudo_gid, &gid)) {
			*why = "SUDO_UID or SUDO_GID is not a number";
			return -EINVAL;
		}
		if (uid == 0)
			return 0;
		pw = getpwuid((uid_t)uid);
		if (!pw) {
			*why = "SUDO_UID names no user";
			return -ENOENT;
		}
	}
	wu->change = true;
	wu->uid = (uid_t)uid;
	wu->gid = (gid_t)gid;
	err = load_groups(wu, pw->pw_name);
	if (err) {
		*why = "cannot list the user's groups";
		workload_user_free(wu);
		return err;
	}
	return 0;
}

int
workload_user_apply(const struct workload_user *wu)
{
	/* Groups first, then the gid, then the uid, which ends the right
	 * to change the others. */
	if (wu->change && (setgroups((size_t)wu->ngroups, wu->groups) ||
			   setgid(wu->gid) || setuid(wu->uid)))
		return -errno;
	/*
	 * The kernel honours a set-user-ID program under a tracer holding
	 * CAP_SYS_PTRACE.  The workload must not gain privilege through
	 * memsup's, so a workload that is not root gets none from exec.
	 */
	if (getuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L))
		return -errno;
	return 0;
}

void
workload_user_free(struct workload_user *wu)
{
	free(wu->groups);
	wu->groups = NULL;
	wu->ngroups = 0;
}

enum setid_exec
exec_setid(pid_t pid, uid_t *euid, gid_t *egid)
{
	unsigned int ruid, uid, rgid, gid;
	bool setuid_bit, setgid_bit;
	char exe[64];
	struct stat st;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (stat(exe, &st) ||
	    proc_status_scan(pid, "Uid", "%u %u", &ruid, &uid) != 2 ||
	    proc_status_scan(pid, "Gid", "%u %u", &rgid, &gid) != 2)
		return SETID_NONE;
	*euid = uid;
	*egid = gid;
	if (ruid != uid || rgid != gid)
		return SETID_HONOURED;
	/* Set-group-ID without group execute marks mandatory locking. */
	setuid_bit = (st.st_mode & S_ISUID) && st.st_uid != uid;
	setgid_bit = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) &&
		     st.st_gid != gid;
	return setuid_bit || setgid_bit ? SETID_IGNORED : SETID_NONE;
}
