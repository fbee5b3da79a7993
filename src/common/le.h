/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Little-endian encoding of fixed-width integers, for the capture file. */
#ifndef MEMSUP_LE_H
#define MEMSUP_LE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline void
put_le16(unsigned char *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
put_le32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
put_le64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t
get_le16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t
get_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t
get_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

#endif
