// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "human-numbers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
human_count(char buf[HUMAN_MAX], uint64_t n)
{
	char digits[24];
	size_t len, i, o = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, n);
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *
human_size(char buf[HUMAN_MAX], uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes / 1024;
	size_t u = 0;

	if (bytes < 1024) {
		human_count(buf, bytes);
		strcat(buf, bytes == 1 ? " byte" : " bytes");
		return buf;
	}
	/* Up a unit before the figure would round to 1024.0. */
	while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, HUMAN_MAX, "%.1f %s", v, units[u]);
	return buf;
}

const char *
human_bytes(char buf[HUMAN_MAX], uint64_t bytes)
{
	char count[HUMAN_MAX];

	human_size(buf, bytes);
	if (bytes >= 1024) {
		strcat(buf, " (");
		strcat(buf, human_count(count, bytes));
		strcat(buf, " bytes)");
	}
	return buf;
}

const char *
plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

bool
human_parse(const char *arg, uint64_t *n, const char **rest)
{
	unsigned long long v;
	char *end;

	/* strtoull would take a sign, and white space before it. */
	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || (!rest && *end))
		return false;
	*n = v;
	if (rest)
		*rest = end;
	return true;
}

bool
human_parse_size(const char *arg, uint64_t *n)
{
	unsigned int shift = 0;
	const char *end;
	uint64_t v;

	if (!human_parse(arg, &v, &end))
		return false;
	switch (*end) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	}
	if (shift && !strcmp(++end, "iB"))
		end += 2;
	if (*end || v > (UINT64_MAX >> shift))
		return false;
	*n = v << shift;
	return true;
}
