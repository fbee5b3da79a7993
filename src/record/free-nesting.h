/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a free can make a nested allocator call.  A free's return probe
 * exists only to end the time in which calls nested in it are known as
 * such; a free whose code provably reaches no allocator function needs
 * none, and its entry alone records it (MS_SHAPE_ENTRY_ONLY).  The proof
 * follows every path from the function's entry through the file's code:
 * direct calls and jumps into the callee, a call through a GOT slot by
 * the slot's symbol, and the end of a path where a call is the last
 * instruction its FDE covers (the callee never returns).  Anything it
 * cannot follow (an indirect call or jump, a retpoline's ret or jump, a
 * function of another file but the C library's string functions, code
 * without CFI, a jump back to the free's probe) keeps the return.
 */
#ifndef MEMSUP_FREE_NESTING_H
#define MEMSUP_FREE_NESTING_H

#include "u64map.h"

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_got_names;
struct unwind_fde;

/* The file a proof reads, and what it knows of it. */
struct nesting_file {
	Elf *elf;
	const uint8_t *image;	/* the file's bytes */
	/* The file offset of the code at vaddr, and its bytes up to its segment's end. */
	bool (*bytes_at)(const void *ctx, uint64_t vaddr, uint64_t *offset, uint64_t *room);
	/* The name of the allocator function whose code holds vaddr, or NULL. */
	const char *(*allocator_at)(const void *ctx, uint64_t vaddr);
	const void *ctx;
	const struct elf_got_names *got;	/* its GOT slots, named */
	/* Read by the first proof, for the others of the file: */
	bool read;
	struct unwind_fde *fdes;	/* of its .eh_frame, sorted */
	size_t nfdes;
	struct u64map noreturn;		/* the functions that never return, by address */
};

/* Why a free keeps its return probe. */
enum nesting_why {
	NESTING_NONE,		/* it need not: nothing nested can happen */
	NESTING_ASKED,		/* --free-returns */
	NESTING_NO_DECODER,	/* memsup was built without one */
	NESTING_NO_CFI,		/* at: code no FDE covers (or built without libdw) */
	NESTING_UNDECODABLE,	/* at: bytes that do not decode */
	NESTING_ALLOCATOR,	/* at: a call or jump to allocator function name */
	NESTING_OTHER_FILE,	/* at: a call through the GOT to name, of any file */
	NESTING_INDIRECT,	/* at: a call or jump whose target, or return, is not known */
	NESTING_RUNS_ON,	/* at: an instruction that is not a call runs past its FDE */
	NESTING_TOO_LONG,	/* more than NESTING_INSNS_MAX instructions reached */
};

struct nesting_proof {
	enum nesting_why why;
	uint64_t at;		/* the instruction's address */
	char name[96];		/* the function reached */
	size_t insns;		/* the instructions reached */
};

/* A walk reaches at most this many: glibc 2.36's free reaches about 4,100. */
#define NESTING_INSNS_MAX 100000

/*
 * Proves that the free at vaddr (a function of the file), probed at site,
 * makes no nested allocator call, or says why it cannot (out->why).
 */
void free_nesting_prove(struct nesting_file *file, uint64_t vaddr, uint64_t site,
			struct nesting_proof *out);
/* Frees what the proofs read of the file. */
void nesting_file_release(struct nesting_file *file);

#endif
