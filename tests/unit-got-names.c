// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The names of a file's GOT slots, as the forwarders and the proof that a
 * free makes no allocator call read them: tests/got-relocs.S's slots, one
 * per case (named by its symbol, by two relocations, bound here to an
 * indirect function or to none, named by none, a pointer that is no slot).
 */
#include "config.h"
#include "elf-functions.h"
#include "tap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The slot at offset at of the object's .data (slots is at 8): its name and binding. */
static void
slot_is(const struct elf_got_names *g, uint64_t at, const char *name, bool bound_here,
	const char *what)
{
	bool bound = !bound_here;
	const char *got = elf_got_name(g, at, &bound);

	tap_str_eq(got ? got : "(none)", name ? name : "(none)", "+%llu, %s: its name",
		   (unsigned long long)at, what);
	tap_ok(bound == bound_here, "+%llu, %s: %sbound here", (unsigned long long)at, what,
	       bound_here ? "" : "not ");
}

int
main(void)
{
	const char *builddir = getenv("BUILDDIR");
	struct elf_got_names g;
	char path[PATH_MAX];
	Elf *elf;
	int fd;

	tap_plan(14);
	if (!builddir)
		tap_bail("BUILDDIR is not set: run through make check");
	snprintf(path, sizeof(path), "%s/tests/got-relocs.o", builddir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(elf = elf_open_fd(fd)))
		tap_bail("cannot read %s", path);
	elf_got_names_read(elf, &g);

	slot_is(&g, 8, "malloc", false, "a JUMP_SLOT");
	slot_is(&g, 16, NULL, false, "a GLOB_DAT and a JUMP_SLOT");
	slot_is(&g, 24, "chosen_memset", true, "an IRELATIVE");
	slot_is(&g, 32, NULL, true, "an IRELATIVE to no indirect function");
	slot_is(&g, 40, NULL, false, "no relocation");
	slot_is(&g, 48, NULL, false, "an R_X86_64_64");
	slot_is(&g, 56, NULL, false, "an IRELATIVE and a JUMP_SLOT");

	elf_got_names_free(&g);
	elf_end(elf);
	close(fd);
	return tap_done();
}
