/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dynamic linker's debugger hook: a breakpoint on _dl_debug_state, the
 * function the dynamic linker calls (as r_debug.r_brk) once before and
 * once after it maps libraries, at start-up and at each dlopen and
 * dlclose, before any code of a new library runs.  The thread that hits it
 * stops in a ptrace-stop, so memsup probes the new libraries before it
 * lets the thread go on.  A process memsup attached to gets no
 * breakpoint, which would outlive memsup killed; memsup only reads its
 * r_debug, to tell whether the dynamic linker is still adding libraries.
 * See doc/design.md, "Libraries".
 */
#ifndef MEMSUP_DL_HOOK_H
#define MEMSUP_DL_HOOK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct file_cache;
struct proc_maps;

struct dl_hook {
	uint64_t addr;		/* of _dl_debug_state; 0: no dynamic linker */
	uint64_t r_debug;	/* of its struct r_debug; 0: unknown */
	bool armed;		/* the breakpoint is in place */
	uint8_t saved;		/* the byte the breakpoint replaced */
};

/*
 * Finds the dynamic linker pid maps (maps), as dl_hook_arm() does, and writes
 * nothing.  Returns 0, or a negative errno with *why saying what failed.
 */
int dl_hook_find(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
		 struct dl_hook *h, const char **why);

/*
 * Sets the breakpoint in the dynamic linker pid maps: its interpreter, or
 * the program itself when it is the dynamic linker run as a command or a
 * static program with static dlopen.  A static program without one gets
 * no hook.  The process must not run dynamic linker code meanwhile.  A
 * dynamic linker's symbols are read once per file (files).
 * Returns 0, or a negative errno with *why saying what failed.
 */
int dl_hook_arm(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
		struct dl_hook *h, const char **why);

/*
 * At a SIGTRAP signal-delivery-stop of thread tid: whether it is the hook's
 * breakpoint.  If so, the thread is made to return from _dl_debug_state,
 * as the replaced `ret` would have, and its SIGTRAP must not be delivered.
 */
bool dl_hook_hit(const struct dl_hook *h, pid_t tid);

/*
 * Whether pid's dynamic linker is adding libraries (r_debug.r_state is
 * RT_ADD): no code of one it is adding has run yet.
 */
bool dl_hook_adding(pid_t pid, const struct dl_hook *h);

/*
 * Whether pid's dynamic linker stopped at the hook before a change to
 * its libraries (RT_ADD or RT_DELETE), when nothing new is mapped yet;
 * false when it cannot tell.
 */
bool dl_hook_changing(pid_t pid, const struct dl_hook *h);

/* Puts the original byte back, for a process memsup lets go. */
void dl_hook_disarm(pid_t pid, struct dl_hook *h);

#endif
