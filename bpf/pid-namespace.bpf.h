/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Threads and processes by their ids in memsup's own PID namespace, the
 * ids the supervisor, the tracked set and the capture use.  In the
 * initial namespace those are the kernel's global ids.  Elsewhere, a
 * task's id is the one its struct pid holds for memsup's namespace, which
 * every task of that namespace and of the namespaces nested in it has (so
 * a workload that makes its own namespace is still named by memsup's
 * ids; bpf_get_ns_current_pid_tgid() knows only a task's own namespace).
 * From inside a namespace its depth cannot be read (NS_GET_PARENT does
 * not look up), so it is found from the task's own depth up.
 */
#ifndef MEMSUP_PID_NAMESPACE_BPF_H
#define MEMSUP_PID_NAMESPACE_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* PROC_PID_INIT_INO: the initial PID namespace's inode, fixed by the kernel. */
#define MS_INITIAL_PIDNS_INUM 0xeffffffcU
/* MAX_PID_NS_LEVEL */
#define MS_MAX_PIDNS_LEVEL 32

/*
 * pid's number in memsup's namespace, whose inode is pidns_inum (the
 * supervisor's /proc/self/ns/pid); 0 for a task outside it.
 */
static __always_inline __u32
pid_in_memsup_ns(const struct pid *pid, __u32 pidns_inum)
{
	int level = (int)BPF_CORE_READ(pid, level);
	struct upid up;
	int i;

	for (i = 0; i < MS_MAX_PIDNS_LEVEL && level - i >= 0; i++) {
		if (bpf_core_read(&up, sizeof(up), &pid->numbers[level - i]))
			return 0;
		if (BPF_CORE_READ(up.ns, ns.inum) == pidns_inum)
			return (__u32)up.nr;
	}
	return 0;
}

/* As bpf_get_current_pid_tgid(): the process id above, the thread id below. */
static __always_inline __u64
current_pid_tgid(__u32 pidns_inum)
{
	struct task_struct *task;

	if (pidns_inum == MS_INITIAL_PIDNS_INUM)
		return bpf_get_current_pid_tgid();
	task = bpf_get_current_task_btf();
	return (__u64)pid_in_memsup_ns(task->group_leader->thread_pid, pidns_inum) << 32 |
	       pid_in_memsup_ns(task->thread_pid, pidns_inum);
}

#endif
