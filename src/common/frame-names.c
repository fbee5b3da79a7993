// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "frame-names.h"
#include "address-spaces.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
frame_names_init(struct frame_names *fn)
{
	memset(fn, 0, sizeof(*fn));
	u64map_init(&fn->string_ids);
}

void
frame_names_free(struct frame_names *fn)
{
	size_t i;

	for (i = 0; i < fn->nstrings; i++)
		free(fn->strings[i]);
	free(fn->strings);
	u64map_free(&fn->string_ids);
	free(fn->functions);
	for (i = 0; i < fn->nfiles; i++) {
		free(fn->files[i].frames);
		u64map_free(&fn->files[i].by_offset);
	}
	free(fn->files);
	memset(fn, 0, sizeof(*fn));
}

/* FNV-1a, mixed down as stack_hash_words mixes; never 0 (a u64map key). */
static uint64_t
string_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h ? h : 1;
}

uint32_t
frame_names_append(struct frame_names *fn, const char *s, size_t len)
{
	char *copy = xmalloc(len + 1);

	memcpy(copy, s, len);
	copy[len] = '\0';
	fn->strings = xgrow(fn->strings, &fn->strings_cap, fn->nstrings + 1,
			    sizeof(*fn->strings));
	fn->strings[fn->nstrings++] = copy;
	return fn->nstrings;
}

uint32_t
frame_names_intern(struct frame_names *fn, const char *s)
{
	uint64_t key;
	struct u64map_slot *slot;

	if (!s || !*s)
		return 0;
	/* Two strings of one hash take the keys after it. */
	for (key = string_hash(s); (slot = u64map_find(&fn->string_ids, key));
	     key = key == UINT64_MAX ? 1 : key + 1)
		if (!strcmp(fn->strings[slot->value - 1], s))
			return (uint32_t)slot->value;
	u64map_put(&fn->string_ids, key, frame_names_append(fn, s, strlen(s)));
	return fn->nstrings;
}

const char *
frame_names_text(const struct frame_names *fn, uint32_t id)
{
	return id && id <= fn->nstrings ? fn->strings[id - 1] : NULL;
}

struct frame_names_file *
frame_names_file(struct frame_names *fn, uint32_t path, const uint8_t *build_id,
		 uint8_t build_id_len)
{
	struct frame_names_file *f;
	size_t i;

	for (i = 0; i < fn->nfiles; i++) {
		f = &fn->files[i];
		if (f->path == path && f->build_id_len == build_id_len &&
		    (!build_id_len || !memcmp(f->build_id, build_id, build_id_len)))
			return f;
	}
	fn->files = xgrow(fn->files, &fn->files_cap, fn->nfiles + 1, sizeof(*fn->files));
	f = &fn->files[fn->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	if (build_id_len)	/* build_id may be NULL then */
		memcpy(f->build_id, build_id, build_id_len);
	f->build_id_len = build_id_len;
	u64map_init(&f->by_offset);
	return f;
}

bool
frame_names_add(struct frame_names *fn, struct frame_names_file *file, uint64_t offset,
		uint64_t function_offset, const struct frame_names_function *functions,
		size_t n)
{
	if (offset == UINT64_MAX || frame_names_at(file, offset))
		return false;
	if (n > FRAME_NAMES_MAX_FUNCTIONS)
		n = FRAME_NAMES_MAX_FUNCTIONS;
	if (n) {	/* a frame in no function has none, maybe no array */
		fn->functions = xgrow(fn->functions, &fn->functions_cap, fn->nfunctions + n,
				      sizeof(*fn->functions));
		memcpy(fn->functions + fn->nfunctions, functions, n * sizeof(*functions));
	}
	file->frames = xgrow(file->frames, &file->frames_cap, file->nframes + 1,
			     sizeof(*file->frames));
	file->frames[file->nframes++] = (struct frame_names_frame){
		.offset = offset,
		.function_offset = function_offset,
		.first = (uint32_t)fn->nfunctions,
		.n = (uint8_t)n,
	};
	fn->nfunctions += n;
	u64map_put(&file->by_offset, offset + 1, file->nframes);
	return true;
}

const struct frame_names_file *
frame_names_find(const struct frame_names *fn, const struct space_module *m)
{
	size_t i;

	for (i = 0; i < fn->nfiles; i++) {
		const struct frame_names_file *f = &fn->files[i];
		const char *path = frame_names_text(fn, f->path);

		if (path && !strcmp(path, m->path) && f->build_id_len == m->build_id_len &&
		    !memcmp(f->build_id, m->build_id, m->build_id_len))
			return f;
	}
	return NULL;
}

const struct frame_names_frame *
frame_names_at(const struct frame_names_file *file, uint64_t offset)
{
	struct u64map_slot *slot = u64map_find(&file->by_offset, offset + 1);

	return slot ? &file->frames[slot->value - 1] : NULL;
}
