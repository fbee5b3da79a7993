// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/consume [-s none|stacks] [-t decode|models|session] [RUNS [RECORDS]]:
 * the supervisor's consumer on its own, with no BPF and no workload.
 *
 * Builds in memory a stream of RECORDS ring records (default 1,000,000)
 * as the BPF programs write them: malloc, calloc, realloc and free, from
 * 16 threads of 4 processes, each thread with about 1,000 blocks live
 * and freeing its last block two times out of three; once with no
 * stacks, once with a 16-frame stack on every allocation, drawn (a few
 * hot, a long tail) from a pool of 4,096 stacks in six files, mapped
 * where the first process, which forked the others, mapped them.  Then
 * feeds each stream, RUNS times (default 5), through consumer_take() into:
 *
 *   decode   a sink that does nothing: the decoding, the stack ids;
 *   models   what session_sink() does but write the capture: the sites,
 *            the heap model, consumer_follow();
 *   session  session_sink() itself, the capture written to a file in
 *            $TMPDIR (/tmp).
 *
 * The three interleaved, each run with a fresh session, timed in the
 * thread's CPU time.  Prints medians: ring records per second of one
 * core, ns per record, and for session the capture's bytes per ring
 * record and the share of its time that the capture writer (compression
 * included) takes, session against models.
 */
#include "config.h"
#include "capture.h"
#include "consumer.h"
#include "error.h"
#include "record.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROCESSES 4
#define THREADS 4		/* per process */
#define LIVE_MAX 2048		/* blocks live per thread, at most */
#define POOL 4096		/* distinct stacks */
#define DEPTH 16
#define MODULES 6
#define RUNS_MAX 64

enum stage { DECODE, MODELS, SESSION, STAGES };
static const char *const stage_names[STAGES] = { "decode", "models", "session" };

/* A stream: ring records as a drain sees them, each a length word and its bytes. */
struct stream {
	const char *name;
	bool stacks;
	uint64_t *words;
	size_t nwords, cap;
	size_t records;
	uint64_t start_ns;	/* CLOCK_MONOTONIC of its first record */
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static uint64_t
below(uint64_t n)
{
	return next_random() % n;
}

static const struct {
	const char *path;
	uint64_t text;		/* bytes of code */
} modules[MODULES] = {
	{ "/usr/bin/app", 4 << 20 },
	{ "/usr/lib/x86_64-linux-gnu/libc.so.6", 1536 << 10 },
	{ "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1 << 20 },
	{ "/usr/lib/x86_64-linux-gnu/libapp-core.so.1", 8 << 20 },
	{ "/usr/lib/x86_64-linux-gnu/libz.so.1", 96 << 10 },
	{ "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 160 << 10 },
};

/* Where the processes map each file's code: the first execs, forks the others. */
static uint64_t bases[MODULES];
/* The pool's stacks as (file, offset), innermost first. */
static struct {
	uint8_t module;
	uint32_t offset;
} pool[POOL][DEPTH];

static uint32_t
pid_of(unsigned int p)
{
	return 4000 + 7 * p;
}

static void
make_layout(void)
{
	unsigned int m, s, d;

	for (m = 0; m < MODULES; m++)
		bases[m] = (m ? 0x7f0000000000ULL + (uint64_t)m * 0x10000000 : 0x550000000000ULL) +
			   (below(1 << 20) << 12);
	/* Outer frames shared, as main() and the loops under it are. */
	for (s = 0; s < POOL; s++)
		for (d = 0; d < DEPTH; d++) {
			uint64_t shared = d >= DEPTH - 3 ? 1 : d >= DEPTH / 2 ? s / 64 + 1 : s + 1;
			uint64_t h = shared * 0x9e3779b97f4a7c15ULL + d * 0xbf58476d1ce4e5b9ULL;

			pool[s][d].module = (uint8_t)((h >> 60) % MODULES);
			pool[s][d].offset = (uint32_t)((h >> 20) % modules[pool[s][d].module].text);
		}
}

static uint64_t *
stream_room(struct stream *st, size_t words)
{
	uint64_t *at;

	st->words = xgrow(st->words, &st->cap, st->nwords + words, sizeof(*st->words));
	at = st->words + st->nwords;
	st->nwords += words;
	return at;
}

/* A ring record: the event in the form the BPF programs choose, then frames. */
static void
stream_add(struct stream *st, const struct ms_event *e, int stack)
{
	uint32_t nframes = stack >= 0 ? DEPTH : 0, i;
	size_t bytes = ms_event_compact(e) ? MS_COMPACT_BYTES : MS_WIDE_BYTES;
	uint64_t *w = stream_room(st, 1 + bytes / 8 + nframes);

	w[0] = bytes + nframes * 8;
	if (bytes == MS_COMPACT_BYTES)
		ms_event_encode_compact((__u64 *)(w + 1), e);
	else
		ms_event_encode_wide((struct ms_wide_event *)(w + 1), e);
	for (i = 0; i < nframes; i++)
		w[1 + bytes / 8 + i] = bases[pool[stack][i].module] + pool[stack][i].offset;
	st->records++;
}

struct thread {
	uint32_t tid;
	uint64_t live[LIVE_MAX];
	size_t nlive;
	uint64_t *freed;	/* addresses to hand out again, last freed first */
	size_t nfreed, freed_cap;
	uint64_t next;		/* where the arena is not used yet */
};

static uint64_t
address(struct thread *t, uint64_t size)
{
	uint64_t a;

	if (t->nfreed && below(4))
		return t->freed[--t->nfreed];
	a = t->next;
	t->next += (size + 31) & ~15ULL;
	return a;
}

static void
forget(struct thread *t, uint64_t ptr)
{
	t->freed = xgrow(t->freed, &t->freed_cap, t->nfreed + 1, sizeof(*t->freed));
	t->freed[t->nfreed++] = ptr;
}

static uint64_t
size_drawn(void)
{
	uint64_t r = below(100);

	return r < 90 ? 16 * (1 + below(32)) : r < 99 ? 512 + below(8192) : 65536 + below(1 << 20);
}

/* A few stacks hot, a long tail: the cube of a uniform draw. */
static int
stack_drawn(const struct stream *st)
{
	double u = (double)below(1 << 20) / (1 << 20);

	return st->stacks ? (int)(u * u * u * POOL) : -1;
}

static void
make_stream(struct stream *st, size_t records)
{
	static struct thread threads[PROCESSES * THREADS];
	uint64_t now = monotonic_ns();
	size_t i;

	rng = 0x9e3779b97f4a7c15ULL;
	memset(threads, 0, sizeof(threads));
	for (i = 0; i < PROCESSES * THREADS; i++) {
		threads[i].tid = pid_of((unsigned int)(i / THREADS)) + (uint32_t)(i % THREADS);
		threads[i].next = i % THREADS ? 0x7e0000000000ULL + (uint64_t)i * 0x100000000ULL
					      : 0x560000000000ULL + (uint64_t)i * 0x100000000ULL;
	}
	st->start_ns = now;
	while (st->records < records) {
		unsigned int k = (unsigned int)below(PROCESSES * THREADS);
		unsigned int proc = k / THREADS;
		struct thread *t = &threads[k];
		struct ms_event e = {
			.pid = pid_of(proc), .tid = t->tid,
		};
		uint64_t r = below(100);

		now += 100 + below(900);
		e.time_ns = now;
		/* Frees as likely as the blocks are many: about half live. */
		if (t->nlive && below(LIVE_MAX) < t->nlive) {
			/* The last block (a temporary one) or any. */
			size_t j = below(3) ? t->nlive - 1 : below(t->nlive);

			e.call = MS_CALL_FREE;
			e.ptr = t->live[j];
			t->live[j] = t->live[--t->nlive];
			forget(t, e.ptr);
			stream_add(st, &e, -1);
			continue;
		}
		e.size = size_drawn();
		if (t->nlive && r >= 90) {
			size_t j = below(t->nlive);

			e.call = MS_CALL_REALLOC;
			e.old_ptr = t->live[j];
			e.ptr = below(2) ? e.old_ptr : address(t, e.size);
			if (e.ptr != e.old_ptr)
				forget(t, e.old_ptr);
			t->live[j] = e.ptr;
		} else {
			e.call = r >= 80 ? MS_CALL_CALLOC : MS_CALL_MALLOC;
			e.ptr = address(t, e.size);
			t->live[t->nlive++] = e.ptr;
		}
		stream_add(st, &e, stack_drawn(st));
	}
	for (i = 0; i < PROCESSES * THREADS; i++)
		free(threads[i].freed);
}

/* What the tracer says before the calls: the first process, its code, its forks. */
static void
send_processes(struct consumer *c)
{
	struct record r = { .type = REC_EXEC, .pid = pid_of(0), .tid = pid_of(0),
			    .exec = { .path = modules[0].path } };
	unsigned int p, m;

	c->sink(c->sink_ctx, &r);
	for (m = 0; m < MODULES; m++) {
		r = (struct record){
			.type = REC_MAPPING, .pid = pid_of(0), .tid = pid_of(0),
			.mapping = {
				.start = bases[m], .end = bases[m] + modules[m].text,
				.offset = 0x1000, .build_id_len = BUILD_ID_MAX,
				.path = modules[m].path,
			},
		};
		memset(r.mapping.build_id, 0x11 * (m + 1), BUILD_ID_MAX);
		c->sink(c->sink_ctx, &r);
	}
	for (p = 1; p < PROCESSES; p++) {
		r = (struct record){ .type = REC_FORK, .pid = pid_of(0), .tid = pid_of(0),
				     .fork = { .child = pid_of(p) } };
		c->sink(c->sink_ctx, &r);
	}
}

static uint64_t sunk;

static void
sink_nothing(void *ctx, const struct record *r)
{
	sunk += r->type;
}

/* session_sink() but the capture: keep it to run.c's. */
static void
sink_models(void *ctx, const struct record *r)
{
	struct session *s = ctx;
	struct record applied = *r;

	sites_apply(&s->sites, &applied);
	heap_apply(&s->heap, &applied);
	consumer_follow(&s->consumer, r);
	if (r->type == REC_CALL)
		s->events++;
}

static const record_sink sinks[STAGES] = { sink_nothing, sink_models, session_sink };

/*
 * The thread's CPU time: what the records cost one core, without the time
 * other work on a shared machine takes it away.
 */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

struct result {
	double ns;		/* per record */
	double bytes;		/* of capture per record */
	uint64_t digest;	/* of what the models hold at the end */
	uint32_t stacks;	/* distinct stacks the consumer saw */
};

/*
 * What the heap model and the sites hold, hashed: a change that alters
 * what the session computes alters it (the same for every run and stage
 * that builds the models).
 */
static uint64_t
models_digest(const struct session *s)
{
	uint64_t d = stack_hash_words(s->heap.nsites, (const uint64_t *)&s->heap.tree,
				      sizeof(s->heap.tree) / sizeof(uint64_t));

	d = stack_hash_words(d, (const uint64_t *)s->heap.sites,
			     s->heap.nsites * sizeof(*s->heap.sites) / sizeof(uint64_t));
	d = stack_hash_words(d, s->sites.resolved.frames, s->sites.resolved.nframes);
	return stack_hash_words(d, s->consumer.stacks.frames, s->consumer.stacks.nframes);
}

static struct result
run(const struct stream *st, enum stage stage, const char *dir)
{
	static struct session s;
	char path[4096 + 32];
	char *argv[] = { "bench/consume", NULL };
	struct capture_end end = { 0 };
	struct result res = { 0 };
	struct stat sb;
	const uint64_t *w = st->words, *stop = st->words + st->nwords;
	uint64_t start;

	memset(&s, 0, sizeof(s));
	heap_init(&s.heap);
	sites_init(&s.sites);
	snprintf(path, sizeof(path), "%s/consume.cap", dir);
	if (stage == SESSION &&
	    !(s.capture = capture_create(path, CAPTURE_LEVEL_DEFAULT, 1, argv))) {
		perror_msg("cannot create %s", path);
		exit(1);
	}
	consumer_init(&s.consumer, DEPTH, sinks[stage], &s);
	/* The capture starts with the stream, whose times are in the past. */
	s.consumer.clock.start_ns = st->start_ns - 1000;
	s.consumer.drain_ns = st->start_ns;
	if (stage != DECODE)
		send_processes(&s.consumer);
	start = cpu_ns();
	while (w < stop) {
		if (consumer_take(&s.consumer, w + 1, (size_t)w[0])) {
			error_msg("a record refused");
			exit(1);
		}
		w += 1 + (w[0] + 7) / 8;
	}
	if (s.capture) {
		end.records = st->records;
		if (capture_finish(s.capture, &end, NULL)) {
			error_msg("cannot write %s", path);
			exit(1);
		}
		if (stat(path, &sb)) {
			perror_msg("%s", path);
			exit(1);
		}
		res.bytes = (double)sb.st_size / (double)st->records;
		unlink(path);
	}
	res.ns = (double)(cpu_ns() - start) / (double)st->records;
	if (stage != DECODE)
		res.digest = models_digest(&s);
	res.stacks = s.consumer.stacks.count;
	consumer_close(&s.consumer);
	heap_free(&s.heap);
	sites_free(&s.sites);
	return res;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
usage(void)
{
	fputs("usage: bench/consume [-s none|stacks] [-t decode|models|session] "
	      "[RUNS [RECORDS]]\n", stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	struct stream streams[2] = {
		{ .name = "no stacks", .stacks = false },
		{ .name = "16 frames", .stacks = true },
	};
	static double ns[2][STAGES][RUNS_MAX], bytes[2][RUNS_MAX];
	uint64_t digest[2] = { 0, 0 };
	uint32_t stacks[2] = { 0, 0 };
	bool want_stream[2] = { true, true }, want_stage[STAGES] = { true, true, true };
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	size_t records = 1000000;
	struct utsname u;
	int runs = 5, opt, i, k, g;

	while ((opt = getopt(argc, argv, "s:t:")) != -1) {
		if (opt == 's' && (!strcmp(optarg, "none") || !strcmp(optarg, "stacks")))
			want_stream[!strcmp(optarg, "none")] = false;
		else if (opt == 't') {
			for (g = 0; g < STAGES && strcmp(optarg, stage_names[g]); g++)
				;
			if (g == STAGES)
				usage();
			memset(want_stage, 0, sizeof(want_stage));
			want_stage[g] = true;
		} else
			usage();
	}
	if (optind < argc)
		runs = atoi(argv[optind++]);
	if (optind < argc)
		records = strtoul(argv[optind++], NULL, 10);
	if (optind < argc || runs < 1 || runs > RUNS_MAX || records < 1000)
		usage();
	snprintf(dir, sizeof(dir), "%s/memsup-consume.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror_msg("cannot make a directory in %s", tmp ? tmp : "/tmp");
		return 1;
	}
	make_layout();
	for (k = 0; k < 2; k++)
		if (want_stream[k])
			make_stream(&streams[k], records);
	for (i = 0; i < runs; i++)
		for (k = 0; k < 2; k++)
			for (g = 0; g < STAGES; g++) {
				struct result r;

				if (!want_stream[k] || !want_stage[g])
					continue;
				r = run(&streams[k], (enum stage)g, dir);
				ns[k][g][i] = r.ns;
				stacks[k] = r.stacks;
				if (g != DECODE && digest[k] && r.digest != digest[k]) {
					error_msg("%s: the models differ from run to run",
						  streams[k].name);
					return 1;
				}
				if (g != DECODE)
					digest[k] = r.digest;
				if (g == SESSION)
					bytes[k][i] = r.bytes;
			}
	rmdir(dir);
	uname(&u);
	printf("bench/consume: %d runs each, medians; %ld CPUs, Linux %s\n", runs,
	       sysconf(_SC_NPROCESSORS_ONLN), u.release);
	for (k = 0; k < 2; k++) {
		if (!want_stream[k])
			continue;
		printf("%-10s %zu ring records, %zu bytes each with the ring's header; "
		       "%u stacks", streams[k].name, streams[k].records,
		       streams[k].nwords * 8 / streams[k].records, stacks[k]);
		if (digest[k])
			printf("; models %016llx", (unsigned long long)digest[k]);
		putchar('\n');
	}
	printf("%-10s %-8s %9s %8s %10s %9s\n", "stream", "stage", "Mrec/s", "ns/rec",
	       "capture B", "capture %");
	for (k = 0; k < 2; k++) {
		double models = 0;

		if (!want_stream[k])
			continue;
		for (g = 0; g < STAGES; g++) {
			double m;

			if (!want_stage[g])
				continue;
			m = median(ns[k][g], runs);
			printf("%-10s %-8s %9.2f %8.1f", streams[k].name, stage_names[g],
			       1e3 / m, m);
			if (g == MODELS)
				models = m;
			if (g == SESSION) {
				printf(" %10.2f", median(bytes[k], runs));
				if (models > 0)
					printf(" %8.0f%%", 100 * (m - models) / m);
			}
			putchar('\n');
		}
		free(streams[k].words);
	}
	return 0;
}
