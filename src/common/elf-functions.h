/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The function and object symbols and the notes of an ELF file, read with libelf. */
#ifndef MEMSUP_ELF_FUNCTIONS_H
#define MEMSUP_ELF_FUNCTIONS_H

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
 * The name of the symbol whose address the dynamic linker writes into the
 * GOT slot at address slot of an x86-64 file (its R_X86_64_JUMP_SLOT or
 * R_X86_64_GLOB_DAT relocation), or NULL when no such relocation names one;
 * for an R_X86_64_IRELATIVE slot, the GNU indirect function its resolver
 * defines.
 */
const char *elf_got_slot_symbol(Elf *elf, uint64_t slot);

/* A GOT slot of an x86-64 file, and the function whose address it gets. */
struct elf_got_slot {
	uint64_t slot;
	const char *name;	/* NULL when its relocation names none */
	bool bound_here;	/* R_X86_64_IRELATIVE: to this file's own code, at load */
};

/* Calls fn for every GOT slot elf_got_slot_symbol can name, in one pass. */
void elf_foreach_got_slot(Elf *elf, void (*fn)(void *ctx, const struct elf_got_slot *s),
			  void *ctx);

/* Whether the file has a USDT probe (sys/sdt.h) of provider. */
bool elf_has_usdt_provider(Elf *elf, const char *provider);

#endif
