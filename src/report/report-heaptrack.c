// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --format=heaptrack: heaptrack's interpreted data file (file format 3),
 * one line each, numbers in hex:
 *   s LEN TEXT      a string, numbered from 1 in order
 *   i IP MODULE [FUNCTION FILE LINE]...  a frame, numbered from 1: its
 *                   module's string, then its functions innermost first
 *   t IP PARENT     a trace node, numbered from 1: a frame and the node
 *                   of its caller (0: none)
 *   a SIZE TRACE    an allocation info, numbered from 0
 *   + INFO, - INFO  a block of that info allocated, freed
 *   c MS            the time since the start
 * heaptrack_print counts "+" lines as calls, keeps the running sum of
 * their sizes as the heap (its peak the highest), and what is live at
 * the end as leaked.  So the events are written as the heap model counts
 * them: a realloc frees, then allocates; blocks a process inherited at
 * its fork are not its own; an exec frees the old image's blocks; a
 * process's exit frees nothing, its blocks stay leaked.
 */
#include "config.h"
#include "report-heaptrack.h"
#include "capture.h"
#include "error.h"
#include "heap.h"
#include "record.h"
#include "replay.h"
#include "report-sites.h"
#include "sites.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* The kinds of events, in the top bits of an entry of events. */
enum { HT_EVENT_ALLOC = 1, HT_EVENT_FREE = 2, HT_EVENT_TIME = 3 };
#define HT_EVENT(kind, value)	((uint64_t)(kind) << 62 | (value))
#define HT_EVENT_KIND(e)	((unsigned int)((e) >> 62))
#define HT_EVENT_VALUE(e)	((e) & ((UINT64_C(1) << 62) - 1))

/* heaptrack 1.4.0's version (0x010400) and the file format it reads. */
#define HT_VERSION 0x10400
#define HT_FILE_FORMAT 3

void
heaptrack_init(struct heaptrack_export *x)
{
	memset(x, 0, sizeof(*x));
	u64map_init(&x->live);
	stack_table_init(&x->infos);
}

static void
blocks_free(struct u64map *blocks)
{
	u64map_free(blocks);
	free(blocks);
}

void
heaptrack_free(struct heaptrack_export *x)
{
	struct u64map_slot *s;

	u64map_foreach(&x->live, s)
		blocks_free((struct u64map *)(uintptr_t)s->value);
	u64map_free(&x->live);
	stack_table_free(&x->infos);
	free(x->events);
}

static void
add_event(struct heaptrack_export *x, uint64_t event)
{
	x->events = xgrow(x->events, &x->events_cap, x->nevents + 1, sizeof(*x->events));
	x->events[x->nevents++] = event;
}

/* A timestamp before the event at time_ns, when a millisecond passed. */
static void
note_time(struct heaptrack_export *x, uint64_t time_ns)
{
	uint64_t ms = time_ns / 1000000;

	if (ms > x->last_ms) {
		add_event(x, HT_EVENT(HT_EVENT_TIME, ms));
		x->last_ms = ms;
	}
}

/* The blocks of process pid: address -> allocation info + 1. */
static struct u64map *
blocks_of(struct heaptrack_export *x, uint32_t pid)
{
	struct u64map_slot *s = u64map_find(&x->live, pid);
	struct u64map *blocks;

	if (s)
		return (struct u64map *)(uintptr_t)s->value;
	blocks = xmalloc(sizeof(*blocks));
	u64map_init(blocks);
	u64map_put(&x->live, pid, (uintptr_t)blocks);
	return blocks;
}

/* A block of the process freed: if it allocated it, its "-" line. */
static void
block_freed(struct heaptrack_export *x, struct u64map *blocks, uint64_t ptr)
{
	uint64_t info;

	if (ptr && u64map_remove(blocks, ptr, &info))
		add_event(x, HT_EVENT(HT_EVENT_FREE, info - 1));
}

static void
block_allocated(struct heaptrack_export *x, struct u64map *blocks, uint64_t ptr,
		uint64_t size, uint32_t site)
{
	uint64_t key[2] = { size, site };
	bool added;
	uint32_t info = stack_table_intern(&x->infos, key, 2, &added);

	/* An address handed out twice: its free was not seen. */
	block_freed(x, blocks, ptr);
	u64map_put(blocks, ptr, info);
	add_event(x, HT_EVENT(HT_EVENT_ALLOC, info - 1));
}

/* A call, as heap.c's apply_call counts it. */
static void
take_call(struct heaptrack_export *x, const struct record *r)
{
	struct u64map *blocks = blocks_of(x, r->pid);
	uint64_t ptr = r->call.ptr, old = r->call.old_ptr;

	switch (r->call.call) {
	case MS_CALL_FREE:
		block_freed(x, blocks, ptr);
		return;
	case MS_CALL_REALLOC:
	case MS_CALL_REALLOCARRAY:
		if (!old)
			break;
		/* A failed realloc leaves the block live; realloc(p, 0) frees it. */
		if (ptr || r->call.size == 0)
			block_freed(x, blocks, old);
		if (ptr)
			block_allocated(x, blocks, ptr, r->call.size, r->call.site);
		return;
	}
	if (ptr)
		block_allocated(x, blocks, ptr, r->call.size, r->call.site);
}

/* The old image's blocks went with its address space: freed, not leaked. */
static void
take_exec(struct heaptrack_export *x, uint32_t pid)
{
	struct u64map *blocks = blocks_of(x, pid);
	struct u64map_slot *s;

	u64map_foreach(blocks, s)
		add_event(x, HT_EVENT(HT_EVENT_FREE, s->value - 1));
	u64map_clear(blocks);
}

/* Its blocks stay live to the end: heaptrack's leaks. */
static void
take_exit(struct heaptrack_export *x, uint32_t pid)
{
	uint64_t blocks;

	if (u64map_remove(&x->live, pid, &blocks))
		blocks_free((struct u64map *)(uintptr_t)blocks);
}

void
heaptrack_record(void *ctx, const struct heap_model *h, const struct record *r)
{
	struct heaptrack_export *x = ctx;

	switch (r->type) {
	case REC_CALL:
		/* Of the processes the filter counts: the others have no blocks here. */
		if (!heap_counts(h, r))
			return;
		note_time(x, r->time_ns);
		take_call(x, r);
		break;
	case REC_EXEC:
	case REC_ATTACH:
		note_time(x, r->time_ns);
		take_exec(x, r->pid);
		break;
	case REC_EXIT:
		take_exit(x, r->pid);
		break;
	default:
		break;
	}
}

/* zstd's stream, under a FILE that the lines are printed to. */
struct zstd_sink {
	ZSTD_CCtx *zc;
	FILE *out;
	int err;		/* negative errno */
};

static int
sink_compress(struct zstd_sink *k, const char *buf, size_t len, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	uint8_t chunk[1 << 16];
	size_t left;

	do {
		ZSTD_outBuffer out = { chunk, sizeof(chunk), 0 };

		left = ZSTD_compressStream2(k->zc, &out, &in, mode);
		if (ZSTD_isError(left)) {
			k->err = -EIO;
			return -1;
		}
		errno = 0;
		if (fwrite(chunk, 1, out.pos, k->out) != out.pos) {
			k->err = errno ? -errno : -EIO;
			return -1;
		}
	} while (mode == ZSTD_e_end ? left : in.pos < in.size);
	return 0;
}

static ssize_t
sink_write(void *cookie, const char *buf, size_t len)
{
	/* fopencookie(3): 0 says an error, which k->err holds. */
	return sink_compress(cookie, buf, len, ZSTD_e_continue) ? 0 : (ssize_t)len;
}

static int
sink_close(void *cookie)
{
	return sink_compress(cookie, NULL, 0, ZSTD_e_end);
}

/* What the file's definitions are numbered by, each once. */
struct ht_writer {
	FILE *f;
	const struct sites *s;
	struct symbolizer *z;
	struct stack_table strings;	/* text, as words -> string number */
	struct u64map ips;		/* frame + 1 -> ip number */
	struct stack_table traces;	/* (ip, parent) -> trace number */
	uint32_t *site_trace;		/* by site, once known: trace number */
	uint32_t nsites;
};

/*
 * The number of string text, printed first when new; 0 for none.  A
 * newline would end the line early, so it is left out.
 */
static uint32_t
string_of(struct ht_writer *w, const char *text)
{
	size_t len = strcspn(text, "\n"), words = (len + 7) / 8;
	uint64_t *packed;
	uint32_t id;
	bool added;

	if (!len)
		return 0;
	packed = xcalloc(words, sizeof(*packed));
	memcpy(packed, text, len);
	id = stack_table_intern(&w->strings, packed, (uint32_t)words, &added);
	free(packed);
	if (added)
		fprintf(w->f, "s %zx %.*s\n", len, (int)len, text);
	return id;
}

/* "file:line" into the file's string and the line; "" is neither. */
static uint32_t
where_of(struct ht_writer *w, const char *where, unsigned long *line)
{
	char file[4200], *colon;

	snprintf(file, sizeof(file), "%s", where);
	*line = 0;
	if ((colon = strrchr(file, ':'))) {
		*colon = '\0';
		*line = strtoul(colon + 1, NULL, 10);
	}
	return string_of(w, file);
}

/*
 * The number of a frame's ip line, printed first when new: its file
 * offset as address, its module, and each function with its source line.
 * Its strings go out first, then the line names them.
 */
static uint32_t
ip_of(struct ht_writer *w, uint64_t frame)
{
	struct u64map_slot *slot = u64map_find(&w->ips, frame + 1);
	uint32_t module = SITE_FRAME_MODULE(frame), id = (uint32_t)w->ips.count + 1;
	uint32_t module_string, function, file;
	struct frame_name f;
	unsigned long line;
	size_t k, nk;
	int pass;

	if (slot)
		return (uint32_t)slot->value;
	module_string = module ? string_of(w, w->s->spaces.modules[module - 1].path) : 0;
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(w->f, "i %" PRIx64 " %x", SITE_FRAME_OFFSET(frame), module_string);
		for (k = 0, nk = 1; k < nk; k++) {
			nk = frame_describe(w->z, w->s, frame, k, &f);
			if (!f.function)
				continue;
			function = string_of(w, f.function);
			file = where_of(w, f.where, &line);
			if (pass)
				fprintf(w->f, " %x %x %lx", function, file, line);
		}
	}
	fputc('\n', w->f);
	u64map_put(&w->ips, frame + 1, id);
	return id;
}

/* The trace of site: a node per frame, the outermost the root. */
static uint32_t
trace_of(struct ht_writer *w, uint32_t site)
{
	const uint64_t *frames;
	uint32_t n = 0, i, trace = 0;
	bool added;

	if (site < w->nsites && w->site_trace[site])
		return w->site_trace[site];
	frames = sites_frames(w->s, site, &n);
	for (i = n; frames && i-- > 0;) {
		uint64_t node[2] = { ip_of(w, frames[i]), trace };

		trace = stack_table_intern(&w->traces, node, 2, &added);
		if (added)
			fprintf(w->f, "t %" PRIx64 " %" PRIx64 "\n", node[0], node[1]);
	}
	if (site < w->nsites)
		w->site_trace[site] = trace;
	return trace;
}

static void
print_events(struct ht_writer *w, const struct heaptrack_export *x, uint64_t end_ns)
{
	static const char mark[] = { [HT_EVENT_ALLOC] = '+', [HT_EVENT_FREE] = '-',
				     [HT_EVENT_TIME] = 'c' };
	size_t i;

	for (i = 0; i < x->nevents; i++)
		fprintf(w->f, "%c %" PRIx64 "\n", mark[HT_EVENT_KIND(x->events[i])],
			HT_EVENT_VALUE(x->events[i]));
	/* heaptrack_print takes the last timestamp for the run's length. */
	if (end_ns / 1000000 > x->last_ms)
		fprintf(w->f, "c %" PRIx64 "\n", end_ns / 1000000);
}

static void
print_file(struct ht_writer *w, const struct heaptrack_export *x, const char *command,
	   uint64_t end_ns)
{
	uint32_t i, nwords;
	const uint64_t *info;

	fprintf(w->f, "v %x %x\n", HT_VERSION, HT_FILE_FORMAT);
	fprintf(w->f, "X %.*s\n", (int)strcspn(command, "\n"), command);
	for (i = 1; i <= x->infos.count; i++) {
		info = stack_table_get(&x->infos, i, &nwords);
		fprintf(w->f, "a %" PRIx64 " %x\n", info[0], trace_of(w, (uint32_t)info[1]));
	}
	print_events(w, x, end_ns);
}

int
heaptrack_write(FILE *out, const struct heaptrack_export *x, struct replay *p)
{
	static const cookie_io_functions_t sink_io = {
		.write = sink_write, .close = sink_close,
	};
	struct zstd_sink sink = { .out = out };
	struct ht_writer w = { .s = &p->sites, .z = &p->symbolizer };
	int closed;

	sink.zc = ZSTD_createCCtx();
	if (!sink.zc)
		return -ENOMEM;		/* zstd fails here only to allocate */
	w.f = fopencookie(&sink, "w", sink_io);
	if (!w.f) {
		ZSTD_freeCCtx(sink.zc);
		return -errno;
	}
	/* heaptrack shortens the names itself, as its reader asks. */
	w.z->full_names = true;
	stack_table_init(&w.strings);
	stack_table_init(&w.traces);
	u64map_init(&w.ips);
	w.nsites = w.s->resolved.count + 1;
	w.site_trace = xcalloc(w.nsites, sizeof(*w.site_trace));
	print_file(&w, x, replay_command(p), replay_totals(p)->last_ns);
	closed = fclose(w.f);
	free(w.site_trace);
	u64map_free(&w.ips);
	stack_table_free(&w.traces);
	stack_table_free(&w.strings);
	ZSTD_freeCCtx(sink.zc);
	if (sink.err)
		return sink.err;
	return closed || ferror(out) ? -EIO : 0;
}
