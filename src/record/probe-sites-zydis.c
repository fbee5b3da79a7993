// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe-site chooser, on Zydis's decoder.  The kernel's rules are
 * arch/x86/kernel/uprobes.c's (Linux 6.x): uprobe_init_insn refuses any
 * instruction with an ES, CS, SS or DS segment prefix or LOCK;
 * branch_setup_xol_ops emulates nops, jmp rel8/rel32, call rel32 and Jcc
 * rel8/rel32, and refuses a branch with an operand-size prefix;
 * push_setup_xol_ops emulates push of a register, one byte, or two with
 * the REX prefix 0x41 (%r8-%r15).  Everything else is single-stepped.
 */
#include "config.h"
#include "probe-sites.h"

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stdio.h>

const char *const probe_sites_decoder = "Zydis";

struct insn {
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
};

/* The integer argument registers, numbered as MS_SHAPE numbers them. */
static const ZydisRegister arg_regs[] = {
	ZYDIS_REGISTER_NONE, ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_RSI,
	ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RCX,
};

#define N_ARG_REGS (sizeof(arg_regs) / sizeof(arg_regs[0]))

static bool
decode(const uint8_t *code, size_t size, struct insn *in)
{
	static ZydisDecoder decoder;
	static bool ready;

	if (!ready) {
		if (!ZYAN_SUCCESS(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64,
						   ZYDIS_STACK_WIDTH_64)))
			return false;
		ready = true;
	}
	return size && ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, code, size,
							   &in->i, in->op));
}

/* uprobe_init_insn refuses these: such an instruction cannot be probed. */
static bool
refused_prefix(const struct insn *in)
{
	size_t k;

	for (k = 0; k < in->i.raw.prefix_count; k++) {
		switch (in->i.raw.prefixes[k].value) {
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0xf0:
			return true;
		}
	}
	return false;
}

static bool
emulated(const struct insn *in, const uint8_t *bytes)
{
	const ZydisDecodedInstruction *i = &in->i;
	uint8_t op = i->opcode;

	if (refused_prefix(in))
		return false;
	/* 0x90 (not pause, not xchg with %r8) and 0f 1f /0, the "wide" nops. */
	if (i->mnemonic == ZYDIS_MNEMONIC_NOP) {
		if (i->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT)
			return op == 0x90;
		return i->opcode_map == ZYDIS_OPCODE_MAP_0F && op == 0x1f && !i->raw.modrm.reg;
	}
	switch (i->meta.category) {
	case ZYDIS_CATEGORY_PUSH:
		if (i->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT || op < 0x50 || op > 0x57)
			return false;
		return i->length == 1 || (i->length == 2 && bytes[0] == 0x41);
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
		/* Relative forms only; the kernel refuses 0x66, so no prefix. */
		if (i->raw.prefix_count)
			return false;
		if (i->opcode_map == ZYDIS_OPCODE_MAP_0F)
			return op >= 0x80 && op <= 0x8f;
		return i->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		       (op == 0xe8 || op == 0xe9 || op == 0xeb || (op >= 0x70 && op <= 0x7f));
	default:
		return false;
	}
}

int
probe_site_emulated(const uint8_t *code, size_t size)
{
	struct insn in;

	return decode(code, size, &in) && emulated(&in, code);
}

static ZydisRegister
full_register(ZydisRegister reg)
{
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
}

static bool
transfers_control(const struct insn *in)
{
	switch (in->i.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_SYSTEM:
		return true;
	default:
		break;
	}
	switch (in->i.mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
		return true;
	default:
		return false;
	}
}

/*
 * Why an instruction may not run before the probe: it leaves the straight
 * line, or changes what the probe reads (the cookie's arguments, the
 * stack pointer, the return address at [rsp]).  SITE_EMULATED if it may.
 */
static enum probe_site_why
harm(const struct insn *in, unsigned int args, unsigned int *arg)
{
	size_t k, n;

	if (transfers_control(in))
		return SITE_BRANCHES;
	for (k = 0; k < in->i.operand_count; k++) {
		const ZydisDecodedOperand *o = &in->op[k];
		ZydisRegister reg;

		if (!(o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    full_register(o->mem.base) == ZYDIS_REGISTER_RSP)
			return SITE_WRITES_STACK;
		if (o->type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		reg = full_register(o->reg.value);
		if (reg == ZYDIS_REGISTER_RIP)
			return SITE_BRANCHES;
		if (reg == ZYDIS_REGISTER_RSP)
			return SITE_WRITES_SP;
		for (n = 1; n < N_ARG_REGS; n++) {
			if ((args & 1U << n) && reg == arg_regs[n]) {
				*arg = (unsigned int)n;
				return SITE_WRITES_ARG;
			}
		}
	}
	return SITE_EMULATED;
}

/* A jmp through a register or a pointer in memory, but a GOT slot's. */
static bool
indirect_jump(const struct insn *in)
{
	const ZydisDecodedOperand *o = &in->op[0];

	if (in->i.meta.category != ZYDIS_CATEGORY_UNCOND_BR)
		return false;
	if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return false;
	return o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.base != ZYDIS_REGISTER_RIP;
}

/*
 * Every branch of the function, to show none lands in (0, site]: landing
 * there would reach the probe on a path that never passed the entry.
 */
static void
check_branches(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_site *s)
{
	struct insn in;
	size_t at, k;

	for (at = 0; at < size; at += in.i.length) {
		if (!decode(code + at, size - at, &in)) {
			s->why = SITE_UNDECODABLE;
			s->at = (uint32_t)at;
			return;
		}
		if (indirect_jump(&in)) {
			s->why = SITE_INDIRECT_JUMP;
			s->at = (uint32_t)at;
			return;
		}
		for (k = 0; k < in.i.operand_count; k++) {
			ZyanU64 target;

			if (in.op[k].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
			    !in.op[k].imm.is_relative ||
			    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in.i, &in.op[k],
								   vaddr + at, &target)))
				continue;
			if (target > vaddr && target - vaddr <= s->offset) {
				s->why = SITE_BRANCH_INTO;
				s->at = (uint32_t)at;
				return;
			}
		}
	}
}

void
probe_site_choose(const uint8_t *code, size_t size, uint64_t vaddr,
		  unsigned int args, size_t inside, struct probe_site *s)
{
	struct insn in;
	size_t at;

	*s = (struct probe_site){ .offset = 0, .why = SITE_EMULATED };
	if (!size) {
		s->why = SITE_NO_SIZE;
		return;
	}
	for (at = 0; at < size; at += in.i.length) {
		s->at = (uint32_t)at;
		if (!decode(code + at, size - at, &in)) {
			s->why = SITE_UNDECODABLE;
			return;
		}
		if (emulated(&in, code + at))
			break;
		s->why = harm(&in, args, &s->arg);
		if (s->why != SITE_EMULATED)
			return;
	}
	if (at >= size) {
		s->why = SITE_ENDS;
		return;
	}
	if (!at)
		return;
	if (at >= inside) {
		s->why = SITE_ENTRY_INSIDE;
		s->at = (uint32_t)inside;
		return;
	}
	s->offset = (uint32_t)at;
	check_branches(code, size, vaddr, s);
	if (s->why != SITE_EMULATED)
		s->offset = 0;
}

/* Where a call or jmp goes: a relative target, or the GOT slot it reads. */
static bool
branch_target(const struct insn *in, uint64_t vaddr, struct probe_branch *b)
{
	const ZydisDecodedOperand *o = &in->op[0];
	ZyanU64 to;

	if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.is_relative)
		b->through_slot = false;
	else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RIP &&
		 o->mem.index == ZYDIS_REGISTER_NONE && o->mem.segment == ZYDIS_REGISTER_DS)
		b->through_slot = true;
	else
		return false;
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in->i, o, vaddr, &to)))
		return false;
	b->to = to;
	return true;
}

/* A mov from a register to a general register that is not %rsp nor one of args. */
static bool
harmless_move(const struct insn *in, unsigned int args)
{
	ZydisRegister to;
	size_t n;

	if (in->i.mnemonic != ZYDIS_MNEMONIC_MOV || in->i.operand_count_visible != 2 ||
	    in->op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    in->op[1].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    (ZydisRegisterGetClass(in->op[0].reg.value) != ZYDIS_REGCLASS_GPR64 &&
	     ZydisRegisterGetClass(in->op[0].reg.value) != ZYDIS_REGCLASS_GPR32))
		return false;
	to = full_register(in->op[0].reg.value);
	if (to == ZYDIS_REGISTER_RSP)
		return false;
	for (n = 1; n < N_ARG_REGS; n++)
		if ((args & 1U << n) && to == arg_regs[n])
			return false;
	return true;
}

/* The first instruction after an optional endbr64 and at most moves harmless moves. */
static int
jump_after(const uint8_t *code, size_t size, uint64_t vaddr, unsigned int args,
	   unsigned int moves, struct probe_jump *j)
{
	struct probe_branch b;
	struct insn in;
	size_t at = 0;

	if (!decode(code, size, &in))
		return 0;
	if (in.i.mnemonic == ZYDIS_MNEMONIC_ENDBR64) {
		at = in.i.length;
		if (!decode(code + at, size - at, &in))
			return 0;
	}
	for (; moves && harmless_move(&in, args); moves--) {
		at += in.i.length;
		if (!decode(code + at, size - at, &in))
			return 0;
	}
	if (in.i.mnemonic != ZYDIS_MNEMONIC_JMP || !branch_target(&in, vaddr + at, &b))
		return 0;
	j->at = (uint32_t)at;
	j->through_slot = b.through_slot;
	j->to = b.to;
	return 1;
}

int
probe_site_jump(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_jump *j)
{
	return jump_after(code, size, vaddr, 0, 0, j);
}

int
probe_site_forward(const uint8_t *code, size_t size, uint64_t vaddr, unsigned int args,
		   struct probe_jump *j)
{
	return jump_after(code, size, vaddr, args, PROBE_FORWARD_MOVES, j);
}

int
probe_site_branches(const uint8_t *code, size_t size, uint64_t vaddr,
		    bool (*each)(void *ctx, const struct probe_branch *b), void *ctx)
{
	struct insn in;
	size_t at;

	for (at = 0; at < size; at += in.i.length) {
		struct probe_branch b = { .at = (uint32_t)at };

		if (!decode(code + at, size - at, &in))
			return 0;
		b.next = (uint32_t)(at + in.i.length);
		b.call = in.i.meta.category == ZYDIS_CATEGORY_CALL;
		if (!b.call && in.i.meta.category != ZYDIS_CATEGORY_UNCOND_BR &&
		    in.i.meta.category != ZYDIS_CATEGORY_COND_BR)
			continue;
		b.known = branch_target(&in, vaddr + at, &b);
		/* A jump within the function stays in the code looked at. */
		if (!b.call && b.known && !b.through_slot && b.to >= vaddr && b.to - vaddr < size)
			continue;
		if (!each(ctx, &b))
			return 0;
	}
	return 1;
}

/* Whether the instruction writes %rip other than as a branch of its category. */
static bool
writes_rip(const struct insn *in)
{
	size_t k;

	for (k = 0; k < in->i.operand_count; k++)
		if (in->op[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    in->op[k].reg.value == ZYDIS_REGISTER_RIP &&
		    (in->op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return true;
	return false;
}

/* A relative target of an instruction that is not a call or a jmp: xbegin's, loop's. */
static bool
relative_target(const struct insn *in, uint64_t vaddr, uint64_t *to)
{
	size_t k;

	for (k = 0; k < in->i.operand_count; k++) {
		ZyanU64 target;

		if (in->op[k].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && in->op[k].imm.is_relative &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in->i, &in->op[k], vaddr, &target))) {
			*to = target;
			return true;
		}
	}
	return false;
}

/*
 * Whether the instruction writes the word at [rsp]: a push, or a store to
 * (%rsp).  A call's push is its callee's to pop.
 */
static bool
writes_top(const struct insn *in)
{
	size_t k;

	if (in->i.meta.category == ZYDIS_CATEGORY_PUSH)
		return true;
	for (k = 0; k < in->i.operand_count_visible; k++) {
		const ZydisDecodedOperand *o = &in->op[k];

		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    full_register(o->mem.base) == ZYDIS_REGISTER_RSP &&
		    o->mem.index == ZYDIS_REGISTER_NONE && !o->mem.disp.value)
			return true;
	}
	return false;
}

int
probe_site_step(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_step *s)
{
	struct probe_branch b;
	struct insn in;

	if (!decode(code, size, &in))
		return 0;
	*s = (struct probe_step){ .length = in.i.length, .flow = FLOW_ON,
				  .writes_top = writes_top(&in) };
	switch (in.i.mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_INT3:
		s->flow = FLOW_STOPS;
		return 1;
	default:
		break;
	}
	switch (in.i.meta.category) {
	case ZYDIS_CATEGORY_RET:
		s->flow = FLOW_RETURNS;
		return 1;
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_UNCOND_BR:
		s->flow = in.i.meta.category == ZYDIS_CATEGORY_CALL ? FLOW_CALL : FLOW_JUMP;
		s->known = branch_target(&in, vaddr, &b);
		s->through_slot = s->known && b.through_slot;
		s->to = s->known ? b.to : 0;
		return 1;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
		/* The kernel returns to the next instruction. */
		return 1;
	default:
		break;
	}
	if (relative_target(&in, vaddr, &s->to)) {
		s->flow = FLOW_BRANCH;
		s->known = true;
	} else if (writes_rip(&in)) {
		s->flow = FLOW_JUMP;
	}
	return 1;
}

void
probe_site_format(const uint8_t *code, size_t size, uint64_t vaddr, char *buf,
		  size_t len)
{
	ZydisFormatter formatter;
	struct insn in;

	/* As objdump writes them: lowercase, addresses unpadded. */
	if (!decode(code, size, &in) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_ATT)) ||
	    !ZYAN_SUCCESS(ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE,
						    ZYAN_FALSE)) ||
	    !ZYAN_SUCCESS(ZydisFormatterSetProperty(&formatter,
						    ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
						    ZYDIS_PADDING_DISABLED)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, &in.i, in.op,
							  in.i.operand_count_visible,
							  buf, len, vaddr, NULL)))
		snprintf(buf, len, "(bad)");
}
