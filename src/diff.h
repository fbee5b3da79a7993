/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memsup diff: what changed between two captures. */
#ifndef MEMSUP_DIFF_H
#define MEMSUP_DIFF_H

int diff_main(int argc, char **argv);

#endif
