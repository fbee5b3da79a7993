// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --format=pprof: the report as pprof's profile.proto, gzipped, so that
 * go tool pprof, and what reads its format, show memsup's sites.  One
 * sample per site, leaf first; one location per (file, offset) frame.
 * Addresses are memsup's resolved frames: each file is one mapping of its
 * own range (its module number above bit 48), whose offsets are the
 * file's.  The protobuf wire format is written here: varints, and
 * length-delimited fields for strings, packed numbers and messages.
 */
#include "config.h"
#include "report-pprof.h"
#include "error.h"
#include "heap.h"
#include "report-sites.h"
#include "sites.h"
#include "stack-table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A message being written. */
struct pb {
	uint8_t *p;
	size_t n, cap;
};

enum { WIRE_VARINT = 0, WIRE_BYTES = 2 };

static void
pb_raw(struct pb *b, const void *data, size_t len)
{
	b->p = xgrow(b->p, &b->cap, b->n + len, 1);
	if (len)
		memcpy(b->p + b->n, data, len);
	b->n += len;
}

static void
pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	pb_raw(b, buf, n);
}

static void
pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	pb_varint(b, v);
}

static void
pb_bytes(struct pb *b, unsigned int field, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | WIRE_BYTES);
	pb_varint(b, len);
	pb_raw(b, data, len);
}

/* A nested message, which sub holds; sub is emptied for the next. */
static void
pb_message(struct pb *b, unsigned int field, struct pb *sub)
{
	pb_bytes(b, field, sub->p, sub->n);
	sub->n = 0;
}

static void
pb_packed(struct pb *b, unsigned int field, const uint64_t *v, size_t n)
{
	struct pb sub = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(&sub, v[i]);
	pb_bytes(b, field, sub.p, sub.n);
	free(sub.p);
}

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* The string table, each string once; index 0 is "". */
struct strings {
	struct pb table;	/* the encoded string_table fields */
	struct u64map index;	/* content hash (probed linearly) -> index + 1 */
	char **v;
	uint64_t n;
	size_t cap;
};

static uint64_t
string_index(struct strings *t, const char *s)
{
	size_t len = strlen(s), words = (len + 7) / 8;
	uint64_t *w = xcalloc(words ? words : 1, sizeof(*w)), key;
	struct u64map_slot *slot;

	memcpy(w, s, len);
	key = stack_hash_words(len, w, words);
	free(w);
	for (; (slot = u64map_find(&t->index, key)); key = key + 1 ? key + 1 : 1)
		if (!strcmp(t->v[slot->value - 1], s))
			return slot->value - 1;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = xstrdup(s);
	u64map_put(&t->index, key, t->n + 1);
	pb_bytes(&t->table, PROFILE_STRING_TABLE, s, len);
	return t->n++;
}

/* What the profile holds apart from the strings, each part encoded. */
struct profile {
	struct strings strings;
	struct pb body;		/* samples, mappings, locations, functions */
	struct pb sub, line;	/* scratch for nested messages */
	struct u64map locations;	/* frame -> location id */
	struct u64map functions;	/* name's and file's string indexes -> id */
	uint64_t *mapped;		/* module index -> 1 once its mapping is out */
	uint64_t nlocations, nfunctions;
};

static void
add_mapping(struct profile *pr, const struct sites *s, uint32_t module)
{
	const struct space_module *m = &s->spaces.modules[module - 1];
	char build_id[2 * BUILD_ID_MAX + 1];
	uint8_t i;

	for (i = 0; i < m->build_id_len; i++)
		snprintf(build_id + 2 * i, 3, "%02x", m->build_id[i]);
	build_id[2 * i] = '\0';
	pb_uint(&pr->sub, MAPPING_ID, module);
	pb_uint(&pr->sub, MAPPING_MEMORY_START, (uint64_t)module << 48);
	pb_uint(&pr->sub, MAPPING_MEMORY_LIMIT, (uint64_t)(module + 1) << 48);
	pb_uint(&pr->sub, MAPPING_FILENAME, string_index(&pr->strings, m->path));
	pb_uint(&pr->sub, MAPPING_BUILD_ID, string_index(&pr->strings, build_id));
	pb_uint(&pr->sub, MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&pr->sub, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_message(&pr->body, PROFILE_MAPPING, &pr->sub);
	pr->mapped[module - 1] = 1;
}

/*
 * A Line has a number but no file: its file is its Function's.  So there
 * is one Function per name and file, for code of one function written in
 * two files (an #include in its body, static functions of one name).
 */
static uint64_t
function_id(struct profile *pr, const char *name, const char *source)
{
	uint64_t name_index = string_index(&pr->strings, name);
	uint64_t file_index = string_index(&pr->strings, source);
	uint64_t key = (name_index << 32 | file_index) + 1;	/* never 0 */
	struct u64map_slot *slot = u64map_find(&pr->functions, key);

	if (slot)
		return slot->value;
	pb_uint(&pr->sub, FUNCTION_ID, ++pr->nfunctions);
	pb_uint(&pr->sub, FUNCTION_NAME, name_index);
	pb_uint(&pr->sub, FUNCTION_SYSTEM_NAME, name_index);
	if (file_index)
		pb_uint(&pr->sub, FUNCTION_FILENAME, file_index);
	pb_message(&pr->body, PROFILE_FUNCTION, &pr->sub);
	u64map_put(&pr->functions, key, pr->nfunctions);
	return pr->nfunctions;
}

/*
 * The location of a frame: its mapping, address and, if named, a line
 * per function, innermost first, as profile.proto puts inlined calls.
 */
static uint64_t
location_id(struct profile *pr, const struct sites *s, struct symbolizer *z,
	    uint64_t frame)
{
	struct u64map_slot *slot = u64map_find(&pr->locations, frame + 1);
	uint32_t module = SITE_FRAME_MODULE(frame);
	struct pb location = { 0 };
	struct frame_name f;
	uint64_t id;
	size_t k, nk;

	if (slot)
		return slot->value;
	if (module && !pr->mapped[module - 1])
		add_mapping(pr, s, module);
	id = ++pr->nlocations;
	pb_uint(&location, LOCATION_ID, id);
	if (module)
		pb_uint(&location, LOCATION_MAPPING_ID, module);
	pb_uint(&location, LOCATION_ADDRESS, frame);
	for (k = 0, nk = 1; k < nk; k++) {
		char file[4200], *colon;
		uint64_t line = 0;

		nk = frame_describe(z, s, frame, k, &f);
		if (!f.function)
			continue;
		/* "file:line": the file goes to the function, the line to the location. */
		snprintf(file, sizeof(file), "%s", f.where);
		if ((colon = strrchr(file, ':'))) {
			*colon = '\0';
			line = strtoull(colon + 1, NULL, 10);
		}
		pb_uint(&pr->line, LINE_FUNCTION_ID, function_id(pr, f.function, file));
		if (line)
			pb_uint(&pr->line, LINE_LINE, line);
		pb_message(&location, LOCATION_LINE, &pr->line);
	}
	pb_message(&pr->body, PROFILE_LOCATION, &location);
	free(location.p);
	u64map_put(&pr->locations, frame + 1, id);
	return id;
}

/* A ValueType, as field of the profile: a sample type, or the period's. */
static void
add_value_type(struct profile *pr, unsigned int field, const char *type, const char *unit)
{
	pb_uint(&pr->sub, VALUE_TYPE_TYPE, string_index(&pr->strings, type));
	pb_uint(&pr->sub, VALUE_TYPE_UNIT, string_index(&pr->strings, unit));
	pb_message(&pr->body, field, &pr->sub);
}

/*
 * The file of the program the tree started with, which pprof takes for
 * the main binary when its mapping comes first; 0 when none maps it.
 */
static uint32_t
main_module(const struct heap_model *h, const struct sites *s)
{
	uint32_t i;

	if (!h->nprocs || !h->procs[0]->image)
		return 0;
	for (i = 0; i < s->spaces.nmodules; i++)
		if (!strcmp(s->spaces.modules[i].path, h->procs[0]->image))
			return i + 1;
	return 0;
}

static void
add_sample(struct profile *pr, const struct heap_model *h, const struct sites *s,
	   struct symbolizer *z, uint32_t site)
{
	const struct heap_site *st = &h->sites[site];
	uint64_t ids[MS_STACK_MAX], values[5];
	const uint64_t *frames;
	uint32_t n = 0, i;
	struct pb sample = { 0 };

	frames = sites_frames(s, site, &n);
	for (i = 0; frames && i < n && i < MS_STACK_MAX; i++)
		ids[i] = location_id(pr, s, z, frames[i]);
	values[0] = st->allocs;
	values[1] = st->bytes_allocated;
	/* A suppressed site's leaks are expected: not the program's. */
	values[2] = st->suppressed ? 0 : st->leaked_blocks;
	values[3] = st->suppressed ? 0 : st->leaked_bytes;
	values[4] = heap_site_peak_bytes(h, site);
	pb_packed(&sample, SAMPLE_LOCATION_ID, ids, i);
	pb_packed(&sample, SAMPLE_VALUE, values, 5);
	pb_message(&pr->body, PROFILE_SAMPLE, &sample);
	free(sample.p);
}

static int
write_gzip(int fd, const struct pb *a, const struct pb *b)
{
	/* A copy for gzclose to close; O_CLOEXEC, as everywhere else. */
	int fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 0), zerr, ok;
	gzFile gz;

	if (fd2 < 0)
		return -errno;
	gz = gzdopen(fd2, "wb");
	if (!gz) {
		close(fd2);
		return -ENOMEM;		/* zlib fails here only to allocate */
	}
	ok = (!a->n || gzwrite(gz, a->p, (unsigned int)a->n) == (int)a->n) &&
	     (!b->n || gzwrite(gz, b->p, (unsigned int)b->n) == (int)b->n);
	zerr = gzclose(gz);
	/* zlib keeps errno only for a failed write or close (Z_ERRNO). */
	if (!ok || zerr != Z_OK)
		return zerr == Z_ERRNO && errno ? -errno : -EIO;
	return 0;
}

int
report_pprof(int fd, const struct heap_model *h, const struct sites *s,
	     struct symbolizer *z)
{
	struct profile pr;
	uint32_t site, module;
	uint64_t i;
	int ret;

	memset(&pr, 0, sizeof(pr));
	u64map_init(&pr.strings.index);
	u64map_init(&pr.locations);
	u64map_init(&pr.functions);
	pr.mapped = xcalloc(s->spaces.nmodules + 1, sizeof(*pr.mapped));
	string_index(&pr.strings, "");
	/* The values of each sample, in this order. */
	add_value_type(&pr, PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
	add_value_type(&pr, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
	add_value_type(&pr, PROFILE_SAMPLE_TYPE, "inuse_objects", "count");
	add_value_type(&pr, PROFILE_SAMPLE_TYPE, "inuse_space", "bytes");
	add_value_type(&pr, PROFILE_SAMPLE_TYPE, "peak_space", "bytes");
	add_value_type(&pr, PROFILE_PERIOD_TYPE, "space", "bytes");
	if ((module = main_module(h, s)))
		add_mapping(&pr, s, module);
	for (site = 0; site < h->nsites; site++)
		if (h->sites[site].allocs)
			add_sample(&pr, h, s, z, site);
	pb_uint(&pr.body, PROFILE_DEFAULT_SAMPLE_TYPE, string_index(&pr.strings, "alloc_space"));

	ret = write_gzip(fd, &pr.strings.table, &pr.body);
	for (i = 0; i < pr.strings.n; i++)
		free(pr.strings.v[i]);
	free(pr.strings.v);
	free(pr.strings.table.p);
	u64map_free(&pr.strings.index);
	free(pr.body.p);
	free(pr.sub.p);
	free(pr.line.p);
	u64map_free(&pr.locations);
	u64map_free(&pr.functions);
	free(pr.mapped);
	return ret;
}
