// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "markup.h"
#include "utf8.h"

void
markup_text(FILE *out, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;

	while (*p && chars < max_chars) {
		size_t n = utf8_length(p);

		if (!n)
			fputc('?', out);
		else if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (*p < 0x20)
			fputc(' ', out);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
		chars++;
	}
}
