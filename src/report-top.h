/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The end of a run: its top sites, one line each, named by the innermost
 * frame in the program's own code, and the command that shows them all.
 */
#ifndef MEMSUP_REPORT_TOP_H
#define MEMSUP_REPORT_TOP_H

#include <stddef.h>
#include <stdio.h>

/* The top n sites of the capture at path by bytes live at the peak. */
void report_top_sites(FILE *out, const char *path, size_t n);

#endif
