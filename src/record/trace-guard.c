// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "trace-guard.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The system calls' numbers of the other ABIs an x86-64 kernel runs. */
#define MS_NR_PTRACE_I386 26
#define MS_NR_PTRACE_X32 (0x40000000 + 521)

#define LOAD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define JUMP_IF(k, yes, no) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (yes), (no))
#define RETURN(v) BPF_STMT(BPF_RET | BPF_K, (v))

void
trace_guard_build(struct trace_guard *g, pid_t supervisor)
{
	const struct sock_filter code[] = {
		/* 0 */ LOAD(arch),
		/* 1 */ JUMP_IF(AUDIT_ARCH_X86_64, 0, 3),
		/* 2 */ LOAD(nr),
		/* 3 */ JUMP_IF(__NR_ptrace, 4, 0),
		/* 4 */ JUMP_IF(MS_NR_PTRACE_X32, 3, 8),
		/* 5 */ JUMP_IF(AUDIT_ARCH_I386, 0, 7),
		/* 6 */ LOAD(nr),
		/* 7 */ JUMP_IF(MS_NR_PTRACE_I386, 0, 5),
		/* The low halves: all the kernel reads of request and pid. */
		/* 8 */ LOAD(args[0]),
		/* 9 */ JUMP_IF(PTRACE_ATTACH, 1, 0),
		/* 10 */ JUMP_IF(PTRACE_SEIZE, 0, 2),
		/* 11 */ LOAD(args[1]),
		/* 12 */ JUMP_IF((__u32)supervisor, 1, 0),
		/* 13 */ RETURN(SECCOMP_RET_ALLOW),
		/* 14 */ RETURN(SECCOMP_RET_ERRNO | EPERM),
	};
	size_t i;

	_Static_assert(sizeof(code) <= sizeof(g->code), "TRACE_GUARD_LEN");
	for (i = 0; i < sizeof(code) / sizeof(code[0]); i++)
		g->code[i] = code[i];
	g->prog.len = (unsigned short)i;
	g->prog.filter = g->code;
}

int
trace_guard_install(const struct trace_guard *g)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &g->prog))
		return -errno;
	return 0;
}
