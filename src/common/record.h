/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A record of the capture: what the data path carries from the ring
 * consumer and the tracer to the heap model and the capture file, and
 * from a capture file back to the reports.
 */
#ifndef MEMSUP_RECORD_H
#define MEMSUP_RECORD_H

#include <stdint.h>
#include "memsup.h"

enum record_type {
	REC_CALL = 1,		/* an allocator call */
	REC_FORK,		/* a new process, child of pid */
	REC_EXEC,		/* pid now runs a new image */
	REC_EXIT,		/* pid is gone */
	REC_ATTACH,		/* memsup -p: pid, running path, traced from now */
	REC_STACK,		/* a new entry of the stack table */
	REC_MAPPING,		/* pid maps part of a file for execution */
	REC_REGION,		/* a region of the workload begins or ends */
};

#define BUILD_ID_MAX 20

/*
 * A free from the code of the C library itself (MS_EVENT_INTERNAL): its
 * thread-exit path handing back blocks the program freed already.
 */
#define CALL_INTERNAL 0x1
#define CALL_FLAGS_KNOWN CALL_INTERNAL

struct record {
	enum record_type type;
	uint64_t time_ns;	/* since the capture started */
	uint32_t pid;
	uint32_t tid;
	union {
		struct {
			uint16_t call;	/* enum ms_call */
			uint16_t flags;	/* CALL_* */
			uint64_t ptr;
			uint64_t size;
			uint64_t old_ptr;
			uint32_t stack_id;	/* 0: none */
			uint32_t site;	/* set by the reports; 0: none */
		} call;
		struct {
			uint32_t id;	/* from 1, in order */
			uint32_t nframes;
			const uint64_t *frames;	/* return addresses, innermost first */
		} stack;
		struct {
			uint64_t start, end;	/* addresses */
			uint64_t offset;	/* in the file, of start */
			uint8_t build_id_len;	/* 0: none */
			uint8_t build_id[BUILD_ID_MAX];
			const char *path;
			/* Where the supervisor opens it, if not at path; not in the capture. */
			const char *open_path;
		} mapping;
		struct {
			uint32_t child;
		} fork;
		struct {
			const char *path;
		} exec;			/* and attach */
		struct {
			int32_t wait_status;
		} exit;
		struct {
			uint32_t mark;		/* enum ms_region_mark */
			const char *name;
		} region;
	};
};

/* "Malloc", "Free", ...; NULL for an unknown call. */
const char *call_name(uint32_t call);

#endif
