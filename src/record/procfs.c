// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "procfs.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

/* /proc/PID/file, opened to read; NULL with errno set. */
static FILE *
proc_fopen(pid_t pid, const char *file)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return fopen(path, "re");
}

int
proc_environ_value(pid_t pid, const char *name, char *buf, size_t size)
{
	size_t len = strlen(name);
	char *entry = NULL;
	size_t cap = 0;
	ssize_t n;
	int found = 0;
	FILE *f = proc_fopen(pid, "environ");

	if (!f)
		return -errno;
	while (!found && (n = getdelim(&entry, &cap, '\0', f)) > 0) {
		if (strncmp(entry, name, len) || entry[len] != '=')
			continue;
		snprintf(buf, size, "%s", entry + len + 1);
		found = 1;
	}
	free(entry);
	fclose(f);
	return found;
}

int
proc_status_scan(pid_t pid, const char *key, const char *fmt, ...)
{
	char line[256];
	size_t len = strlen(key);
	int n = -ENOENT;	/* until the line is found */
	va_list ap;
	FILE *f = proc_fopen(pid, "status");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		va_start(ap, fmt);
		n = vsscanf(line + len + 1, fmt, ap);
		va_end(ap);
		if (n < 0)	/* EOF: the line ended before the first item */
			n = 0;
		break;
	}
	fclose(f);
	return n;
}

int
proc_own_pid_namespace(unsigned int *inum)
{
	char self[32];
	struct stat st;
	ssize_t len = readlink("/proc/self", self, sizeof(self) - 1);

	if (len < 0)
		return -errno;
	self[len] = '\0';
	if (atoi(self) != getpid())
		return -EXDEV;
	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*inum = (unsigned int)st.st_ino;
	return 0;
}

bool
proc_exiting(pid_t pid)
{
	/* include/linux/sched.h: set as do_exit() starts, before exit_mm(). */
	const unsigned int pf_exiting = 0x4;
	char path[64], buf[1024], *after_comm;
	unsigned int flags;
	ssize_t len;
	char state;
	int fd;

	/* Gone is exiting; a failure of memsup's own (EMFILE) is not. */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return true;
	buf[len] = '\0';
	/* The command name may hold spaces and parentheses: skip past it. */
	after_comm = strrchr(buf, ')');
	if (!after_comm || sscanf(after_comm + 1, " %c %*d %*d %*d %*d %*d %u",
				  &state, &flags) != 2)
		return true;
	return state == 'Z' || state == 'X' || (flags & pf_exiting);
}

/* Whether a and b name the same file, both found. */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Whether pid sees another file tree than memsup: another mount namespace
 * or another root.  Its root, as memsup's /proc names it, goes in root,
 * empty when it is "/".
 */
static bool
other_file_tree(pid_t pid, char *root, size_t size)
{
	char ns[64], link[64];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/root", pid);
	len = readlink(link, root, size - 1);
	root[len > 1 ? len : 0] = '\0';
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", pid);
	return access(ns, F_OK) == 0 &&
	       (!same_file(ns, "/proc/self/ns/mnt") || !same_file(link, "/"));
}

int
proc_maps_foreach(pid_t pid, int (*fn)(void *ctx, const struct proc_mapping *m),
		  void *ctx)
{
	char root[4096], map_file[96], *line = NULL;
	size_t cap = 0, root_len;
	bool elsewhere;
	int ret = 0;
	FILE *f = proc_fopen(pid, "maps");

	if (!f)
		return -errno;
	elsewhere = other_file_tree(pid, root, sizeof(root));
	root_len = strlen(root);
	while (!ret && getline(&line, &cap, f) > 0) {
		struct proc_mapping m;
		unsigned long long start, end, offset, ino;
		unsigned int major, minor;
		char perms[5];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end,
			   perms, &offset, &major, &minor, &ino, &name_at) < 7 ||
		    !name_at || line[name_at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		m.start = start;
		m.end = end;
		m.offset = offset;
		m.exec = perms[2] == 'x';
		m.dev = makedev(major, minor);
		m.ino = (ino_t)ino;
		m.path = m.open_path = line + name_at;
		/*
		 * A path that names nothing here is opened through the mapping
		 * itself: a file deleted ("(deleted)": an upgraded library, a
		 * memfd), or a name the kernel escaped (a newline as "\012").
		 */
		if (elsewhere || access(m.path, F_OK)) {
			snprintf(map_file, sizeof(map_file), "/proc/%d/map_files/%llx-%llx",
				 pid, start, end);
			m.open_path = map_file;
		}
		/* The path it has from its own root. */
		if (elsewhere && root_len && !strncmp(m.path, root, root_len) &&
		    m.path[root_len] == '/')
			m.path += root_len;
		ret = fn(ctx, &m);
	}
	free(line);
	fclose(f);
	return ret;
}

static int
keep_mapping(void *ctx, const struct proc_mapping *m)
{
	struct proc_maps *maps = ctx;
	struct proc_mapping *kept;

	maps->mappings = xgrow(maps->mappings, &maps->cap, maps->n + 1,
			       sizeof(*maps->mappings));
	kept = &maps->mappings[maps->n++];
	*kept = *m;
	kept->path = xstrdup(m->path);
	kept->open_path = m->open_path == m->path ? kept->path : xstrdup(m->open_path);
	return 0;
}

int
proc_maps_read(pid_t pid, struct proc_maps *maps)
{
	int err;

	memset(maps, 0, sizeof(*maps));
	err = proc_maps_foreach(pid, keep_mapping, maps);
	if (err)
		proc_maps_free(maps);
	return err;
}

void
proc_maps_free(struct proc_maps *maps)
{
	size_t i;

	for (i = 0; i < maps->n; i++) {
		if (maps->mappings[i].open_path != maps->mappings[i].path)
			free((char *)maps->mappings[i].open_path);
		free((char *)maps->mappings[i].path);
	}
	free(maps->mappings);
	memset(maps, 0, sizeof(*maps));
}

int
proc_maps_each(const struct proc_maps *maps,
	       int (*fn)(void *ctx, const struct proc_mapping *m), void *ctx)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < maps->n; i++)
		ret = fn(ctx, &maps->mappings[i]);
	return ret;
}

unsigned long
proc_kernel_limit(const char *name)
{
	char path[128];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}
