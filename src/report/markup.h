/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text in XML and HTML: escaped, and valid UTF-8. */
#ifndef MEMSUP_MARKUP_H
#define MEMSUP_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/*
 * At most max_chars characters of s, with & < > " escaped, control
 * characters as spaces, and '?' for each byte that is not UTF-8.
 */
void markup_text(FILE *out, const char *s, size_t max_chars);

#endif
