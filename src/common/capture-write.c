// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "capture.h"
#include "capture-crc.h"
#include "capture-layout.h"
#include "error.h"
#include "frame-names.h"
#include "le.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/*
 * A frame ends after this much input at the most, so that a cut capture
 * loses no more than the frame it cuts (see capture_sync).  The stage is
 * handed on once it holds STAGE_FLUSH bytes, few enough that the CRC and
 * the compressor read them from the first-level cache, and always has
 * room for a whole record after them: records are encoded in place.  The
 * output goes out in writes of up to OUT_SIZE.
 */
enum {
	FRAME_INPUT_MAX = 4 << 20,
	STAGE_FLUSH = 16 * 1024,
	STAGE_SIZE = STAGE_FLUSH + CAPTURE_RECORD_HEAD + CAPTURE_MAX_PAYLOAD,
	OUT_SIZE = 256 * 1024,
};

struct capture_writer {
	ZSTD_CCtx *zc;
	int fd;
	size_t frame_input;	/* bytes given to the frame not ended yet */
	size_t staged;		/* of stage, not given to the compressor yet */
	size_t out_used;	/* of out, compressed, not written yet */
	size_t block_out;	/* room zstd compresses a whole block into */
	char *path;
	char *tmp_path;		/* NULL: path itself is written */
	uint64_t records;
	uint64_t records_synced;	/* in frames ended */
	uint32_t crc;		/* of every byte written */
	int error;		/* first negative errno */
	unsigned char out[OUT_SIZE];
	unsigned char stage[STAGE_SIZE];
};

/* memsup writes one capture at a time: the one an exit() must not leave. */
static struct capture_writer *unfinished;

static void
free_writer(struct capture_writer *w)
{
	if (w == unfinished)
		unfinished = NULL;
	free(w->tmp_path);
	free(w->path);
	free(w);
}

/*
 * A capture that cannot be finished takes its name when a frame ended
 * put records in it, a capture cut short that reports read; it is removed
 * otherwise.  Returns whether it was kept.
 */
static bool
keep_cut(struct capture_writer *w)
{
	if (w->records_synced && !rename(w->tmp_path, w->path))
		return true;
	unlink(w->tmp_path);
	return false;
}

static void
keep_cut_at_exit(void)
{
	if (unfinished && unfinished->tmp_path && keep_cut(unfinished))
		fprintf(stderr, "memsup: %s holds the records written until then, "
			"a capture cut short\n", unfinished->path);
}

/* Writes out what the compressor gave. */
static void
write_out(struct capture_writer *w)
{
	size_t done = 0;
	ssize_t n;

	while (!w->error && done < w->out_used) {
		n = write(w->fd, w->out + done, w->out_used - done);
		if (n > 0)
			done += (size_t)n;
		else if (!n || errno != EINTR)
			w->error = n ? -errno : -EIO;
	}
	w->out_used = 0;
}

/*
 * Compresses len bytes of buf, ZSTD_e_continue, or with ZSTD_e_end ends
 * the frame and writes it all out.
 */
static void
compress_bytes(struct capture_writer *w, const void *buf, size_t len,
	       ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	ZSTD_outBuffer out;
	size_t left;

	do {
		/*
		 * With room for a whole block, zstd compresses it straight
		 * into out, not into a buffer of its own to copy from.
		 */
		if (sizeof(w->out) - w->out_used < w->block_out)
			write_out(w);
		out = (ZSTD_outBuffer){ w->out, sizeof(w->out), w->out_used };
		left = ZSTD_compressStream2(w->zc, &out, &in, mode);
		w->out_used = out.pos;
		if (ZSTD_isError(left)) {
			/* It fails only to allocate. */
			w->error = -ENOMEM;
			return;
		}
	} while (!w->error && (mode == ZSTD_e_end ? left : in.pos < in.size));
	w->frame_input += len;
	if (mode == ZSTD_e_end) {
		write_out(w);
		w->frame_input = 0;
	}
}

/*
 * Gives the compressor, and the CRC, what is staged; after an error,
 * drops it.
 */
static void
flush_stage(struct capture_writer *w)
{
	if (!w->error && w->staged) {
		w->crc = capture_crc(w->crc, w->stage, w->staged);
		compress_bytes(w, w->stage, w->staged, ZSTD_e_continue);
	}
	w->staged = 0;
}

/* Ends the frame, whose records a reader can then check and read. */
static void
end_frame(struct capture_writer *w)
{
	flush_stage(w);
	if (w->error || !w->frame_input)
		return;
	compress_bytes(w, NULL, 0, ZSTD_e_end);
	if (!w->error)
		w->records_synced = w->records;
}

static void
put_record_head(unsigned char head[CAPTURE_RECORD_HEAD], uint16_t type, size_t len)
{
	put_le16(head, type);
	put_le16(head + 2, (uint16_t)len);
}

/*
 * Where the next record's payload goes.  Records are encoded in the
 * stage, whose room always holds one: the compressor and the CRC take
 * them by the tens of kilobytes, where each call costs a few nanoseconds
 * a byte and not a few hundred a call.
 */
static unsigned char *
record_payload(struct capture_writer *w)
{
	return w->stage + w->staged + CAPTURE_RECORD_HEAD;
}

/* Stages the record whose len bytes of payload are at record_payload(). */
static void
commit_record(struct capture_writer *w, uint16_t type, size_t len)
{
	put_record_head(w->stage + w->staged, type, len);
	w->staged += CAPTURE_RECORD_HEAD + len;
	if (w->staged >= STAGE_FLUSH)
		flush_stage(w);
	/* Between records, so that a frame holds only whole ones. */
	if (w->frame_input + w->staged >= FRAME_INPUT_MAX)
		end_frame(w);
}

static void
write_record(struct capture_writer *w, uint16_t type,
	     const unsigned char *payload, size_t len)
{
	memcpy(record_payload(w), payload, len);
	commit_record(w, type, len);
}

static void
write_meta(struct capture_writer *w, int argc, char *const argv[])
{
	unsigned char buf[CAPTURE_MAX_PAYLOAD];
	struct timespec now;
	size_t len = CAPTURE_META_FIXED;
	int i;

	clock_gettime(CLOCK_REALTIME, &now);
	put_le64(buf, (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec);
	/* The command line, NUL-separated, cut to what a record holds. */
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (len + n > sizeof(buf))
			break;
		memcpy(buf + len, argv[i], n);
		len += n;
	}
	write_record(w, CAPTURE_REC_META, buf, len);
}

/*
 * Opens standard output for "-", or what path resolves to when it is a
 * device or a FIFO (a FIFO waits for its reader, as for any writer);
 * returns -1 with errno 0 when path is a file to write through a
 * temporary one.
 */
static int
open_direct(const char *path)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-")) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	} else if (stat(path, &st)) {
		/* A name not taken yet: a new file. */
		if (errno == ENOENT)
			errno = 0;
		return -1;
	} else if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	} else if (S_ISREG(st.st_mode)) {
		errno = 0;
		return -1;
	} else {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	}
	if (fd >= 0 && isatty(fd)) {
		close(fd);
		errno = ENOTTY;
		return -1;
	}
	return fd;
}

struct capture_writer *
capture_create(const char *path, int level, int argc, char *const argv[])
{
	struct capture_writer *w = xcalloc(1, sizeof(*w));
	int fd;

	w->path = xstrdup(path);
	fd = open_direct(path);
	if (fd < 0 && errno)
		goto fail;
	if (fd < 0) {
		w->tmp_path = xmalloc(strlen(path) + sizeof(".XXXXXX"));
		sprintf(w->tmp_path, "%s.XXXXXX", path);
		fd = mkostemp(w->tmp_path, O_CLOEXEC);
		if (fd < 0)
			goto fail;
	}
	w->fd = fd;
	w->zc = ZSTD_createCCtx();
	/* The frame checksum, so that a flipped byte is caught. */
	if (!w->zc ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1))) {
		ZSTD_freeCCtx(w->zc);
		close(fd);
		if (w->tmp_path)
			unlink(w->tmp_path);
		errno = w->zc ? EINVAL : ENOMEM;
		goto fail;
	}
	w->block_out = ZSTD_CStreamOutSize();
	/* The stage is empty, and calloc's zeros fill the header's reserved word. */
	memcpy(w->stage, CAPTURE_MAGIC, CAPTURE_MAGIC_LEN);
	put_le32(w->stage + CAPTURE_MAGIC_LEN, CAPTURE_VERSION);
	w->staged = CAPTURE_HEADER_LEN;
	write_meta(w, argc, argv);
	/*
	 * The header and META in a frame of their own: a capture cut
	 * anywhere after it still says what it is and what it ran.
	 */
	end_frame(w);
	if (w->tmp_path) {
		static bool registered;

		if (!registered)
			registered = !atexit(keep_cut_at_exit);
		unfinished = w;
	}
	return w;

fail:
	free(w->tmp_path);
	free(w->path);
	free(w);
	return NULL;
}

bool
capture_direct(const struct capture_writer *w)
{
	return !w->tmp_path;
}

int
capture_set_owner(struct capture_writer *w, uid_t uid, gid_t gid)
{
	if (capture_direct(w))
		return 0;
	return fchown(w->fd, uid, gid) ? -errno : 0;
}

/* Puts s after the payload's first len bytes, cut to fit; returns the length. */
static size_t
put_text(unsigned char *payload, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n > CAPTURE_MAX_PAYLOAD - len)
		n = CAPTURE_MAX_PAYLOAD - len;
	memcpy(payload + len, s, n);
	return len + n;
}

int
capture_write(struct capture_writer *w, const struct record *r)
{
	unsigned char *buf = record_payload(w);
	size_t len = CAPTURE_COMMON_LEN;

	put_le64(buf, r->time_ns);
	put_le32(buf + 8, r->pid);
	put_le32(buf + 12, r->tid);
	switch (r->type) {
	case REC_CALL:
		put_le16(buf + 16, r->call.call);
		put_le16(buf + 18, r->call.flags);
		put_le64(buf + 20, r->call.ptr);
		put_le64(buf + 28, r->call.size);
		put_le64(buf + 36, r->call.old_ptr);
		len = CAPTURE_CALL_LEN;
		if (r->call.stack_id) {
			put_le32(buf + 44, r->call.stack_id);
			len = CAPTURE_CALL_STACK_LEN;
		}
		break;
	case REC_STACK: {
		uint32_t i;

		put_le32(buf + 16, r->stack.id);
		for (i = 0; i < r->stack.nframes; i++)
			put_le64(buf + CAPTURE_STACK_MIN + 8 * i, r->stack.frames[i]);
		len = CAPTURE_STACK_MIN + 8 * (size_t)r->stack.nframes;
		break;
	}
	case REC_MAPPING:
		put_le64(buf + 16, r->mapping.start);
		put_le64(buf + 24, r->mapping.end);
		put_le64(buf + 32, r->mapping.offset);
		buf[40] = r->mapping.build_id_len;
		memset(buf + 41, 0, BUILD_ID_MAX);
		memcpy(buf + 41, r->mapping.build_id, r->mapping.build_id_len);
		len = put_text(buf, CAPTURE_MAPPING_MIN, r->mapping.path);
		break;
	case REC_FORK:
		put_le32(buf + 16, r->fork.child);
		len = CAPTURE_FORK_LEN;
		break;
	case REC_EXEC:
	case REC_ATTACH:
		len = put_text(buf, CAPTURE_EXEC_MIN, r->exec.path);
		break;
	case REC_EXIT:
		put_le32(buf + 16, (uint32_t)r->exit.wait_status);
		len = CAPTURE_EXIT_LEN;
		break;
	case REC_REGION:
		buf[16] = (unsigned char)r->region.mark;
		len = put_text(buf, CAPTURE_REGION_MIN, r->region.name);
		break;
	}
	/* Counted first: a frame it ends holds it. */
	w->records++;
	commit_record(w, (uint16_t)r->type, len);
	return w->error;
}

/* The strings, as many to a record as fit, cut to what one holds. */
static void
write_strings(struct capture_writer *w, const struct frame_names *fn)
{
	unsigned char buf[CAPTURE_MAX_PAYLOAD];
	size_t len = 0, n;
	uint32_t i;

	for (i = 0; i < fn->nstrings; i++) {
		n = strlen(fn->strings[i]);
		if (n > CAPTURE_MAX_PAYLOAD - CAPTURE_STRINGS_MIN - 1)
			n = CAPTURE_MAX_PAYLOAD - CAPTURE_STRINGS_MIN - 1;
		if (len && len + n + 1 > sizeof(buf)) {
			write_record(w, CAPTURE_REC_STRINGS, buf, len);
			len = 0;
		}
		if (!len) {
			put_le32(buf, i + 1);
			len = CAPTURE_STRINGS_MIN;
		}
		memcpy(buf + len, fn->strings[i], n);
		buf[len + n] = '\0';
		len += n + 1;
	}
	if (len)
		write_record(w, CAPTURE_REC_STRINGS, buf, len);
}

static size_t
put_names_head(unsigned char *buf, const struct frame_names_file *f)
{
	put_le32(buf, f->path);
	buf[4] = f->exported_only ? CAPTURE_NAMES_EXPORTED_ONLY : 0;
	buf[5] = f->build_id_len;
	memset(buf + 6, 0, BUILD_ID_MAX);
	memcpy(buf + 6, f->build_id, f->build_id_len);
	return CAPTURE_NAMES_MIN;
}

/* A file's frames, as many to a record as fit, each record with the file's head. */
static void
write_file_names(struct capture_writer *w, const struct frame_names *fn,
		 const struct frame_names_file *f)
{
	unsigned char buf[CAPTURE_MAX_PAYLOAD];
	size_t len = 0, i;
	uint8_t k;

	for (i = 0; i < f->nframes; i++) {
		const struct frame_names_frame *fr = &f->frames[i];

		if (len && len + CAPTURE_NAMES_FRAME + CAPTURE_NAMES_FUNCTION * (size_t)fr->n >
			   sizeof(buf)) {
			write_record(w, CAPTURE_REC_NAMES, buf, len);
			len = 0;
		}
		if (!len)
			len = put_names_head(buf, f);
		put_le64(buf + len, fr->offset);
		put_le64(buf + len + 8, fr->function_offset);
		buf[len + 16] = fr->n;
		len += CAPTURE_NAMES_FRAME;
		for (k = 0; k < fr->n; k++, len += CAPTURE_NAMES_FUNCTION) {
			put_le32(buf + len, fn->functions[fr->first + k].name);
			put_le32(buf + len + 4, fn->functions[fr->first + k].where);
		}
	}
	if (len)
		write_record(w, CAPTURE_REC_NAMES, buf, len);
}

int
capture_write_names(struct capture_writer *w, const struct frame_names *fn)
{
	size_t i;

	write_strings(w, fn);
	for (i = 0; i < fn->nfiles; i++)
		write_file_names(w, fn, &fn->files[i]);
	return w->error;
}

int
capture_sync(struct capture_writer *w)
{
	if (w->error || w->records == w->records_synced)
		return w->error;
	end_frame(w);
	return w->error;
}

int
capture_finish(struct capture_writer *w, struct capture_end *end, bool *kept_cut)
{
	unsigned char head[CAPTURE_RECORD_HEAD], buf[CAPTURE_END_LEN];
	uint32_t crc;
	int err;

	end->records = w->records;
	put_le64(buf, end->records);
	put_le64(buf + 8, end->lost_records);
	put_le64(buf + 16, end->lost_calls);
	put_le64(buf + 24, end->untraced_processes);
	put_le32(buf + 32, (uint32_t)end->exit_status);
	put_le64(buf + 36, end->pressure_stops);
	put_le32(buf + 44, end->flags);
	put_le64(buf + 48, end->unstoppable_processes);
	put_le64(buf + 56, end->dropped_stacks);
	put_le64(buf + 64, end->vanished_threads);
	/* A decompressed capture has no frame checksum: this one vouches for it. */
	flush_stage(w);
	put_record_head(head, CAPTURE_REC_END, sizeof(buf));
	crc = capture_crc(w->crc, head, sizeof(head));
	put_le32(buf + CAPTURE_END_CRC, capture_crc(crc, buf, CAPTURE_END_CRC));
	write_record(w, CAPTURE_REC_END, buf, sizeof(buf));

	end_frame(w);
	err = w->error;
	ZSTD_freeCCtx(w->zc);
	w->zc = NULL;
	/* Its last writes can fail too: a full disk is named as one. */
	if (close(w->fd) && !err && errno != EINTR)
		err = -errno;
	if (w->tmp_path && !err && rename(w->tmp_path, w->path))
		err = -errno;
	if (kept_cut)
		*kept_cut = w->tmp_path && err && keep_cut(w);
	else if (w->tmp_path && err)
		unlink(w->tmp_path);
	free_writer(w);
	return err;
}

void
capture_abort(struct capture_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->zc);
	close(w->fd);
	if (w->tmp_path)
		unlink(w->tmp_path);
	free_writer(w);
}
