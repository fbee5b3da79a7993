// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "privileges.h"
#include "error.h"
#include "procfs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool
has_cap(const struct __user_cap_data_struct data[2], int cap)
{
	return data[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

int
check_capabilities(const char **why)
{
	/* *why: only the main thread checks, once. */
	static char missing[128];
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	static const struct {
		int cap;
		int alternative;	/* also grants it, on older kernels */
		const char *name;
	} needed[] = {
		{ CAP_BPF, CAP_SYS_ADMIN, "CAP_BPF" },
		{ CAP_PERFMON, CAP_SYS_ADMIN, "CAP_PERFMON" },
		{ CAP_SYS_PTRACE, CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
	};
	size_t i, len = 0, size = sizeof(missing);

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	missing[0] = '\0';
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (has_cap(data, needed[i].cap) || has_cap(data, needed[i].alternative))
			continue;
		len += (size_t)snprintf(missing + len, len < size ? size - len : 0,
					"%s%s", len ? ", " : "", needed[i].name);
	}
	if (!len)
		return 0;
	*why = missing;
	return -EPERM;
}

int
check_kernel_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) ? -errno : 0;
}

int
check_environment(unsigned int *pidns_inum)
{
	const char *missing;
	int err = check_capabilities(&missing);

	if (err == -EPERM) {
		error_msg("memsup needs root, or CAP_BPF, CAP_PERFMON and "
			  "CAP_SYS_PTRACE; missing: %s", missing);
		return MS_EXIT_FAILURE;
	}
	if (err) {
		error_msg("cannot read memsup's capabilities: %s",
			  strerror(-err));
		return MS_EXIT_FAILURE;
	}
	if (check_kernel_btf()) {
		error_msg("this kernel exposes no BTF (/sys/kernel/btf/vmlinux); "
			  "memsup needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return MS_EXIT_FAILURE;
	}
	/* BPF names tasks by memsup's PID namespace; /proc must too. */
	err = proc_own_pid_namespace(pidns_inum);
	if (err == -EXDEV) {
		error_msg("/proc is not of memsup's PID namespace, in which memsup "
			  "is process %d: mount a /proc of its own there (as "
			  "unshare --pid --fork --mount-proc does)", getpid());
		return MS_EXIT_FAILURE;
	}
	if (err) {
		error_msg("cannot tell memsup's PID namespace from /proc/self: %s",
			  strerror(-err));
		return MS_EXIT_FAILURE;
	}
	return 0;
}

void
explain_bpf_failure(const char *what, int err)
{
	if (err == -ENOSYS)
		error_msg("cannot %s: this kernel has no BPF support "
			  "(CONFIG_BPF_SYSCALL)", what);
	else if (err == -EPERM || err == -EACCES)
		error_msg("cannot %s: %s (a verifier rejection, or BPF is restricted here: check "
			  "kernel.unprivileged_bpf_disabled, lockdown and seccomp)",
			  what, strerror(-err));
	else
		error_msg("cannot %s: %s", what, strerror(-err));
}
