// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xgrow, through which every array grows: by doubling, so that n appends
 * make O(log n) reallocations, not n (each a copy under AddressSanitizer).
 */
#include "config.h"
#include "error.h"
#include "tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void
test_doubling(void)
{
	size_t cap = 0, i;
	int *v = xgrow(NULL, &cap, 1, sizeof(*v)), *was;
	bool kept = true;

	tap_ok(v != NULL, "an empty array gets room");
	tap_eq_u64(cap, 16, "at least 16 elements, not 1");
	for (i = 0; i < cap; i++)
		v[i] = (int)i;
	was = v;
	v = xgrow(v, &cap, 10, sizeof(*v));
	tap_ok(v == was && cap == 16, "room enough: the same pointer, the same cap");
	v = xgrow(v, &cap, 16, sizeof(*v));
	tap_ok(v == was && cap == 16, "need equal to cap: no reallocation");
	v = xgrow(v, &cap, 17, sizeof(*v));
	tap_eq_u64(cap, 32, "one more than cap: cap doubles");
	for (i = 0; i < 16; i++)
		kept &= v[i] == (int)i;
	tap_ok(kept, "the elements are kept through the reallocation");
	v = xgrow(v, &cap, 100, sizeof(*v));
	tap_eq_u64(cap, 100, "need above twice cap: cap is need");
	for (i = 0; i < 16; i++)
		kept &= v[i] == (int)i;
	tap_ok(kept, "and the elements are kept again");
	free(v);
}

/* Appending one element at a time reallocates only when cap doubles. */
static void
test_appends(void)
{
	size_t cap = 0, n, grown = 0, last = 0;
	uint32_t *v = NULL;
	bool kept = true;

	for (n = 0; n < 100000; n++) {
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		if (cap != last)
			grown++;
		last = cap;
		v[n] = (uint32_t)n;
	}
	for (n = 0; n < 100000; n++)
		kept &= v[n] == n;
	tap_eq_u64(cap, 131072, "100000 appends: cap the next power of two times 16");
	tap_eq_u64(grown, 14, "reallocated 14 times (16 to 131072), not 100000");
	tap_ok(kept, "every element appended is there");
	free(v);
}

/* More elements than size_t can count the bytes of: die, allocating nothing. */
static void
test_overflow(void)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork failed");
	if (!pid) {
		size_t cap = 0;
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDERR_FILENO);
		xgrow(NULL, &cap, SIZE_MAX / 8 + 1, 8);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == MS_EXIT_FAILURE,
	       "a need whose bytes overflow is out of memory (status 0x%x)", status);
}

int
main(void)
{
	tap_plan(12);
	test_doubling();
	test_appends();
	test_overflow();
	return tap_done();
}
