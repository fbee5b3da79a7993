/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The end of a run: its top sites, one line each, named by the innermost
 * frame in the program's own code, and the command that shows them all.
 */
#ifndef MEMSUP_REPORT_TOP_H
#define MEMSUP_REPORT_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct heap_model;
struct sites;
struct symbolizer;

/*
 * Names site by its innermost function in the program's own code (its
 * file and the source of its call outside the system's), else by its
 * innermost, into label; *where is that call's "file:line", or "".
 */
void site_user_frame(struct symbolizer *z, const struct sites *s, uint32_t site,
		     char *label, size_t size, const char **where);
/*
 * The top n sites of a run by bytes live at the peak, and the command
 * that lists them all, for the capture at path (none when NULL).
 */
void report_top_sites(FILE *out, const struct heap_model *h, const struct sites *s,
		      struct symbolizer *z, const char *path, size_t n);

#endif
