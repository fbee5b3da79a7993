/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Byte layout of the capture file, shared by its writer and reader. */
#ifndef MEMSUP_CAPTURE_LAYOUT_H
#define MEMSUP_CAPTURE_LAYOUT_H

#define CAPTURE_MAGIC "MEMSUPc\n"
/* Reads 1 (no stacks), 2 (no regions) and 3 (no call flags). */
#define CAPTURE_VERSION 4

/* Record types of the file only; REC_* (record.h) are written as they are. */
enum {
	CAPTURE_REC_META = 16,
	CAPTURE_REC_END = 17,
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
};

#endif
