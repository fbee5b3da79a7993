// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "unwind-driver.h"
#include "bpf-loader.h"
#include "error.h"
#include "memsup.skel.h"
#include "unwind.h"
#ifdef HAVE_LIBDW
#include "unwind-maps.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
unwind_driver_open(struct unwind_driver *u, const struct bpf_loader *bpf,
		   const char **why)
{
	memset(u, 0, sizeof(*u));
	address_spaces_init(&u->spaces);
	if (bpf->copies_stacks) {
		*why = "set up the unwinder";
		u->unwinder = unwinder_new(&u->spaces);
		if (!u->unwinder)
			return -errno;
	}
#ifdef HAVE_LIBDW
	if (bpf->unwind_tables) {
		int err;

		*why = "map the unwind tables";
		u->tables = xmalloc(sizeof(*u->tables));
		err = unwind_maps_open(u->tables, bpf->skel->maps.unwind_pages,
				       bpf->skel->maps.unwind_rows,
				       bpf->skel->maps.unwind_rules,
				       bpf->skel->maps.unwind_spaces);
		if (err) {
			free(u->tables);
			u->tables = NULL;
			unwind_driver_close(u);
			return err;
		}
	}
#endif
	return 0;
}

void
unwind_driver_close(struct unwind_driver *u)
{
#ifdef HAVE_LIBDW
	if (u->tables)
		unwind_maps_close(u->tables);
#endif
	free(u->tables);
	unwinder_free(u->unwinder);
	address_spaces_free(&u->spaces);
	memset(u, 0, sizeof(*u));
}

void
unwind_driver_follow(struct unwind_driver *u, const struct record *r)
{
	if (!u->unwinder && !u->tables)
		return;
	address_spaces_apply(&u->spaces, r);
#ifdef HAVE_LIBDW
	if (u->tables)
		unwind_maps_follow(u->tables, &u->spaces, r);
#endif
}

bool
unwind_driver_files_without_room(const struct unwind_driver *u, uint64_t *n)
{
	*n = 0;
#ifdef HAVE_LIBDW
	if (u->tables)
		*n = u->tables->files_without_room;
#endif
	return u->tables;
}

void
unwind_driver_stats(const struct unwind_driver *u, struct unwind_stats *out)
{
	if (u->unwinder)
		unwinder_stats(u->unwinder, out);
	else
		memset(out, 0, sizeof(*out));
}
