/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The few kernel types memsup's BPF programs use, for x86_64.
 *
 * Pinned and hand-written, as perf does, so that building memsup never
 * reads the build host's kernel.  Every struct is marked
 * preserve_access_index, so libbpf relocates field offsets against the
 * running kernel's BTF at load time (CO-RE).  bpf_tracing.h picks its
 * register names from struct pt_regs when __VMLINUX_H__ is defined.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;

enum {
	false = 0,
	true = 1,
};

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
};

enum {
	BPF_F_USER_STACK = 256,
};

enum {
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1024,
};

struct bpf_dynptr {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

struct ns_common {
	unsigned int inum;
};

struct pid_namespace {
	struct ns_common ns;
};

struct upid {
	int nr;
	struct pid_namespace *ns;
};

struct pid {
	unsigned int level;
	struct upid numbers[];
};

struct task_struct {
	unsigned int ptrace;
	int pid;
	int tgid;
	struct task_struct *parent;
	struct pid *thread_pid;
	struct task_struct *group_leader;
};

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
};

#pragma clang attribute pop

#endif /* __VMLINUX_H__ */
