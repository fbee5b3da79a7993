// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "procfs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
proc_exe_path(pid_t pid, char *buf, size_t size)
{
	char link[64];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	len = readlink(link, buf, size - 1);
	buf[len < 0 ? 0 : len] = '\0';
	return len < 0 ? -errno : 0;
}

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
