/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memsup probes FILE...: the probe sites memsup chooses, and why. */
#ifndef MEMSUP_PROBE_LIST_H
#define MEMSUP_PROBE_LIST_H

#include <stdbool.h>
#include "probe-sites.h"

int probe_list_main(int argc, char **argv);

/* --probe-sites's argument; false, said on stderr, when it is neither. */
bool probe_sites_parse(const char *arg, enum probe_sites *sites);

#endif
