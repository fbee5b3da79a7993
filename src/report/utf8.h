/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8, for the reports that must write it valid (JSON, SVG, HTML). */
#ifndef MEMSUP_UTF8_H
#define MEMSUP_UTF8_H

#include <stddef.h>

/*
 * The length of the UTF-8 sequence at s (1 to 4), or 0 if it is not one
 * (overlong forms, surrogates and code points past U+10FFFF are not).
 * Reads no further than the first byte that breaks the sequence, so a
 * NUL-terminated string is never overrun.
 */
size_t utf8_length(const unsigned char *s);

#endif
