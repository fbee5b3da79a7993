/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The function and object symbols and the notes of an ELF file, read with libelf. */
#ifndef MEMSUP_ELF_FUNCTIONS_H
#define MEMSUP_ELF_FUNCTIONS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The 64-bit ELF file open as fd, or NULL when it is not one. */
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

/* Whether the file has a USDT probe (sys/sdt.h) of provider. */
bool elf_has_usdt_provider(Elf *elf, const char *provider);

#endif
