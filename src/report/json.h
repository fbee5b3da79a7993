/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the JSON reports write: strings, escaped and made valid UTF-8. */
#ifndef MEMSUP_JSON_H
#define MEMSUP_JSON_H

#include <stdio.h>

/*
 * s as a JSON string, quotes included; NULL as null.  Bytes that are not
 * UTF-8 (a path can hold any) become U+FFFD.
 */
void json_string(FILE *out, const char *s);

#endif
