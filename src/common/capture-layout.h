/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Byte layout of the capture file, shared by its writer and reader. */
#ifndef MEMSUP_CAPTURE_LAYOUT_H
#define MEMSUP_CAPTURE_LAYOUT_H

#define CAPTURE_MAGIC "MEMSUPc\n"
/*
 * Reads 1 (no stacks), 2 (no regions), 3 (no call flags), 4 (no frame
 * names) and 5 (gzip, not zstd).
 */
#define CAPTURE_VERSION 6

/* Record types of the file only; REC_* (record.h) are written as they are. */
enum {
	CAPTURE_REC_META = 16,
	CAPTURE_REC_END = 17,
	CAPTURE_REC_STRINGS = 18,	/* from version 5 */
	CAPTURE_REC_NAMES = 19,		/* from version 5 */
};

enum {
	CAPTURE_MAGIC_LEN = 8,
	CAPTURE_HEADER_LEN = 16,	/* magic, u32 version, u32 reserved */
	CAPTURE_RECORD_HEAD = 4,	/* u16 type, u16 payload length */
	CAPTURE_MAX_PAYLOAD = 65535,

	/* Payloads.  Process records start with u64 time, u32 pid, u32 tid. */
	CAPTURE_COMMON_LEN = 16,
	CAPTURE_CALL_LEN = 44,		/* + u16 call, u16 flags, u64 ptr, size,
					 * old_ptr */
	CAPTURE_CALL_STACK_LEN = 48,	/* + u32 stack id */
	CAPTURE_STACK_MIN = 20,		/* + u32 id, then u64 frames */
	CAPTURE_MAPPING_MIN = 61,	/* + u64 start, end, offset, u8 build-id
					 * length, 20 bytes of build-id, then
					 * the path */
	CAPTURE_FORK_LEN = 20,		/* + u32 child */
	CAPTURE_EXEC_MIN = 16,		/* + the path, not NUL-terminated */
	CAPTURE_EXIT_LEN = 20,		/* + i32 wait status */
	CAPTURE_REGION_MIN = 17,	/* + u8 mark, then the name */
	CAPTURE_META_FIXED = 8,		/* u64 realtime ns, then argv\0... */
	CAPTURE_END_MIN = 36,		/* u64 records, lost records, lost
					 * calls, untraced processes;
					 * i32 exit status */
	CAPTURE_END_CRC = 72,		/* + u64 pressure stops, u32 flags,
					 * u64 unstoppable processes,
					 * u64 dropped stacks,
					 * u64 vanished threads */
	CAPTURE_END_LEN = 76,		/* + u32 CRC-32 of every byte before */
	CAPTURE_STRINGS_MIN = 4,	/* u32 first id, then strings, each
					 * NUL-terminated */
	CAPTURE_NAMES_MIN = 26,		/* u32 path id, u8 flags, u8 build-id
					 * length, 20 bytes of build-id, then
					 * frames */
	CAPTURE_NAMES_FRAME = 17,	/* u64 offset, u64 function offset,
					 * u8 n, then n functions */
	CAPTURE_NAMES_FUNCTION = 8,	/* u32 name id, u32 where id */
};

/* NAMES flags. */
#define CAPTURE_NAMES_EXPORTED_ONLY 0x1

#endif
