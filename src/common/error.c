// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
vprint_msg(const char *prefix, int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "memsup: %s", prefix);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_msg("", 0, fmt, ap);
	va_end(ap);
}

void
perror_msg(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vprint_msg("", err, fmt, ap);
	va_end(ap);
}

void
warning_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_msg("warning: ", 0, fmt, ap);
	va_end(ap);
}

void
usage_hint(const char *command)
{
	fprintf(stderr, "Try 'memsup %s%s--help' for more information.\n",
		command ? command : "", command ? " " : "");
}

void
error_msg_and_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_msg("", 0, fmt, ap);
	va_end(ap);
	exit(MS_EXIT_FAILURE);
}

void
perror_msg_and_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vprint_msg("", err, fmt, ap);
	va_end(ap);
	exit(MS_EXIT_FAILURE);
}

static void *
check_alloc(void *p)
{
	if (!p)
		error_msg_and_die("out of memory");
	return p;
}

void *
xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *
xcalloc(size_t nmemb, size_t size)
{
	return check_alloc(calloc(nmemb ? nmemb : 1, size ? size : 1));
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	return check_alloc(reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1));
}

/* The smallest array xgrow makes: a few elements cost less than a realloc. */
enum { GROW_MIN = 16 };

/*
 * Doubling makes n appends cost O(n) copies.  One element at a time costs
 * O(n^2): glibc often extends a block in place, but AddressSanitizer makes
 * every realloc a new block, a copy and a quarantined free.
 */
void *
xgrow(void *ptr, size_t *cap, size_t need, size_t size)
{
	size_t max = SIZE_MAX / (size ? size : 1), n;

	if (need <= *cap)
		return ptr;
	if (need > max)
		error_msg_and_die("out of memory");
	n = *cap <= max / 2 ? 2 * *cap : max;
	if (n < GROW_MIN)
		n = GROW_MIN;
	if (n > max)
		n = max;
	if (n < need)
		n = need;
	ptr = xreallocarray(ptr, n, size);
	*cap = n;
	return ptr;
}

char *
xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}
