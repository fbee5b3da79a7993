// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "eh-frame-index.h"
#include "le.h"

#include <string.h>

/* The encodings of the header's fields that linkers write. */
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_datarel	0x30

bool
eh_frame_index_read(Elf *elf, struct eh_frame_index *ix)
{
	const unsigned char *image, *h;
	size_t size, i, n;
	GElf_Phdr p;

	memset(ix, 0, sizeof(*ix));
	image = (const unsigned char *)elf_rawfile(elf, &size);
	if (!image || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &p) && p.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == n || p.p_offset > size || p.p_filesz > size - p.p_offset ||
	    p.p_filesz < EH_FRAME_INDEX_TABLE)
		return false;
	h = image + p.p_offset;
	if (h[0] != 1 ||
	    ((h[1] & 0x0f) != DW_EH_PE_udata4 && (h[1] & 0x0f) != DW_EH_PE_sdata4) ||
	    h[2] != DW_EH_PE_udata4 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return false;
	ix->count = get_le32(h + 8);
	if (ix->count > (p.p_filesz - EH_FRAME_INDEX_TABLE) / 8)
		return false;
	ix->hdr_vaddr = p.p_vaddr;
	ix->table = h + EH_FRAME_INDEX_TABLE;
	return true;
}

uint64_t
eh_frame_index_start(const struct eh_frame_index *ix, uint64_t i)
{
	return ix->hdr_vaddr + (uint64_t)(int64_t)(int32_t)get_le32(ix->table + 8 * i);
}
