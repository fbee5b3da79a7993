/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe discovery: which files a process's image needs probed, and where
 * their allocator functions are (ELF symbols to file offsets).
 */
#ifndef MEMSUP_PROBE_TARGETS_H
#define MEMSUP_PROBE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "memsup.h"
#include "free-nesting.h"
#include "probe-sites.h"

struct file_cache;
struct proc_maps;

/* One allocator function of a file, and where its probe goes. */
struct probe_call {
	uint64_t shape;		/* MS_SHAPE, the probe's cookie */
	uint64_t offset;	/* the probe's file offset */
	uint64_t entry;		/* the function's first byte: file offset */
	uint64_t vaddr;		/* and address */
	struct probe_site site;	/* offset is entry + site.offset */
	struct nesting_proof nesting;	/* a free's: whether it needs its return probe */
	char *name;
};

/*
 * An allocator function left unprobed: its code only jumps to another one
 * that is probed, and recorded as the same call, which then records it;
 * or it is the C++ runtime's operator new, which calls malloc (or another
 * operator new) for its block, and the stack is taken from its caller,
 * one frame up (struct ms_new_site).
 */
struct probe_forwarder {
	uint64_t entry;		/* its first byte: file offset */
	uint64_t vaddr;		/* and address */
	uint32_t jump;		/* the jmp's offset in the function, or the call's */
	bool calls;		/* an operator new that calls to, not a jump */
	uint32_t call_return;	/* then: the call's return address, as an offset */
	int32_t cfa_offset;	/* and its frame's size there, from its CFI */
	char *name;
	char *to;		/* the functions it reaches: "_ZdlPv -> free" */
};

/*
 * The allocator functions one ELF file defines, by file offset, and
 * whether it marks regions (memsup/region.h).
 */
struct probe_target {
	char *path;		/* as the process that mapped it first names it */
	int fd;			/* open, to attach through: see image_targets_find() */
	dev_t dev;
	ino_t ino;
	bool dynamic;		/* has an ELF interpreter */
	bool regions;		/* has USDT probes of provider "memsup" */
	bool python;		/* a Python interpreter: defines PyObject_Malloc */
	size_t ncalls;
	struct probe_call *calls;
	size_t nforwarders;
	struct probe_forwarder *forwarders;
};

/* Which functions get a probe, and where. */
struct probe_plan {
	enum probe_sites sites;	/* --probe-sites */
	bool forwarders;	/* --probe-forwarders: probe those too */
	bool free_returns;	/* --free-returns: every free's return too */
};

/* A call of malloc by an operator new without a probe, where a process maps it. */
struct new_site {
	uint64_t ret;		/* the call's return address in the process */
	uint32_t frame;		/* operator new's frame size there */
};

/* What to probe in the image a process runs now. */
struct image_targets {
	const struct probe_target **targets;	/* those with allocators or regions */
	size_t ntargets, targets_cap;
	struct new_site *new_sites;		/* of every mapping of the targets */
	size_t nnew_sites, new_sites_cap;
	const struct probe_target *exe;	/* attached through /proc/PID/exe */
	bool python;			/* a file of it is a Python interpreter */
};

/* The USDT provider of memsup/region.h. */
#define REGION_PROVIDER "memsup"

/*
 * Reads the allocator functions and region probes of the ELF file open as
 * fd into t, all but its path, with each probe where plan says.  Returns
 * 0, or a negative errno (-ENOEXEC: not a 64-bit ELF file).  Offsets are
 * checked against the file's size: a hostile file yields fewer probes,
 * never bad ones.
 */
int probe_target_read(int fd, const struct probe_plan *plan, struct probe_target *t);
/* Frees what probe_target_read allocated in t. */
void probe_target_free(struct probe_target *t);

/*
 * Works out what to probe in what pid maps now (maps, as proc_maps_read
 * found them): every executable file mapping whose ELF symbols define
 * allocator functions or that marks regions, the executable (through
 * /proc/PID/exe) included.  A file memsup reaches at no path (a process
 * of another root or mount namespace) is held open, as fd, else fd is -1.
 * Each file is read once; out points into files, which must outlive it.
 * Returns 0 or a negative errno; *why names the file at fault.
 */
int image_targets_find(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
		       const struct probe_plan *plan, struct image_targets *out,
		       const char **why);
void image_targets_copy(struct image_targets *to, const struct image_targets *from);
void image_targets_free(struct image_targets *it);

#endif
