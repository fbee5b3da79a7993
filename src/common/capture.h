/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capture file: a zstd stream (gzip before version 6) holding a header
 * and then records, as doc/capture-format.md describes.  The writer streams records as they
 * come; the reader hands them back one by one.
 */
#ifndef MEMSUP_CAPTURE_H
#define MEMSUP_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct frame_names;
struct record;

/*
 * zstd's level unless told (--compress-level): its fastest level but for
 * the negative ones, since the supervisor compresses while the workload
 * waits.
 */
#define CAPTURE_LEVEL_DEFAULT 1
#define CAPTURE_LEVEL_MAX 19

/* The tree was killed: it could not be stopped in time to drain the ring. */
#define CAPTURE_END_PRESSURE_TIMEOUT 0x1
/* memsup was told to end by a signal, and ended before the tree did. */
#define CAPTURE_END_INTERRUPTED 0x2

/* What the END record holds: the run's totals, known only at the end. */
struct capture_end {
	uint64_t records;		/* records written before END */
	uint64_t lost_records;		/* ring full */
	uint64_t lost_calls;		/* no room to pair entry and return */
	uint64_t untraced_processes;	/* probes could not be attached */
	uint64_t pressure_stops;	/* hold-drain-release cycles */
	uint32_t flags;			/* CAPTURE_END_* */
	uint64_t unstoppable_processes;	/* no room in the tracked set */
	uint64_t dropped_stacks;	/* allocations recorded without a stack */
	uint64_t vanished_threads;	/* gone without memsup seeing them go */
	int32_t exit_status;		/* the workload's wait status */
	/* What the reader adds, never written: */
	bool cut;			/* the file ends before END: the fields
					 * above are 0 but records */
	uint64_t last_ns;		/* the latest time of a record read */
};

struct capture_writer;
struct capture_reader;

/*
 * Creates path through a private temporary file (mode 0600) beside it
 * that capture_finish renames into place, so path never holds a partial
 * capture; a symbolic link at path is replaced, its target never written.
 * A path that names a character or block device or a FIFO (/dev/null, a
 * pipe being read) is written directly instead: renaming over it would
 * replace it; so is standard output, for "-".  A directory or a terminal
 * is refused (EISDIR, ENOTTY).  level is zstd's (CAPTURE_LEVEL_DEFAULT,
 * 1 to 19 for memsup's --compress-level).  Returns NULL with errno set.
 */
struct capture_writer *capture_create(const char *path, int level, int argc,
				      char *const argv[]);
/* Whether path is written directly: a capture that cannot be read back. */
bool capture_direct(const struct capture_writer *w);
/*
 * Gives the file to the user the workload runs as (not a device written
 * directly).  Returns 0 or -errno.
 */
int capture_set_owner(struct capture_writer *w, uid_t uid, gid_t gid);
/* Returns 0 or a negative errno; the first error sticks. */
int capture_write(struct capture_writer *w, const struct record *r);
/*
 * Writes the names of the capture's frames (STRINGS and NAMES records),
 * once, before capture_finish.  Returns 0 or the first error, as above.
 */
int capture_write_names(struct capture_writer *w, const struct frame_names *fn);
/*
 * Pushes the records written so far to the file, ending the zstd frame
 * that holds them, so that a memsup killed later leaves them readable (a
 * capture cut short).  Each call that has records to push costs a frame's
 * header and checksum, and the next frame starts with no history to
 * compress against.  Returns 0 or the first error, as above.
 */
int capture_sync(struct capture_writer *w);
/*
 * Writes END, closes and renames into place; frees w in every case.  On
 * an error (the first one, of any call) the temporary file is removed,
 * unless kept_cut is given and the file holds synced records: then it
 * is renamed into place all the same, a capture cut short, and *kept_cut
 * says so.  A memsup that exits while a capture is open (out of memory)
 * does the same for it, and says so on stderr.
 */
int capture_finish(struct capture_writer *w, struct capture_end *end, bool *kept_cut);
/* Removes the temporary file, if any, and frees w.  Accepts NULL. */
void capture_abort(struct capture_writer *w);

/* Reads path, or standard input for "-".  Returns NULL with errno set. */
struct capture_reader *capture_open(const char *path);
/*
 * Reads the next record into *r (valid until the next call).  Returns 1
 * for a record, 0 after END (see capture_totals), or -EBADMSG on a file
 * cut short or damaged (see capture_cut and capture_error).
 */
int capture_next(struct capture_reader *rd, struct record *r);
/*
 * Whether the file stopped at a cut (memsup killed, the disk full): every
 * record before it reads whole and capture_totals holds what is known.
 */
bool capture_cut(const struct capture_reader *rd);
/* After END or a cut: the run's totals; NULL before or when damaged. */
const struct capture_end *capture_totals(const struct capture_reader *rd);
const char *capture_error(const struct capture_reader *rd);
/* The names of its frames the capture holds, as read so far. */
const struct frame_names *capture_names(const struct capture_reader *rd);
/* The command line the capture was taken of, space-separated. */
const char *capture_command(const struct capture_reader *rd);
void capture_close(struct capture_reader *rd);

#endif
