// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the probe-site chooser, on hand-assembled functions: each
 * rule that keeps a probe at +0, each instruction the kernel emulates, and
 * the shapes of the allocators memsup meets (glibc's free, libstdc++'s
 * operator new and delete); which functions only jump on, and where; and
 * where a walk of the code goes from each kind of instruction.
 */
#include "config.h"
#include "probe-sites.h"
#include "tap.h"

#define RDI (1U << 1)
#define RSI (1U << 2)
#define ENDBR64 0xf3, 0x0f, 0x1e, 0xfa
#define NO_INSIDE ((size_t)-1)

static const struct site_case {
	const char *what;
	uint8_t code[32];
	size_t size;
	unsigned int args;
	size_t inside;		/* NO_INSIDE: the whole function */
	struct probe_site want;
} cases[] = {
	{ "a REX push at +0 is the site",
	  { 0x41, 0x54, 0x55, 0xc3 }, 4, RDI, NO_INSIDE,
	  { 0, SITE_EMULATED, 0, 0 } },
	{ "free: test %rdi,%rdi; je: the Jcc",
	  { 0x48, 0x85, 0xff, 0x74, 0x01, 0x55, 0xc3 }, 7, RDI, NO_INSIDE,
	  { 3, SITE_EMULATED, 0, 0 } },
	{ "a Jcc rel32 is emulated",
	  { 0x48, 0x85, 0xff, 0x0f, 0x84, 0x00, 0x00, 0x00, 0x00, 0xc3 }, 10, RDI, NO_INSIDE,
	  { 3, SITE_EMULATED, 0, 0 } },
	{ "operator delete: endbr64; jmp rel32",
	  { ENDBR64, 0xe9, 0x00, 0x00, 0x00, 0x00 }, 9, RDI, NO_INSIDE,
	  { 4, SITE_EMULATED, 0, 0 } },
	{ "operator new: endbr64; test; mov $1,%eax; push %rbx",
	  { ENDBR64, 0x48, 0x85, 0xff, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x53, 0x5b, 0xc3 },
	  15, RDI, NO_INSIDE, { 12, SITE_EMULATED, 0, 0 } },
	{ "call rel32 is emulated",
	  { ENDBR64, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3 }, 10, RDI, NO_INSIDE,
	  { 4, SITE_EMULATED, 0, 0 } },
	{ "a 5-byte nop is emulated",
	  { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 }, 6, RDI, NO_INSIDE,
	  { 0, SITE_EMULATED, 0, 0 } },
	{ "pause is no nop to the kernel, and harmless",
	  { 0xf3, 0x90, 0x53, 0xc3 }, 4, RDI, NO_INSIDE,
	  { 2, SITE_EMULATED, 0, 0 } },
	{ "a write to %rdi before the candidate",
	  { 0x48, 0x83, 0xc7, 0x08, 0x53, 0xc3 }, 6, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_ARG, 0, 1 } },
	{ "a write to %edi is one to %rdi",
	  { ENDBR64, 0x31, 0xff, 0x53, 0xc3 }, 8, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_ARG, 4, 1 } },
	{ "a write to %rsi, read by the cookie",
	  { 0x48, 0x89, 0xd6, 0x53, 0xc3 }, 5, RDI | RSI, NO_INSIDE,
	  { 0, SITE_WRITES_ARG, 0, 2 } },
	{ "a write to %rsi, not read by the cookie",
	  { 0x48, 0x89, 0xd6, 0x53, 0xc3 }, 5, RDI, NO_INSIDE,
	  { 3, SITE_EMULATED, 0, 0 } },
	{ "mul writes %rdx implicitly",
	  { 0x48, 0x89, 0xf0, 0x48, 0xf7, 0xe2, 0x53, 0xc3 }, 8, 1U << 3, NO_INSIDE,
	  { 0, SITE_WRITES_ARG, 3, 3 } },
	{ "sub $8,%rsp before a return-probe site",
	  { ENDBR64, 0x48, 0x83, 0xec, 0x08, 0x53, 0xc3 }, 10, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_SP, 4, 0 } },
	{ "a push with REX.W is single-stepped, and moves %rsp",
	  { 0x48, 0x53, 0x53, 0xc3 }, 4, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_SP, 0, 0 } },
	{ "a push with 0x66 is single-stepped, and moves %rsp",
	  { 0x66, 0x53, 0x53, 0xc3 }, 4, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_SP, 0, 0 } },
	{ "a store over the return address",
	  { 0x48, 0x89, 0x3c, 0x24, 0x53, 0xc3 }, 6, RDI, NO_INSIDE,
	  { 0, SITE_WRITES_STACK, 0, 0 } },
	{ "a Jcc with a branch hint cannot be probed: it ends the start",
	  { 0x48, 0x85, 0xff, 0x3e, 0x74, 0x01, 0x53, 0xc3 }, 8, RDI, NO_INSIDE,
	  { 0, SITE_BRANCHES, 3, 0 } },
	{ "an indirect call comes first",
	  { ENDBR64, 0xff, 0xd0, 0x53, 0xc3 }, 8, RDI, NO_INSIDE,
	  { 0, SITE_BRANCHES, 4, 0 } },
	{ "a return comes first",
	  { 0x48, 0x85, 0xff, 0xc3 }, 4, RDI, NO_INSIDE,
	  { 0, SITE_BRANCHES, 3, 0 } },
	{ "a branch into the skipped start",
	  { ENDBR64, 0x48, 0x89, 0xf8, 0x53, 0xeb, 0xfa, 0x5b, 0xc3 }, 12, RDI, NO_INSIDE,
	  { 0, SITE_BRANCH_INTO, 8, 0 } },
	{ "a branch onto the site itself",
	  { ENDBR64, 0x48, 0x89, 0xf8, 0x53, 0xeb, 0xfd, 0x5b, 0xc3 }, 12, RDI, NO_INSIDE,
	  { 0, SITE_BRANCH_INTO, 8, 0 } },
	{ "a branch to +0 passes the entry too",
	  { ENDBR64, 0x48, 0x89, 0xf8, 0x53, 0xeb, 0xf6, 0x5b, 0xc3 }, 12, RDI, NO_INSIDE,
	  { 7, SITE_EMULATED, 0, 0 } },
	{ "a branch past the site",
	  { ENDBR64, 0x53, 0x74, 0x01, 0x90, 0x5b, 0xc3 }, 10, RDI, NO_INSIDE,
	  { 4, SITE_EMULATED, 0, 0 } },
	{ "an indirect jump",
	  { ENDBR64, 0x53, 0xff, 0xe0 }, 7, RDI, NO_INSIDE,
	  { 0, SITE_INDIRECT_JUMP, 5, 0 } },
	{ "a tail call through the GOT is no jump table",
	  { ENDBR64, 0x53, 0xff, 0x25, 0x00, 0x00, 0x00, 0x00 }, 11, RDI, NO_INSIDE,
	  { 4, SITE_EMULATED, 0, 0 } },
	{ "a function shorter than the candidate",
	  { ENDBR64, 0x53 }, 4, RDI, NO_INSIDE,
	  { 0, SITE_ENDS, 0, 0 } },
	{ "a function that ends inside an instruction",
	  { ENDBR64, 0x48, 0x85, 0xff }, 6, RDI, NO_INSIDE,
	  { 0, SITE_UNDECODABLE, 4, 0 } },
	{ "bytes that do not decode later in the function",
	  { ENDBR64, 0x53, 0x5b, 0x06 }, 7, RDI, NO_INSIDE,
	  { 0, SITE_UNDECODABLE, 6, 0 } },
	{ "no size",
	  { 0x53 }, 0, RDI, NO_INSIDE,
	  { 0, SITE_NO_SIZE, 0, 0 } },
	{ "another symbol starts inside the skipped start",
	  { ENDBR64, 0x48, 0x85, 0xff, 0x53, 0xc3 }, 9, RDI, 4,
	  { 0, SITE_ENTRY_INSIDE, 4, 0 } },
	{ "another symbol past the site",
	  { ENDBR64, 0x53, 0xc3 }, 6, RDI, 5,
	  { 4, SITE_EMULATED, 0, 0 } },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Functions loaded at 0x1000, and whether and where each only jumps on. */
static const struct jump_case {
	const char *what;
	uint8_t code[16];
	size_t size;
	int want;
	struct probe_jump jump;
} jumps[] = {
	{ "operator delete: endbr64; jmp rel32",
	  { ENDBR64, 0xe9, 0x10, 0x00, 0x00, 0x00 }, 9, 1, { 4, false, 0x1019 } },
	{ "a jmp rel8, without endbr64",
	  { 0xeb, 0xfe }, 2, 1, { 0, false, 0x1000 } },
	{ "a jmp through a GOT slot: the slot",
	  { 0xff, 0x25, 0x00, 0x01, 0x00, 0x00 }, 6, 1, { 0, true, 0x1106 } },
	{ "a PLT stub of .plt.sec: endbr64; bnd jmp *slot(%rip)",
	  { ENDBR64, 0xf2, 0xff, 0x25, 0x00, 0x01, 0x00, 0x00 }, 11, 1, { 4, true, 0x110b } },
	{ "a jmp through a register is not",
	  { ENDBR64, 0xff, 0xe0 }, 6, 0, { 0 } },
	{ "a jmp through memory not RIP-relative is not",
	  { 0xff, 0x24, 0x25, 0x00, 0x10, 0x00, 0x00 }, 7, 0, { 0 } },
	{ "an instruction before the jmp (a forwarder's move: see forwards)",
	  { ENDBR64, 0x48, 0x89, 0xd6, 0xe9, 0x00, 0x00, 0x00, 0x00 }, 12, 0, { 0 } },
	{ "a jmp cut short by the symbol's end",
	  { ENDBR64, 0xe9, 0x00, 0x00, 0x00, 0x00 }, 8, 0, { 0 } },
};

#define N_JUMPS (sizeof(jumps) / sizeof(jumps[0]))

/* Forwarders whose record reads %rdi alone (a free's), loaded at 0x1000. */
static const struct jump_case forwards[] = {
	{ "libstdc++'s sized aligned delete: endbr64; mov %rdx,%rsi; jmp",
	  { ENDBR64, 0x48, 0x89, 0xd6, 0xe9, 0x10, 0x00, 0x00, 0x00 }, 12, 1,
	  { 7, false, 0x101c } },
	{ "two moves, one to a 32-bit register",
	  { 0x89, 0xd6, 0x48, 0x89, 0xc8, 0xeb, 0xfe }, 7, 1, { 5, false, 0x1005 } },
	{ "a move to %rdi, which the record reads, is not",
	  { ENDBR64, 0x48, 0x89, 0xf7, 0xe9, 0x00, 0x00, 0x00, 0x00 }, 12, 0, { 0 } },
	{ "a move to %edi neither",
	  { 0x89, 0xf7, 0xeb, 0xfe }, 4, 0, { 0 } },
	{ "a move to %rsp neither",
	  { 0x48, 0x89, 0xc4, 0xeb, 0xfe }, 5, 0, { 0 } },
	{ "a load from memory neither",
	  { 0x48, 0x8b, 0x36, 0xeb, 0xfe }, 5, 0, { 0 } },
	{ "five moves are more than a forwarder makes",
	  { 0x89, 0xd6, 0x89, 0xd6, 0x89, 0xd6, 0x89, 0xd6, 0x89, 0xd6, 0xeb, 0xfe }, 12, 0,
	  { 0 } },
};

#define N_FORWARDS (sizeof(forwards) / sizeof(forwards[0]))

/* One instruction at 0x1000, and where a walk of the code goes from it. */
static const struct step_case {
	const char *what;
	uint8_t code[16];
	size_t size;
	struct probe_step step;
} steps[] = {
	{ "mov: on", { 0x48, 0x89, 0xd6 }, 3, { 3, FLOW_ON, false, false, 0, false } },
	{ "syscall: on, the kernel returns", { 0x0f, 0x05 }, 2, { 2, FLOW_ON, false, false, 0, false } },
	{ "ret: returns", { 0xc3 }, 1, { 1, FLOW_RETURNS, false, false, 0, false } },
	{ "ud2: stops", { 0x0f, 0x0b }, 2, { 2, FLOW_STOPS, false, false, 0, false } },
	{ "int3: stops", { 0xcc }, 1, { 1, FLOW_STOPS, false, false, 0, false } },
	{ "jz rel8: a branch", { 0x74, 0x05 }, 2, { 2, FLOW_BRANCH, true, false, 0x1007, false } },
	{ "xbegin: a branch to its abort handler", { 0xc7, 0xf8, 0x10, 0x00, 0x00, 0x00 }, 6,
	  { 6, FLOW_BRANCH, true, false, 0x1016, false } },
	{ "jmp rel32: a jump", { 0xe9, 0x10, 0x00, 0x00, 0x00 }, 5,
	  { 5, FLOW_JUMP, true, false, 0x1015, false } },
	{ "call rel32: a call", { 0xe8, 0x10, 0x00, 0x00, 0x00 }, 5,
	  { 5, FLOW_CALL, true, false, 0x1015, false } },
	{ "call through a GOT slot: the slot", { 0xff, 0x15, 0x00, 0x01, 0x00, 0x00 }, 6,
	  { 6, FLOW_CALL, true, true, 0x1106, false } },
	{ "call through a register: not known", { 0xff, 0xd0 }, 2,
	  { 2, FLOW_CALL, false, false, 0, false } },
	{ "jmp through a register: not known", { 0xff, 0xe0 }, 2,
	  { 2, FLOW_JUMP, false, false, 0, false } },
	{ "push %rax: writes [rsp]", { 0x50 }, 1, { 1, FLOW_ON, false, false, 0, true } },
	{ "mov %rax, (%rsp): writes [rsp]", { 0x48, 0x89, 0x04, 0x24 }, 4,
	  { 4, FLOW_ON, false, false, 0, true } },
	{ "mov %rax, 8(%rsp): not [rsp]", { 0x48, 0x89, 0x44, 0x24, 0x08 }, 5,
	  { 5, FLOW_ON, false, false, 0, false } },
	{ "mov (%rsp), %rax: reads [rsp]", { 0x48, 0x8b, 0x04, 0x24 }, 4,
	  { 4, FLOW_ON, false, false, 0, false } },
	{ "call: its push is its callee's", { 0xe8, 0x00, 0x00, 0x00, 0x00 }, 5,
	  { 5, FLOW_CALL, true, false, 0x1005, false } },
};

#define N_STEPS (sizeof(steps) / sizeof(steps[0]))

static void
check_step(const struct step_case *c)
{
	struct probe_step st = { 0 };
	int got = probe_site_step(c->code, c->size, 0x1000, &st);
	bool exact = got == 1 && st.length == c->step.length && st.flow == c->step.flow &&
		     st.known == c->step.known && st.through_slot == c->step.through_slot &&
		     (!st.known || st.to == c->step.to) && st.writes_top == c->step.writes_top;

	tap_ok(exact, "step: %s", c->what);
	if (!exact)
		tap_diag("got %d: length %u, flow %d, known %d, slot %d, to 0x%llx, top %d", got,
			 st.length, st.flow, st.known, st.through_slot, (unsigned long long)st.to,
			 st.writes_top);
}

static void
check_jump(const struct jump_case *c, bool forward)
{
	struct probe_jump j = { 0 };
	int got = forward ? probe_site_forward(c->code, c->size, 0x1000, RDI, &j) :
			    probe_site_jump(c->code, c->size, 0x1000, &j);
	bool exact = got == c->want && (!got || (j.at == c->jump.at &&
						 j.through_slot == c->jump.through_slot &&
						 j.to == c->jump.to));

	tap_ok(exact, "%s: %s", forward ? "forward" : "jump", c->what);
	if (!exact)
		tap_diag("got %d: +%u, slot %d, to 0x%llx", got, j.at, j.through_slot,
			 (unsigned long long)j.to);
}

static void
check_case(const struct site_case *c)
{
	struct probe_site s;
	size_t inside = c->inside == NO_INSIDE ? c->size : c->inside;
	bool exact;

	probe_site_choose(c->code, c->size, 0x1000, c->args, inside, &s);
	exact = s.offset == c->want.offset && s.why == c->want.why &&
		(s.why == SITE_EMULATED || s.at == c->want.at) &&
		(s.why != SITE_WRITES_ARG || s.arg == c->want.arg);
	tap_ok(exact, "%s", c->what);
	if (!exact)
		tap_diag("got +%u, why %d, at +%u, arg %u; want +%u, why %d, at +%u, arg %u",
			 s.offset, s.why, s.at, s.arg, c->want.offset, c->want.why,
			 c->want.at, c->want.arg);
}

int
main(void)
{
	static const uint8_t jz[] = { 0x74, 0x05 }, push66[] = { 0x66, 0x53 };
	char text[64];
	size_t i;

	tap_plan(N_CASES + N_JUMPS + N_FORWARDS + N_STEPS + 5);
	for (i = 0; i < N_CASES; i++)
		check_case(&cases[i]);
	for (i = 0; i < N_JUMPS; i++)
		check_jump(&jumps[i], false);
	for (i = 0; i < N_FORWARDS; i++)
		check_jump(&forwards[i], true);
	for (i = 0; i < N_STEPS; i++)
		check_step(&steps[i]);
	tap_eq_i64(probe_site_step((const uint8_t *)"\x06", 1, 0x1000, &(struct probe_step){ 0 }),
		   0, "step: push %%es, not in 64-bit mode, does not decode");
	tap_eq_i64(probe_site_emulated(jz, sizeof(jz)), 1, "a Jcc is emulated");
	tap_eq_i64(probe_site_emulated(push66, sizeof(push66)), 0,
		   "a push with 0x66 is single-stepped");
	probe_site_format(jz, sizeof(jz), 0x1000, text, sizeof(text));
	tap_str_eq(text, "jz 0x1007", "the instruction in AT&T syntax, its target absolute");
	tap_str_eq(probe_sites_decoder, "Zydis", "the decoder is named");
	return tap_done();
}
