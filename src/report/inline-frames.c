// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "inline-frames.h"
#include "error.h"
#include "names.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>

static char *
file_line(const char *file, Dwarf_Word line)
{
	char buf[4200];

	if (!file || !line)
		return NULL;
	snprintf(buf, sizeof(buf), "%s:%llu", file, (unsigned long long)line);
	return xstrdup(buf);
}

/* The line table's line of addr. */
static char *
line_of(Dwarf_Die *cu, uint64_t addr)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, addr);
	int lineno;

	if (!line || dwarf_lineno(line, &lineno) || lineno <= 0)
		return NULL;
	return file_line(dwarf_linesrc(line, NULL, NULL), (Dwarf_Word)lineno);
}

/* Where the inlined subroutine die was called from, in its caller. */
static char *
call_site(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nfiles;

	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file) &&
	    !dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line) &&
	    dwarf_diecu(die, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nfiles) && file < nfiles)
		return file_line(dwarf_filesrc(files, file, NULL, NULL), line);
	return NULL;
}

/* The inlined function's name: its linkage name demangled, else its own. */
static char *
function_of(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;
	char *plain;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name && (plain = name_demangle(name)))
		return plain;
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? xstrdup(name) : NULL;
}

/*
 * The innermost inlined call at addr and the scopes around it, innermost
 * first: dwarf_getscopes goes on from an inlined call into its abstract
 * definition, dwarf_getscopes_die from the call into its callers.
 */
static int
inlined_scopes(Dwarf_Die *cu, uint64_t addr, Dwarf_Die **chain)
{
	Dwarf_Die *scopes = NULL;
	int nscopes = dwarf_getscopes(cu, addr, &scopes), i, n = 0;

	*chain = NULL;
	for (i = 0; i < nscopes; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			n = dwarf_getscopes_die(&scopes[i], chain);
			break;
		}
	}
	free(scopes);
	return n;
}

size_t
inline_frames(Dwarf *dw, uint64_t addr, struct inline_frame **v, char **where)
{
	Dwarf_Die cu, *scopes;
	char *next;
	size_t n = 0, cap = 0;
	int nscopes, i;

	*v = NULL;
	*where = NULL;
	if (!dwarf_addrdie(dw, addr, &cu))
		return 0;
	next = line_of(&cu, addr);
	nscopes = inlined_scopes(&cu, addr, &scopes);
	/* Each inlined call's site is a line of the function it was inlined into. */
	for (i = 0; i < nscopes; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		*v = xgrow(*v, &cap, n + 1, sizeof(**v));
		(*v)[n].function = function_of(&scopes[i]);
		(*v)[n++].where = next;
		next = call_site(&scopes[i]);
	}
	free(scopes);
	*where = next;
	return n;
}

void
inline_frames_free(struct inline_frame *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].function);
		free(v[i].where);
	}
	free(v);
}
