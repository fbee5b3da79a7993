/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memsup report: reports from a capture file. */
#ifndef MEMSUP_REPORT_H
#define MEMSUP_REPORT_H

int report_main(int argc, char **argv);

#endif
