/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memsup check: a capture against limits, for CI: exit status 0 when
 * every limit holds, 1 when one is broken, 125 when it cannot tell.
 */
#ifndef MEMSUP_CHECK_H
#define MEMSUP_CHECK_H

int check_main(int argc, char **argv);

#endif
