// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "dl-hook.h"
#include "elf-functions.h"
#include "procfs.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
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
	char exe[4096];		/* without an interpreter: the program */
	uint64_t start;		/* of its mapping at file offset 0 */
	char path[4096];
};

static int
find_linker_file(void *ctx, const struct proc_mapping *m)
{
	struct linker *l = ctx;

	if (m->offset != 0 ||
	    (l->at_base ? m->start != l->at_base : strcmp(m->path, l->exe) != 0))
		return 0;
	l->start = m->start;
	snprintf(l->path, sizeof(l->path), "%s", m->path);
	return 1;
}

static void
find_debug_state(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	if (!strcmp(name, "_dl_debug_state"))
		*(uint64_t *)ctx = vaddr;
}

/*
 * Where _dl_debug_state is in the file at path, relative to the load
 * address of its first segment (0 for a program not position-independent,
 * whose addresses are absolute); 0 when the file has no such function.
 */
static int
debug_state_offset(const char *path, uint64_t start, uint64_t *addr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t vaddr = 0;
	GElf_Ehdr ehdr;
	Elf *elf;

	*addr = 0;
	if (fd < 0)
		return -errno;
	elf = elf_open_fd(fd);
	if (elf && gelf_getehdr(elf, &ehdr)) {
		elf_foreach_function(elf, find_debug_state, &vaddr);
		if (vaddr)
			*addr = (ehdr.e_type == ET_DYN ? start : 0) + vaddr;
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/*
 * Reads or writes one byte of pid's memory through /proc/PID/mem, which
 * writes through the text's write protection.
 */
static int
mem_byte(pid_t pid, uint64_t addr, uint8_t *byte, bool store)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, (store ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = store ? pwrite(fd, byte, 1, (off_t)addr) : pread(fd, byte, 1, (off_t)addr);
	if (n != 1)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

int
dl_hook_arm(pid_t pid, struct dl_hook *h, const char **why)
{
	struct linker l = { .exe = "" };
	uint64_t addr;
	uint8_t byte;
	int err;

	h->addr = 0;
	*why = "cannot read its auxiliary vector";
	err = interpreter_base(pid, &l.at_base);
	/*
	 * Without an interpreter, the program may be the dynamic linker run
	 * as a command (ld.so PROGRAM), or a static program, which has one
	 * for static dlopen, or none.
	 */
	if (!err && !l.at_base) {
		*why = "cannot read its executable's name";
		err = proc_exe_path(pid, l.exe, sizeof(l.exe));
	}
	if (err)
		return err;
	*why = "cannot find its dynamic linker in its maps";
	l.path[0] = '\0';
	err = proc_maps_foreach(pid, find_linker_file, &l);
	if (err < 0)
		return err;
	if (!l.path[0])
		return l.at_base ? -ENOENT : 0;
	*why = "cannot read its dynamic linker";
	err = debug_state_offset(l.path, l.start, &addr);
	if (err)
		return err;
	*why = "its dynamic linker has no _dl_debug_state";
	if (!addr)
		return l.at_base ? -ENOENT : 0;
	*why = "cannot read its dynamic linker's code";
	err = mem_byte(pid, addr, &h->saved, false);
	if (err)
		return err;
	/* A breakpoint in place of anything but `ret` would need stepping. */
	*why = "its _dl_debug_state is not a bare `ret`";
	if (h->saved != X86_RET)
		return -ENOTSUP;
	*why = "cannot write its dynamic linker's code";
	byte = X86_INT3;
	err = mem_byte(pid, addr, &byte, true);
	if (err)
		return err;
	h->addr = addr;
	return 0;
}

bool
dl_hook_hit(const struct dl_hook *h, pid_t tid)
{
	struct user_regs_struct regs;
	siginfo_t si;
	long ret;

	if (!h->addr || ptrace(PTRACE_GETSIGINFO, tid, 0L, &si) ||
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
	if (h->addr)
		mem_byte(pid, h->addr, &h->saved, true);
	h->addr = 0;
}
