// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Copied stacks unwound by libunwind's remote x86_64 unwinder, over an
 * address space of memsup's own: the registers and stack bytes from the
 * record, and everything else (the .eh_frame_hdr search table, the
 * frame descriptions) from the files the process mapped, read from disk.
 */
#include "config.h"
#include "unwind.h"
#include "eh-frame-index.h"
#include "elf-functions.h"
#include "error.h"
#include "stack-table.h"

#include <errno.h>
#include <fcntl.h>
#include <libunwind-x86_64.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const unwind_backend = "libunwind";

/* Exported by libunwind, not declared: the lookup in a remote search table. */
int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				       unw_dyn_info_t *di, unw_proc_info_t *pi,
				       int need_unwind_info, void *arg);

/* A module's file, as unwinding needs it. */
struct unwind_file {
	enum { FILE_UNREAD, FILE_USABLE, FILE_UNUSABLE } state;
	int fd;
	Elf *elf;
	const char *image;	/* the whole file, as libelf mapped it */
	size_t size;
	GElf_Phdr *loads;
	size_t nloads;
	uint64_t hdr_vaddr;	/* .eh_frame_hdr, 0 when there is none */
	uint64_t fde_count;
};

/*
 * What an unwind read from the copy: a register or a stack word.  What
 * it read elsewhere (the files, which are the same for as long as the
 * address space is, or nothing) matters only in that it was not in the
 * copy: the lowest end of such a read at or above the stack pointer
 * bounds the copies that answer the same.
 */
struct unwind_input {
	uint64_t what;		/* INPUT_REGISTER | register number, or address */
	uint64_t value;
};
#define INPUT_REGISTER		(UINT64_C(1) << 63)
#define INPUTS_MAX		1024	/* an unwind that reads more is not kept */

/*
 * A past unwind: libunwind is deterministic, so a copy with the same
 * values at every place that unwind read gives the same frames, whatever
 * else differs (locals, loop counters in registers).  A slot keeps its
 * arrays when another unwind takes it: two hot stacks that share a slot
 * replace each other on every record, and must not allocate each time.
 */
struct unwind_memo {
	uint32_t generation, max;
	uint64_t ip, sp, base;
	uint64_t outside_end;	/* a copy ending at or past this held more */
	struct unwind_input *inputs;
	uint32_t ninputs, nframes;
	uint64_t *frames;
	size_t inputs_cap, frames_cap;
};
#define MEMO_SLOTS		1024

struct unwinder {
	struct address_spaces *spaces;
	unw_addr_space_t as;
	struct unwind_file *files;	/* by module index */
	uint32_t nfiles;
	size_t files_cap;
	uint32_t generation;		/* of the space libunwind's cache is about */
	struct unwind_memo *memos;	/* MEMO_SLOTS, by hash of the key */
	/* The unwind under way, and what it read. */
	const struct ms_stack_copy *copy;
	size_t copy_bytes;
	const struct address_space *space;
	struct unwind_input *inputs;
	uint32_t ninputs;
	uint64_t outside_end;
	struct unwind_stats stats;
};

/* The bytes at vaddr of the file's loaded image, if the file holds them. */
static const void *
file_bytes(const struct unwind_file *f, uint64_t vaddr, size_t len)
{
	const GElf_Phdr *p = elf_load_holding(f->loads, f->nloads, vaddr);
	uint64_t off;

	/* All len bytes in the segment's file part, and in the file. */
	if (!p || len > p->p_filesz - (vaddr - p->p_vaddr))
		return NULL;
	off = p->p_offset + (vaddr - p->p_vaddr);
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->image + off;
}

static void
file_close(struct unwind_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->loads);
	f->elf = NULL;
	f->fd = -1;
	f->loads = NULL;
}

/* Opens the module's file, if it is still the one the process mapped. */
static void
file_open(struct unwind_file *f, const struct space_module *m)
{
	struct eh_frame_index index;

	f->state = FILE_UNUSABLE;
	f->fd = open(m->open_path ? m->open_path : m->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return;
	f->elf = elf_open_fd(f->fd);
	if (!f->elf || !(f->image = elf_rawfile(f->elf, &f->size)) ||
	    !elf_build_id_is(f->elf, m->build_id, m->build_id_len) ||
	    !(f->loads = elf_loads(f->elf, &f->nloads))) {
		file_close(f);
		return;
	}
	if (eh_frame_index_read(f->elf, &index)) {
		f->hdr_vaddr = index.hdr_vaddr;
		f->fde_count = index.count;
	}
	f->state = FILE_USABLE;
}

static const struct unwind_file *
file_of(struct unwinder *u, uint32_t module)
{
	struct unwind_file *f;

	if (!module || module > u->spaces->nmodules)
		return NULL;
	if (u->nfiles < u->spaces->nmodules) {
		u->files = xgrow(u->files, &u->files_cap, u->spaces->nmodules,
				 sizeof(*u->files));
		for (; u->nfiles < u->spaces->nmodules; u->nfiles++)
			u->files[u->nfiles] = (struct unwind_file){ .fd = -1 };
	}
	f = &u->files[module - 1];
	if (f->state == FILE_UNREAD)
		file_open(f, &u->spaces->modules[module - 1]);
	return f->state == FILE_USABLE ? f : NULL;
}

static int
find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
	       int need_unwind_info, void *arg)
{
	struct unwinder *u = arg;
	const struct space_mapping *m = address_space_find(u->space, ip);
	const struct unwind_file *f = m ? file_of(u, m->module) : NULL;
	unw_dyn_info_t di;
	uint64_t bias;

	if (!f || !f->hdr_vaddr ||
	    !elf_mapping_bias(f->loads, f->nloads, m->start, m->offset, &bias))
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	di.u.rti.segbase = bias + f->hdr_vaddr;
	di.u.rti.table_data = bias + f->hdr_vaddr + EH_FRAME_INDEX_TABLE;
	/* In words: each entry is two 4-byte offsets. */
	di.u.rti.table_len = f->fde_count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

/* libunwind frees what the table search allocated itself. */
static void
put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int
get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;
}

static void
note_input(struct unwinder *u, uint64_t what, uint64_t value)
{
	if (u->ninputs < INPUTS_MAX)
		u->inputs[u->ninputs] = (struct unwind_input){ what, value };
	u->ninputs++;
}

/* The stack word at addr, if the copy holds it. */
static bool
stack_word(const struct ms_stack_copy *c, size_t copy_bytes, uint64_t addr, uint64_t *value)
{
	if (addr < c->regs.sp || addr < c->base || addr - c->base > copy_bytes ||
	    sizeof(*value) > copy_bytes - (addr - c->base))
		return false;
	memcpy(value, c->bytes + (addr - c->base), sizeof(*value));
	return true;
}

/* The copy for the stack, the mapped files for the rest. */
static int
access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct unwinder *u = arg;
	uint64_t value;
	size_t i;

	if (write)
		return -UNW_EREADONLYREG;
	if (stack_word(u->copy, u->copy_bytes, addr, &value)) {
		note_input(u, addr, value);
		*valp = value;
		return 0;
	}
	/* What a longer copy would have answered from the stack. */
	if (addr >= u->copy->regs.sp && addr < u->outside_end - sizeof(*valp))
		u->outside_end = addr + sizeof(*valp);
	for (i = 0; i < u->space->n; i++) {
		const struct space_mapping *m = &u->space->maps[i];
		const struct unwind_file *f = file_of(u, m->module);
		const void *bytes;
		uint64_t bias;

		if (f && elf_mapping_bias(f->loads, f->nloads, m->start, m->offset, &bias) &&
		    (bytes = file_bytes(f, addr - bias, sizeof(*valp)))) {
			memcpy(valp, bytes, sizeof(*valp));
			return 0;
		}
	}
	return -UNW_EINVAL;
}

static bool
register_value(const struct ms_user_regs *r, uint64_t reg, uint64_t *value)
{
	switch (reg) {
	case UNW_X86_64_RIP: *value = r->ip; return true;
	case UNW_X86_64_RSP: *value = r->sp; return true;
	case UNW_X86_64_RBP: *value = r->bp; return true;
	case UNW_X86_64_RBX: *value = r->bx; return true;
	case UNW_X86_64_R12: *value = r->r12; return true;
	case UNW_X86_64_R13: *value = r->r13; return true;
	case UNW_X86_64_R14: *value = r->r14; return true;
	case UNW_X86_64_R15: *value = r->r15; return true;
	default: return false;
	}
}

static int
access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write, void *arg)
{
	struct unwinder *u = arg;
	uint64_t value;

	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || !register_value(&u->copy->regs, (uint64_t)reg, &value))
		return -UNW_EBADREG;
	note_input(u, INPUT_REGISTER | (uint64_t)reg, value);
	*valp = value;
	return 0;
}

static int
access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write, void *arg)
{
	return -UNW_EBADREG;
}

static int
resume(unw_addr_space_t as, unw_cursor_t *cursor, void *arg)
{
	return -UNW_EINVAL;
}

static int
get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
	      unw_word_t *offset, void *arg)
{
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

struct unwinder *
unwinder_new(struct address_spaces *spaces)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->spaces = spaces;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		errno = ENOMEM;		/* libunwind fails here only to allocate */
		return NULL;
	}
	/* Valid while the space stays the same: flushed when it changes. */
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	u->memos = xcalloc(MEMO_SLOTS, sizeof(*u->memos));
	u->inputs = xreallocarray(NULL, INPUTS_MAX, sizeof(*u->inputs));
	return u;
}

void
unwinder_free(struct unwinder *u)
{
	uint32_t i;

	if (!u)
		return;
	for (i = 0; i < u->nfiles; i++)
		file_close(&u->files[i]);
	free(u->files);
	for (i = 0; i < MEMO_SLOTS; i++) {
		free(u->memos[i].inputs);
		free(u->memos[i].frames);
	}
	free(u->memos);
	free(u->inputs);
	unw_destroy_addr_space(u->as);
	free(u);
}

/* Whether the copy holds what the memo's unwind read, value for value. */
static bool
memo_matches(const struct unwind_memo *m, const struct ms_stack_copy *copy,
	     size_t copy_bytes)
{
	uint32_t i;
	uint64_t value;

	if (copy->base != m->base || copy_bytes >= m->outside_end - m->base)
		return false;
	for (i = 0; i < m->ninputs; i++) {
		const struct unwind_input *in = &m->inputs[i];
		bool have;

		if (in->what & INPUT_REGISTER)
			have = register_value(&copy->regs, in->what & ~INPUT_REGISTER, &value);
		else
			have = stack_word(copy, copy_bytes, in->what, &value);
		if (!have || value != in->value)
			return false;
	}
	return true;
}

static void
memo_keep(struct unwind_memo *m, const struct unwinder *u, uint32_t max,
	  const uint64_t *frames, uint32_t n)
{
	m->inputs = xgrow(m->inputs, &m->inputs_cap, u->ninputs ? u->ninputs : 1,
			  sizeof(*m->inputs));
	m->frames = xgrow(m->frames, &m->frames_cap, n, sizeof(*m->frames));
	m->generation = u->generation;
	m->max = max;
	m->ip = u->copy->regs.ip;
	m->sp = u->copy->regs.sp;
	m->base = u->copy->base;
	m->outside_end = u->outside_end;
	m->ninputs = u->ninputs;
	m->nframes = n;
	memcpy(m->inputs, u->inputs, u->ninputs * sizeof(*m->inputs));
	memcpy(m->frames, frames, n * sizeof(*frames));
}

uint32_t
unwinder_unwind(struct unwinder *u, const struct ms_stack_copy *copy, size_t len,
		uint64_t *frames, uint32_t max)
{
	uint64_t key[3], hash;
	struct unwind_memo *m;
	struct timespec start, end;
	unw_cursor_t cursor;
	unw_word_t ip;
	uint32_t n = 0;

	if (len < sizeof(*copy) || !max)
		return 0;
	u->copy = copy;
	u->copy_bytes = len - sizeof(*copy);
	u->stats.copies++;
	u->stats.copy_bytes += u->copy_bytes;
	u->space = address_spaces_get(u->spaces, copy->event.pid);
	if (u->space->generation != u->generation) {
		unw_flush_cache(u->as, 0, 0);
		u->generation = u->space->generation;
	}

	key[0] = u->generation;
	key[1] = copy->regs.ip;
	key[2] = copy->regs.sp;
	hash = stack_hash_words(max, key, 3);
	m = &u->memos[hash % MEMO_SLOTS];
	if (m->frames && m->generation == u->generation && m->max == max &&
	    m->ip == copy->regs.ip && m->sp == copy->regs.sp &&
	    memo_matches(m, copy, u->copy_bytes)) {
		memcpy(frames, m->frames, m->nframes * sizeof(*frames));
		return m->nframes;
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	u->ninputs = 0;
	u->outside_end = UINT64_MAX;
	frames[n++] = copy->regs.ip;
	if (unw_init_remote(&cursor, u->as, u) >= 0) {
		while (n < max && unw_step(&cursor) > 0) {
			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			frames[n++] = ip;
		}
	}
	if (u->ninputs <= INPUTS_MAX)
		memo_keep(m, u, max, frames, n);
	clock_gettime(CLOCK_MONOTONIC, &end);
	u->stats.unwound++;
	u->stats.unwind_ns += (uint64_t)(end.tv_sec - start.tv_sec) * 1000000000 +
			      (uint64_t)end.tv_nsec - (uint64_t)start.tv_nsec;
	return n;
}

void
unwinder_stats(const struct unwinder *u, struct unwind_stats *out)
{
	*out = u->stats;
}
