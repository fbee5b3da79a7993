// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A build without an unwinder: memsup refuses --stack=dwarf and takes
 * frame-pointer stacks only, so no copy ever reaches these.
 */
#include "config.h"
#include "unwind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const unwind_backend = NULL;

struct unwinder *
unwinder_new(struct address_spaces *spaces)
{
	errno = ENOTSUP;
	return NULL;
}

void
unwinder_free(struct unwinder *u)
{
}

uint32_t
unwinder_unwind(struct unwinder *u, const struct ms_stack_copy *copy, size_t len,
		uint64_t *frames, uint32_t max)
{
	abort();
}

void
unwinder_stats(const struct unwinder *u, struct unwind_stats *out)
{
	memset(out, 0, sizeof(*out));
}
