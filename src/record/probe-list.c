// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup probes FILE...: where memsup would probe each allocator function
 * of each file, the instruction there, and whether the kernel emulates
 * it, or why the probe stays at the entry.
 */
#include "config.h"
#include "probe-list.h"
#include "error.h"
#include "human-numbers.h"
#include "probe-targets.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const arg_names[] = { "", "%rdi", "%rsi", "%rdx", "%rcx" };

/* Why a probe stays at +0, each with the offset it is about. */
static const char *const reasons[] = {
	[SITE_EMULATED] = "",
	[SITE_ENTRY_ASKED] = "--probe-sites=entry",
	[SITE_NO_DECODER] = "memsup was built without an x86 decoder (Zydis)",
	[SITE_NO_SIZE] = "the symbol has no size to bound the function",
	[SITE_UNDECODABLE] = "+%u does not decode",
	[SITE_BRANCHES] = "+%u branches before an emulated instruction",
	[SITE_WRITES_SP] = "+%u writes %%rsp",
	[SITE_WRITES_STACK] = "+%u writes the stack, which holds the return address",
	[SITE_WRITES_ARG] = "+%u writes %s, which the probe reads",
	[SITE_ENDS] = "the function ends before an emulated instruction",
	[SITE_BRANCH_INTO] = "the branch at +%u lands in the instructions the probe would skip",
	[SITE_INDIRECT_JUMP] = "the indirect jump at +%u could land anywhere",
	[SITE_ENTRY_INSIDE] = "another symbol starts at +%u, in the instructions the probe would skip",
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void
explain(const struct probe_site *s, char *buf, size_t len)
{
	const char *reg = s->arg < sizeof(arg_names) / sizeof(arg_names[0]) ? arg_names[s->arg] : "?";

	/* Every format takes the offset, and may leave the register unused. */
	snprintf(buf, len, reasons[s->why], s->at, reg);
}
#pragma GCC diagnostic pop

/*
 * Why a free's return is probed, each with the instruction's address and
 * the function it reaches (explain_return words NESTING_TOO_LONG, with
 * the walk's bound).
 */
static const char *const return_reasons[] = {
	[NESTING_NONE] = "",
	[NESTING_ASKED] = "--free-returns",
	[NESTING_NO_DECODER] = "memsup was built without an x86 decoder (Zydis)",
#ifdef HAVE_LIBDW
	[NESTING_NO_CFI] = "no CFI covers %#lx",
#else
	[NESTING_NO_CFI] = "memsup was built without libdw, which reads CFI",
#endif
	[NESTING_UNDECODABLE] = "%#lx does not decode",
	[NESTING_ALLOCATOR] = "%#lx reaches %s",
	[NESTING_OTHER_FILE] = "%#lx calls %s, which any file may define",
	[NESTING_INDIRECT] = "%#lx calls or jumps through a pointer",
	[NESTING_RUNS_ON] = "%#lx runs past the end of its CFI",
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
/* A free's line ends with whether its return is probed, and why. */
static void
explain_return(const struct nesting_proof *p, char *buf, size_t len)
{
	char most[HUMAN_MAX];
	size_t used;

	if (p->why == NESTING_NONE) {
		snprintf(buf, len, "; no return probe: makes no allocator call (%zu instructions)",
			 p->insns);
		return;
	}
	used = (size_t)snprintf(buf, len, "; return probed: ");
	if (used >= len)
		return;
	if (p->why == NESTING_TOO_LONG)
		snprintf(buf + used, len - used, "it reaches over %s instructions",
			 human_count(most, NESTING_INSNS_MAX));
	else
		snprintf(buf + used, len - used, return_reasons[p->why], (unsigned long)p->at,
			 p->name);
}
#pragma GCC diagnostic pop

/* "emulated", "single-stepped" or "not known", and why +0 was kept. */
static void
verdict(const struct probe_call *c, const uint8_t *code, size_t n, char *buf, size_t len)
{
	static const char *const kinds[] = { "not known", "single-stepped", "emulated" };
	char why[128];
	int emulated = c->site.why == SITE_EMULATED ? 1 : probe_site_emulated(code, n);

	explain(&c->site, why, sizeof(why));
	if (emulated == 1)
		*why = '\0';
	snprintf(buf, len, "%s%s%s", kinds[emulated < 0 ? 0 : emulated + 1], *why ? "; kept at +0: " : "", why);
}

/* A line of the listing: a probed function or a forwarder left unprobed. */
struct listed {
	uint64_t entry;		/* in the file: the listing's order */
	const struct probe_call *call;
	const struct probe_forwarder *forwarder;
};

static int
by_entry(const void *a, const void *b)
{
	const struct listed *la = a, *lb = b;

	return la->entry < lb->entry ? -1 : la->entry > lb->entry;
}

static void
print_call(int fd, const char *path, const struct probe_call *c)
{
	char insn[96], what[256], returns[256] = "";
	uint8_t code[15];
	ssize_t n = pread(fd, code, sizeof(code), (off_t)c->offset);

	probe_site_format(code, n > 0 ? (size_t)n : 0, c->vaddr + c->site.offset,
			  insn, sizeof(insn));
	verdict(c, code, n > 0 ? (size_t)n : 0, what, sizeof(what));
	if (MS_SHAPE_CALL(c->shape) == MS_CALL_FREE)
		explain_return(&c->nesting, returns, sizeof(returns));
	printf("%s\t%s\t+%u\t%s\t%s%s\n", path, c->name, c->site.offset, insn, what, returns);
}

static void
print_forwarder(int fd, const char *path, const struct probe_forwarder *w)
{
	char insn[96];
	uint8_t code[15];
	ssize_t n = pread(fd, code, sizeof(code), (off_t)(w->entry + w->jump));

	probe_site_format(code, n > 0 ? (size_t)n : 0, w->vaddr + w->jump, insn, sizeof(insn));
	printf("%s\t%s\t-\t%s\t%s %s: not probed\n", path, w->name, insn,
	       w->calls ? "operator new over" : "forwards to", w->to);
}

static int
list_file(const char *path, const struct probe_plan *plan)
{
	struct probe_target t = { 0 };
	struct listed *lines;
	size_t i, n = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_msg("%s: %s", path, strerror(errno));
		return -errno;
	}
	err = probe_target_read(fd, plan, &t);
	if (err) {
		error_msg("%s: %s", path, err == -ENOEXEC ? "not a 64-bit ELF file" : strerror(-err));
		close(fd);
		return err;
	}
	lines = xcalloc(t.ncalls + t.nforwarders + 1, sizeof(*lines));
	for (i = 0; i < t.ncalls; i++)
		lines[n++] = (struct listed){ .entry = t.calls[i].entry, .call = &t.calls[i] };
	for (i = 0; i < t.nforwarders; i++)
		lines[n++] = (struct listed){ .entry = t.forwarders[i].entry,
					      .forwarder = &t.forwarders[i] };
	qsort(lines, n, sizeof(*lines), by_entry);
	for (i = 0; i < n; i++) {
		if (lines[i].call)
			print_call(fd, path, lines[i].call);
		else
			print_forwarder(fd, path, lines[i].forwarder);
	}
	free(lines);
	probe_target_free(&t);
	close(fd);
	return 0;
}

static void
usage(FILE *out)
{
	fputs("Usage: memsup probes [--probe-sites=auto|entry] [--probe-forwarders]\n"
	      "                     [--free-returns] FILE...\n"
	      "\n"
	      "For each allocator function of each ELF FILE: the file, the symbol,\n"
	      "the probe's offset in the function, the instruction there, and\n"
	      "whether the kernel emulates it or single-steps it, with why the\n"
	      "probe stays at +0; or, for a function that only jumps to another\n"
	      "that records the same call, '-', its jmp, and the functions it\n"
	      "reaches, which record its calls; for the C++ runtime's operator\n"
	      "new, '-', its call of malloc (or of another operator new), and the\n"
	      "function it calls.  A free's line ends with whether its return is\n"
	      "probed: not when its code provably makes no allocator call.\n", out);
}

int
probe_list_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "probe-sites", required_argument, NULL, 's' },
		{ "probe-forwarders", no_argument, NULL, 'w' },
		{ "free-returns", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe_plan plan = { .sites = PROBE_SITES_AUTO };
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!probe_sites_parse(optarg, &plan.sites))
				return MS_EXIT_FAILURE;
			break;
		case 'w':
			plan.forwarders = true;
			break;
		case 'r':
			plan.free_returns = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return MS_EXIT_FAILURE;
		}
	}
	if (optind == argc) {
		error_msg("probes: no file given");
		usage(stderr);
		return MS_EXIT_FAILURE;
	}
	if (!probe_sites_decoder && plan.sites == PROBE_SITES_AUTO)
		fputs("memsup: note: built without an x86 decoder (Zydis): every probe "
		      "stays at its function's entry\n", stderr);
	for (; optind < argc; optind++)
		if (list_file(argv[optind], &plan))
			status = MS_EXIT_FAILURE;
	return status;
}

bool
probe_sites_parse(const char *arg, enum probe_sites *sites)
{
	if (!strcmp(arg, "auto")) {
		*sites = PROBE_SITES_AUTO;
	} else if (!strcmp(arg, "entry")) {
		*sites = PROBE_SITES_ENTRY;
	} else {
		error_msg("--probe-sites takes auto or entry, not '%s'", arg);
		return false;
	}
	return true;
}
