// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hold N SECONDS [churn]: bench/run's memory workload: N blocks of 32
 * bytes live at once, held for SECONDS while bench/run reads memsup's
 * peak RSS, then freed.  With "churn", each block is freed at once: the
 * same calls, with nothing live, for the baseline.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, i;
	unsigned int seconds = argc > 2 ? (unsigned int)atoi(argv[2]) : 1;
	int churn = argc > 3 && !strcmp(argv[3], "churn");
	void **blocks = calloc((size_t)n + 1, sizeof(*blocks));

	if (!blocks)
		return 1;
	for (i = 0; i < n; i++) {
		if (!(blocks[i] = malloc(32)))
			return 1;
		if (churn) {
			free(blocks[i]);
			blocks[i] = NULL;
		}
	}
	sleep(seconds);
	for (i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	return 0;
}
