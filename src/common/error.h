/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Diagnostics on stderr, prefixed with the program name, and xmalloc. */
#ifndef MEMSUP_ERROR_H
#define MEMSUP_ERROR_H

#include <stddef.h>

/* memsup's own exit statuses; the workload's status is passed through. */
enum {
	MS_EXIT_READ_ERROR = 1,		/* report: not a capture, or damaged
					 * (or cut short, with --strict) */
	MS_EXIT_OVER_LIMIT = 1,		/* check, diff --fail-on-increase: a
					 * limit broken */
	MS_EXIT_CUT = 2,		/* report: a capture cut short,
					 * reported up to the cut */
	MS_EXIT_INCOMPLETE = 124,	/* records or calls lost, a process
					 * unprobed, or the tree killed by
					 * the pressure timeout */
	MS_EXIT_FAILURE = 125,		/* usage, privileges, kernel, a file
					 * that cannot be opened, internal */
	MS_EXIT_CANNOT_EXEC = 126,
	MS_EXIT_NOT_FOUND = 127,
};

void error_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void perror_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void warning_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void error_msg_and_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void perror_msg_and_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * After a usage error: "Try 'memsup [COMMAND ]--help'", rather than the
 * whole help burying the message above it.  command NULL: memsup itself.
 */
void usage_hint(const char *command);

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
/*
 * Room for need elements of size bytes: ptr itself when its *cap are
 * enough, else ptr reallocated to at least twice *cap, and *cap updated.
 * Arrays grow through this, never one element at a time.
 */
void *xgrow(void *ptr, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);

#endif
