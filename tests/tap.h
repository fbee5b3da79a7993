/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small TAP (version 13) emitter for the C unit tests, in the spirit of
 * the kernel's kselftest.h:
 *
 *	tap_plan(3);
 *	tap_ok(n > 0, "n is positive");
 *	tap_eq_u64(m.count, 3, "three entries");
 *	tap_str_eq(call_name(1), "Malloc", "name of call %d", 1);
 *	return tap_done();
 *
 * Test names are printf formats.  A failed point is followed by "# "
 * lines with the file and line of the check and the values compared, so
 * the log explains the failure without a debugger.
 *
 * A test program is one translation unit, so the state lives here.
 */
#ifndef MEMSUP_TAP_H
#define MEMSUP_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	unsigned int planned;
	unsigned int run;
	unsigned int failed;
} tap_state;

static inline void
tap_plan(unsigned int n)
{
	/* Keep what was printed if the test crashes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_state.planned = n;
	printf("TAP version 13\n1..%u\n", n);
}

static inline void
tap_vdiag(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static inline void
tap_vdiag(const char *fmt, va_list ap)
{
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
}

static inline void
tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

/* Stops the whole program: what follows cannot run. */
static inline void
tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static inline void
tap_bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/*
 * Prints one test point.  The building block of the checks below, and of
 * a test's own checks: print the details with tap_diag() after it.
 */
static inline bool
tap_vresult(bool ok, const char *file, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static inline bool
tap_vresult(bool ok, const char *file, int line, const char *fmt, va_list ap)
{
	char name[512];
	char *c;

	vsnprintf(name, sizeof(name), fmt, ap);
	/* A '#' would start a directive, a newline a new TAP line. */
	for (c = name; *c; c++)
		if (*c == '#' || *c == '\n')
			*c = ' ';
	tap_state.run++;
	if (!ok)
		tap_state.failed++;
	printf("%sok %u - %s\n", ok ? "" : "not ", tap_state.run, name);
	if (!ok)
		printf("#   failed at %s:%d\n", file, line);
	return ok;
}

static inline bool
tap_result(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline bool
tap_result(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	return ok;
}

static inline bool
tap_ok_(bool ok, const char *file, int line, const char *expr,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static inline bool
tap_ok_(bool ok, const char *file, int line, const char *expr,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	if (!ok)
		printf("#   false: %s\n", expr);
	return ok;
}

static inline bool
tap_eq_u64_(uint64_t actual, uint64_t expected, const char *file, int line,
	    const char *actual_expr, const char *expected_expr,
	    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static inline bool
tap_eq_u64_(uint64_t actual, uint64_t expected, const char *file, int line,
	    const char *actual_expr, const char *expected_expr,
	    const char *fmt, ...)
{
	bool ok = actual == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("#   %s\n", actual_expr);
		printf("#     got:      %" PRIu64 " (0x%" PRIx64 ")\n",
		       actual, actual);
		printf("#     expected: %" PRIu64 " (0x%" PRIx64 ") from %s\n",
		       expected, expected, expected_expr);
	}
	return ok;
}

static inline bool
tap_eq_i64_(int64_t actual, int64_t expected, const char *file, int line,
	    const char *actual_expr, const char *expected_expr,
	    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static inline bool
tap_eq_i64_(int64_t actual, int64_t expected, const char *file, int line,
	    const char *actual_expr, const char *expected_expr,
	    const char *fmt, ...)
{
	bool ok = actual == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("#   %s\n", actual_expr);
		printf("#     got:      %" PRId64 "\n", actual);
		printf("#     expected: %" PRId64 " from %s\n",
		       expected, expected_expr);
	}
	return ok;
}

static inline void
tap_diag_str(const char *label, const char *s)
{
	if (s)
		printf("#     %s\"%s\"\n", label, s);
	else
		printf("#     %sNULL\n", label);
}

static inline bool
tap_str_eq_(const char *actual, const char *expected, const char *file,
	    int line, const char *actual_expr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static inline bool
tap_str_eq_(const char *actual, const char *expected, const char *file,
	    int line, const char *actual_expr, const char *fmt, ...)
{
	bool ok = actual && expected ? !strcmp(actual, expected)
				     : actual == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("#   %s\n", actual_expr);
		tap_diag_str("got:      ", actual);
		tap_diag_str("expected: ", expected);
	}
	return ok;
}

/* Passes if actual contains needle. */
static inline bool
tap_str_has_(const char *actual, const char *needle, const char *file,
	     int line, const char *actual_expr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static inline bool
tap_str_has_(const char *actual, const char *needle, const char *file,
	     int line, const char *actual_expr, const char *fmt, ...)
{
	bool ok = actual && strstr(actual, needle);
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, file, line, fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("#   %s\n", actual_expr);
		tap_diag_str("got:      ", actual);
		tap_diag_str("lacks:    ", needle);
	}
	return ok;
}

#define tap_ok(cond, ...) \
	tap_ok_(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define tap_eq_u64(actual, expected, ...) \
	tap_eq_u64_((actual), (expected), __FILE__, __LINE__, \
		    #actual, #expected, __VA_ARGS__)
#define tap_eq_i64(actual, expected, ...) \
	tap_eq_i64_((actual), (expected), __FILE__, __LINE__, \
		    #actual, #expected, __VA_ARGS__)
#define tap_str_eq(actual, expected, ...) \
	tap_str_eq_((actual), (expected), __FILE__, __LINE__, #actual, \
		    __VA_ARGS__)
#define tap_str_has(actual, needle, ...) \
	tap_str_has_((actual), (needle), __FILE__, __LINE__, #actual, \
		     __VA_ARGS__)

/* Returns the exit status of the test program. */
static inline int
tap_done(void)
{
	if (tap_state.run != tap_state.planned) {
		printf("# planned %u tests but ran %u\n",
		       tap_state.planned, tap_state.run);
		return 1;
	}
	if (tap_state.failed) {
		printf("# failed %u of %u tests\n",
		       tap_state.failed, tap_state.run);
		return 1;
	}
	return 0;
}

#endif
