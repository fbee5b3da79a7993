// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup probes FILE...: where memsup would probe each allocator function
 * of each file, the instruction there, and whether the kernel emulates
 * it, or why the probe stays at the entry.
 */
#include "config.h"
#include "probe-list.h"
#include "error.h"
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

/* In the file's order. */
static int
by_entry(const void *a, const void *b)
{
	const struct probe_call *ca = a, *cb = b;

	return ca->entry < cb->entry ? -1 : ca->entry > cb->entry;
}

static int
list_file(const char *path, enum probe_sites sites)
{
	struct probe_target t = { 0 };
	size_t i;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_msg("%s: %s", path, strerror(errno));
		return -errno;
	}
	err = probe_target_read(fd, sites, &t);
	if (err) {
		error_msg("%s: %s", path, err == -ENOEXEC ? "not a 64-bit ELF file" : strerror(-err));
		close(fd);
		return err;
	}
	if (t.ncalls)	/* qsort may not be given NULL */
		qsort(t.calls, t.ncalls, sizeof(*t.calls), by_entry);
	for (i = 0; i < t.ncalls; i++) {
		const struct probe_call *c = &t.calls[i];
		char insn[96], what[256];
		uint8_t code[15];
		ssize_t n = pread(fd, code, sizeof(code), (off_t)c->offset);

		probe_site_format(code, n > 0 ? (size_t)n : 0, c->vaddr + c->site.offset,
				  insn, sizeof(insn));
		verdict(c, code, n > 0 ? (size_t)n : 0, what, sizeof(what));
		printf("%s\t%s\t+%u\t%s\t%s\n", path, c->name, c->site.offset, insn, what);
	}
	probe_target_free(&t);
	close(fd);
	return 0;
}

static void
usage(FILE *out)
{
	fputs("Usage: memsup probes [--probe-sites=auto|entry] FILE...\n"
	      "\n"
	      "For each allocator function of each ELF FILE: the file, the symbol,\n"
	      "the probe's offset in the function, the instruction there, and\n"
	      "whether the kernel emulates it or single-steps it, with why the\n"
	      "probe stays at +0.\n", out);
}

int
probe_list_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "probe-sites", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum probe_sites sites = PROBE_SITES_AUTO;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!probe_sites_parse(optarg, &sites))
				return MS_EXIT_FAILURE;
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
	if (!probe_sites_decoder && sites == PROBE_SITES_AUTO)
		fputs("memsup: note: built without an x86 decoder (Zydis): every probe "
		      "stays at its function's entry\n", stderr);
	for (; optind < argc; optind++)
		if (list_file(argv[optind], sites))
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
