/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How memsup -p learns of the libraries a process maps: a process memsup
 * attached to must keep nothing of memsup's should memsup die, so it gets
 * no breakpoint in its dynamic linker (doc/design.md, "Libraries").
 * Instead, an executable file mapping made by a tracked process wakes the
 * supervisor, which interrupts the thread and probes what it maps at its
 * stop.  The kernel removes this program with memsup's descriptors.
 *
 * The tracepoint of the mmap system call fires on mmap only, but is found
 * through tracefs, which need not be mounted; the raw tracepoint of every
 * system call's entry, the fallback, costs every call on the machine
 * about 90 ns while memsup -p runs.  Not fentry on the mmap path: these
 * machines refuse BPF trampolines (EPERM at load).  The programs live in
 * memsup.bpf.c.
 */
#ifndef MEMSUP_MAPPING_WATCH_BPF_H
#define MEMSUP_MAPPING_WATCH_BPF_H

#include <bpf/bpf_helpers.h>
#include "memsup.h"

#define MS_NR_MMAP 9		/* x86_64 */
#define MS_PROT_EXEC 0x4
#define MS_MAP_ANONYMOUS 0x20

/* The record of syscalls/sys_enter_mmap, as its format file gives it. */
struct sys_enter_mmap_record {
	__u64 common;
	int nr;
	unsigned long addr, len, prot, flags, fd, off;
};

/*
 * Wakes the supervisor through the ring wakes for an executable file
 * mapping made by a process of tracked; counts in *missed the wakes that
 * found no room, for the supervisor then to look at every process.
 */
static __always_inline void
mapping_wake(void *tracked, void *wakes, __u64 *missed, __u64 pid_tgid,
	     unsigned long prot, unsigned long flags)
{
	__u32 tgid = pid_tgid >> 32;
	struct ms_mapping_wake *wake;

	if (!(prot & MS_PROT_EXEC) || (flags & MS_MAP_ANONYMOUS) ||
	    !bpf_map_lookup_elem(tracked, &tgid))
		return;
	wake = bpf_ringbuf_reserve(wakes, sizeof(*wake), 0);
	if (!wake) {
		__sync_fetch_and_add(missed, 1);
		return;
	}
	wake->pid = tgid;
	wake->tid = (__u32)pid_tgid;
	bpf_ringbuf_submit(wake, BPF_RB_FORCE_WAKEUP);
}

#endif
