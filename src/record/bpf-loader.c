// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "bpf-loader.h"
#include "consumer.h"
#include "memsup.skel.h"
#include "probe-attach.h"
#include "unwind.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* libbpf's own messages for what is expected to fail on some machines. */
static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* The unwind tables' pages of 64 KiB (8 bytes each): 4 GiB of code. */
#define UNWIND_PAGES (1u << 16)

/* Stacks are copied by dwarf, and by auto where an unwinder reads the copies. */
static bool
copies_stacks(const struct consumer_config *cfg)
{
	return cfg->stack_mode == MS_STACK_DWARF ||
	       (cfg->stack_mode == MS_STACK_AUTO && unwind_backend);
}

/* auto stacks walk unwind tables before they copy, where libdw builds them. */
static bool
unwind_tables(const struct consumer_config *cfg)
{
#ifdef HAVE_LIBDW
	return cfg->stack_mode == MS_STACK_AUTO;
#else
	return false;
#endif
}

/*
 * Opens and loads the programs for one way of attaching: session links,
 * or a perf link per probe.
 */
static int
load_once(struct bpf_loader *l, bool session_links, bool sleepable_regions,
	  const struct consumer_config *cfg, const char **why)
{
	struct memsup_bpf *skel;
	int err;

	*why = "open the BPF programs";
	skel = memsup_bpf__open();
	if (!skel)
		return -errno;

	*why = "size the BPF maps";
	skel->rodata->wake_bytes = cfg->wake_bytes;
	skel->bss->watermark_bytes = cfg->watermark_bytes;
	skel->rodata->stack_mode = cfg->stack_mode;
	skel->rodata->stack_depth = cfg->stack_depth;
	skel->rodata->stack_copy_bytes = l->copies_stacks ? cfg->stack_copy_bytes : 0;
	skel->bss->stack_room_bytes = cfg->stack_room_bytes;
	skel->rodata->probes_only = cfg->probes_only;
	skel->rodata->pidns_inum = cfg->pidns_inum;
	skel->rodata->supervisor_tgid = (__u32)getpid();
	skel->rodata->unwind_tables = l->unwind_tables;
	skel->rodata->new_sites_used = cfg->new_sites;
	err = bpf_map__set_max_entries(skel->maps.events, cfg->ring_bytes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.pending, cfg->max_threads);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.tracked, cfg->max_processes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_pages,
					       l->unwind_tables ? UNWIND_PAGES : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_rows, l->unwind_tables ?
			cfg->unwind_bytes / sizeof(struct ms_unwind_row_pair) : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.unwind_spaces, cfg->max_processes);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.new_sites,
					       cfg->new_sites ? MS_NEW_SITES_MAX : 1);
	if (!err && session_links)
		err = bpf_program__set_expected_attach_type(skel->progs.alloc_session,
				probes_session_attach_type());
	if (!err && sleepable_regions)
		err = bpf_program__set_flags(skel->progs.region_mark, BPF_F_SLEEPABLE);
	if (!err) {
		bpf_program__set_autoload(skel->progs.alloc_session, session_links);
		bpf_program__set_autoload(skel->progs.alloc_enter, !session_links);
		bpf_program__set_autoload(skel->progs.alloc_exit, !session_links);
		bpf_program__set_autoload(skel->progs.mapping_watch, cfg->on_mapping != NULL);
		bpf_program__set_autoload(skel->progs.mapping_watch_any_syscall,
					  cfg->on_mapping != NULL);
	}
	if (err)
		goto fail;

	*why = "load the BPF programs";
	err = memsup_bpf__load(skel);
	if (err)
		goto fail;
	l->skel = skel;
	l->session_links = session_links;
	return 0;
fail:
	memsup_bpf__destroy(skel);
	return err;
}

/*
 * The region mark is sleepable where uprobes can be (Linux 5.19), so
 * that it can fault in a region's name.
 */
static int
load(struct bpf_loader *l, bool session_links, const struct consumer_config *cfg,
     const char **why)
{
	libbpf_print_fn_t print = libbpf_set_print(quiet_libbpf);
	int err = load_once(l, session_links, true, cfg, why);

	libbpf_set_print(print);
	if (err)
		err = load_once(l, session_links, false, cfg, why);
	return err;
}

/*
 * The mmap tracepoint where tracefs says where it is, else the entry of
 * every system call (bpf/mapping-watch.bpf.h).
 */
static int
watch_mappings(struct memsup_bpf *skel)
{
	libbpf_print_fn_t print = libbpf_set_print(quiet_libbpf);

	skel->links.mapping_watch = bpf_program__attach(skel->progs.mapping_watch);
	libbpf_set_print(print);
	if (skel->links.mapping_watch)
		return 0;
	skel->links.mapping_watch_any_syscall =
		bpf_program__attach(skel->progs.mapping_watch_any_syscall);
	return skel->links.mapping_watch_any_syscall ? 0 : -errno;
}

/* The watchers; the probes are attached to each process on its own. */
static int
attach(struct memsup_bpf *skel, const struct consumer_config *cfg, const char **why)
{
	int err;

	if (cfg->on_mapping) {
		*why = "watch the processes' mappings";
		err = watch_mappings(skel);
		if (err)
			return err;
	}
	*why = "watch for processes that escape tracing";
	skel->links.escape_watch = bpf_program__attach(skel->progs.escape_watch);
	return skel->links.escape_watch ? 0 : -errno;
}

void
bpf_loader_close(struct bpf_loader *l)
{
	memsup_bpf__destroy(l->skel);
	l->skel = NULL;
}

int
bpf_loader_open(struct bpf_loader *l, const struct consumer_config *cfg,
		const char **why)
{
	int err;

	memset(l, 0, sizeof(*l));
	l->copies_stacks = copies_stacks(cfg);
	l->unwind_tables = unwind_tables(cfg);
	if (cfg->links == PROBE_LINKS_AUTO) {
		/* The kernel tells whether it has uprobe sessions by loading one. */
		libbpf_set_print(quiet_libbpf);
		err = load(l, true, cfg, why);
		libbpf_set_print(NULL);
		if (err)
			err = load(l, false, cfg, why);
	} else {
		err = load(l, cfg->links == PROBE_LINKS_SESSION, cfg, why);
	}
	if (err)
		return err;
	err = attach(l->skel, cfg, why);
	if (err)
		bpf_loader_close(l);
	return err;
}

static void
delete_pid(const struct bpf_map *map, pid_t pid)
{
	__u32 key = (__u32)pid;

	bpf_map__delete_elem(map, &key, sizeof(key), 0);
}

void
bpf_loader_forget_thread(struct bpf_loader *l, pid_t tid)
{
	delete_pid(l->skel->maps.pending, tid);
}

bool
bpf_loader_latched(const struct bpf_loader *l)
{
	return __atomic_load_n(&l->skel->bss->latch, __ATOMIC_ACQUIRE);
}

void
bpf_loader_clear_latch(struct bpf_loader *l)
{
	/* A new epoch first, so that no wakeup is taken for the old one. */
	__atomic_store_n(&l->skel->bss->epoch, l->skel->bss->epoch + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&l->skel->bss->latch, 0, __ATOMIC_RELEASE);
}

int
bpf_loader_track(struct bpf_loader *l, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.tracked, &key, sizeof(key),
				    &one, sizeof(one), BPF_ANY) ? -errno : 0;
}

void
bpf_loader_untrack(struct bpf_loader *l, pid_t pid)
{
	delete_pid(l->skel->maps.tracked, pid);
}

int
bpf_loader_add_new_site(struct bpf_loader *l, pid_t pid, uint64_t ret, uint32_t frame)
{
	struct ms_new_site key = { .tgid = (__u32)pid, .ret = ret };

	return bpf_map__update_elem(l->skel->maps.new_sites, &key, sizeof(key),
				    &frame, sizeof(frame), BPF_ANY) ? -errno : 0;
}

void
bpf_loader_remove_new_site(struct bpf_loader *l, pid_t pid, uint64_t ret)
{
	struct ms_new_site key = { .tgid = (__u32)pid, .ret = ret };

	bpf_map__delete_elem(l->skel->maps.new_sites, &key, sizeof(key), 0);
}

uint64_t
bpf_loader_take_max_fill(struct bpf_loader *l)
{
	return __atomic_exchange_n(&l->skel->bss->max_fill, 0, __ATOMIC_RELAXED);
}

void
bpf_loader_set_watermark(struct bpf_loader *l, uint64_t bytes)
{
	__atomic_store_n(&l->skel->bss->watermark_bytes, bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&l->skel->bss->stack_room_bytes, bytes, __ATOMIC_RELAXED);
}

uint64_t
bpf_loader_lost_records(const struct bpf_loader *l)
{
	return __atomic_load_n(&l->skel->bss->lost_records, __ATOMIC_RELAXED);
}

uint64_t
bpf_loader_escaped(const struct bpf_loader *l, bpf_loader_escape_fn each, void *ctx)
{
	const struct bpf_map *map = l->skel->maps.escaped;
	__u32 key, next, parent;
	__u32 *prev = NULL;

	while (!bpf_map__get_next_key(map, prev, &next, sizeof(next))) {
		if (!bpf_map__lookup_elem(map, &next, sizeof(next), &parent,
					  sizeof(parent), 0))
			each(ctx, (pid_t)next, (pid_t)parent);
		key = next;
		prev = &key;
	}
	return __atomic_load_n(&l->skel->bss->escaped_unnamed, __ATOMIC_RELAXED);
}

uint64_t
bpf_loader_missed_mapping_wakes(const struct bpf_loader *l)
{
	return __atomic_load_n(&l->skel->bss->missed_mapping_wakes, __ATOMIC_RELAXED);
}

uint64_t
bpf_loader_lost_calls(const struct bpf_loader *l)
{
	return __atomic_load_n(&l->skel->bss->lost_calls, __ATOMIC_RELAXED);
}

uint64_t
bpf_loader_dropped_stacks(const struct bpf_loader *l)
{
	return __atomic_load_n(&l->skel->bss->dropped_stacks, __ATOMIC_RELAXED);
}

void
bpf_loader_walked_stacks(const struct bpf_loader *l, uint64_t *tables,
			 uint64_t *frame_pointers)
{
	*tables = __atomic_load_n(&l->skel->bss->stacks_from_tables, __ATOMIC_RELAXED);
	*frame_pointers = __atomic_load_n(&l->skel->bss->stacks_from_frame_pointers,
					  __ATOMIC_RELAXED);
}
