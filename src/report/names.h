/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function names as the reports show them: demangled (C++ and Rust), and
 * by default shortened, their template arguments, parameter lists and
 * return types left out, so that a frame of the standard library reads
 * in one line.
 */
#ifndef MEMSUP_NAMES_H
#define MEMSUP_NAMES_H

/* The demangled name (to free), or NULL when it is not a mangled one. */
char *name_demangle(const char *symbol);

/*
 * name with what lies between its outermost <> and () left out, and the
 * return type before it: "std::_Rb_tree<>::_M_emplace_hint_unique<>()".
 * Operators ("operator<<", "operator()") and "(anonymous namespace)"
 * stay as they are.  To free.
 */
char *name_shorten(const char *name);

#endif
