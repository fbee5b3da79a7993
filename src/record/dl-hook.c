// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "dl-hook.h"
#include "elf-functions.h"
#include "file-cache.h"
#include "procfs.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

enum {
	X86_RET = 0xc3,
	X86_INT3 = 0xcc,
};

/* Where the kernel loaded the ELF interpreter (AT_BASE), 0 if none. */
static int
interpreter_base(pid_t pid, uint64_t *base)
{
	char path[64];
	Elf64_auxv_t aux;
	int fd;

	*base = 0;
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &aux, sizeof(aux)) == sizeof(aux) && aux.a_type != AT_NULL) {
		if (aux.a_type == AT_BASE) {
			*base = aux.a_un.a_val;
			break;
		}
	}
	close(fd);
	return 0;
}

/* The file that holds the dynamic linker, and where it is loaded. */
struct linker {
	uint64_t at_base;	/* the interpreter's AT_BASE, or 0 */
	ino_t exe;		/* without an interpreter: the program's inode */
	uint64_t start;		/* of its mapping at file offset 0 */
	char path[4096];
};

static int
find_linker_file(void *ctx, const struct proc_mapping *m)
{
	struct linker *l = ctx;

	if (m->offset != 0 ||
	    (l->at_base ? m->start != l->at_base : m->ino != l->exe))
		return 0;
	l->start = m->start;
	snprintf(l->path, sizeof(l->path), "%s", m->open_path);
	return 1;
}

static void
find_debug_state(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	if (!strcmp(name, "_dl_debug_state"))
		((struct cached_file *)ctx)->debug_state = vaddr;
}

static void
find_r_debug(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	if (!strcmp(name, "_r_debug"))
		((struct cached_file *)ctx)->r_debug = vaddr;
}

/* The hook's symbols of the file at path into f, read once per file. */
static int
read_linker_symbols(const char *path, struct cached_file *f)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Ehdr ehdr;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_open_fd(fd);
	if (elf && gelf_getehdr(elf, &ehdr)) {
		f->linker_relative = ehdr.e_type == ET_DYN;
		elf_foreach_function(elf, find_debug_state, f);
		elf_foreach_object(elf, find_r_debug, f);
	}
	elf_end(elf);
	close(fd);
	f->linker_read = true;
	return 0;
}

/*
 * Where the file at path, loaded with its first segment at start, has
 * _dl_debug_state and _r_debug, into h (addresses of a program not
 * position-independent are absolute); none without _dl_debug_state.
 */
static int
linker_symbols(struct file_cache *files, const char *path, uint64_t start,
	       struct dl_hook *h)
{
	struct cached_file *f;
	struct stat st;
	uint64_t base;
	int err;

	if (stat(path, &st))
		return -errno;
	f = file_cache_get(files, st.st_dev, st.st_ino);
	if (!f->linker_read) {
		err = read_linker_symbols(path, f);
		if (err)
			return err;
	}
	if (!f->debug_state)
		return 0;
	base = f->linker_relative ? start : 0;
	h->addr = f->debug_state + base;
	h->r_debug = f->r_debug ? f->r_debug + base : 0;
	return 0;
}

/*
 * Reads or writes pid's memory through /proc/PID/mem, which writes
 * through the text's write protection.
 */
static int
mem_access(pid_t pid, uint64_t addr, void *buf, size_t len, bool store)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, (store ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = store ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
	if (n != (ssize_t)len)
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

int
dl_hook_find(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
	     struct dl_hook *h, const char **why)
{
	struct linker l = { .exe = 0 };
	char exe[64];
	struct stat st;
	int err;

	memset(h, 0, sizeof(*h));
	*why = "cannot read its auxiliary vector";
	err = interpreter_base(pid, &l.at_base);
	/*
	 * Without an interpreter, the program may be the dynamic linker run
	 * as a command (ld.so PROGRAM), or a static program, which has one
	 * for static dlopen, or none.
	 */
	if (!err && !l.at_base) {
		*why = "cannot read its executable";
		snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
		err = stat(exe, &st) ? -errno : 0;
		l.exe = st.st_ino;
	}
	if (err)
		return err;
	*why = "cannot find its dynamic linker in its maps";
	l.path[0] = '\0';
	proc_maps_each(maps, find_linker_file, &l);
	if (!l.path[0])
		return l.at_base ? -ENOENT : 0;
	*why = "cannot read its dynamic linker";
	err = linker_symbols(files, l.path, l.start, h);
	if (err)
		return err;
	*why = "its dynamic linker has no _dl_debug_state";
	return !h->addr && l.at_base ? -ENOENT : 0;
}

int
dl_hook_arm(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
	    struct dl_hook *h, const char **why)
{
	uint8_t byte = X86_INT3;
	int err = dl_hook_find(files, maps, pid, h, why);

	if (err || !h->addr)
		return err;
	*why = "cannot read its dynamic linker's code";
	err = mem_access(pid, h->addr, &h->saved, 1, false);
	if (err)
		return err;
	/* A breakpoint in place of anything but `ret` would need stepping. */
	*why = "its _dl_debug_state is not a bare `ret`";
	if (h->saved != X86_RET)
		return -ENOTSUP;
	*why = "cannot write its dynamic linker's code";
	err = mem_access(pid, h->addr, &byte, 1, true);
	if (err)
		return err;
	h->armed = true;
	return 0;
}

/* r_debug.r_state, or -1 when it cannot be read. */
static int
linker_state(pid_t pid, const struct dl_hook *h)
{
	int state;

	if (!h->r_debug ||
	    mem_access(pid, h->r_debug + offsetof(struct r_debug, r_state),
		       &state, sizeof(state), false))
		return -1;
	return state;
}

bool
dl_hook_adding(pid_t pid, const struct dl_hook *h)
{
	return linker_state(pid, h) == RT_ADD;
}

bool
dl_hook_changing(pid_t pid, const struct dl_hook *h)
{
	int state = linker_state(pid, h);

	return state == RT_ADD || state == RT_DELETE;
}

bool
dl_hook_hit(const struct dl_hook *h, pid_t tid)
{
	struct user_regs_struct regs;
	siginfo_t si;
	long ret;

	if (!h->armed || ptrace(PTRACE_GETSIGINFO, tid, 0L, &si) ||
	    si.si_code != SI_KERNEL || ptrace(PTRACE_GETREGS, tid, 0L, &regs) ||
	    regs.rip != h->addr + 1)
		return false;
	/* Do what the `ret` replaced would have done. */
	errno = 0;
	ret = ptrace(PTRACE_PEEKDATA, tid, (void *)regs.rsp, 0L);
	if (errno)
		return false;
	regs.rip = (unsigned long long)ret;
	regs.rsp += 8;
	return ptrace(PTRACE_SETREGS, tid, 0L, &regs) == 0;
}

void
dl_hook_disarm(pid_t pid, struct dl_hook *h)
{
	if (h->armed)
		mem_access(pid, h->addr, &h->saved, 1, true);
	h->armed = false;
}
