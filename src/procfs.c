// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "procfs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int
proc_status_scan(pid_t pid, const char *key, const char *fmt, ...)
{
	char path[64], line[256];
	size_t len = strlen(key);
	int n = -1;
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		va_start(ap, fmt);
		n = vsscanf(line + len + 1, fmt, ap);
		va_end(ap);
		break;
	}
	fclose(f);
	return n;
}
