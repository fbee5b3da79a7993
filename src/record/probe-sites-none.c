// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A build without an x86 decoder: no instruction can be proved safe to
 * skip, so every probe stays at its function's entry.
 */
#include "config.h"
#include "probe-sites.h"

#include <errno.h>
#include <stdio.h>

const char *const probe_sites_decoder = NULL;

void
probe_site_choose(const uint8_t *code, size_t size, uint64_t vaddr,
		  unsigned int args, size_t inside, struct probe_site *s)
{
	*s = (struct probe_site){ .offset = 0, .why = SITE_NO_DECODER };
}

int
probe_site_emulated(const uint8_t *code, size_t size)
{
	return -ENOTSUP;
}

int
probe_site_jump(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_jump *out)
{
	return -ENOTSUP;
}

int
probe_site_forward(const uint8_t *code, size_t size, uint64_t vaddr, unsigned int args,
		   struct probe_jump *out)
{
	return -ENOTSUP;
}

int
probe_site_branches(const uint8_t *code, size_t size, uint64_t vaddr,
		    bool (*each)(void *ctx, const struct probe_branch *b), void *ctx)
{
	return -ENOTSUP;
}

int
probe_site_step(const uint8_t *code, size_t size, uint64_t vaddr, struct probe_step *out)
{
	return -ENOTSUP;
}

/* The bytes, as far as an instruction can reach. */
void
probe_site_format(const uint8_t *code, size_t size, uint64_t vaddr, char *buf,
		  size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < size && i < 15 && n + 4 <= len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%02x", i ? " " : "", code[i]);
}
