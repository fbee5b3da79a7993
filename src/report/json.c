// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "json.h"
#include "utf8.h"


void
json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		size_t n = utf8_length(p);

		if (!n) {
			fputs("\\ufffd", out);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
	fputc('"', out);
}
