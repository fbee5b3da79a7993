// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the JSON reports' strings: escapes and UTF-8. */
#include "config.h"
#include "json.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>

/* s as json_string() writes it. */
static char *
quoted(const char *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	if (!out)
		tap_bail("open_memstream failed");
	json_string(out, s);
	fclose(out);
	return buf;
}

static void
check(const char *s, const char *want, const char *what)
{
	char *got = quoted(s);

	tap_str_eq(got, want, "%s", what);
	free(got);
}

int
main(void)
{
	tap_plan(8);
	check(NULL, "null", "NULL is null");
	check("/usr/lib/libc.so.6", "\"/usr/lib/libc.so.6\"", "plain text as it is");
	check("say \"hi\"\\", "\"say \\\"hi\\\"\\\\\"", "quotes and backslashes escaped");
	check("a\nb\tc\x01", "\"a\\u000ab\\u0009c\\u0001\"", "control characters escaped");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	      "UTF-8 of two, three and four bytes kept");
	check("a\xff" "b", "\"a\\ufffdb\"", "a byte that starts no sequence replaced");
	check("\xc0\xaf\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"",
	      "overlong forms and surrogates replaced, byte by byte");
	check("end\xe2\x82", "\"end\\ufffd\\ufffd\"", "a sequence cut by the end replaced");
	return tap_done();
}
