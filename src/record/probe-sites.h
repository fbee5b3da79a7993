/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where in an allocator function its probe goes.  The x86 kernel emulates
 * a few instructions at a uprobe (push of a register, jmp, call rel32,
 * Jcc, nop) and single-steps every other one out of line, which costs
 * over ten times more.  So the probe goes on the first instruction of the
 * function's straight-line start that the kernel emulates, as long as the
 * probe sees there exactly what it would see at the entry: the argument
 * registers its cookie reads, the stack pointer, and the return address
 * at [rsp].  Otherwise it stays at +0.
 *
 * One backend per build: Zydis decodes, or there is no decoder and every
 * probe stays at +0.
 */
#ifndef MEMSUP_PROBE_SITES_H
#define MEMSUP_PROBE_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --probe-sites */
enum probe_sites {
	PROBE_SITES_AUTO,
	PROBE_SITES_ENTRY,
};

/* What decided the site. */
enum probe_site_why {
	SITE_EMULATED,		/* the kernel emulates the instruction there */
	SITE_ENTRY_ASKED,	/* --probe-sites=entry */
	SITE_NO_DECODER,	/* built without one */
	SITE_NO_SIZE,		/* the symbol has no size to bound the function */
	SITE_UNDECODABLE,	/* at: bytes that do not decode */
	SITE_BRANCHES,		/* at: a branch, call or return comes first */
	SITE_WRITES_SP,		/* at: writes the stack pointer */
	SITE_WRITES_STACK,	/* at: writes memory through the stack pointer */
	SITE_WRITES_ARG,	/* at: writes argument register arg */
	SITE_ENDS,		/* the function ends before an emulated instruction */
	SITE_BRANCH_INTO,	/* at: a branch lands inside the skipped start */
	SITE_INDIRECT_JUMP,	/* at: a jump whose targets cannot be bounded */
	SITE_ENTRY_INSIDE,	/* another symbol starts inside the skipped start */
};

struct probe_site {
	uint32_t offset;	/* from the function's first byte */
	enum probe_site_why why;
	uint32_t at;		/* the offset the reason is about */
	unsigned int arg;	/* SITE_WRITES_ARG: 1 for %rdi... */
};

/* The backend's name, for --version; NULL when this build has none. */
extern const char *const probe_sites_decoder;

/*
 * Chooses the site in a function of size bytes at code, loaded at vaddr.
 * args has bit n set for each argument n (1: %rdi ... 4: %rcx) the
 * probe's cookie reads; inside is the offset of the first other symbol
 * that starts within the function (size if none).  size 0 means unknown.
 */
void probe_site_choose(const uint8_t *code, size_t size, uint64_t vaddr,
		       unsigned int args, size_t inside, struct probe_site *out);

/*
 * Whether the kernel emulates the instruction at code (size bytes left):
 * 1 or 0; -ENOTSUP when this build cannot tell.
 */
int probe_site_emulated(const uint8_t *code, size_t size);

/* Where a function that only jumps on goes. */
struct probe_jump {
	uint32_t at;		/* the jmp's offset in the function */
	bool through_slot;	/* jmp *slot(%rip): to is the slot's address */
	uint64_t to;		/* the address jumped to, or the slot's */
};

/*
 * Whether the size bytes at code, loaded at vaddr, begin with nothing but
 * a jump, after an optional endbr64: a jmp rel8 or rel32, or a jmp through
 * a pointer at a RIP-relative address (a GOT slot).  What follows the jmp
 * never runs after it.  1 or 0; -ENOTSUP when this build cannot tell.
 */
int probe_site_jump(const uint8_t *code, size_t size, uint64_t vaddr,
		    struct probe_jump *out);

/* The moves a forwarder may make before its jump: libstdc++'s take one. */
#define PROBE_FORWARD_MOVES 4

/*
 * As probe_site_jump, but up to PROBE_FORWARD_MOVES moves from a register
 * to another may come before the jmp, none to %rsp or to an argument in
 * args (bit n for argument n, as probe_site_choose takes them): libstdc++'s
 * sized aligned delete moves its alignment, which free does not read.
 */
int probe_site_forward(const uint8_t *code, size_t size, uint64_t vaddr, unsigned int args,
		       struct probe_jump *out);

/* A call, or a jump that leaves the function, as probe_site_branches finds it. */
struct probe_branch {
	uint32_t at;		/* its offset in the function */
	uint32_t next;		/* the next instruction's: a call's return address */
	bool call;		/* a call; else a jmp or Jcc */
	bool known;		/* to is known: a relative target or a GOT slot */
	bool through_slot;	/* through a pointer at a RIP-relative address: to is its address */
	uint64_t to;
};

/*
 * Every call in the size bytes at code, loaded at vaddr, and every jump
 * that leaves them, to each(ctx, branch) in order; each returns false to
 * stop.  1 when every instruction decoded and each went on, 0 otherwise;
 * -ENOTSUP when this build cannot tell.
 */
int probe_site_branches(const uint8_t *code, size_t size, uint64_t vaddr,
			bool (*each)(void *ctx, const struct probe_branch *b), void *ctx);

/* Where the instruction a walk of the code is at lets it go. */
enum probe_flow {
	FLOW_ON,	/* to the next instruction */
	FLOW_STOPS,	/* nowhere: ud2, hlt, int3 */
	FLOW_RETURNS,	/* to the return address at [rsp]: ret */
	FLOW_BRANCH,	/* to the target, or the next instruction (a Jcc) */
	FLOW_JUMP,	/* to the target */
	FLOW_CALL,	/* to the target, then the next instruction when it returns */
};

struct probe_step {
	uint32_t length;
	enum probe_flow flow;
	bool known;		/* to is known: a relative target or a GOT slot */
	bool through_slot;	/* through a pointer at a RIP-relative address: to is its address */
	uint64_t to;
	bool writes_top;	/* writes [rsp], where a ret takes its address: a push, a store */
};

/*
 * The instruction at code (size bytes left), loaded at vaddr, as a walk of
 * the code follows it.  1, or 0 when it does not decode; -ENOTSUP when
 * this build cannot tell.
 */
int probe_site_step(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_step *out);

/* The instruction at code, loaded at vaddr, in AT&T syntax. */
void probe_site_format(const uint8_t *code, size_t size, uint64_t vaddr,
		       char *buf, size_t len);

#endif
