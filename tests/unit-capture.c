// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The capture file: what is written is read back field for field, the
 * file appears only when complete, and a damaged file is reported as
 * such instead of being read as a shorter run.
 */
#include "config.h"
#include "capture.h"
#include "capture-layout.h"
#include "frame-names.h"
#include "le.h"
#include "record.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static char tmpdir[] = "/tmp/memsup-unit-capture.XXXXXX";

/* The writer's frames: 4 MiB of content at the most, but for a record. */
enum { FRAME_MAX = 4 << 20 };

enum { PATH_LEN = 512 };

/* A name in tmpdir, into buf of PATH_LEN bytes. */
static const char *
tmp_path(char *buf, const char *name)
{
	if ((size_t)snprintf(buf, PATH_LEN, "%s/%s", tmpdir, name) >= PATH_LEN)
		tap_bail("path too long: %s", name);
	return buf;
}

/* Names in tmpdir, sorted into one string ("a b c"), for the checks. */
static const char *
dir_listing(void)
{
	static char buf[1024];
	struct dirent **names;
	int n, i;

	buf[0] = '\0';
	n = scandir(tmpdir, &names, NULL, alphasort);
	if (n < 0)
		tap_bail("scandir %s: %s", tmpdir, strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (strcmp(name, ".") && strcmp(name, "..")) {
			if (buf[0])
				strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, name, sizeof(buf) - strlen(buf) - 1);
		}
		free(names[i]);
	}
	free(names);
	return buf;
}

static void
remove_tmpdir(void)
{
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d = opendir(tmpdir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(tmp_path(path, e->d_name));
	closedir(d);
	rmdir(tmpdir);
}

static unsigned char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		tap_bail("cannot read %s: %s", path, strerror(errno));
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		tap_bail("cannot read %s", path);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void
write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		tap_bail("cannot write %s: %s", path, strerror(errno));
}

/*
 * The file the cut and flip checks change in place, in memory: the reader
 * opens it by its name in /proc/self/fd like any other file.  Thousands
 * of cuts or flips cost a few bytes written each, not the whole file
 * written again to disk.
 */
static int scratch_fd = -1;
static char scratch_path[64];
static size_t scratch_len;

static const char *
scratch_open(void)
{
	if (scratch_fd < 0) {
		scratch_fd = memfd_create("cut.memsup", MFD_CLOEXEC);
		if (scratch_fd < 0)
			tap_bail("memfd_create: %s", strerror(errno));
		snprintf(scratch_path, sizeof(scratch_path), "/proc/self/fd/%d",
			 scratch_fd);
	}
	return scratch_path;
}

/* The len bytes of buf at offset at of the scratch file. */
static void
scratch_write(size_t at, const void *buf, size_t len)
{
	ssize_t n;

	for (; len; at += (size_t)n, len -= (size_t)n) {
		n = pwrite(scratch_fd, buf, len, (off_t)at);
		if (n <= 0)
			tap_bail("cannot write %s: %s", scratch_path, strerror(errno));
		buf = (const unsigned char *)buf + n;
	}
}

/* The scratch file made the len bytes of buf; returns its name. */
static const char *
scratch_set(const void *buf, size_t len)
{
	scratch_open();
	if (ftruncate(scratch_fd, 0))
		tap_bail("cannot truncate %s: %s", scratch_path, strerror(errno));
	scratch_write(0, buf, len);
	scratch_len = len;
	return scratch_path;
}

/*
 * The scratch file, which holds the first bytes of buf, made its first n
 * bytes, n no fewer than it holds: a cut of buf one longer than the last.
 */
static void
scratch_grow(const unsigned char *buf, size_t n)
{
	if (n < scratch_len)
		tap_bail("scratch_grow: %zu bytes, fewer than %zu", n, scratch_len);
	scratch_write(scratch_len, buf + scratch_len, n - scratch_len);
	scratch_len = n;
}

/* Bit 0 of byte at of the scratch file, whose bytes are buf, flipped. */
static void
scratch_flip(const unsigned char *buf, size_t at)
{
	unsigned char b = buf[at] ^ 0x01;

	scratch_write(at, &b, 1);
}

static bool
is_zstd(const unsigned char *raw, size_t len)
{
	return len >= 4 && !memcmp(raw, "\x28\xb5\x2f\xfd", 4);
}

/*
 * What libzstd decodes of the len bytes at raw, frame after frame, up to
 * a cut or an error, into *out_len; *whole says whether it all decoded.
 */
static unsigned char *
unzstd(const unsigned char *raw, size_t len, size_t *out_len, bool *whole)
{
	ZSTD_DCtx *zd = ZSTD_createDCtx();
	size_t size = 1 << 16, ret = 0;
	unsigned char *buf = malloc(size);
	ZSTD_inBuffer in = { raw, len, 0 };
	ZSTD_outBuffer out;

	if (!zd || !buf)
		tap_bail("out of memory");
	*out_len = 0;
	*whole = true;
	for (;;) {
		if (*out_len == size && !(buf = realloc(buf, size *= 2)))
			tap_bail("out of memory");
		out = (ZSTD_outBuffer){ buf, size, *out_len };
		ret = ZSTD_decompressStream(zd, &out, &in);
		*out_len = out.pos;
		if (ZSTD_isError(ret)) {
			*whole = false;
			break;
		}
		/* Stuck: no input left, no room wanted. */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	if (ret)
		*whole = false;
	ZSTD_freeDCtx(zd);
	return buf;
}

/* The uncompressed content of a capture file: zstd, gzip or neither. */
static unsigned char *
content_of(const char *path, size_t *len)
{
	gzFile gz;
	size_t size = 1 << 16, used = 0, raw_len;
	unsigned char *buf, *raw = read_file(path, &raw_len);
	bool whole;
	int n;

	if (is_zstd(raw, raw_len)) {
		buf = unzstd(raw, raw_len, len, &whole);
		if (!whole)
			tap_bail("cannot decompress %s", path);
		free(raw);
		return buf;
	}
	free(raw);
	gz = gzopen(path, "rb");
	buf = malloc(size);
	if (!gz || !buf)
		tap_bail("cannot open %s", path);
	while ((n = gzread(gz, buf + used, (unsigned int)(size - used))) > 0) {
		used += (size_t)n;
		if (used == size && !(buf = realloc(buf, size *= 2)))
			tap_bail("out of memory");
	}
	if (n < 0)
		tap_bail("cannot decompress %s", path);
	gzclose(gz);
	*len = used;
	return buf;
}

/* A valid gzip stream of len bytes of buf. */
static void
gzip_file(const char *path, const void *buf, size_t len)
{
	gzFile gz = gzopen(path, "wb");

	if (!gz || (len && gzwrite(gz, buf, (unsigned int)len) != (int)len) ||
	    gzclose(gz) != Z_OK)
		tap_bail("cannot compress into %s", path);
}

/*
 * A valid zstd stream of len bytes of buf, at the writer's level and with
 * its checksums, in frames of frame bytes (0: one frame); the first
 * frame, with first > 0, of first bytes.
 */
static void
zstd_file(const char *path, const void *buf, size_t len, size_t first, size_t frame)
{
	size_t bound = ZSTD_compressBound(len) + 64 * (len / (frame ? frame : len + 1) + 2);
	unsigned char *out = malloc(bound);
	ZSTD_CCtx *zc = ZSTD_createCCtx();
	size_t at = 0, used = 0, n, ret;

	if (!out || !zc ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_compressionLevel,
						CAPTURE_LEVEL_DEFAULT)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1)))
		tap_bail("cannot set up zstd");
	do {
		n = first ? first : frame ? frame : len;
		first = 0;
		if (n > len - at)
			n = len - at;
		ret = ZSTD_compress2(zc, out + used, bound - used,
				     (const unsigned char *)buf + at, n);
		if (ZSTD_isError(ret))
			tap_bail("cannot compress into %s: %s", path, ZSTD_getErrorName(ret));
		used += ret;
		at += n;
	} while (at < len);
	write_file(path, out, used);
	ZSTD_freeCCtx(zc);
	free(out);
}

/* The frames of a zstd file, or 0 if they do not fill it whole. */
static unsigned int
zstd_frames(const char *path)
{
	size_t len, at = 0, n;
	unsigned char *raw = read_file(path, &len);
	unsigned int frames = 0;

	while (at < len) {
		n = ZSTD_findFrameCompressedSize(raw + at, len - at);
		if (ZSTD_isError(n)) {
			frames = 0;
			break;
		}
		at += n;
		frames++;
	}
	free(raw);
	return frames;
}

struct outcome {
	int rc;			/* of the last capture_next */
	unsigned int records;	/* returned before it */
	bool cut;		/* capture_cut */
	bool totals;		/* capture_totals gave some */
	struct capture_end end;	/* and these were they */
	char error[256];
};

/* Reads path to its end.  Returns false if capture_open failed. */
static bool
read_capture(const char *path, struct outcome *o)
{
	struct capture_reader *rd = capture_open(path);
	struct record r;

	memset(o, 0, sizeof(*o));
	if (!rd)
		return false;
	while ((o->rc = capture_next(rd, &r)) == 1)
		o->records++;
	snprintf(o->error, sizeof(o->error), "%s", capture_error(rd));
	o->cut = capture_cut(rd);
	o->totals = capture_totals(rd);
	if (o->totals)
		o->end = *capture_totals(rd);
	capture_close(rd);
	return true;
}

#define CALL(t, p, c, ptr_, size_, old_)				\
	{ .type = REC_CALL, .time_ns = (t), .pid = (p), .tid = (p) + 1,	\
	  .call = { .call = (c), .ptr = (ptr_), .size = (size_),	\
		    .old_ptr = (old_) } }

static char long_path[3001];

static const struct record sample[] = {
	/* Values using all 64 bits, to catch a field cut or swapped. */
	CALL(0x0102030405060708ULL, 0x80000001U, MS_CALL_MALLOC,
	     0x8877665544332211ULL, 24, 0),
	CALL(0x0102030405060709ULL, 0x80000001U, MS_CALL_CALLOC,
	     0x7f0000001000ULL, UINT64_MAX, 0),
	CALL(3, 77, MS_CALL_REALLOC, 0x7f0000002000ULL, 0x100000000ULL,
	     0xfedcba9876543210ULL),
	CALL(4, 77, MS_CALL_REALLOCARRAY, 0, 1ULL << 63, 0x7f0000002000ULL),
	CALL(5, 77, MS_CALL_FREE, 0x7f0000003000ULL, 0, 0),
	{ .type = REC_CALL, .time_ns = 5, .pid = 77, .tid = 79,
	  .call = { .call = MS_CALL_FREE, .flags = CALL_INTERNAL,
		    .ptr = 0x7f0000003010ULL } },
	CALL(6, 77, MS_CALL_ALIGNED_ALLOC, 0x7f0000004000ULL, 4096, 0),
	CALL(7, 78, MS_CALL_MEMALIGN, 0x7f0000005000ULL, 64, 0),
	CALL(8, 78, MS_CALL_POSIX_MEMALIGN, 0x7f0000006000ULL, 128, 0),
	CALL(9, 78, MS_CALL_VALLOC, 0x7f0000007000ULL, 1, 0),
	CALL(UINT64_MAX, UINT32_MAX - 1, MS_CALL_PVALLOC,
	     0x7f0000008000ULL, 4097, 0),
	{ .type = REC_FORK, .time_ns = 11, .pid = 77, .tid = 79,
	  .fork = { .child = 0xfffffff0U } },
	{ .type = REC_EXEC, .time_ns = 12, .pid = 0xfffffff0U,
	  .tid = 0xfffffff0U, .exec = { .path = "/usr/bin/with space" } },
	{ .type = REC_EXEC, .time_ns = 13, .pid = 80, .tid = 80,
	  .exec = { .path = long_path } },
	{ .type = REC_EXEC, .time_ns = 14, .pid = 81, .tid = 81,
	  .exec = { .path = "" } },
	{ .type = REC_ATTACH, .time_ns = 14, .pid = 82, .tid = 82,
	  .exec = { .path = "/usr/bin/attached to" } },
	{ .type = REC_EXIT, .time_ns = 15, .pid = 81, .tid = 81,
	  .exit = { .wait_status = 0x8b } },		/* SIGSEGV, core */
	{ .type = REC_EXIT, .time_ns = 16, .pid = 80, .tid = 80,
	  .exit = { .wait_status = -1 } },
	{ .type = REC_EXIT, .time_ns = 17, .pid = 77, .tid = 77,
	  .exit = { .wait_status = 0x0100 } },	/* exit(1) */
	{ .type = REC_MAPPING, .time_ns = 18, .pid = 83, .tid = 83,
	  .mapping = { .start = 0x7f0000000000ULL, .end = 0x7fffffffffffULL,
		       .offset = 0x123456789abcULL, .build_id_len = 20,
		       .build_id = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				     14, 15, 16, 17, 18, 19, 0xff },
		       .path = "/usr/lib/lib with space.so" } },
	{ .type = REC_MAPPING, .time_ns = 18, .pid = 83, .tid = 83,
	  .mapping = { .start = 0x1000, .end = 0x2000, .path = "/no/build-id" } },
	{ .type = REC_STACK, .time_ns = 19, .pid = 83, .tid = 84,
	  .stack = { .id = 1, .nframes = 3,
		     .frames = (const uint64_t[]){ 0x7f0000001234ULL, 1,
						   UINT64_MAX } } },
	{ .type = REC_CALL, .time_ns = 19, .pid = 83, .tid = 84,
	  .call = { .call = MS_CALL_MALLOC, .ptr = 0x1000, .size = 8,
		    .stack_id = 0xfedcba98U } },
	{ .type = REC_REGION, .time_ns = 20, .pid = 83, .tid = 85,
	  .region = { .mark = MS_REGION_BEGIN, .name = "parse \xff" } },
	{ .type = REC_REGION, .time_ns = 21, .pid = 83, .tid = 84,
	  .region = { .mark = MS_REGION_END, .name = "" } },
};

enum { NSAMPLE = sizeof(sample) / sizeof(sample[0]) };

static char *const sample_argv[] = {
	"/usr/bin/prog", "--size", "42", "two words", NULL,
};

static const char *
type_name(enum record_type t)
{
	switch (t) {
	case REC_CALL:
		return "CALL";
	case REC_FORK:
		return "FORK";
	case REC_EXEC:
		return "EXEC";
	case REC_EXIT:
		return "EXIT";
	case REC_ATTACH:
		return "ATTACH";
	case REC_STACK:
		return "STACK";
	case REC_MAPPING:
		return "MAPPING";
	case REC_REGION:
		return "REGION";
	}
	return "?";
}

#define DIFF(field, fmt)						\
	do {								\
		if (got->field != want->field) {			\
			tap_diag("  " #field ": got " fmt ", expected " fmt, \
				 got->field, want->field);		\
			same = false;					\
		}							\
	} while (0)

/* Prints what differs. */
static bool
record_same(const struct record *got, const struct record *want)
{
	bool same = true;

	DIFF(type, "%d");
	DIFF(time_ns, "0x%" PRIx64);
	DIFF(pid, "%" PRIu32);
	DIFF(tid, "%" PRIu32);
	if (!same)
		return false;
	switch (want->type) {
	case REC_CALL:
		DIFF(call.call, "%" PRIu32);
		DIFF(call.flags, "0x%" PRIx32);
		DIFF(call.ptr, "0x%" PRIx64);
		DIFF(call.size, "0x%" PRIx64);
		DIFF(call.old_ptr, "0x%" PRIx64);
		DIFF(call.stack_id, "%" PRIu32);
		break;
	case REC_STACK:
		DIFF(stack.id, "%" PRIu32);
		DIFF(stack.nframes, "%" PRIu32);
		if (same && memcmp(got->stack.frames, want->stack.frames,
				   want->stack.nframes * sizeof(uint64_t))) {
			tap_diag("  stack.frames differ");
			same = false;
		}
		break;
	case REC_MAPPING:
		DIFF(mapping.start, "0x%" PRIx64);
		DIFF(mapping.end, "0x%" PRIx64);
		DIFF(mapping.offset, "0x%" PRIx64);
		DIFF(mapping.build_id_len, "%u");
		if (memcmp(got->mapping.build_id, want->mapping.build_id,
			   want->mapping.build_id_len) ||
		    strcmp(got->mapping.path, want->mapping.path)) {
			tap_diag("  mapping.build_id or mapping.path differ");
			same = false;
		}
		break;
	case REC_FORK:
		DIFF(fork.child, "%" PRIu32);
		break;
	case REC_EXEC:
	case REC_ATTACH:
		if (!got->exec.path || strcmp(got->exec.path, want->exec.path)) {
			tap_diag("  exec.path: got \"%.60s\", expected \"%.60s\"",
				 got->exec.path ? got->exec.path : "(null)",
				 want->exec.path);
			same = false;
		}
		break;
	case REC_EXIT:
		DIFF(exit.wait_status, "%" PRId32);
		break;
	case REC_REGION:
		DIFF(region.mark, "%" PRIu32);
		if (!got->region.name || strcmp(got->region.name, want->region.name)) {
			tap_diag("  region.name differs");
			same = false;
		}
		break;
	}
	return same;
}

static int
write_records(const char *path, int argc, char *const argv[],
	      const struct record *records, size_t n, const struct frame_names *names,
	      struct capture_end *end)
{
	struct capture_writer *w;
	size_t i;
	int err = 0;

	w = capture_create(path, CAPTURE_LEVEL_DEFAULT, argc, argv);
	if (!w)
		return -errno;
	for (i = 0; i < n; i++)
		if (!err)
			err = capture_write(w, &records[i]);
	if (!err && names)
		err = capture_write_names(w, names);
	if (err) {
		capture_abort(w);
		return err;
	}
	return capture_finish(w, end, NULL);
}

static int
write_sample(const char *path, struct capture_end *end)
{
	return write_records(path, 4, sample_argv, sample, NSAMPLE, NULL, end);
}

static void
test_round_trip(void)
{
	char buf[PATH_LEN];
	const char *path = tmp_path(buf, "run.memsup");
	struct capture_end end = {
		.records = 999,		/* capture_finish sets it */
		.lost_records = 7, .lost_calls = 3, .untraced_processes = 2,
		.exit_status = 0x0200,
		.pressure_stops = 0x0123456789abcdefULL,
		.flags = CAPTURE_END_PRESSURE_TIMEOUT,
		.unstoppable_processes = 0xfedcba9876543210ULL,
	};
	static const struct capture_end no_totals;
	const struct capture_end *totals;
	struct capture_writer *w;
	struct capture_reader *rd;
	struct record r;
	struct stat st;
	unsigned char *raw;
	size_t i, len;
	int rc = 0;

	w = capture_create(path, CAPTURE_LEVEL_DEFAULT, 4, sample_argv);
	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	for (i = 0; i < NSAMPLE; i++)
		rc |= capture_write(w, &sample[i]);
	tap_eq_i64(rc, 0, "capture_write of %d records succeeds", NSAMPLE);
	tap_ok(access(path, F_OK) && errno == ENOENT,
	       "the capture does not exist before capture_finish");
	{
		const char *names = dir_listing();

		if (!tap_ok(!strncmp(names, "run.memsup.", 11) &&
			    !strchr(names, ' '),
			    "one temporary file next to it while writing"))
			tap_diag("the directory holds: %s", names);
	}
	tap_eq_i64(capture_finish(w, &end, NULL), 0, "capture_finish succeeds");
	tap_eq_u64(end.records, NSAMPLE, "capture_finish sets the record count");
	tap_str_eq(dir_listing(), "run.memsup",
		   "no temporary file is left next to the capture");
	if (stat(path, &st))
		tap_bail("stat %s: %s", path, strerror(errno));
	tap_eq_u64(st.st_mode & 07777, 0600, "the capture has mode 0600");
	raw = read_file(path, &len);
	tap_ok(is_zstd(raw, len), "the capture is zstd");
	free(raw);

	rd = capture_open(path);
	if (!rd)
		tap_bail("capture_open: %s", strerror(errno));
	tap_ok(!capture_totals(rd), "no totals before the end record");
	for (i = 0; i < NSAMPLE; i++) {
		rc = capture_next(rd, &r);
		if (rc != 1) {
			tap_result(false, __FILE__, __LINE__,
				   "record %zu (%s) read back", i,
				   type_name(sample[i].type));
			tap_diag("capture_next returned %d: %s", rc,
				 capture_error(rd));
			continue;
		}
		tap_result(record_same(&r, &sample[i]), __FILE__, __LINE__,
			   "record %zu (%s) read back with every field", i,
			   type_name(sample[i].type));
	}
	tap_str_eq(capture_command(rd), "/usr/bin/prog --size 42 two words",
		   "capture_command joins argv with spaces");
	rc = capture_next(rd, &r);
	tap_eq_i64(rc, 0, "capture_next returns 0 at the end record");
	tap_str_eq(capture_error(rd), "", "no error at the end");
	totals = capture_totals(rd);
	if (!tap_ok(totals, "capture_totals after the end record"))
		totals = &no_totals;
	tap_eq_u64(totals->records, NSAMPLE, "totals: records");
	tap_eq_u64(totals->lost_records, 7, "totals: lost records");
	tap_eq_u64(totals->lost_calls, 3, "totals: lost calls");
	tap_eq_u64(totals->untraced_processes, 2, "totals: untraced processes");
	tap_eq_i64(totals->exit_status, 0x0200, "totals: exit status");
	tap_eq_u64(totals->pressure_stops, 0x0123456789abcdefULL,
		   "totals: pressure stops");
	tap_eq_u64(totals->flags, CAPTURE_END_PRESSURE_TIMEOUT, "totals: flags");
	tap_eq_u64(totals->unstoppable_processes, 0xfedcba9876543210ULL,
		   "totals: unstoppable processes");
	tap_eq_i64(capture_next(rd, &r), 0, "capture_next keeps returning 0");
	capture_close(rd);
	capture_close(NULL);
	unlink(path);
}

static void
test_writer_edges(void)
{
	struct capture_end end = { .exit_status = -1 };
	char path[PATH_LEN];
	struct capture_writer *w;
	struct capture_reader *rd;
	struct record r;
	int rc;

	w = capture_create(tmp_path(path, "aborted.memsup"), CAPTURE_LEVEL_DEFAULT, 4,
			   sample_argv);
	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	capture_write(w, &sample[0]);
	capture_abort(w);
	capture_abort(NULL);
	tap_str_eq(dir_listing(), "", "capture_abort removes the temporary file");

	errno = 0;
	w = capture_create(tmp_path(path, "no-such-dir/x.memsup"), CAPTURE_LEVEL_DEFAULT, 4,
			   sample_argv);
	tap_ok(!w && errno == ENOENT,
	       "capture_create in a missing directory fails with ENOENT (%s)",
	       strerror(errno));
	capture_abort(w);

	/* No argv, no records. */
	w = capture_create(tmp_path(path, "empty.memsup"), CAPTURE_LEVEL_DEFAULT, 0, NULL);
	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	tap_eq_i64(capture_finish(w, &end, NULL), 0, "a capture without records");
	rd = capture_open(tmp_path(path, "empty.memsup"));
	if (!rd)
		tap_bail("capture_open: %s", strerror(errno));
	rc = capture_next(rd, &r);
	tap_ok(rc == 0 && !strcmp(capture_command(rd), "") &&
	       capture_totals(rd) && capture_totals(rd)->records == 0 &&
	       capture_totals(rd)->exit_status == -1,
	       "it reads back empty, with its negative exit status");
	capture_close(rd);
	unlink(tmp_path(path, "empty.memsup"));
}

/*
 * What capture_sync pushes out reads back, while the capture is being
 * written, as a cut holding every record written: what a memsup killed
 * at that moment would leave.
 */
static void
test_sync(void)
{
	struct capture_end end = { 0 };
	char path[PATH_LEN], tmp[PATH_LEN];
	struct capture_writer *w;
	struct outcome o;
	struct stat st;
	off_t synced;
	size_t i;

	w = capture_create(tmp_path(path, "synced.memsup"), CAPTURE_LEVEL_DEFAULT, 4,
			   sample_argv);
	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	for (i = 0; i < NSAMPLE; i++)
		capture_write(w, &sample[i]);
	/* The one name in the directory: the temporary file. */
	tmp_path(tmp, dir_listing());
	read_capture(tmp, &o);
	tap_ok(o.records < NSAMPLE, "before capture_sync, records wait in the "
	       "compressor (%u of %d read)", o.records, NSAMPLE);

	tap_eq_i64(capture_sync(w), 0, "capture_sync succeeds");
	read_capture(tmp, &o);
	tap_ok(o.cut && o.records == NSAMPLE && !strcmp(o.error,
	       "truncated: no end record after 25 records"),
	       "after it, the file reads as a cut with all %d records (%u: %s)",
	       NSAMPLE, o.records, o.error);
	if (stat(tmp, &st))
		tap_bail("stat %s: %s", tmp, strerror(errno));
	synced = st.st_size;
	capture_sync(w);
	if (stat(tmp, &st))
		tap_bail("stat %s: %s", tmp, strerror(errno));
	tap_eq_i64(st.st_size, synced, "capture_sync with nothing new writes nothing");

	tap_eq_i64(capture_finish(w, &end, NULL), 0, "capture_finish after capture_sync");
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE, "the capture reads whole");
	unlink(path);
}

static void
test_not_captures(void)
{
	static const char text[] = "This is a text file, not a capture.\n";
	char path[PATH_LEN];
	struct outcome o;
	bool opened;

	errno = 0;
	opened = read_capture(tmp_path(path, "missing.memsup"), &o);
	tap_ok(!opened && errno == ENOENT,
	       "capture_open of a missing file: NULL and ENOENT");

	write_file(tmp_path(path, "text"), text, sizeof(text) - 1);
	opened = read_capture(tmp_path(path, "text"), &o);
	tap_ok(opened && o.rc == -EBADMSG && !strcmp(o.error, "not a memsup capture"),
	       "a text file is not a memsup capture (%s)", o.error);

	write_file(tmp_path(path, "short"), "hi\n", 3);
	read_capture(tmp_path(path, "short"), &o);
	tap_ok(o.rc == -EBADMSG && !strcmp(o.error, "not a memsup capture"),
	       "a 3-byte text file is not a memsup capture (%s)", o.error);

	write_file(tmp_path(path, "empty"), "", 0);
	opened = read_capture(tmp_path(path, "empty"), &o);
	tap_ok(opened && o.rc == -EBADMSG &&
	       !strncmp(o.error, "not a memsup capture", 20),
	       "an empty file is not a memsup capture (%s)", o.error);

	gzip_file(tmp_path(path, "other.gz"), text, sizeof(text) - 1);
	read_capture(tmp_path(path, "other.gz"), &o);
	tap_ok(o.rc == -EBADMSG && !strcmp(o.error, "not a memsup capture"),
	       "gzip of something else is not a memsup capture (%s)", o.error);

	/* Whole, but shorter than a header. */
	gzip_file(tmp_path(path, "hello.gz"), "hello", 5);
	read_capture(tmp_path(path, "hello.gz"), &o);
	tap_ok(o.rc == -EBADMSG && !strcmp(o.error, "not a memsup capture"),
	       "gzip of 5 bytes is not a memsup capture (%s)", o.error);
}

/*
 * How many bytes of content zlib or libzstd recovers from a gzip or zstd
 * file, maybe cut.
 */
static size_t
recoverable(const char *path)
{
	static unsigned char buf[1 << 16];
	size_t total = 0, len;
	unsigned char *raw = read_file(path, &len), *content;
	gzFile gz;
	bool whole;
	int n;

	if (is_zstd(raw, len)) {
		content = unzstd(raw, len, &total, &whole);
		free(content);
		free(raw);
		return total;
	}
	free(raw);
	gz = gzopen(path, "rb");
	if (!gz)
		tap_bail("cannot open %s", path);
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		total += (size_t)n;
	gzclose(gz);
	return total;
}

/*
 * The records of types 1 to 8 whole within the first len bytes of the
 * content: what a reader can salvage from a file cut there.
 */
static unsigned int
whole_records(const unsigned char *content, size_t len)
{
	size_t at = CAPTURE_HEADER_LEN;
	unsigned int n = 0;

	while (at + CAPTURE_RECORD_HEAD <= len) {
		uint16_t type = get_le16(content + at);

		at += CAPTURE_RECORD_HEAD + get_le16(content + at + 2);
		if (at > len)
			break;
		n += type >= REC_CALL && type <= REC_REGION;
	}
	return n;
}

/*
 * Raw truncations, sorted by what zlib can still recover of the content:
 * not even the 16-byte header, part of the records, or all of it (the
 * cut took only the end of the deflate stream or its gzip trailer).
 */
enum cut_kind { CUT_HEADER, CUT_RECORDS, CUT_TRAILER, NCUT_KINDS };

struct cut_results {
	size_t tried[NCUT_KINDS];
	size_t clean[NCUT_KINDS];	/* capture_next returned 0 */
	size_t misnamed[NCUT_KINDS];	/* -1, not "truncated" */
	size_t unsalvaged[NCUT_KINDS];	/* not every whole record, not cut */
};

/*
 * The scratch file cut to the first n of the len bytes of raw, which it
 * holds fewer of, and read.
 */
static void
cut_at(const unsigned char *raw, size_t n, size_t len,
       const unsigned char *content, size_t content_len,
       const char *cut, struct cut_results *res)
{
	enum cut_kind kind;
	struct outcome o;
	size_t got;
	unsigned int want;

	scratch_grow(raw, n);
	got = recoverable(cut);
	kind = got < CAPTURE_HEADER_LEN ? CUT_HEADER :
	       got < content_len ? CUT_RECORDS : CUT_TRAILER;
	res->tried[kind]++;
	if (!read_capture(cut, &o))
		tap_bail("capture_open %s: %s", cut, strerror(errno));
	if (o.rc != -EBADMSG && res->clean[kind]++ < 4)
		tap_diag("cut to %zu of %zu bytes: clean end after %u records",
			 n, len, o.records);
	if (o.rc == -EBADMSG && !strstr(o.error, "truncated") && res->misnamed[kind]++ < 4)
		tap_diag("cut to %zu of %zu bytes: \"%s\"", n, len, o.error);
	/* A cut in the header leaves nothing to salvage: an error, no more. */
	want = whole_records(content, got);
	if ((kind == CUT_HEADER ? o.cut : !o.cut || o.records != want ||
	     !o.totals || o.end.records != want) && res->unsalvaged[kind]++ < 4)
		tap_diag("cut to %zu of %zu bytes: %u records (%s cut), %u whole",
			 n, len, o.records, o.cut ? "a" : "not", want);
}

/*
 * Cuts the gzip or zstd file at path to each length shorter than its
 * magic (2 or 4 bytes), which is no capture, to its magic and every step
 * bytes after, and to each of its last 12 lengths.  The cuts come
 * shortest first: each is the one before with the bytes up to it added.
 */
static void
check_raw_truncations(const char *path, const char *what, size_t step)
{
	const char *cut = scratch_set("", 0);
	size_t len, content_len, n;
	unsigned char *raw = read_file(path, &len);
	unsigned char *content = content_of(path, &content_len);
	size_t magic = is_zstd(raw, len) ? 4 : 2, odd = 0;
	struct cut_results res;
	struct outcome o;

	for (n = 0; n < magic; n++) {
		scratch_grow(raw, n);
		read_capture(cut, &o);
		if ((o.rc != -EBADMSG || o.cut || o.records) && odd++ < 4)
			tap_diag("cut to %zu bytes: %u records, %s", n, o.records, o.error);
	}
	tap_ok(!odd, "%s: a cut inside the magic is no capture, and no cut", what);
	memset(&res, 0, sizeof(res));
	for (n = magic; n < len - 12; n += step)
		cut_at(raw, n, len, content, content_len, cut, &res);
	for (n = len - 12; n < len; n++)
		cut_at(raw, n, len, content, content_len, cut, &res);
	tap_diag("%s: %zu cuts in the header, %zu in the records, %zu after them",
		 what, res.tried[CUT_HEADER], res.tried[CUT_RECORDS],
		 res.tried[CUT_TRAILER]);

	tap_ok(res.tried[CUT_RECORDS] && !res.clean[CUT_RECORDS],
	       "%s: every cut losing records fails", what);
	tap_ok(res.tried[CUT_RECORDS] && !res.misnamed[CUT_RECORDS],
	       "%s: every cut losing records says truncated", what);
	tap_ok(res.tried[CUT_RECORDS] && !res.unsalvaged[CUT_RECORDS],
	       "%s: every cut losing records is a cut that gives every whole "
	       "record before it", what);
	tap_ok(res.tried[CUT_HEADER] && !res.clean[CUT_HEADER],
	       "%s: every cut inside the header fails", what);
	/*
	 * A gzip stream that ends early is a cut file, whatever it held;
	 * only a whole stream too short for a header is "not a capture".
	 */
	tap_ok(!res.misnamed[CUT_HEADER],
	       "%s: every cut inside the header says truncated", what);
	tap_ok(!res.unsalvaged[CUT_HEADER],
	       "%s: a cut inside the header is no cut to salvage", what);
	tap_ok(res.tried[CUT_TRAILER] && !res.clean[CUT_TRAILER] &&
	       !res.misnamed[CUT_TRAILER] && !res.unsalvaged[CUT_TRAILER],
	       "%s: a cut losing only the end of the stream (gzip trailer, zstd "
	       "checksum) is truncated, with every record", what);
	free(content);
	free(raw);
}

/* Where the nth record of types 1 to 8 ends in the content. */
static size_t
records_end(const unsigned char *content, size_t len, unsigned int n)
{
	size_t at = CAPTURE_HEADER_LEN;

	while (n && at + CAPTURE_RECORD_HEAD <= len) {
		uint16_t type = get_le16(content + at);

		at += CAPTURE_RECORD_HEAD + get_le16(content + at + 2);
		n -= type >= REC_CALL && type <= REC_REGION;
	}
	return at;
}

/*
 * Whether the gzip or zstd file at path starts with the len bytes of
 * content.
 */
static bool
starts_with(const char *path, const unsigned char *content, size_t len)
{
	size_t raw_len, got;
	unsigned char *raw = read_file(path, &raw_len), *buf;
	gzFile gz;
	bool same;

	if (is_zstd(raw, raw_len)) {
		buf = unzstd(raw, raw_len, &got, &same);
		same = got >= len && !memcmp(buf, content, len);
		free(buf);
		free(raw);
		return same;
	}
	free(raw);
	buf = malloc(len + 1);
	gz = gzopen(path, "rb");
	if (!gz || !buf)
		tap_bail("cannot open %s", path);
	same = gzread(gz, buf, (unsigned int)len) == (int)len && !memcmp(buf, content, len);
	gzclose(gz);
	free(buf);
	return same;
}

/*
 * Flips the lowest bit of every step-th byte after the 10-byte gzip
 * header (whose time and flags vouch for nothing), and of each byte of
 * the trailer: CRC-32 and length.  The CRC-32 refuses every flip that
 * changes the content, but for one that leads inflate past the end of
 * the file: that reads as a cut, whose records must then be the first
 * ones of the capture.  A flip that changes nothing (the length of a code
 * never used) reads whole.  With zstd, framed as the writer frames it,
 * from the first byte: each frame's checksum refuses what the CRC-32 does.
 */
static void
check_flips(const char *path, const char *what, size_t step, bool zstd)
{
	char buf2[PATH_LEN];
	const char *bad;
	const char *fixed = tmp_path(buf2, "fixed.memsup");
	size_t len, content_len, at, flipped_len;
	size_t tried = 0, refused = 0, cut = 0, wrong = 0;
	unsigned char *content = content_of(path, &content_len), *flipped, *raw;
	struct outcome o;
	gzFile gz;

	/*
	 * The same bytes each run, so that the same flips are tried: META's
	 * wall clock set to 0 (and END's CRC-32 of it all made again),
	 * compressed at the writer's level.
	 */
	if (get_le16(content + CAPTURE_HEADER_LEN) != CAPTURE_REC_META)
		tap_bail("%s does not start with META", path);
	memset(content + CAPTURE_HEADER_LEN + CAPTURE_RECORD_HEAD, 0, 8);
	put_le32(content + content_len - 4, (uint32_t)crc32(0, content, (uInt)content_len - 4));
	if (zstd) {
		zstd_file(fixed, content, content_len, CAPTURE_HEADER_LEN +
			  CAPTURE_RECORD_HEAD + get_le16(content + CAPTURE_HEADER_LEN + 2),
			  4 << 20);
	} else {
		gz = gzopen(fixed, "wb1");
		if (!gz || gzwrite(gz, content, (unsigned int)content_len) != (int)content_len ||
		    gzclose(gz) != Z_OK)
			tap_bail("cannot compress into %s", fixed);
	}
	raw = read_file(fixed, &len);
	unlink(fixed);
	bad = scratch_set(raw, len);

	for (at = zstd ? 0 : 10; at < len; at += at + step < len - 8 ? step : 1) {
		bool right;

		scratch_flip(raw, at);
		read_capture(bad, &o);
		tried++;
		if (o.rc == -EBADMSG && !o.cut) {
			refused++;
			right = true;
		} else if (o.cut) {
			cut++;
			right = starts_with(bad, content, records_end(content, content_len,
								      o.records));
		} else {
			flipped = content_of(bad, &flipped_len);
			right = o.rc == 0 && flipped_len == content_len &&
				!memcmp(flipped, content, content_len);
			free(flipped);
		}
		scratch_write(at, raw + at, 1);
		if (!right && wrong++ < 4)
			tap_diag("bit 0 of byte %zu of %zu flipped: %u records, then %d%s: %s",
				 at, len, o.records, o.rc, o.cut ? " (a cut)" : "", o.error);
	}
	tap_diag("%s: of %zu flips, %zu refused, %zu read as cuts, the others "
		 "changed nothing", what, tried, refused, cut);
	tap_ok(refused && !wrong, "%s: a flipped bit is refused, or read as a cut "
	       "of the first records, or changed nothing", what);
	free(content);
	free(raw);
}

/*
 * The same for a decompressed capture (zcat), which has no gzip CRC: END's
 * CRC-32 covers every byte before it, so no flip anywhere in the content
 * reads as a whole capture.  Most are refused; one that sends a record's
 * length past the end of the file reads as a cut, which the reports show
 * as one, with exit status 2.
 */
static void
check_raw_flips(const char *path, const char *what, size_t step)
{
	size_t len, at, tried = 0, refused = 0, cut = 0, whole = 0;
	unsigned char *content = content_of(path, &len);
	const char *bad = scratch_set(content, len);
	struct outcome o;

	for (at = 0; at < len; at += at + step < len - CAPTURE_END_LEN ? step : 1) {
		scratch_flip(content, at);
		read_capture(bad, &o);
		scratch_write(at, content + at, 1);
		tried++;
		refused += o.rc == -EBADMSG && !o.cut;
		cut += o.cut;
		if (o.rc == 0 && whole++ < 4)
			tap_diag("bit 0 of byte %zu of %zu flipped: read whole", at, len);
	}
	tap_diag("%s, decompressed: of %zu flips, %zu refused, %zu read as cuts",
		 what, tried, refused, cut);
	tap_ok(refused && !whole, "%s, decompressed: no flipped bit reads whole", what);
	free(content);
}

/*
 * A capture of many records: its zstd stream spans blocks, and frames of
 * 4 MiB.
 */
static void
write_big(const char *path, unsigned int n)
{
	struct capture_end end = { 0 };
	struct capture_writer *w = capture_create(path, CAPTURE_LEVEL_DEFAULT, 4,
						  sample_argv);
	uint64_t x = 88172645463325252ULL;
	unsigned int i;

	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		struct record r = sample[i % NSAMPLE];

		/* xorshift: data that does not compress away */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r.time_ns = x;
		capture_write(w, &r);
	}
	if (capture_finish(w, &end, NULL))
		tap_bail("capture_finish failed");
}

/* The sample with a capture_sync after every n records: a frame each. */
static void
write_synced_sample(const char *path, unsigned int n, struct capture_end *end)
{
	struct capture_writer *w = capture_create(path, CAPTURE_LEVEL_DEFAULT, 4,
						  sample_argv);
	unsigned int i;

	if (!w)
		tap_bail("capture_create: %s", strerror(errno));
	for (i = 0; i < NSAMPLE; i++) {
		capture_write(w, &sample[i]);
		if ((i + 1) % n == 0)
			capture_sync(w);
	}
	if (capture_finish(w, end, NULL))
		tap_bail("capture_finish failed");
}

/* Where the nth frame (from 0) of a zstd file starts, and its length. */
static size_t
zstd_frame_at(const unsigned char *raw, size_t len, unsigned int nth, size_t *frame_len)
{
	size_t at = 0;

	for (;;) {
		*frame_len = ZSTD_findFrameCompressedSize(raw + at, len - at);
		if (ZSTD_isError(*frame_len))
			tap_bail("no frame %u", nth);
		if (!nth--)
			return at;
		at += *frame_len;
	}
}

/* The last bytes of path cut off. */
static void
cut_file(const char *path, const char *out, size_t off)
{
	size_t len;
	unsigned char *raw = read_file(path, &len);

	write_file(out, raw, len - off);
	free(raw);
}

static void
test_raw_truncation(void)
{
	char buf1[PATH_LEN], buf2[PATH_LEN], buf3[PATH_LEN];
	const char *path = tmp_path(buf1, "whole.memsup");
	const char *big = tmp_path(buf2, "big.memsup");
	const char *gz = tmp_path(buf3, "whole-gzip.memsup");
	struct capture_end end = { 0 };
	unsigned char *raw, *content;
	unsigned int frames;
	size_t len, content_len, at, frame_len, i;
	struct outcome o;

	if (write_sample(path, &end))
		tap_bail("cannot write the sample capture");
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE, "the whole file reads cleanly");
	tap_eq_u64(zstd_frames(path), 2,
		   "the sample capture: a zstd frame for the header and META, "
		   "one for the records");

	check_raw_truncations(path, "sample capture", 1);
	check_flips(path, "sample capture", 1, true);
	check_raw_flips(path, "sample capture", 1);
	content = content_of(path, &content_len);
	gzip_file(gz, content, content_len);
	free(content);
	check_raw_truncations(gz, "sample capture in gzip", 1);
	check_flips(gz, "sample capture in gzip", 1, false);

	/*
	 * Synced every 5 records: a frame each, and END in one of its own.
	 * A cut at any byte gives the records of every frame before it.
	 */
	write_synced_sample(path, 5, &end);
	tap_eq_u64(zstd_frames(path), 2 + NSAMPLE / 5,
		   "synced every 5 records: a zstd frame for each sync");
	check_raw_truncations(path, "sample capture in frames of 5 records", 1);

	/* A flipped byte inside the frame of records 6 to 10, and its checksum. */
	raw = read_file(path, &len);
	at = zstd_frame_at(raw, len, 2, &frame_len);
	for (i = 0; i < 2; i++) {
		size_t flip = i ? at + frame_len - 1 : at + frame_len / 2;

		raw[flip] ^= 0x01;
		write_file(gz, raw, len);
		raw[flip] ^= 0x01;
		read_capture(gz, &o);
		tap_ok(o.rc == -EBADMSG && !o.cut && !strncmp(o.error, "damaged", 7) &&
		       o.records <= 10,
		       "a bit flipped in a zstd frame's %s: damaged (%u records: %s)",
		       i ? "checksum" : "blocks", o.records, o.error);
	}
	free(raw);

	/* END read, only the last frame's checksum missing: its counters hold. */
	end.lost_records = 3;
	if (write_sample(path, &end))
		tap_bail("cannot write the sample capture");
	content = content_of(path, &content_len);
	gzip_file(gz, content, content_len);
	free(content);
	for (i = 1; i <= 4; i += 3) {
		cut_file(path, big, i);
		read_capture(big, &o);
		tap_ok(o.cut && o.records == NSAMPLE && o.totals && !o.end.cut &&
		       o.end.lost_records == 3 &&
		       !strcmp(o.error, "truncated after the end record"),
		       "the last %zu bytes of the zstd checksum cut: a cut, with END's "
		       "counters (%s)", i, o.error);
	}
	cut_file(gz, big, 4);
	read_capture(big, &o);
	tap_ok(o.cut && o.records == NSAMPLE && o.totals && !o.end.cut &&
	       o.end.lost_records == 3 && !strcmp(o.error, "truncated after the end record"),
	       "a cut in the gzip trailer: a cut, with END's counters (%s)", o.error);

	write_big(big, 30000);
	read_capture(big, &o);
	tap_ok(o.rc == 0 && o.records == 30000,
	       "a capture of 30000 records reads cleanly");
	content = content_of(big, &content_len);
	frames = zstd_frames(big);
	if (!tap_ok(frames >= 1 + 1 + content_len / (FRAME_MAX + CAPTURE_MAX_PAYLOAD + 4) &&
		    frames <= 1 + 1 + content_len / FRAME_MAX,
		    "30000 records: a frame ends every 4 MiB of content"))
		tap_diag("%u frames for %zu bytes", frames, content_len);
	check_raw_truncations(big, "30000 records", 997);
	check_flips(big, "30000 records", 997, true);
	check_raw_flips(big, "30000 records", 997);
	gzip_file(gz, content, content_len);
	free(content);
	check_raw_truncations(gz, "30000 records in gzip", 997);
	check_flips(gz, "30000 records in gzip", 997, false);
	unlink(gz);
	unlink(big);
	unlink(path);
}

/* Content of the sample capture, uncompressed. */
static unsigned char *
sample_content(size_t *len)
{
	char path_buf[PATH_LEN];
	const char *path = tmp_path(path_buf, "content.memsup");
	struct capture_end end = {
		.lost_records = 1,
		.pressure_stops = 5,
		.flags = CAPTURE_END_PRESSURE_TIMEOUT,
		.unstoppable_processes = 4,
	};
	unsigned char *buf;

	if (write_sample(path, &end))
		tap_bail("cannot write the sample capture");
	buf = content_of(path, len);
	unlink(path);
	return buf;
}

static void
test_damaged_content(void)
{
	char path_buf[PATH_LEN];
	const char *path = tmp_path(path_buf, "damaged.memsup");
	size_t len, end_at, i;
	unsigned char *buf = sample_content(&len);
	unsigned char *patched;
	struct outcome o;
	char want[128];

	end_at = len - CAPTURE_RECORD_HEAD - CAPTURE_END_LEN;
	if (get_le16(buf + end_at) != CAPTURE_REC_END)
		tap_bail("the capture does not end with its END record");

	gzip_file(path, buf, len);
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE,
	       "recompressed content reads cleanly");

	/* The END record cut off, in a valid gzip stream. */
	{
		static const size_t cuts[] = {
			1, CAPTURE_END_LEN - 1, CAPTURE_END_LEN,
			CAPTURE_END_LEN + 1, CAPTURE_END_LEN + 3,
		};

		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			gzip_file(path, buf, len - cuts[i]);
			read_capture(path, &o);
			tap_ok(o.rc == -EBADMSG && o.records == NSAMPLE && o.cut &&
			       strstr(o.error, "truncated"),
			       "valid gzip, last %zu bytes missing: a cut (%s)",
			       cuts[i], o.error);
		}
		gzip_file(path, buf, end_at);
		read_capture(path, &o);
		snprintf(want, sizeof(want),
			 "truncated: no end record after %d records", NSAMPLE);
		tap_str_eq(o.error, want, "valid gzip, END record missing");
		/* What a report of the cut shows instead of END's counters. */
		tap_ok(o.cut && o.totals && o.end.cut && o.end.records == NSAMPLE &&
		       o.end.last_ns == UINT64_MAX && !o.end.lost_records &&
		       !o.end.pressure_stops && !o.end.flags,
		       "a cut's totals: cut, %d records, the latest time read, "
		       "no counter of END", NSAMPLE);
		/* Too short for a header: "not a capture" is fine too. */
		gzip_file(path, buf, CAPTURE_HEADER_LEN - 1);
		read_capture(path, &o);
		tap_ok(o.rc == -EBADMSG && o.records == 0,
		       "valid gzip, header cut: an error (%s)", o.error);
	}

	patched = malloc(len + 64);
	if (!patched)
		tap_bail("out of memory");

	memcpy(patched, buf, len);
	put_le32(patched + CAPTURE_MAGIC_LEN, CAPTURE_VERSION + 1);
	gzip_file(path, patched, len);
	read_capture(path, &o);
	snprintf(want, sizeof(want),
		 "capture format version %d; this memsup reads version %d",
		 CAPTURE_VERSION + 1, CAPTURE_VERSION);
	tap_ok(o.rc == -EBADMSG && o.records == 0 && strstr(o.error, "version"),
	       "a newer format version is refused (%s)", o.error);
	tap_str_eq(o.error, want, "the message names both versions");

	memcpy(patched, buf, len);
	patched[0] = 'X';
	gzip_file(path, patched, len);
	read_capture(path, &o);
	tap_ok(o.rc == -EBADMSG && !strcmp(o.error, "not a memsup capture"),
	       "a wrong magic is not a memsup capture (%s)", o.error);

	/* The END record counting one record more than the file has. */
	memcpy(patched, buf, len);
	put_le64(patched + end_at + CAPTURE_RECORD_HEAD, NSAMPLE + 1);
	gzip_file(path, patched, len);
	read_capture(path, &o);
	snprintf(want, sizeof(want),
		 "damaged: end record counts %d records, the file has %d",
		 NSAMPLE + 1, NSAMPLE);
	tap_str_eq(o.error, want, "an END record counting wrong is damage");

	/* The last record, a REGION with an empty name, marked neither way. */
	memcpy(patched, buf, len);
	if (get_le16(patched + end_at - CAPTURE_RECORD_HEAD - CAPTURE_REGION_MIN) != REC_REGION)
		tap_bail("the sample does not end with an empty REGION");
	patched[end_at - 1] = 3;
	gzip_file(path, patched, len);
	read_capture(path, &o);
	snprintf(want, sizeof(want), "damaged: record %d has unknown region mark 3", NSAMPLE);
	tap_str_eq(o.error, want, "an unknown region mark is damage");

	/*
	 * The first record after the header and META is a CALL; make its
	 * call unknown, then its length wrong.
	 */
	{
		size_t meta_len = get_le16(patched + CAPTURE_HEADER_LEN + 2);
		size_t first = CAPTURE_HEADER_LEN + CAPTURE_RECORD_HEAD + meta_len;

		memcpy(patched, buf, len);
		if (get_le16(patched + first) != REC_CALL)
			tap_bail("no CALL record where expected");
		put_le32(patched + first + CAPTURE_RECORD_HEAD + 16, MS_CALL_MAX);
		gzip_file(path, patched, len);
		read_capture(path, &o);
		snprintf(want, sizeof(want),
			 "damaged: record 1 has unknown call %d", MS_CALL_MAX);
		tap_str_eq(o.error, want, "an unknown call is damage");

		/* A call flag this reader does not know; any flag before version 4. */
		put_le16(patched + first + CAPTURE_RECORD_HEAD + 16, MS_CALL_MALLOC);
		put_le16(patched + first + CAPTURE_RECORD_HEAD + 18, 2);
		gzip_file(path, patched, len);
		read_capture(path, &o);
		tap_str_eq(o.error, "damaged: record 1 has unknown call flags 0x2",
			   "an unknown call flag is damage");
		put_le16(patched + first + CAPTURE_RECORD_HEAD + 18, CALL_INTERNAL);
		put_le32(patched + CAPTURE_MAGIC_LEN, 3);
		gzip_file(path, patched, len);
		read_capture(path, &o);
		tap_str_eq(o.error, "damaged: record 1 has unknown call flags 0x1",
			   "a call flag in a version 3 capture is damage");

		/* CALL payload one byte short, the stream still aligned. */
		memcpy(patched, buf, first);
		put_le16(patched + first + 2, CAPTURE_CALL_LEN - 1);
		memcpy(patched + first + CAPTURE_RECORD_HEAD,
		       buf + first + CAPTURE_RECORD_HEAD, CAPTURE_CALL_LEN - 1);
		memcpy(patched + first + CAPTURE_RECORD_HEAD + CAPTURE_CALL_LEN - 1,
		       buf + first + CAPTURE_RECORD_HEAD + CAPTURE_CALL_LEN,
		       len - first - CAPTURE_RECORD_HEAD - CAPTURE_CALL_LEN);
		gzip_file(path, patched, len - 1);
		read_capture(path, &o);
		snprintf(want, sizeof(want),
			 "damaged: record 1 (type %d) has %d bytes", REC_CALL,
			 CAPTURE_CALL_LEN - 1);
		tap_str_eq(o.error, want,
			   "a CALL record of the wrong length is damage");

		/* A record type this reader does not know, before END: skipped. */
		memcpy(patched, buf, end_at);
		put_le16(patched + end_at, 200);
		put_le16(patched + end_at + 2, 5);
		memcpy(patched + end_at + CAPTURE_RECORD_HEAD, "abcde", 5);
		memcpy(patched + end_at + CAPTURE_RECORD_HEAD + 5, buf + end_at,
		       len - end_at);
		gzip_file(path, patched, len + CAPTURE_RECORD_HEAD + 5);
		read_capture(path, &o);
		tap_ok(o.rc == 0 && o.records == NSAMPLE,
		       "a record of an unknown type is skipped");
		if (o.rc)
			tap_diag("%u records, then: %s", o.records, o.error);
	}

	/* An END of the first, 36-byte layout: the later fields read as 0. */
	{
		struct capture_reader *rd;
		struct record r;

		memcpy(patched, buf, end_at + CAPTURE_RECORD_HEAD + CAPTURE_END_MIN);
		put_le16(patched + end_at + 2, CAPTURE_END_MIN);
		gzip_file(path, patched, end_at + CAPTURE_RECORD_HEAD + CAPTURE_END_MIN);
		rd = capture_open(path);
		while (rd && capture_next(rd, &r) == 1)
			;
		tap_ok(rd && capture_totals(rd) &&
		       capture_totals(rd)->pressure_stops == 0 &&
		       capture_totals(rd)->flags == 0 &&
		       capture_totals(rd)->unstoppable_processes == 0 &&
		       capture_totals(rd)->lost_records == 1,
		       "a 36-byte END reads, with no pressure stops, flags or "
		       "unstoppable processes (%s)",
		       rd ? capture_error(rd) : "not opened");
		capture_close(rd);
	}

	/* An END of the 48-byte layout: no unstoppable processes field. */
	{
		struct capture_reader *rd;
		struct record r;
		size_t len48 = end_at + CAPTURE_RECORD_HEAD + 48;

		memcpy(patched, buf, len48);
		put_le16(patched + end_at + 2, 48);
		gzip_file(path, patched, len48);
		rd = capture_open(path);
		while (rd && capture_next(rd, &r) == 1)
			;
		tap_ok(rd && capture_totals(rd) &&
		       capture_totals(rd)->pressure_stops == 5 &&
		       capture_totals(rd)->flags == CAPTURE_END_PRESSURE_TIMEOUT &&
		       capture_totals(rd)->unstoppable_processes == 0,
		       "a 48-byte END reads, with pressure stops and flags and no "
		       "unstoppable processes (%s)",
		       rd ? capture_error(rd) : "not opened");
		capture_close(rd);
	}
	free(patched);
	free(buf);
	unlink(path);
}

/* path's bytes, then len bytes of buf, written to out. */
static void
append_to(const char *out, const char *path, const void *buf, size_t len)
{
	size_t n;
	unsigned char *raw = read_file(path, &n);

	raw = realloc(raw, n + len);
	if (!raw)
		tap_bail("out of memory");
	memcpy(raw + n, buf, len);
	write_file(out, raw, n + len);
	free(raw);
}

static void
concat_files(const char *out, const char *first, const char *second)
{
	size_t n;
	unsigned char *raw = read_file(second, &n);

	append_to(out, first, raw, n);
	free(raw);
}

/*
 * whole holds the records but not END, in a gzip or zstd stream: junk
 * after it, where END should be, is damage in a record header, with no
 * cut to salvage.
 */
static void
check_junk_before_end(const char *path, const char *whole, const char *stream)
{
	struct outcome o;
	char want[128], what[64];

	append_to(path, whole, "junk", 4);
	read_capture(path, &o);
	snprintf(want, sizeof(want), "damaged in a record header after "
		 "%d records (bytes after the %s stream)", NSAMPLE, stream);
	snprintf(what, sizeof(what), "junk after a %s %s before END", stream,
		 strcmp(stream, "gzip") ? "frame" : "member");
	tap_str_eq(o.error, want, "%s: damaged", what);
	tap_ok(!o.cut, "%s: no cut to salvage", what);
}

/*
 * Whatever follows the END record makes the file damaged: more content,
 * another gzip member or zstd frame, or bytes that are neither (which
 * zlib's gzread ignores).  A capture in two gzip members, or in zstd
 * frames, is still whole.
 */
static void
test_bytes_after_end(void)
{
	char buf1[PATH_LEN], buf2[PATH_LEN], buf3[PATH_LEN];
	const char *whole = tmp_path(buf1, "whole.memsup");
	const char *member = tmp_path(buf2, "member.memsup");
	const char *path = tmp_path(buf3, "after.memsup");
	struct capture_end end = { .lost_records = 1 };
	static const struct {
		const char *what, *bytes;
		size_t len;
	} junk[] = {
		{ "plain bytes", "junk\n", 5 },
		{ "one zero byte", "", 1 },
		{ "one byte of the gzip magic", "\x1f", 1 },
	};
	size_t len, end_at, i;
	unsigned char *content = sample_content(&len);
	struct outcome o;

	end_at = len - CAPTURE_RECORD_HEAD - CAPTURE_END_LEN;
	gzip_file(whole, content, len);
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		append_to(path, whole, junk[i].bytes, junk[i].len);
		read_capture(path, &o);
		tap_ok(o.rc == -EBADMSG && o.records == NSAMPLE &&
		       !strcmp(o.error, "damaged: data after the end record"),
		       "gzip capture, then %s: damaged (%s)", junk[i].what, o.error);
	}

	gzip_file(member, "junk", 4);
	concat_files(path, whole, member);
	read_capture(path, &o);
	tap_str_eq(o.error, "damaged: data after the end record",
		   "gzip capture, then a gzip member of junk: damaged");

	append_to(path, whole, "\x1f\x8b", 2);
	read_capture(path, &o);
	tap_str_eq(o.error, "truncated after the end record",
		   "gzip capture, then a gzip member cut after its magic: truncated");

	write_file(member, content, len);
	append_to(path, member, "junk", 4);
	read_capture(path, &o);
	tap_str_eq(o.error, "damaged: data after the end record",
		   "uncompressed capture, then plain bytes: damaged");

	/* The records in one member, END in a second: whole. */
	gzip_file(whole, content, end_at);
	gzip_file(member, content + end_at, len - end_at);
	concat_files(path, whole, member);
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE,
	       "a capture in two gzip members reads cleanly (%s)", o.error);

	/* The first member, then junk where END should be. */
	check_junk_before_end(path, whole, "gzip");

	/* The same for zstd: the writer's capture, then something more. */
	if (write_sample(whole, &end))
		tap_bail("cannot write the sample capture");
	for (i = 0; i < 2; i++) {
		append_to(path, whole, junk[i].bytes, junk[i].len);
		read_capture(path, &o);
		tap_ok(o.rc == -EBADMSG && o.records == NSAMPLE &&
		       !strcmp(o.error, "damaged: data after the end record"),
		       "zstd capture, then %s: damaged (%s)", junk[i].what, o.error);
	}
	zstd_file(member, "junk", 4, 0, 0);
	concat_files(path, whole, member);
	read_capture(path, &o);
	tap_str_eq(o.error, "damaged: data after the end record",
		   "zstd capture, then a zstd frame of junk: damaged");
	/*
	 * A frame cut in its magic or just after: a cut, as any cut between
	 * the frames a writer ends as it goes (unlike gzip's one byte).
	 */
	for (i = 1; i <= 4; i++) {
		append_to(path, whole, "\x28\xb5\x2f\xfd", i);
		read_capture(path, &o);
		tap_ok(o.cut && !strcmp(o.error, "truncated after the end record"),
		       "zstd capture, then %zu bytes of a zstd frame's magic: truncated (%s)",
		       i, o.error);
	}
	/* A skippable frame: zstd -d skips it, but memsup writes none. */
	append_to(path, whole, "\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
	read_capture(path, &o);
	tap_str_eq(o.error, "damaged: data after the end record",
		   "zstd capture, then a skippable frame: damaged");

	/* The records in frames, then junk where END should be. */
	zstd_file(whole, content, end_at, 0, 100);
	check_junk_before_end(path, whole, "zstd");

	/* Records in frames of 100 bytes, END cut across two: whole. */
	zstd_file(path, content, len, 0, 100);
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE,
	       "a capture in zstd frames of 100 bytes reads cleanly (%s)", o.error);

	unlink(whole);
	unlink(member);
	unlink(path);
	free(content);
}

/*
 * The golden capture: a small run with every record type and values that
 * fill their fields, written once by the writer of its version and
 * committed as tests/expected/golden/vN.cap, next to its `memsup report
 * --events` output, which tests/golden.test compares.  The writer and the
 * reader share capture-layout.h, so a round trip agrees with itself
 * whatever the layout; the committed bytes do not change with the code.
 */
static const uint64_t golden_frames_1[] = {
	0x55d5e1a0b123ULL, 0x7f3c2a1b4e5fULL, 0x55d5e1a0c0deULL,
};
static const uint64_t golden_frames_2[] = { 0x55d5e1a0b456ULL };

static const struct record golden[] = {
	{ .type = REC_EXEC, .time_ns = 0x123456789ULL, .pid = 0x12345,
	  .tid = 0x12345, .exec = { .path = "/usr/bin/golden" } },
	{ .type = REC_MAPPING, .time_ns = 0x123457000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .mapping = { .start = 0x55d5e1a0a000ULL, .end = 0x55d5e1a0d000ULL,
		       .offset = 0x1000, .build_id_len = 20,
		       .build_id = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
				     0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
				     0x32, 0x10, 0x0f, 0x1e, 0x2d, 0x3c },
		       .path = "/usr/bin/golden" } },
	{ .type = REC_MAPPING, .time_ns = 0x123457001ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .mapping = { .start = 0x7f3c2a1b0000ULL, .end = 0x7f3c2a1f8000ULL,
		       .offset = 0x26000,
		       .path = "/usr/lib/x86_64-linux-gnu/libc.so.6" } },
	{ .type = REC_STACK, .time_ns = 0x123458000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .stack = { .id = 1, .nframes = 3, .frames = golden_frames_1 } },
	{ .type = REC_CALL, .time_ns = 0x123458000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .call = { .call = MS_CALL_MALLOC, .ptr = 0x55d5e2b0c2a0ULL,
		    .size = 24, .stack_id = 1 } },
	{ .type = REC_CALL, .time_ns = 0x123459000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .call = { .call = MS_CALL_CALLOC, .ptr = 0x7f3c10000010ULL,
		    .size = 0x100000000ULL, .stack_id = 1 } },
	{ .type = REC_REGION, .time_ns = 0x12345a000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .region = { .mark = MS_REGION_BEGIN, .name = "parse input" } },
	{ .type = REC_CALL, .time_ns = 0x12345b000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .call = { .call = MS_CALL_REALLOC, .ptr = 0x55d5e2b0d000ULL,
		    .size = 300, .old_ptr = 0x55d5e2b0c2a0ULL } },
	{ .type = REC_CALL, .time_ns = 0x12345c000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .call = { .call = MS_CALL_REALLOCARRAY, .ptr = 0,
		    .size = UINT64_MAX, .old_ptr = 0x55d5e2b0d000ULL } },
	{ .type = REC_REGION, .time_ns = 0x12345d000ULL, .pid = 0x12345,
	  .tid = 0x12346,
	  .region = { .mark = MS_REGION_END, .name = "parse input" } },
	{ .type = REC_STACK, .time_ns = 0x12345e000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .stack = { .id = 2, .nframes = 1, .frames = golden_frames_2 } },
	{ .type = REC_CALL, .time_ns = 0x12345e000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_ALIGNED_ALLOC, .ptr = 0x55d5e2b0e000ULL,
		    .size = 4096, .stack_id = 2 } },
	{ .type = REC_CALL, .time_ns = 0x12345f000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_MEMALIGN, .ptr = 0x55d5e2b10040ULL,
		    .size = 100 } },
	{ .type = REC_CALL, .time_ns = 0x123460000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_POSIX_MEMALIGN, .ptr = 0x55d5e2b10100ULL,
		    .size = 200 } },
	{ .type = REC_CALL, .time_ns = 0x123461000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_VALLOC, .ptr = 0x55d5e2b12000ULL,
		    .size = 1 } },
	{ .type = REC_CALL, .time_ns = 0x123462000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_PVALLOC, .ptr = 0x55d5e2b14000ULL,
		    .size = 4097 } },
	{ .type = REC_CALL, .time_ns = 0x123463000ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .call = { .call = MS_CALL_FREE, .ptr = 0x55d5e2b10040ULL } },
	{ .type = REC_CALL, .time_ns = 0x123463800ULL, .pid = 0x12345,
	  .tid = 0x12347,
	  .call = { .call = MS_CALL_FREE, .flags = CALL_INTERNAL,
		    .ptr = 0x7f3c10000a20ULL } },
	{ .type = REC_FORK, .time_ns = 0x123464000ULL, .pid = 0x12345,
	  .tid = 0x12345, .fork = { .child = 0x12350 } },
	{ .type = REC_EXEC, .time_ns = 0x123465000ULL, .pid = 0x12350,
	  .tid = 0x12350, .exec = { .path = "/usr/bin/dash" } },
	{ .type = REC_CALL, .time_ns = 0x123466000ULL, .pid = 0x12350,
	  .tid = 0x12350,
	  .call = { .call = MS_CALL_MALLOC, .ptr = 0x5600aa000010ULL,
		    .size = 64 } },
	{ .type = REC_EXIT, .time_ns = 0x123467000ULL, .pid = 0x12350,
	  .tid = 0x12350, .exit = { .wait_status = 9 } },	/* SIGKILL */
	{ .type = REC_ATTACH, .time_ns = 0x123468000ULL, .pid = 0xabcdef,
	  .tid = 0xabcdef, .exec = { .path = "/usr/sbin/attached" } },
	{ .type = REC_CALL, .time_ns = 0x0102030405060708ULL, .pid = 0xabcdef,
	  .tid = 0xabcdf0,
	  .call = { .call = MS_CALL_FREE, .ptr = 0xfedcba9876543210ULL } },
	{ .type = REC_EXIT, .time_ns = 0x0102030405060709ULL, .pid = 0x12345,
	  .tid = 0x12345,
	  .exit = { .wait_status = 0x0300 } },		/* exit(3) */
};

enum { NGOLDEN = sizeof(golden) / sizeof(golden[0]) };

static char *const golden_argv[] = { "/usr/bin/golden", "--size", "two words" };

/* A different value in each field, so that a swap shows. */
static const struct capture_end golden_end = {
	.records = NGOLDEN, .lost_records = 2, .lost_calls = 3,
	.untraced_processes = 4, .pressure_stops = 0x0123456789abcdefULL,
	.flags = CAPTURE_END_PRESSURE_TIMEOUT | CAPTURE_END_INTERRUPTED,
	.unstoppable_processes = 6, .dropped_stacks = 0xfedcba9876543210ULL,
	.vanished_threads = 0x0badc0ffee0ddf00ULL, .exit_status = 0x0300,
};

/* Where META's realtime sits: the wall clock of the run that wrote it. */
enum { GOLDEN_REALTIME_AT = 20, GOLDEN_REALTIME_LEN = 8 };

static const uint8_t golden_build_id[] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc,
	0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x0f, 0x1e, 0x2d, 0x3c,
};

/*
 * The names of the golden frames: an inlined function and the one it is
 * inlined into, an inlined one DWARF does not name, a frame in no
 * function, and a file named from its exported symbols only.
 */
static void
golden_names(struct frame_names *fn)
{
	struct frame_names_file *f;
	struct frame_names_function fu[2];

	f = frame_names_file(fn, frame_names_intern(fn, "/usr/bin/golden"),
			     golden_build_id, sizeof(golden_build_id));
	fu[0] = (struct frame_names_function){
		frame_names_intern(fn, "std::vector<int, std::allocator<int> >::push_back(int const&)"),
		frame_names_intern(fn, "/usr/include/c++/12/bits/stl_vector.h:1287") };
	fu[1] = (struct frame_names_function){ frame_names_intern(fn, "parse_line(char const*)"),
					       frame_names_intern(fn, "golden.cc:42") };
	frame_names_add(fn, f, 0x2123, 0x33, fu, 2);
	fu[0] = (struct frame_names_function){ 0, frame_names_intern(fn, "golden.cc:90") };
	fu[1] = (struct frame_names_function){ frame_names_intern(fn, "main"),
					       frame_names_intern(fn, "golden.cc:97") };
	frame_names_add(fn, f, 0x30de, 0x1e, fu, 2);
	frame_names_add(fn, f, 0x2456, 0, NULL, 0);
	f = frame_names_file(fn, frame_names_intern(fn, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
			     NULL, 0);
	f->exported_only = true;
	fu[0] = (struct frame_names_function){ frame_names_intern(fn, "__libc_start_call_main"), 0 };
	frame_names_add(fn, f, 0x2ae5f, 0x7a, fu, 1);
}

static int
write_golden(const char *path)
{
	struct capture_end end = golden_end;
	struct frame_names fn;
	int err;

	frame_names_init(&fn);
	golden_names(&fn);
	err = write_records(path, 3, golden_argv, golden, NGOLDEN, &fn, &end);
	frame_names_free(&fn);
	return err;
}

/* A frame's names as one line: "offset+function_offset: name@where, ...". */
static const char *
frame_text(char *buf, size_t len, const struct frame_names *fn,
	   const struct frame_names_frame *fr)
{
	size_t at = (size_t)snprintf(buf, len, "%#" PRIx64 "+%#" PRIx64 ":", fr->offset,
				     fr->function_offset);
	uint8_t k;

	for (k = 0; k < fr->n && at < len; k++) {
		const struct frame_names_function *fu = &fn->functions[fr->first + k];
		const char *name = frame_names_text(fn, fu->name);
		const char *where = frame_names_text(fn, fu->where);

		at += (size_t)snprintf(buf + at, len - at, " %s@%s", name ? name : "-",
				       where ? where : "-");
	}
	return buf;
}

/* Every file and frame of fn, one line each, for the checks. */
static char *
names_text(const struct frame_names *fn)
{
	char *text = NULL, line[1024];
	size_t size = 0, i, k;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		tap_bail("open_memstream");
	for (i = 0; i < fn->nfiles; i++) {
		const struct frame_names_file *f = &fn->files[i];

		fprintf(out, "%s id%u%s:", frame_names_text(fn, f->path), f->build_id_len,
			f->exported_only ? " exported" : "");
		for (k = 0; k < f->nframes; k++)
			fprintf(out, " [%s]", frame_text(line, sizeof(line), fn, &f->frames[k]));
		fputc('\n', out);
	}
	fclose(out);
	return text;
}

static const char *
end_text(char *buf, size_t len, const struct capture_end *e)
{
	snprintf(buf, len, "records=%" PRIu64 " lost_records=%" PRIu64
		 " lost_calls=%" PRIu64 " untraced=%" PRIu64
		 " exit_status=%#" PRIx32 " pressure_stops=%#" PRIx64
		 " flags=%#" PRIx32 " unstoppable=%" PRIu64
		 " dropped_stacks=%#" PRIx64 " vanished=%#" PRIx64,
		 e->records, e->lost_records, e->lost_calls,
		 e->untraced_processes, (uint32_t)e->exit_status,
		 e->pressure_stops, e->flags, e->unstoppable_processes,
		 e->dropped_stacks, e->vanished_threads);
	return buf;
}

/*
 * Where the decompressed captures first differ, in why, but for realtime
 * and END's CRC-32, which covers it.
 */
static bool
golden_same(const unsigned char *got, size_t got_len,
	    const unsigned char *want, size_t want_len, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < got_len && i < want_len; i++) {
		if ((i >= GOLDEN_REALTIME_AT &&
		     i < GOLDEN_REALTIME_AT + GOLDEN_REALTIME_LEN) || i >= want_len - 4)
			continue;
		if (got[i] != want[i]) {
			snprintf(why, len, "first difference at byte %#zx: "
				 "%#04x, expected %#04x", i, got[i], want[i]);
			return false;
		}
	}
	snprintf(why, len, "%zu bytes decompressed, expected %zu",
		 got_len, want_len);
	return got_len == want_len;
}

static void
test_golden(void)
{
	const char *expected = getenv("EXPECTED");
	char golden_path[PATH_LEN], path[PATH_LEN], got_end[512], want_end[512];
	char why[128];
	unsigned char *want, *got;
	size_t want_len, got_len;
	struct capture_reader *rd;
	const struct capture_end *totals;
	struct record r;
	struct outcome o;
	unsigned int n = 0;
	int rc;

	if (!expected)
		tap_bail("EXPECTED is not set: run me through make check");
	if ((size_t)snprintf(golden_path, sizeof(golden_path),
			     "%s/golden/v%d.cap", expected,
			     CAPTURE_VERSION) >= sizeof(golden_path))
		tap_bail("path too long: %s", expected);
	if (access(golden_path, R_OK))
		tap_bail("%s: %s (a new version commits its golden capture: "
			 "tests/unit-capture --write-golden FILE)",
			 golden_path, strerror(errno));

	if (write_golden(tmp_path(path, "golden.cap")))
		tap_bail("cannot write the golden capture");
	got = content_of(path, &got_len);
	want = content_of(golden_path, &want_len);
	if (!tap_ok(golden_same(got, got_len, want, want_len, why, sizeof(why)),
		    "the writer writes v%d.cap byte for byte, "
		    "but for the wall clock", CAPTURE_VERSION))
		tap_diag("%s", why);
	/* Decompressed, its END's CRC-32 is what vouches for it. */
	write_file(path, want, want_len);
	read_capture(path, &o);
	tap_ok(o.rc == 0 && o.records == NGOLDEN,
	       "v%d.cap, decompressed: its END's CRC-32 checks (%s)",
	       CAPTURE_VERSION, o.error);
	free(got);
	free(want);
	unlink(path);

	rd = capture_open(golden_path);
	if (!rd)
		tap_bail("capture_open %s: %s", golden_path, strerror(errno));
	while ((rc = capture_next(rd, &r)) == 1)
		n++;
	tap_ok(rc == 0 && n == NGOLDEN,
	       "v%d.cap reads to its end: %u records, then END (%s)",
	       CAPTURE_VERSION, n, capture_error(rd));
	tap_str_eq(capture_command(rd), "/usr/bin/golden --size two words",
		   "v%d.cap: the command of its META record", CAPTURE_VERSION);
	totals = capture_totals(rd);
	end_text(want_end, sizeof(want_end), &golden_end);
	tap_str_eq(totals ? end_text(got_end, sizeof(got_end), totals) : "none",
		   want_end, "v%d.cap: every field of its END record",
		   CAPTURE_VERSION);
	{
		struct frame_names fn;
		char *got_names = names_text(capture_names(rd)), *want_names;

		frame_names_init(&fn);
		golden_names(&fn);
		want_names = names_text(&fn);
		tap_str_eq(got_names, want_names, "v%d.cap: every name of its frames",
			   CAPTURE_VERSION);
		free(got_names);
		free(want_names);
		frame_names_free(&fn);
	}
	capture_close(rd);
}

/* The content's nth record (from 0) of that type, or 0 when it has none. */
static size_t
find_record(const unsigned char *content, size_t len, uint16_t type, unsigned int nth)
{
	size_t at = CAPTURE_HEADER_LEN;

	while (at + CAPTURE_RECORD_HEAD <= len) {
		if (get_le16(content + at) == type && !nth--)
			return at;
		at += CAPTURE_RECORD_HEAD + get_le16(content + at + 2);
	}
	return 0;
}

/* Reads path's names (and records) to its end, as text. */
static char *
read_names_text(const char *path, struct outcome *o)
{
	struct capture_reader *rd = capture_open(path);
	struct record r;
	char *text;

	if (!rd)
		tap_bail("capture_open %s: %s", path, strerror(errno));
	memset(o, 0, sizeof(*o));
	while ((o->rc = capture_next(rd, &r)) == 1)
		o->records++;
	snprintf(o->error, sizeof(o->error), "%s", capture_error(rd));
	text = names_text(capture_names(rd));
	capture_close(rd);
	return text;
}

/*
 * Names past what one record holds: strings and frames spread over
 * several records, a string too long for one cut to fit; and the damage
 * a reader must refuse.
 */
static void
test_names(void)
{
	char buf[PATH_LEN], name[128], *long_name, *want, *got;
	const char *path = tmp_path(buf, "names.memsup");
	struct capture_end end = { 0 };
	struct frame_names fn;
	struct frame_names_file *f;
	struct frame_names_function fu[3];
	unsigned char *content;
	size_t len, at;
	struct outcome o;
	unsigned int i;

	frame_names_init(&fn);
	long_name = malloc(70000);
	if (!long_name)
		tap_bail("out of memory");
	memset(long_name, 'x', 69999);
	long_name[69999] = '\0';
	f = frame_names_file(&fn, frame_names_intern(&fn, "/opt/app"), golden_build_id, 20);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "function_%u_with_a_name_long_enough_to_fill_records", i);
		fu[0] = (struct frame_names_function){ 0, frame_names_intern(&fn, "app.c:1") };
		fu[1] = (struct frame_names_function){ frame_names_intern(&fn, name),
						       frame_names_intern(&fn, "app.c:2") };
		fu[2] = (struct frame_names_function){ frame_names_intern(&fn, "main"), 0 };
		frame_names_add(&fn, f, 0x1000 + 16 * (uint64_t)i, i, fu, 3);
	}
	tap_ok(!frame_names_add(&fn, f, 0x1000, 0, fu, 1), "a frame is named once");
	tap_eq_i64(frame_names_intern(&fn, "main"), fu[2].name, "a string is kept once");
	f = frame_names_file(&fn, frame_names_intern(&fn, "/opt/lib.so"), NULL, 0);
	fu[0] = (struct frame_names_function){ frame_names_intern(&fn, long_name), 0 };
	frame_names_add(&fn, f, 0x42, 7, fu, 1);
	if (write_records(path, 4, sample_argv, sample, NSAMPLE, &fn, &end))
		tap_bail("cannot write %s", path);
	content = content_of(path, &len);
	tap_ok(find_record(content, len, CAPTURE_REC_STRINGS, 2) &&
	       find_record(content, len, CAPTURE_REC_NAMES, 3),
	       "the names take several STRINGS and NAMES records");
	/* What the reader must give back: the long name cut to fit one record. */
	long_name[CAPTURE_MAX_PAYLOAD - CAPTURE_STRINGS_MIN - 1] = '\0';
	free(fn.strings[fu[0].name - 1]);
	fn.strings[fu[0].name - 1] = strdup(long_name);
	want = names_text(&fn);
	got = read_names_text(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE, "a capture with names reads whole (%s)",
	       o.error);
	tap_ok(!strcmp(got, want), "every name reads back as written, the long one cut");
	free(got);

	/* A STRINGS record numbered wrong: names would point at other strings. */
	at = find_record(content, len, CAPTURE_REC_STRINGS, 1);
	put_le32(content + at + CAPTURE_RECORD_HEAD, get_le32(content + at + CAPTURE_RECORD_HEAD) + 1);
	gzip_file(path, content, len);
	free(read_names_text(path, &o));
	snprintf(name, sizeof(name), "damaged: a strings record after record %d", NSAMPLE);
	tap_str_eq(o.error, name, "strings numbered wrong are damage");
	put_le32(content + at + CAPTURE_RECORD_HEAD, get_le32(content + at + CAPTURE_RECORD_HEAD) - 1);

	/* A function named by a string the capture does not hold. */
	at = find_record(content, len, CAPTURE_REC_NAMES, 0) + CAPTURE_RECORD_HEAD;
	put_le32(content + at + CAPTURE_NAMES_MIN + CAPTURE_NAMES_FRAME + 4, fn.nstrings + 1);
	gzip_file(path, content, len);
	free(read_names_text(path, &o));
	snprintf(name, sizeof(name), "damaged: a names record after record %d", NSAMPLE);
	tap_str_eq(o.error, name, "a string id past the strings is damage");
	put_le32(content + at + CAPTURE_NAMES_MIN + CAPTURE_NAMES_FRAME + 4, fu[2].name);

	/* A frame whose functions run past its record. */
	at = find_record(content, len, CAPTURE_REC_NAMES, 4) + CAPTURE_RECORD_HEAD;
	content[at + CAPTURE_NAMES_MIN + 16] = 2;
	gzip_file(path, content, len);
	free(read_names_text(path, &o));
	tap_str_eq(o.error, name, "a frame cut by its record's end is damage");
	content[at + CAPTURE_NAMES_MIN + 16] = 1;

	/* Names of frames in no function only: no function at all to write. */
	{
		struct frame_names none;
		struct frame_names_file *nf;

		frame_names_init(&none);
		nf = frame_names_file(&none, frame_names_intern(&none, "/opt/stripped"), NULL, 0);
		frame_names_add(&none, nf, 0x1234, 0, NULL, 0);
		if (write_records(path, 4, sample_argv, sample, NSAMPLE, &none, &end))
			tap_bail("cannot write %s", path);
		got = read_names_text(path, &o);
		tap_str_eq(got, "/opt/stripped id0: [0x1234+0:]\n",
			   "a file whose frames are all in no function reads back");
		free(got);
		frame_names_free(&none);
	}

	/* Before version 5 the types were not names: skipped, as any unknown. */
	put_le32(content + CAPTURE_MAGIC_LEN, 4);
	gzip_file(path, content, len);
	got = read_names_text(path, &o);
	tap_ok(o.rc == 0 && o.records == NSAMPLE && !*got,
	       "a version 4 capture skips types 18 and 19 (%s)", o.error);
	free(got);

	unlink(path);
	free(want);
	free(content);
	free(long_name);
	frame_names_free(&fn);
}

int
main(int argc, char **argv)
{
	memset(long_path, 'p', sizeof(long_path) - 1);
	long_path[0] = '/';
	if (!mkdtemp(tmpdir))
		tap_bail("mkdtemp: %s", strerror(errno));
	atexit(remove_tmpdir);

	/* Once per version: doc/capture-format.md, "Golden captures". */
	if (argc == 3 && !strcmp(argv[1], "--write-golden")) {
		int err = write_golden(argv[2]);

		if (err)
			fprintf(stderr, "cannot write %s: %s\n", argv[2],
				strerror(-err));
		return err ? 1 : 0;
	}

	tap_plan(176);
	test_round_trip();
	test_writer_edges();
	test_sync();
	test_not_captures();
	test_raw_truncation();
	test_damaged_content();
	test_bytes_after_end();
	test_golden();
	test_names();
	return tap_done();
}
