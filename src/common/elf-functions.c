// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "elf-functions.h"
#include "error.h"
#include "u64map.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

Elf *
elf_open_fd(int fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)) {
		elf_end(elf);
		elf = NULL;
	}
	/* libelf keeps its own error number, not errno. */
	if (!elf)
		errno = ENOEXEC;
	return elf;
}

static void
foreach_symbol(Elf *elf, int type, void (*fn)(void *ctx, const char *name,
					      uint64_t vaddr, uint64_t size),
	       void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, nsyms;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		/* The data read, not the header's claim, bounds the loop. */
		nsyms = data->d_size / shdr.sh_entsize;
		for (i = 0; i < nsyms; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != type ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (name)
				fn(ctx, name, sym.st_value, sym.st_size);
		}
	}
}

void
elf_foreach_function(Elf *elf, void (*fn)(void *ctx, const char *name, uint64_t vaddr,
					  uint64_t size), void *ctx)
{
	foreach_symbol(elf, STT_FUNC, fn, ctx);
}

void
elf_foreach_object(Elf *elf, void (*fn)(void *ctx, const char *name, uint64_t vaddr,
					uint64_t size), void *ctx)
{
	foreach_symbol(elf, STT_OBJECT, fn, ctx);
}

/*
 * Calls fn for each note of the file's note sections until it returns
 * true; returns whether one did.  name and desc lie within the section.
 */
static bool
foreach_note(Elf *elf, bool (*fn)(void *ctx, const GElf_Nhdr *nhdr, const char *name,
				  const char *desc), void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		GElf_Nhdr nhdr;
		Elf_Data *data;
		size_t offset = 0, name_at, desc_at;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at)))
			if (fn(ctx, &nhdr, (const char *)data->d_buf + name_at,
			       (const char *)data->d_buf + desc_at))
				return true;
	}
	return false;
}

struct build_id {
	uint8_t *out;
	size_t max, len;
};

static bool
is_build_id(void *ctx, const GElf_Nhdr *nhdr, const char *name, const char *desc)
{
	struct build_id *b = ctx;

	if (nhdr->n_type != NT_GNU_BUILD_ID || nhdr->n_namesz != 4 || memcmp(name, "GNU", 4))
		return false;
	b->len = nhdr->n_descsz < b->max ? nhdr->n_descsz : b->max;
	memcpy(b->out, desc, b->len);
	return true;
}

size_t
elf_build_id(Elf *elf, uint8_t *out, size_t max)
{
	struct build_id b = { out, max, 0 };

	foreach_note(elf, is_build_id, &b);
	return b.len;
}

Elf_Scn *
elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t names;

	if (elf_getshdrstrndx(elf, &names))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && !strcmp(elf_strptr(elf, names, sh->sh_name) ?: "", name))
			return scn;
	return NULL;
}

bool
elf_build_id_is(Elf *elf, const uint8_t *id, size_t len)
{
	uint8_t own[64];

	return !len || (elf_build_id(elf, own, sizeof(own)) == len && !memcmp(own, id, len));
}

GElf_Phdr *
elf_loads(Elf *elf, size_t *n)
{
	GElf_Phdr *loads, p;
	size_t i, count;

	*n = 0;
	if (elf_getphdrnum(elf, &count))
		return NULL;
	loads = xreallocarray(NULL, count ? count : 1, sizeof(*loads));
	for (i = 0; i < count; i++)
		if (gelf_getphdr(elf, (int)i, &p) && p.p_type == PT_LOAD)
			loads[(*n)++] = p;
	return loads;
}

const GElf_Phdr *
elf_load_holding(const GElf_Phdr *loads, size_t n, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (vaddr >= loads[i].p_vaddr && vaddr - loads[i].p_vaddr < loads[i].p_filesz)
			return &loads[i];
	return NULL;
}

bool
elf_load_address(const GElf_Phdr *loads, size_t n, uint64_t offset, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (offset >= loads[i].p_offset && offset - loads[i].p_offset < loads[i].p_filesz) {
			*vaddr = offset - loads[i].p_offset + loads[i].p_vaddr;
			return true;
		}
	}
	return false;
}

uint64_t
elf_loads_lowest(const GElf_Phdr *loads, size_t n)
{
	uint64_t lowest = n ? loads[0].p_vaddr : 0;
	size_t i;

	for (i = 1; i < n; i++)
		if (loads[i].p_vaddr < lowest)
			lowest = loads[i].p_vaddr;
	return lowest;
}

bool
elf_mapping_bias(const GElf_Phdr *loads, size_t n, uint64_t start, uint64_t offset,
		 uint64_t *bias)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const GElf_Phdr *p = &loads[i];
		uint64_t page = p->p_align > 1 ? p->p_offset & ~(p->p_align - 1) : p->p_offset;

		if (offset >= page && offset < p->p_offset + p->p_filesz) {
			*bias = start - offset + p->p_offset - p->p_vaddr;
			return true;
		}
	}
	return false;
}

/* The symbol that relocation r of the section with header sh names. */
static const char *
rela_symbol(Elf *elf, const GElf_Shdr *sh, const GElf_Rela *r)
{
	Elf_Scn *scn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *syms;
	GElf_Sym sym;

	if (!scn || !gelf_getshdr(scn, &symsh) || !(syms = elf_getdata(scn, NULL)) ||
	    !gelf_getsym(syms, (int)GELF_R_SYM(r->r_info), &sym))
		return NULL;
	return elf_strptr(elf, symsh.sh_link, sym.st_name);
}

/*
 * Calls fn for each relocation of the file's SHT_RELA sections, with the
 * section's header, until it returns true; returns whether one did.
 */
static bool
foreach_rela(Elf *elf, bool (*fn)(void *ctx, Elf *elf, const GElf_Shdr *sh, const GElf_Rela *r),
	     void *ctx)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		/* The data read, not the header's claim, bounds the loop. */
		n = data->d_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;

			if (gelf_getrela(data, (int)i, &r) && fn(ctx, elf, &shdr, &r))
				return true;
		}
	}
	return false;
}

static void
note_ifunc(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	if (!u64map_find(ctx, vaddr))
		u64map_put(ctx, vaddr, (uint64_t)(uintptr_t)name);
}

/* The GNU indirect functions of the file: resolver address -> name. */
static void
read_ifuncs(Elf *elf, struct u64map *ifuncs)
{
	u64map_init(ifuncs);
	foreach_symbol(elf, STT_GNU_IFUNC, note_ifunc, ifuncs);
}

/* What relocation r of the section with header sh says its slot holds. */
static bool
slot_of(Elf *elf, const GElf_Shdr *sh, const GElf_Rela *r, const struct u64map *ifuncs,
	const char **name, bool *bound_here)
{
	const struct u64map_slot *ifunc;

	switch (GELF_R_TYPE(r->r_info)) {
	case R_X86_64_JUMP_SLOT:
	case R_X86_64_GLOB_DAT:
		*name = rela_symbol(elf, sh, r);
		*bound_here = false;
		return true;
	case R_X86_64_IRELATIVE:
		ifunc = u64map_find(ifuncs, (uint64_t)r->r_addend);
		*name = ifunc ? (const char *)(uintptr_t)ifunc->value : NULL;
		*bound_here = true;
		return true;
	default:
		return false;
	}
}

struct slot_reading {
	struct elf_got_names *got;
	struct u64map ifuncs;
};

/* A slot that two relocations name is named by neither. */
static bool
note_slot(void *ctx, Elf *elf, const GElf_Shdr *sh, const GElf_Rela *r)
{
	struct slot_reading *reading = ctx;
	struct elf_got_names *g = reading->got;
	const char *name;
	bool bound_here;
	uint64_t unused;

	if (!slot_of(elf, sh, r, &reading->ifuncs, &name, &bound_here))
		return false;
	if (u64map_find(&g->names, r->r_offset)) {
		u64map_put(&g->names, r->r_offset, 0);
		u64map_remove(&g->bound_here, r->r_offset, &unused);
		return false;
	}
	u64map_put(&g->names, r->r_offset, (uint64_t)(uintptr_t)name);
	if (bound_here)
		u64map_put(&g->bound_here, r->r_offset, 1);
	return false;
}

void
elf_got_names_read(Elf *elf, struct elf_got_names *g)
{
	struct slot_reading reading = { .got = g };

	u64map_init(&g->names);
	u64map_init(&g->bound_here);
	read_ifuncs(elf, &reading.ifuncs);
	foreach_rela(elf, note_slot, &reading);
	u64map_free(&reading.ifuncs);
}

const char *
elf_got_name(const struct elf_got_names *g, uint64_t slot, bool *bound_here)
{
	const struct u64map_slot *named = u64map_find(&g->names, slot);

	*bound_here = u64map_find(&g->bound_here, slot) != NULL;
	return named ? (const char *)(uintptr_t)named->value : NULL;
}

void
elf_got_names_free(struct elf_got_names *g)
{
	u64map_free(&g->names);
	u64map_free(&g->bound_here);
}

/*
 * A SystemTap SDT note (sys/sdt.h): type 3, owner "stapsdt", and three
 * addresses (the probe, .stapsdt.base, the semaphore) before the
 * provider's name.
 */
enum { SDT_NOTE_TYPE = 3, SDT_NOTE_ADDRESSES = 3 * 8 };

static bool
is_provider_probe(void *ctx, const GElf_Nhdr *nhdr, const char *name, const char *desc)
{
	const char *provider = ctx;
	size_t n = strlen(provider) + 1;

	return nhdr->n_type == SDT_NOTE_TYPE && nhdr->n_namesz == sizeof("stapsdt") &&
	       !memcmp(name, "stapsdt", sizeof("stapsdt")) &&
	       nhdr->n_descsz >= SDT_NOTE_ADDRESSES + n &&
	       !memcmp(desc + SDT_NOTE_ADDRESSES, provider, n);
}

bool
elf_has_usdt_provider(Elf *elf, const char *provider)
{
	return foreach_note(elf, is_provider_probe, (void *)provider);
}
