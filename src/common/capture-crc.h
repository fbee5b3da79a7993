/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CRC-32 a capture's records carry: zlib's (the gzip polynomial,
 * reflected), taken with ISA-L's carry-less multiplication where the
 * build has it, a tenth of zlib's time a record, else with zlib.  The
 * value is the same either way.
 */
#ifndef MEMSUP_CAPTURE_CRC_H
#define MEMSUP_CAPTURE_CRC_H

#include <stddef.h>
#include <stdint.h>
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

/* crc continued over the len bytes at buf; 0 starts one. */
static inline uint32_t
capture_crc(uint32_t crc, const void *buf, size_t len)
{
#ifdef HAVE_ISAL
	return crc32_gzip_refl(crc, buf, len);
#else
	return (uint32_t)crc32(crc, buf, (uInt)len);
#endif
}

#endif
