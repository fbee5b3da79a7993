// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "probe-targets.h"
#include "allocator-functions.h"
#include "elf-functions.h"
#include "error.h"
#include "file-cache.h"
#include "procfs.h"
#include "unwind-table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* std::get_new_handler: the C++ runtime's operator new calls it when malloc fails. */
#define GET_NEW_HANDLER "_ZSt15get_new_handlerv"

/* An allocator function found in the symbol tables. */
struct found_function {
	uint64_t vaddr;
	uint64_t size;
	uint64_t shape;
	size_t rank;		/* among names of one address, the lowest wins */
	const char *name;	/* in the ELF file's string table */
	/* Where it lies in the file, once fill_target has looked. */
	bool located;		/* inside its segment and the file */
	uint64_t offset;	/* its file offset */
	uint64_t room;		/* the file's bytes from there to its segment's end */
};

/* Every allocator name, aliases included, to find a jump's target by. */
struct allocator_symbol {
	const char *name;
	uint64_t vaddr;
};

struct elf_scan {
	bool dynamic;			/* has PT_INTERP */
	struct found_function *found;
	size_t nfound, found_cap;
	struct allocator_symbol *names;
	size_t nnames, names_cap;
	uint64_t *starts;		/* of every function symbol */
	size_t nstarts, starts_cap;
	GElf_Phdr *loads;
	size_t nloads;
	Elf *elf;
	const uint8_t *image;		/* the file's bytes, or NULL */
	uint64_t file_size;		/* how many of them can be read */
	bool python;			/* defines PyObject_Malloc */
	bool cxx_runtime;		/* defines std::get_new_handler */
	struct elf_got_names got;	/* read when the file has allocator functions */
};

/* Keeps one name per address: .symtab and .dynsym repeat each other. */
static void
found(struct elf_scan *scan, const struct found_function *f)
{
	size_t i;

	for (i = 0; i < scan->nfound; i++) {
		struct found_function *g = &scan->found[i];

		if (g->vaddr != f->vaddr)
			continue;
		if (f->rank < g->rank) {
			g->shape = f->shape;
			g->rank = f->rank;
			g->name = f->name;
		}
		if (f->size > g->size)
			g->size = f->size;
		return;
	}
	scan->found = xgrow(scan->found, &scan->found_cap, scan->nfound + 1,
			     sizeof(*scan->found));
	scan->found[scan->nfound++] = *f;
}

static void
on_function(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	struct elf_scan *scan = ctx;
	struct found_function f = { .vaddr = vaddr, .size = size, .name = name };

	scan->starts = xgrow(scan->starts, &scan->starts_cap, scan->nstarts + 1,
			     sizeof(*scan->starts));
	scan->starts[scan->nstarts++] = vaddr;
	scan->python |= !strcmp(name, "PyObject_Malloc");
	scan->cxx_runtime |= !strcmp(name, GET_NEW_HANDLER);
	if (!(f.shape = allocator_function(name, &f.rank)))
		return;
	found(scan, &f);
	scan->names = xgrow(scan->names, &scan->names_cap, scan->nnames + 1,
			    sizeof(*scan->names));
	scan->names[scan->nnames++] = (struct allocator_symbol){ name, vaddr };
}

static int
scan_segments(Elf *elf, struct elf_scan *scan)
{
	size_t i, nphdrs;

	if (elf_getphdrnum(elf, &nphdrs))
		return -ENOEXEC;
	scan->loads = xcalloc(nphdrs, sizeof(*scan->loads));
	for (i = 0; i < nphdrs; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			return -ENOEXEC;
		if (phdr.p_type == PT_INTERP)
			scan->dynamic = true;
		else if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X))
			scan->loads[scan->nloads++] = phdr;
	}
	return 0;
}

/*
 * uprobes take a file offset, symbols give a virtual address.  A hostile
 * file can map an address past its own end; such an offset is no probe.
 * *room is how many of the file's bytes the segment p holds from there.
 */
static bool
file_offset(const GElf_Phdr *p, uint64_t vaddr, uint64_t file_size,
	    uint64_t *offset, uint64_t *room)
{
	uint64_t end;

	*offset = vaddr - p->p_vaddr + p->p_offset;
	if (*offset < p->p_offset || *offset >= file_size)
		return false;
	end = p->p_offset + p->p_filesz;
	if (end < p->p_offset || end > file_size)
		end = file_size;
	*room = end - *offset;
	return true;
}

/*
 * The pages of segment p around the probe at vaddr, for a function whose
 * own file's calls are told apart (MS_SHAPE_CODE).  The load address is
 * page-aligned, so pages of vaddr are pages of the process's addresses.
 */
static uint64_t
own_code(const GElf_Phdr *p, uint64_t vaddr, uint64_t shape)
{
	uint64_t page = vaddr / 4096;
	uint64_t below = page - p->p_vaddr / 4096;
	uint64_t above = (p->p_vaddr + p->p_memsz + 4095) / 4096 - page;

	if (!(MS_SHAPE_FLAGS(shape) & MS_SHAPE_OWN_CALLERS) ||
	    below > MS_SHAPE_CODE_PAGES_MAX || above > MS_SHAPE_CODE_PAGES_MAX)
		return 0;
	return MS_SHAPE_CODE(below, above);
}

/* Where in f, size bytes long, the next function symbol starts; size if nowhere. */
static uint64_t
next_start(const struct elf_scan *scan, const struct found_function *f, uint64_t size)
{
	uint64_t inside = size;
	size_t i;

	for (i = 0; i < scan->nstarts; i++)
		if (scan->starts[i] > f->vaddr && scan->starts[i] - f->vaddr < inside)
			inside = scan->starts[i] - f->vaddr;
	return inside;
}

/* The arguments the probe's cookie reads, as probe_site_choose takes them. */
static unsigned int
shape_args(uint64_t shape)
{
	return 1U << MS_SHAPE_SIZE(shape) | 1U << MS_SHAPE_COUNT(shape) |
	       1U << MS_SHAPE_PTR(shape);
}

/*
 * code is the function's first byte in the file's image, room the bytes
 * from there to the end of its segment: a symbol whose size claims more
 * is not decoded.
 */
static void
place_probe(const struct elf_scan *scan, const struct found_function *f,
	    const uint8_t *code, uint64_t room, enum probe_sites sites,
	    struct probe_site *site)
{
	uint64_t size = code && f->size <= room ? f->size : 0;

	if (sites == PROBE_SITES_ENTRY) {
		*site = (struct probe_site){ .offset = 0, .why = SITE_ENTRY_ASKED };
		return;
	}
	probe_site_choose(code, size, f->vaddr, shape_args(f->shape),
			  next_start(scan, f, size), site);
}

/* vaddr's file offset, and the file's bytes from there to its segment's end. */
static bool
file_bytes_at(const struct elf_scan *scan, uint64_t vaddr, uint64_t *offset,
	      uint64_t *room)
{
	const GElf_Phdr *p = elf_load_holding(scan->loads, scan->nloads, vaddr);

	return p && file_offset(p, vaddr, scan->file_size, offset, room);
}

static void
locate(const struct elf_scan *scan, struct found_function *f)
{
	f->located = file_bytes_at(scan, f->vaddr, &f->offset, &f->room);
}

static struct found_function *
found_at(const struct elf_scan *scan, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < scan->nfound; i++)
		if (scan->found[i].vaddr == vaddr)
			return &scan->found[i];
	return NULL;
}

static struct found_function *
found_named(const struct elf_scan *scan, const char *name)
{
	size_t i;

	for (i = 0; i < scan->nnames; i++)
		if (!strcmp(scan->names[i].name, name))
			return found_at(scan, scan->names[i].vaddr);
	return NULL;
}

/*
 * Whether two shapes record a call alike.  Only free's own callers
 * (MS_SHAPE_OWN_CALLERS) differ: a call forwarded to it comes from the
 * forwarder's caller, as a call of free's own would.
 */
static bool
same_record(uint64_t a, uint64_t b)
{
	uint64_t own = MS_SHAPE(0, 0, 0, 0, MS_SHAPE_OWN_CALLERS);

	return (a & ~own) == (b & ~own);
}

/* The code at vaddr, at most size bytes of it (*len), or NULL. */
static const uint8_t *
code_at(const struct elf_scan *scan, uint64_t vaddr, uint64_t size, size_t *len)
{
	uint64_t offset, room;

	if (!scan->image || !size || !file_bytes_at(scan, vaddr, &offset, &room))
		return NULL;
	*len = size < room ? size : room;
	return scan->image + offset;
}

/* The jmp of a function that only jumps on, at vaddr, size bytes long. */
static bool
jump_at(const struct elf_scan *scan, uint64_t vaddr, uint64_t size, struct probe_jump *j)
{
	size_t len;
	const uint8_t *code = code_at(scan, vaddr, size, &len);

	return code && probe_site_jump(code, len, vaddr, j) == 1;
}

/* The longest PLT stub: endbr64, then bnd jmp *slot(%rip). */
#define PLT_STUB_MAX 11

/*
 * The function a call or jump goes to, by its name: an allocator function
 * of this file (*found), or the symbol of the GOT slot it goes through,
 * directly or through a PLT stub.  NULL when it has none.
 */
static const char *
target_name(const struct elf_scan *scan, bool through_slot, uint64_t to,
	    const struct found_function **found)
{
	struct probe_jump j;
	bool bound_here;

	*found = NULL;
	if (through_slot)
		return elf_got_name(&scan->got, to, &bound_here);
	*found = found_at(scan, to);
	if (*found)
		return (*found)->name;
	if (!jump_at(scan, to, PLT_STUB_MAX, &j) || !j.through_slot)
		return NULL;
	return elf_got_name(&scan->got, j.to, &bound_here);
}

/*
 * One step of a forwarder: f only jumps to an allocator function (after
 * moves its record does not read), of this file (*next), or named by the
 * GOT slot it jumps through, directly or through a PLT stub (*name; *next
 * too when this file defines it, which the dynamic linker binds unless
 * another file interposes its own).  *jump is the jmp's offset in f.
 */
static bool
forward_step(const struct elf_scan *scan, const struct found_function *f,
	     const struct found_function **next, const char **name, uint32_t *jump)
{
	const uint8_t *code;
	struct probe_jump j;
	size_t rank, len;

	*next = NULL;
	*name = NULL;
	if (!f->located || !(code = code_at(scan, f->vaddr, f->size, &len)) ||
	    probe_site_forward(code, len, f->vaddr, shape_args(f->shape), &j) != 1)
		return false;
	*jump = j.at;
	*name = target_name(scan, j.through_slot, j.to, next);
	if (*next) {
		*name = NULL;
		return true;
	}
	if (!*name || !allocator_function(*name, &rank))
		return false;
	*next = found_named(scan, *name);
	return true;
}

/*
 * The longest chain of forwarders followed: libstdc++'s longest is 3
 * (aligned nothrow delete[] to free).  A longer one, or a loop, keeps its
 * probe, and a hostile file costs at most this many steps per function.
 */
#define FORWARD_STEPS_MAX 8

/*
 * Whether f need not be probed: its jumps lead, each to a function of
 * its shape, to one that is probed (one of this file that does not only
 * jump on, or one bound by name), so that function records every call of
 * f as f's probe would.  to gets the functions on the way.
 */
static bool
forwards(const struct elf_scan *scan, const struct found_function *f, uint32_t *jump,
	 char *to, size_t len)
{
	const struct found_function *at = f, *next;
	const char *name;
	uint32_t step_jump;
	size_t steps, used = 0, rank;

	for (steps = 0; steps < FORWARD_STEPS_MAX; steps++) {
		if (!forward_step(scan, at, &next, &name, at == f ? jump : &step_jump))
			return at != f;
		used += (size_t)snprintf(to + used, len - used, "%s%s", used ? " -> " : "",
					 name ? name : next->name);
		if (used >= len)
			return false;
		if (name && !same_record(allocator_function(name, &rank), f->shape))
			return false;
		if (!next)
			return true;
		if (!same_record(next->shape, f->shape) || !next->located)
			return false;
		at = next;
	}
	return false;
}

/* What an operator new's code calls, as new_over_malloc() looks. */
struct new_calls {
	const struct elf_scan *scan;
	const struct found_function *f;
	size_t allocator_calls;
	uint32_t at, next;	/* the last one's offset, and its return address's */
	const char *to;		/* and the function it calls */
};

static bool
new_branch(void *ctx, const struct probe_branch *b)
{
	struct new_calls *nc = ctx;
	const struct found_function *found;
	const char *name;
	uint64_t shape;
	size_t rank;

	/* A call through a register is the new-handler's. */
	if (!b->known)
		return b->call;
	name = target_name(nc->scan, b->through_slot, b->to, &found);
	/*
	 * A jump to code of no name is to the runtime's cold path, which
	 * throws; one through a slot no relocation names alone, to anything.
	 */
	if (!name)
		return !b->call && !b->through_slot;
	if (!strcmp(name, GET_NEW_HANDLER))
		return b->call;
	shape = found ? found->shape : allocator_function(name, &rank);
	if (!b->call || !shape || !same_record(shape, nc->f->shape))
		return false;
	nc->allocator_calls++;
	nc->at = b->at;
	nc->next = b->next;
	nc->to = name;
	return true;
}

/*
 * The size of the frame of the function at a call whose return address
 * is vaddr, as its CFI gives it: the stack pointer there plus this is
 * where the function's own return address lies, 8 below.  0 unless the
 * rule is that simple and leaves rbp alone, as a frame pointer walk needs.
 */
static int32_t
frame_size_at(Elf *elf, uint64_t vaddr)
{
#ifdef HAVE_LIBDW
	struct ms_unwind_rule r = unwind_rule_at(elf, vaddr - 1);

	if (r.cfa == MS_CFA_RSP && r.rbp == MS_RBP_SAME && r.cfa_offset >= 8 &&
	    r.cfa_offset <= MS_NEW_SITE_FRAME_MAX && !(r.cfa_offset & 7))
		return r.cfa_offset;
#endif
	return 0;
}

/*
 * Whether f is the C++ runtime's operator new (or new[]), which takes its
 * block from one call of malloc, or of another operator new that does,
 * and on failure calls the new-handler and tries again: its code makes
 * that one call to an allocator function recorded as the same call, calls
 * std::get_new_handler and the handler, and nothing else.  Only a file
 * that defines std::get_new_handler is looked at, and only its calls
 * through the PLT are named: a program's own operator new keeps its probe,
 * and so does a static binary's, whose call of get_new_handler is direct.
 * Its frame at the call must be one the BPF program can step over, to
 * take the stack from its caller.  w gets the call and the frame.
 */
static bool
new_over_malloc(const struct elf_scan *scan, const struct found_function *f,
		struct probe_forwarder *w, char *to, size_t len)
{
	struct new_calls nc = { .scan = scan, .f = f };
	size_t rank;

	if (!scan->cxx_runtime || strncmp(f->name, "_Zn", 3) || !scan->image ||
	    !f->size || f->size > f->room ||
	    !same_record(f->shape, allocator_function("malloc", &rank)))
		return false;
	if (probe_site_branches(scan->image + f->offset, f->size, f->vaddr, new_branch,
				&nc) != 1 || nc.allocator_calls != 1)
		return false;
	w->cfa_offset = frame_size_at(scan->elf, f->vaddr + nc.next);
	if (!w->cfa_offset)
		return false;
	w->jump = nc.at;
	w->call_return = nc.next;
	w->calls = true;
	snprintf(to, len, "%s", nc.to);
	return true;
}

static void
add_forwarder(struct probe_target *t, const struct found_function *f,
	      const struct probe_forwarder *how, const char *to)
{
	struct probe_forwarder *w = &t->forwarders[t->nforwarders++];

	*w = *how;
	w->entry = f->offset;
	w->vaddr = f->vaddr;
	w->name = xstrdup(f->name);
	w->to = xstrdup(to);
}

static bool
scan_bytes_at(const void *ctx, uint64_t vaddr, uint64_t *offset, uint64_t *room)
{
	return file_bytes_at(ctx, vaddr, offset, room);
}

/* The allocator function whose code holds vaddr (its first byte, if it has no size). */
static const char *
allocator_holding(const void *ctx, uint64_t vaddr)
{
	const struct elf_scan *scan = ctx;
	size_t i;

	for (i = 0; i < scan->nfound; i++) {
		const struct found_function *f = &scan->found[i];

		if (vaddr == f->vaddr || (vaddr > f->vaddr && vaddr - f->vaddr < f->size))
			return f->name;
	}
	return NULL;
}

/* Whether a free's return need be probed: proof says why (doc/design.md, "A free without its return"). */
static void
prove_free(const struct elf_scan *scan, struct nesting_file *file,
	   const struct found_function *f, const struct probe_plan *plan,
	   const struct probe_site *site, struct nesting_proof *proof)
{
	if (plan->free_returns)
		*proof = (struct nesting_proof){ .why = NESTING_ASKED };
	else if (!scan->image)
		*proof = (struct nesting_proof){ .why = NESTING_UNDECODABLE, .at = f->vaddr };
	else
		free_nesting_prove(file, f->vaddr, f->vaddr + site->offset, proof);
}

static void
add_call(struct probe_target *t, const struct elf_scan *scan, struct nesting_file *file,
	 const struct found_function *f, const struct probe_plan *plan)
{
	const GElf_Phdr *p = elf_load_holding(scan->loads, scan->nloads, f->vaddr);
	struct probe_call *c = &t->calls[t->ncalls++];

	place_probe(scan, f, scan->image ? scan->image + f->offset : NULL, f->room, plan->sites,
		    &c->site);
	c->shape = f->shape | own_code(p, f->vaddr + c->site.offset, f->shape);
	if (MS_SHAPE_CALL(f->shape) == MS_CALL_FREE) {
		prove_free(scan, file, f, plan, &c->site, &c->nesting);
		if (c->nesting.why == NESTING_NONE)
			c->shape |= MS_SHAPE(0, 0, 0, 0, MS_SHAPE_ENTRY_ONLY);
	}
	c->entry = f->offset;
	c->vaddr = f->vaddr;
	c->offset = f->offset + c->site.offset;
	c->name = xstrdup(f->name);
}

static void
fill_target(struct probe_target *t, struct elf_scan *scan, const struct probe_plan *plan)
{
	struct nesting_file file = {
		.elf = scan->elf, .image = scan->image, .bytes_at = scan_bytes_at,
		.allocator_at = allocator_holding, .ctx = scan, .got = &scan->got,
	};
	size_t i;

	if (scan->nfound)
		elf_got_names_read(scan->elf, &scan->got);
	for (i = 0; i < scan->nfound; i++)
		locate(scan, &scan->found[i]);
	t->calls = xcalloc(scan->nfound, sizeof(*t->calls));
	t->forwarders = xcalloc(scan->nfound, sizeof(*t->forwarders));
	for (i = 0; i < scan->nfound; i++) {
		const struct found_function *f = &scan->found[i];
		struct probe_forwarder w = { 0 };
		char to[256];

		if (!f->located)
			continue;
		if (!plan->forwarders && (forwards(scan, f, &w.jump, to, sizeof(to)) ||
					  new_over_malloc(scan, f, &w, to, sizeof(to))))
			add_forwarder(t, f, &w, to);
		else
			add_call(t, scan, &file, f, plan);
	}
	nesting_file_release(&file);
	elf_got_names_free(&scan->got);
}

int
probe_target_read(int fd, const struct probe_plan *plan, struct probe_target *t)
{
	struct elf_scan scan = { 0 };
	struct stat st;
	size_t image_size = 0;
	int err;

	if (fstat(fd, &st))
		return -errno;
	scan.elf = elf_open_fd(fd);
	if (!scan.elf)
		return -ENOEXEC;
	err = scan_segments(scan.elf, &scan);
	if (!err) {
		elf_foreach_function(scan.elf, on_function, &scan);
		scan.image = (const uint8_t *)elf_rawfile(scan.elf, &image_size);
		scan.file_size = (uint64_t)st.st_size;
		if (image_size < scan.file_size)
			scan.file_size = image_size;
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		t->dynamic = scan.dynamic;
		t->regions = elf_has_usdt_provider(scan.elf, REGION_PROVIDER);
		t->python = scan.python;
		t->ncalls = 0;
		t->nforwarders = 0;
		fill_target(t, &scan, plan);
	}
	elf_end(scan.elf);
	free(scan.found);
	free(scan.names);
	free(scan.starts);
	free(scan.loads);
	return err;
}

void
probe_target_free(struct probe_target *t)
{
	size_t i;

	for (i = 0; i < t->ncalls; i++)
		free(t->calls[i].name);
	free(t->calls);
	for (i = 0; i < t->nforwarders; i++) {
		free(t->forwarders[i].name);
		free(t->forwarders[i].to);
	}
	free(t->forwarders);
	free(t->path);
}

/*
 * Resolves one file, once per inode.  scan_path is what is opened (for
 * the executable, /proc/PID/exe, which names the very inode the process
 * runs even if its path was replaced since).
 */
static int
resolve_target(struct file_cache *files, const char *scan_path, const char *display_path,
	       bool keep_open, const struct probe_plan *plan, struct probe_target **out)
{
	struct cached_file *f;
	struct probe_target *t;
	struct stat st;
	int fd, err;

	if (stat(scan_path, &st))
		return -errno;
	f = file_cache_get(files, st.st_dev, st.st_ino);
	if (f->target) {
		*out = f->target;
		return 0;
	}
	fd = open(scan_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t = xcalloc(1, sizeof(*t));
	err = probe_target_read(fd, plan, t);
	if (err) {
		close(fd);
		probe_target_free(t);
		free(t);
		return err;
	}
	t->fd = keep_open ? fd : -1;
	if (!keep_open)
		close(fd);
	t->path = xstrdup(display_path);
	f->target = t;
	*out = t;
	return 0;
}

struct maps_scan {
	struct file_cache *files;
	pid_t pid;
	const struct probe_plan *plan;
	struct image_targets *out;
	struct stat exe;
	const char *exe_path;
	int err;
	char *why;		/* the file that failed, kept past the scan */
	size_t why_size;
};

static bool
listed(const struct image_targets *it, const struct probe_target *t)
{
	size_t i;

	for (i = 0; i < it->ntargets; i++)
		if (it->targets[i] == t)
			return true;
	return false;
}

/* The calls of malloc by t's operator new without a probe that mapping m holds. */
static void
add_new_sites(struct image_targets *it, const struct probe_target *t,
	      const struct proc_mapping *m)
{
	size_t i;

	for (i = 0; i < t->nforwarders; i++) {
		const struct probe_forwarder *w = &t->forwarders[i];
		uint64_t at = w->entry + w->call_return;

		if (!w->calls || at < m->offset || at - m->offset >= m->end - m->start)
			continue;
		it->new_sites = xgrow(it->new_sites, &it->new_sites_cap, it->nnew_sites + 1,
				      sizeof(*it->new_sites));
		it->new_sites[it->nnew_sites++] = (struct new_site){
			.ret = m->start + (at - m->offset), .frame = (uint32_t)w->cfa_offset,
		};
	}
}

/* One mapping of the process: a file to probe if it has allocators. */
static int
scan_mapping(void *ctx, const struct proc_mapping *m)
{
	struct maps_scan *ms = ctx;
	struct image_targets *out = ms->out;
	struct probe_target *t;
	char exe[64];
	struct stat st;
	int err;

	if (!m->exec)
		return 0;
	/* m->path lives only as long as the callback. */
	snprintf(ms->why, ms->why_size, "%s", m->path);
	if (stat(m->open_path, &st)) {
		/* Replaced or removed on disk since it was mapped. */
		ms->err = -errno;
		return 1;
	}
	if (st.st_dev == ms->exe.st_dev && st.st_ino == ms->exe.st_ino) {
		/* Through /proc/PID/exe, which names the very inode it runs. */
		snprintf(exe, sizeof(exe), "/proc/%d/exe", ms->pid);
		err = resolve_target(ms->files, exe, ms->exe_path, false, ms->plan, &t);
		if (!err)
			out->exe = t;
	} else {
		err = resolve_target(ms->files, m->open_path, m->path,
				     m->open_path != m->path, ms->plan, &t);
	}
	if (err) {
		ms->err = err;
		return 1;
	}
	out->python |= t->python;
	add_new_sites(out, t, m);
	if ((t->ncalls || t->regions) && !listed(out, t)) {
		out->targets = xgrow(out->targets, &out->targets_cap, out->ntargets + 1,
				     sizeof(*out->targets));
		out->targets[out->ntargets++] = t;
	}
	return 0;
}

int
image_targets_find(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
		   const struct probe_plan *plan, struct image_targets *out, const char **why)
{
	/* What *why points to must outlive the call. */
	static char exe_path[4096], failed_path[4096], exe[64];
	struct maps_scan ms = { .files = files, .pid = pid, .plan = plan, .out = out,
				.exe_path = exe_path, .why = failed_path,
				.why_size = sizeof(failed_path) };
	int err;

	out->ntargets = 0;
	out->nnew_sites = 0;
	out->exe = NULL;
	out->python = false;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	*why = exe;
	err = proc_exe_path(pid, exe_path, sizeof(exe_path));
	if (!err && stat(exe, &ms.exe))
		err = -errno;
	if (err)
		return err;
	proc_maps_each(maps, scan_mapping, &ms);
	*why = ms.why;
	if (ms.err)
		return ms.err;
	*why = exe_path;
	return out->exe ? 0 : -ENOENT;
}

void
image_targets_copy(struct image_targets *to, const struct image_targets *from)
{
	to->targets = xcalloc(from->ntargets, sizeof(*to->targets));
	if (from->ntargets)
		memcpy(to->targets, from->targets, from->ntargets * sizeof(*to->targets));
	to->ntargets = from->ntargets;
	to->targets_cap = from->ntargets;
	to->new_sites = xcalloc(from->nnew_sites, sizeof(*to->new_sites));
	if (from->nnew_sites)
		memcpy(to->new_sites, from->new_sites,
		       from->nnew_sites * sizeof(*to->new_sites));
	to->nnew_sites = from->nnew_sites;
	to->new_sites_cap = from->nnew_sites;
	to->exe = from->exe;
	to->python = from->python;
}

void
image_targets_free(struct image_targets *it)
{
	free(it->targets);
	it->targets = NULL;
	it->ntargets = 0;
	it->targets_cap = 0;
	free(it->new_sites);
	it->new_sites = NULL;
	it->nnew_sites = 0;
	it->new_sites_cap = 0;
	it->exe = NULL;
	it->python = false;
}
