// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "privileges.h"

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
check_capabilities(char *missing, size_t size)
{
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
	size_t i, len = 0;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	missing[0] = '\0';
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (has_cap(data, needed[i].cap) || has_cap(data, needed[i].alternative))
			continue;
		len += (size_t)snprintf(missing + len, len < size ? size - len : 0,
					"%s%s", len ? ", " : "", needed[i].name);
	}
	return len ? -EPERM : 0;
}

int
check_kernel_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) ? -errno : 0;
}
