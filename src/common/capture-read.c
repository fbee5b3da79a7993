// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "capture.h"
#include "capture-crc.h"
#include "capture-layout.h"
#include "decompress.h"
#include "error.h"
#include "frame-names.h"
#include "le.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct capture_reader {
	struct decompress *in;
	uint64_t records;
	uint32_t version;
	bool header_read;
	bool ended;
	bool cut;		/* the data ends early, whole up to there */
	bool raw;		/* in no container (known once the header is read) */
	uint32_t crc;		/* of a raw file's bytes read before the record
				 * at hand, for END's checksum */
	struct capture_end end;
	char command[CAPTURE_MAX_PAYLOAD + 1];
	char path[CAPTURE_MAX_PAYLOAD + 1];	/* of the last EXEC or MAPPING,
						 * or the last REGION's name */
	uint64_t frames[MS_STACK_MAX];		/* of the last STACK */
	struct frame_names names;		/* from STRINGS and NAMES */
	unsigned char payload[CAPTURE_MAX_PAYLOAD];
	char error[256];
};

/* The text goes to capture_error; the caller gets -EBADMSG. */
static int
fail(struct capture_reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(struct capture_reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->error, sizeof(rd->error), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/*
 * The data ends before END: a cut, unlike damage, since every byte up to
 * there decompressed as written.  Makes the error that follows a cut.
 */
static void
mark_cut(struct capture_reader *rd)
{
	rd->cut = true;
	/* Without END, only what was read is known. */
	if (!rd->ended) {
		rd->end.records = rd->records;
		rd->end.cut = true;
	}
}

/*
 * Reads exactly len bytes: 1, 0 when the data ends first (the compressed
 * stream cut, or a whole stream or a raw file ending), or -EBADMSG when it is
 * damaged.
 */
static int
read_exact(struct capture_reader *rd, void *buf, size_t len, const char *what)
{
	const char *why;

	if (decompress_read(rd->in, buf, len) == len)
		return 1;
	switch (decompress_status(rd->in, &why)) {
	case DECOMPRESS_OK:
	case DECOMPRESS_CUT:
		return 0;
	default:
		return fail(rd, "damaged in %s after %llu records (%s)", what,
			    (unsigned long long)rd->records, why);
	}
}

/*
 * A compressed file has its container's checks (gzip's CRC-32, each zstd
 * frame's checksum): END's is for a raw one.
 */
static void
checksum(struct capture_reader *rd, const unsigned char *p, size_t len)
{
	if (rd->raw)
		rd->crc = capture_crc(rd->crc, p, len);
}

static void
set_command(struct capture_reader *rd, const unsigned char *p, size_t len)
{
	size_t i;

	/* NUL-separated arguments, shown space-separated. */
	for (i = 0; i < len; i++)
		rd->command[i] = p[i] ? (char)p[i] : ' ';
	while (i > 0 && rd->command[i - 1] == ' ')
		i--;
	rd->command[i] = '\0';
}

struct capture_reader *
capture_open(const char *path)
{
	struct capture_reader *rd;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	rd = xcalloc(1, sizeof(*rd));
	frame_names_init(&rd->names);
	rd->in = decompress_open(fd);
	if (!rd->in) {
		close(fd);
		free(rd);
		return NULL;
	}
	return rd;
}

static int
read_header(struct capture_reader *rd)
{
	unsigned char head[CAPTURE_HEADER_LEN];
	uint32_t version;
	const char *why;

	/*
	 * A whole stream too short for a header is no capture, whatever it
	 * is; one cut short is a capture cut.
	 */
	if (decompress_read(rd->in, head, sizeof(head)) != sizeof(head)) {
		switch (decompress_status(rd->in, &why)) {
		case DECOMPRESS_CUT:
			return fail(rd, "truncated in the header");
		case DECOMPRESS_OK:
			return fail(rd, "not a memsup capture");
		default:
			return fail(rd, "damaged in the header");
		}
	}
	if (memcmp(head, CAPTURE_MAGIC, CAPTURE_MAGIC_LEN))
		return fail(rd, "not a memsup capture");
	version = get_le32(head + CAPTURE_MAGIC_LEN);
	if (version < 1 || version > CAPTURE_VERSION)
		return fail(rd, "capture format version %u; this memsup reads version %u",
			    version, CAPTURE_VERSION);
	rd->version = version;
	rd->raw = decompress_raw(rd->in);
	checksum(rd, head, sizeof(head));
	return 0;
}

/* The payload at p, of len bytes, of a record of type, into r. */
static int
decode(struct capture_reader *rd, uint16_t type, size_t len, const unsigned char *p,
       struct record *r)
{
	static const size_t need[] = {
		[REC_CALL] = CAPTURE_CALL_LEN,
		[REC_FORK] = CAPTURE_FORK_LEN,
		[REC_EXEC] = CAPTURE_EXEC_MIN,
		[REC_EXIT] = CAPTURE_EXIT_LEN,
		[REC_ATTACH] = CAPTURE_EXEC_MIN,
		[REC_STACK] = CAPTURE_STACK_MIN,
		[REC_MAPPING] = CAPTURE_MAPPING_MIN,
		[REC_REGION] = CAPTURE_REGION_MIN,
	};
	bool variable = type == REC_EXEC || type == REC_ATTACH ||
			type == REC_STACK || type == REC_MAPPING || type == REC_REGION;
	bool fits = variable ? len >= need[type] : len == need[type];

	/* A CALL carries a stack id, or not. */
	if (type == REC_CALL && len == CAPTURE_CALL_STACK_LEN)
		fits = true;
	if (type == REC_STACK &&
	    ((len - CAPTURE_STACK_MIN) % 8 || (len - CAPTURE_STACK_MIN) / 8 > MS_STACK_MAX))
		fits = false;
	if (!fits)
		return fail(rd, "damaged: record %llu (type %u) has %zu bytes",
			    (unsigned long long)rd->records + 1, type, len);
	/*
	 * A CALL, most records, sets each of its fields: a memset of the
	 * whole record (a rep stos) was a third of the reader's own time.
	 */
	if (type != REC_CALL)
		memset(r, 0, sizeof(*r));
	r->type = type;
	r->time_ns = get_le64(p);
	r->pid = get_le32(p + 8);
	r->tid = get_le32(p + 12);
	switch (type) {
	case REC_CALL:
		r->call.call = get_le16(p + 16);
		r->call.flags = get_le16(p + 18);
		r->call.ptr = get_le64(p + 20);
		r->call.size = get_le64(p + 28);
		r->call.old_ptr = get_le64(p + 36);
		r->call.stack_id = len == CAPTURE_CALL_STACK_LEN ? get_le32(p + 44) : 0;
		r->call.site = 0;
		if (!call_name(r->call.call))
			return fail(rd, "damaged: record %llu has unknown call %u",
				    (unsigned long long)rd->records + 1, r->call.call);
		/* Before version 4 the call was a u32: no flags. */
		if (r->call.flags & ~(rd->version >= 4 ? CALL_FLAGS_KNOWN : 0))
			return fail(rd, "damaged: record %llu has unknown call flags 0x%x",
				    (unsigned long long)rd->records + 1, r->call.flags);
		break;
	case REC_STACK: {
		uint32_t i;

		r->stack.id = get_le32(p + 16);
		r->stack.nframes = (uint32_t)((len - CAPTURE_STACK_MIN) / 8);
		for (i = 0; i < r->stack.nframes; i++)
			rd->frames[i] = get_le64(p + CAPTURE_STACK_MIN + 8 * i);
		r->stack.frames = rd->frames;
		break;
	}
	case REC_MAPPING:
		r->mapping.start = get_le64(p + 16);
		r->mapping.end = get_le64(p + 24);
		r->mapping.offset = get_le64(p + 32);
		r->mapping.build_id_len = p[40] > BUILD_ID_MAX ? BUILD_ID_MAX : p[40];
		memcpy(r->mapping.build_id, p + 41, r->mapping.build_id_len);
		memcpy(rd->path, p + CAPTURE_MAPPING_MIN, len - CAPTURE_MAPPING_MIN);
		rd->path[len - CAPTURE_MAPPING_MIN] = '\0';
		r->mapping.path = rd->path;
		break;
	case REC_FORK:
		r->fork.child = get_le32(p + 16);
		break;
	case REC_EXEC:
	case REC_ATTACH:
		memcpy(rd->path, p + CAPTURE_EXEC_MIN, len - CAPTURE_EXEC_MIN);
		rd->path[len - CAPTURE_EXEC_MIN] = '\0';
		r->exec.path = rd->path;
		break;
	case REC_EXIT:
		r->exit.wait_status = (int32_t)get_le32(p + 16);
		break;
	case REC_REGION:
		r->region.mark = p[16];
		if (r->region.mark != MS_REGION_BEGIN && r->region.mark != MS_REGION_END)
			return fail(rd, "damaged: record %llu has unknown region mark %u",
				    (unsigned long long)rd->records + 1, r->region.mark);
		memcpy(rd->path, p + CAPTURE_REGION_MIN, len - CAPTURE_REGION_MIN);
		rd->path[len - CAPTURE_REGION_MIN] = '\0';
		r->region.name = rd->path;
		break;
	}
	rd->records++;
	if (r->time_ns > rd->end.last_ns)
		rd->end.last_ns = r->time_ns;
	return 1;
}

/* Strings, numbered on from the last ones read. */
static int
read_strings(struct capture_reader *rd, size_t len)
{
	const char *p = (const char *)rd->payload;
	size_t at = CAPTURE_STRINGS_MIN;

	if (len < CAPTURE_STRINGS_MIN ||
	    get_le32(rd->payload) != rd->names.nstrings + 1 ||
	    (len > at && p[len - 1] != '\0'))
		return fail(rd, "damaged: a strings record after record %llu",
			    (unsigned long long)rd->records);
	while (at < len) {
		size_t n = strlen(p + at);

		frame_names_append(&rd->names, p + at, n);
		at += n + 1;
	}
	return 0;
}

/* One file's frames, their functions naming strings read before. */
static int
read_names(struct capture_reader *rd, size_t len)
{
	const unsigned char *p = rd->payload;
	struct frame_names_function fu[FRAME_NAMES_MAX_FUNCTIONS];
	struct frame_names_file *f;
	uint32_t known = rd->names.nstrings, path;
	size_t at = CAPTURE_NAMES_MIN;
	uint8_t k, n;

	if (len < CAPTURE_NAMES_MIN || !(path = get_le32(p)) || path > known ||
	    p[4] & ~CAPTURE_NAMES_EXPORTED_ONLY || p[5] > BUILD_ID_MAX)
		goto damaged;
	f = frame_names_file(&rd->names, path, p + 6, p[5]);
	f->exported_only = p[4] & CAPTURE_NAMES_EXPORTED_ONLY;
	while (at < len) {
		if (len - at < CAPTURE_NAMES_FRAME)
			goto damaged;
		n = p[at + 16];
		if (len - at - CAPTURE_NAMES_FRAME < (size_t)n * CAPTURE_NAMES_FUNCTION)
			goto damaged;
		for (k = 0; k < n; k++) {
			const unsigned char *q = p + at + CAPTURE_NAMES_FRAME +
						 (size_t)k * CAPTURE_NAMES_FUNCTION;

			fu[k] = (struct frame_names_function){ get_le32(q), get_le32(q + 4) };
			if (fu[k].name > known || fu[k].where > known)
				goto damaged;
		}
		if (!frame_names_add(&rd->names, f, get_le64(p + at), get_le64(p + at + 8),
				     fu, n))
			goto damaged;
		at += CAPTURE_NAMES_FRAME + (size_t)n * CAPTURE_NAMES_FUNCTION;
	}
	return 0;
damaged:
	return fail(rd, "damaged: a names record after record %llu",
		    (unsigned long long)rd->records);
}

/*
 * Nothing may follow END, and the compressed stream must end whole there:
 * the check at its end (gzip's trailer, the last zstd frame's checksum)
 * is the last to vouch for what was read.  Bytes after the stream, compressed or not, are no
 * part of a capture memsup wrote.
 */
static int
check_stream_end(struct capture_reader *rd)
{
	unsigned char extra;
	size_t n = decompress_read(rd->in, &extra, 1);
	const char *why;

	switch (decompress_status(rd->in, &why)) {
	case DECOMPRESS_OK:
		if (n)
			break;
		rd->ended = true;
		return 0;
	case DECOMPRESS_CUT:
		/* END was read: only the check of what came before is missing. */
		rd->ended = true;
		mark_cut(rd);
		return fail(rd, "truncated after the end record");
	case DECOMPRESS_DAMAGED:
		return fail(rd, "damaged after the end record (%s)", why);
	case DECOMPRESS_TRAILING:
		break;
	}
	return fail(rd, "damaged: data after the end record");
}

static int
read_end(struct capture_reader *rd, size_t len)
{
	const unsigned char *p = rd->payload;

	/* Fields past the first ones came later: absent, they read as 0. */
	if (len < CAPTURE_END_MIN)
		return fail(rd, "damaged: end record has %zu bytes", len);
	rd->end.records = get_le64(p);
	rd->end.lost_records = get_le64(p + 8);
	rd->end.lost_calls = get_le64(p + 16);
	rd->end.untraced_processes = get_le64(p + 24);
	rd->end.exit_status = (int32_t)get_le32(p + 32);
	if (len < CAPTURE_END_LEN)
		memset(rd->payload + len, 0, CAPTURE_END_LEN - len);
	rd->end.pressure_stops = get_le64(p + 36);
	rd->end.flags = get_le32(p + 44);
	rd->end.unstoppable_processes = get_le64(p + 48);
	rd->end.dropped_stacks = get_le64(p + 56);
	rd->end.vanished_threads = get_le64(p + 64);
	checksum(rd, p, CAPTURE_END_CRC);
	if (len >= CAPTURE_END_LEN && rd->raw &&
	    get_le32(p + CAPTURE_END_CRC) != rd->crc)
		return fail(rd, "damaged: the checksum in the end record does not "
			    "match the data");
	if (rd->end.records != rd->records)
		return fail(rd, "damaged: end record counts %llu records, the file has %llu",
			    (unsigned long long)rd->end.records,
			    (unsigned long long)rd->records);
	return check_stream_end(rd);
}

/* The record types of struct record, which decode() reads. */
static bool
process_record(uint16_t type)
{
	return type >= REC_CALL && type <= REC_REGION;
}

/*
 * The next record decoded where the decompressor holds it, when it holds
 * the whole of it and it is one of struct record's; 0 when not, to be
 * read through the copy.  Most records are so read, without two copies.
 */
static int
next_in_place(struct capture_reader *rd, struct record *r)
{
	size_t have, len;
	const unsigned char *at = decompress_peek(rd->in, &have);
	uint16_t type;

	if (have < CAPTURE_RECORD_HEAD)
		return 0;
	type = get_le16(at);
	len = get_le16(at + 2);
	if (!process_record(type) || have - CAPTURE_RECORD_HEAD < len)
		return 0;
	checksum(rd, at, CAPTURE_RECORD_HEAD + len);
	/* The bytes stay in place until the next call on rd->in. */
	decompress_skip(rd->in, CAPTURE_RECORD_HEAD + len);
	return decode(rd, type, len, at + CAPTURE_RECORD_HEAD, r);
}

int
capture_next(struct capture_reader *rd, struct record *r)
{
	unsigned char head[CAPTURE_RECORD_HEAD];
	int n;

	if (rd->error[0])
		return -EBADMSG;
	if (rd->ended)
		return 0;
	if (!rd->header_read) {
		if (read_header(rd))
			return -EBADMSG;
		rd->header_read = true;
	}
	n = next_in_place(rd, r);
	if (n)
		return n;
	for (;;) {
		uint16_t type, len;

		n = read_exact(rd, head, sizeof(head), "a record header");
		if (n < 0)
			return -EBADMSG;
		if (n == 0) {
			mark_cut(rd);
			return fail(rd, "truncated: no end record after %llu records",
				    (unsigned long long)rd->records);
		}
		checksum(rd, head, sizeof(head));
		type = get_le16(head);
		len = get_le16(head + 2);
		n = len ? read_exact(rd, rd->payload, len, "a record") : 1;
		if (n < 0)
			return -EBADMSG;
		if (n == 0) {
			mark_cut(rd);
			if (type == CAPTURE_REC_END)
				return fail(rd, "truncated inside the end record, after "
					    "%llu records", (unsigned long long)rd->records);
			return fail(rd, "truncated inside record %llu",
				    (unsigned long long)rd->records + 1);
		}
		if (type != CAPTURE_REC_END)
			checksum(rd, rd->payload, len);
		if (process_record(type))
			return decode(rd, type, len, rd->payload, r);
		switch (type) {
		case CAPTURE_REC_META:
			if (len < CAPTURE_META_FIXED)
				return fail(rd, "damaged: metadata record has %u bytes", len);
			set_command(rd, rd->payload + CAPTURE_META_FIXED,
				    len - CAPTURE_META_FIXED);
			break;
		case CAPTURE_REC_STRINGS:
			if (rd->version >= 5 && read_strings(rd, len))
				return -EBADMSG;
			break;
		case CAPTURE_REC_NAMES:
			if (rd->version >= 5 && read_names(rd, len))
				return -EBADMSG;
			break;
		case CAPTURE_REC_END:
			return read_end(rd, len) ? -EBADMSG : 0;
		default:
			/* Written by a newer memsup of the same version: skip. */
			break;
		}
	}
}

bool
capture_cut(const struct capture_reader *rd)
{
	return rd->cut;
}

const struct capture_end *
capture_totals(const struct capture_reader *rd)
{
	return rd->ended || rd->cut ? &rd->end : NULL;
}

const char *
capture_error(const struct capture_reader *rd)
{
	return rd->error;
}

const struct frame_names *
capture_names(const struct capture_reader *rd)
{
	return &rd->names;
}

const char *
capture_command(const struct capture_reader *rd)
{
	return rd->command;
}

void
capture_close(struct capture_reader *rd)
{
	if (!rd)
		return;
	decompress_close(rd->in);
	frame_names_free(&rd->names);
	free(rd);
}
