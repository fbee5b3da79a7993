// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "status.h"

#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATUS_PERIOD_NS 1000000000ULL

/* Whether path is the terminal whose device is rdev. */
static bool
is_terminal(const char *path, dev_t rdev)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISCHR(sb.st_mode) && sb.st_rdev == rdev;
}

/*
 * Two writers of one terminal garble each other's lines: the status line
 * erases a prompt, and what the workload prints or echoes lands behind
 * the status text.  So only a terminal that the workload writes to
 * through neither its stdout nor its stderr takes the line unasked.
 */
static bool
shares_terminal(FILE *out, pid_t pid)
{
	char path[64];
	struct stat sb;
	int fd;

	if (fstat(fileno(out), &sb) || !S_ISCHR(sb.st_mode))
		return false;
	for (fd = 1; fd <= 2; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		if (is_terminal(path, sb.st_rdev))
			return true;
	}
	return false;
}

void
status_init(struct live_status *st, FILE *out, enum status_mode mode, pid_t workload)
{
	bool show = isatty(fileno(out)) &&
		    (mode == STATUS_ON ||
		     (mode == STATUS_AUTO && !shares_terminal(out, workload)));

	st->out = show ? out : NULL;
	st->shown_ns = 0;
	st->shown_events = 0;
}

/* 1536 -> "1.5 KiB". */
static void
human_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void
status_update(struct live_status *st, uint64_t now_ns, const struct status_figures *f)
{
	uint64_t since = now_ns - st->shown_ns;
	char live[32];

	if (!st->out || since < STATUS_PERIOD_NS)
		return;
	human_bytes(live, sizeof(live), f->live_bytes);
	/* \r and "erase to the end of the line": the line is rewritten in place. */
	fprintf(st->out, "\rmemsup: %.0f s, %.0f events/s, live heap %s, %" PRIu64
		" pressure stops, %" PRIu64 " lost\033[K", (double)now_ns / 1e9,
		st->shown_ns ? (double)(f->events - st->shown_events) * 1e9 / (double)since
			     : (double)f->events * 1e9 / (double)now_ns,
		live, f->pressure_stops, f->lost);
	fflush(st->out);
	st->shown_ns = now_ns;
	st->shown_events = f->events;
}

void
status_clear(struct live_status *st)
{
	if (st->out && st->shown_ns)
		fputs("\r\033[K", st->out);
	st->shown_ns = 0;
}
