/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --format=pprof: the sites as pprof's gzipped profile.proto. */
#ifndef MEMSUP_REPORT_PPROF_H
#define MEMSUP_REPORT_PPROF_H

struct heap_model;
struct sites;
struct symbolizer;

/*
 * Writes the profile to fd: one sample per site, with the values
 * alloc_objects, alloc_space, inuse_objects and inuse_space (the blocks
 * live when their process exited) and peak_space (bytes live at the
 * tree's peak).  Returns 0, or a negative errno when it could not be
 * written.
 */
int report_pprof(int fd, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z);

#endif
