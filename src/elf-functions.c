// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "elf-functions.h"

#include <stddef.h>
#include <string.h>

Elf *
elf_open_fd(int fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)) {
		elf_end(elf);
		elf = NULL;
	}
	return elf;
}

void
elf_foreach_function(Elf *elf, void (*fn)(void *ctx, const char *name, uint64_t vaddr,
					  uint64_t size), void *ctx)
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
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (name)
				fn(ctx, name, sym.st_value, sym.st_size);
		}
	}
}

size_t
elf_build_id(Elf *elf, uint8_t *out, size_t max)
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
		while ((offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at))) {
			size_t n = nhdr.n_descsz < max ? nhdr.n_descsz : max;

			if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_at, "GNU", 4))
				continue;
			memcpy(out, (const char *)data->d_buf + desc_at, n);
			return n;
		}
	}
	return 0;
}
