// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "names.h"
#include "error.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DEMANGLE
#include <libiberty/demangle.h>
#endif

char *
name_demangle(const char *symbol)
{
#ifdef HAVE_DEMANGLE
	/*
	 * Rust first: its legacy names are valid C++ ones too.  Not through
	 * cplus_demangle, whose xmalloc would clash with memsup's.
	 */
	char *plain = rust_demangle(symbol, DMGL_PARAMS | DMGL_ANSI);

	return plain ? plain : cplus_demangle_v3(symbol, DMGL_PARAMS | DMGL_ANSI);
#else
	(void)symbol;
	return NULL;
#endif
}

static const char anonymous[] = "(anonymous namespace)";

static bool
is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * The length of the operator's symbol at p, just past the keyword
 * "operator": "<<", "()", "[]", "->*"; 0 for a named one ("new",
 * "delete", a conversion), whose words read like any others.  The
 * longest symbol C++ has, not the longest run of punctuation: in
 * "operator+<char>" the '<' opens the template arguments.
 */
static size_t
operator_length(const char *p)
{
	static const char *const symbols[] = {
		"<=>", "<<=", ">>=", "->*",
		"()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
		"--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->",
		"+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
	};
	size_t i;

	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (!strncmp(p, symbols[i], strlen(symbols[i])))
			return strlen(symbols[i]);
	return 0;
}

/* Whether s has a letter, a digit or '_': a name a person can read. */
static bool
has_word(const char *s)
{
	for (; *s; s++)
		if (is_word(*s))
			return true;
	return false;
}

char *
name_shorten(const char *name)
{
	size_t len = strlen(name), n = 0, depth = 0, op;
	/* The last space at depth 0 before the parameters: the return type's end. */
	size_t type_end = 0;
	bool params = false;
	char *out = xmalloc(len + 1), *brief;
	const char *p = name;

	while (*p) {
		if (!strncmp(p, anonymous, sizeof(anonymous) - 1)) {
			if (!depth) {
				memcpy(out + n, p, sizeof(anonymous) - 1);
				n += sizeof(anonymous) - 1;
			}
			p += sizeof(anonymous) - 1;
			continue;
		}
		if (!strncmp(p, "operator", 8) && (p == name || !is_word(p[-1])) &&
		    !is_word(p[8])) {
			op = 8 + operator_length(p + 8);
			if (!depth) {
				memcpy(out + n, p, op);
				n += op;
			}
			p += op;
			/* "operator new": not a return type's space. */
			while (*p == ' ') {
				if (!depth)
					out[n++] = ' ';
				p++;
			}
			continue;
		}
		if (*p == '<' || *p == '(') {
			if (!depth) {
				params |= *p == '(';
				out[n++] = *p;
			}
			depth++;
		} else if ((*p == '>' || *p == ')') && depth) {
			if (!--depth)
				out[n++] = *p;
		} else if (!depth) {
			if (*p == ' ' && !params)
				type_end = n + 1;
			out[n++] = *p;
		}
		p++;
	}
	out[n] = '\0';
	/* A name this cannot read is shown whole rather than lost. */
	brief = xstrdup(has_word(out + type_end) ? out + type_end : name);
	free(out);
	return brief;
}
