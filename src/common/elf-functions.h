/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The function and object symbols and the notes of an ELF file, read with libelf. */
#ifndef MEMSUP_ELF_FUNCTIONS_H
#define MEMSUP_ELF_FUNCTIONS_H

#include "u64map.h"

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The 64-bit ELF file open as fd, or NULL (ENOEXEC) when it is not one. */
Elf *elf_open_fd(int fd);

/*
 * Calls fn for every defined function symbol in .symtab and .dynsym, with
 * its address and size (0 when unknown); a function found in both is seen
 * twice.
 */
void elf_foreach_function(Elf *elf, void (*fn)(void *ctx, const char *name,
					       uint64_t vaddr, uint64_t size),
			  void *ctx);

/* The same for data object symbols. */
void elf_foreach_object(Elf *elf, void (*fn)(void *ctx, const char *name,
					     uint64_t vaddr, uint64_t size),
			void *ctx);

/* The GNU build-id note's bytes, at most max of them; 0 when there is none. */
size_t elf_build_id(Elf *elf, uint8_t *out, size_t max);

/* Whether the file's build-id is the len bytes of id; any file's, when len is 0. */
bool elf_build_id_is(Elf *elf, const uint8_t *id, size_t len);

/* The PT_LOAD headers, *n of them, to free; NULL when there are none to read. */
GElf_Phdr *elf_loads(Elf *elf, size_t *n);
/* The load whose file bytes hold vaddr, or NULL. */
const GElf_Phdr *elf_load_holding(const GElf_Phdr *loads, size_t n, uint64_t vaddr);
/* The address the file's byte at offset loads at: false when none does. */
bool elf_load_address(const GElf_Phdr *loads, size_t n, uint64_t offset, uint64_t *vaddr);
/* The lowest address of the loads; 0 without any. */
uint64_t elf_loads_lowest(const GElf_Phdr *loads, size_t n);
/*
 * What to add to the file's addresses to get a process's, for a mapping
 * of the file at start from offset: from the load segment it comes from.
 */
bool elf_mapping_bias(const GElf_Phdr *loads, size_t n, uint64_t start,
		      uint64_t offset, uint64_t *bias);

/* The section called name, its header in *sh; NULL when there is none. */
Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh);

/*
 * The GOT slots of an x86-64 file, each named by its relocation: the
 * symbol whose address the dynamic linker writes there (R_X86_64_JUMP_SLOT,
 * R_X86_64_GLOB_DAT), or the GNU indirect function whose resolver an
 * R_X86_64_IRELATIVE slot gets.  Read in one pass over the relocations;
 * the names point into the file's string tables.
 */
struct elf_got_names {
	struct u64map names;		/* slot -> const char *; 0: two relocations name it */
	struct u64map bound_here;	/* the IRELATIVE slots: this file's own code, at load */
};

void elf_got_names_read(Elf *elf, struct elf_got_names *g);
/*
 * The name of the function the slot at address slot gets, or NULL when
 * no relocation names one, or two do; *bound_here when it is IRELATIVE.
 */
const char *elf_got_name(const struct elf_got_names *g, uint64_t slot, bool *bound_here);
void elf_got_names_free(struct elf_got_names *g);

/* Whether the file has a USDT probe (sys/sdt.h) of provider. */
bool elf_has_usdt_provider(Elf *elf, const char *provider);

#endif
