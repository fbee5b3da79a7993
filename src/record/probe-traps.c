// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "probe-traps.h"
#include "bpf-loader.h"
#include "error.h"
#include "memsup.skel.h"
#include "probe-targets.h"

#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

void
probe_traps_init(struct probe_traps *pt, const struct bpf_loader *bpf)
{
	*pt = (struct probe_traps) {
		.shapes_fd = bpf_map__fd(bpf->skel->maps.probe_shapes),
		.traps_fd = bpf_map__fd(bpf->skel->maps.probe_traps),
	};
}

void
probe_traps_free(struct probe_traps *pt)
{
	free(pt->targets);
	pt->targets = NULL;
	pt->ntargets = pt->targets_cap = 0;
}

int64_t
probe_traps_first_id(struct probe_traps *pt, const struct probe_target *t)
{
	uint32_t id = 0;
	size_t i;

	/* A session probes a few dozen files: a walk is enough. */
	for (i = 0; i < pt->ntargets; id += (uint32_t)pt->targets[i]->ncalls, i++)
		if (pt->targets[i] == t)
			return id;
	if (t->ncalls > MS_PROBES_MAX - pt->next_id)
		return -ENOSPC;
	for (i = 0; i < t->ncalls; i++) {
		uint32_t key = pt->next_id + (uint32_t)i;

		if (bpf_map_update_elem(pt->shapes_fd, &key, &t->calls[i].shape, BPF_ANY))
			return -errno;
	}
	pt->targets = xgrow(pt->targets, &pt->targets_cap, pt->ntargets + 1,
			    sizeof(*pt->targets));
	pt->targets[pt->ntargets++] = t;
	pt->next_id += (uint32_t)t->ncalls;
	return id;
}

/* The traps of function id, summed over the CPUs into *sum. */
static int
read_traps(const struct probe_traps *pt, uint32_t id, struct ms_probe_traps *per_cpu,
	   int ncpus, struct function_traps *sum)
{
	int cpu;

	if (bpf_map_lookup_elem(pt->traps_fd, &id, per_cpu))
		return -errno;
	for (cpu = 0; cpu < ncpus; cpu++) {
		sum->entries += per_cpu[cpu].entries;
		sum->returns += per_cpu[cpu].returns;
	}
	return 0;
}

static int
by_entries_then_returns(const void *a, const void *b)
{
	const struct function_traps *x = a, *y = b;

	if (x->entries != y->entries)
		return x->entries < y->entries ? 1 : -1;
	return (x->returns < y->returns) - (x->returns > y->returns);
}

ssize_t
probe_traps_read(const struct probe_traps *pt, struct function_traps **out)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ms_probe_traps *per_cpu;
	struct function_traps *all;
	uint32_t id = 0;
	size_t i, j, n = 0;
	int err = 0;

	if (ncpus < 0)
		return ncpus;
	per_cpu = xcalloc((size_t)ncpus, sizeof(*per_cpu));
	all = xcalloc(pt->next_id ? pt->next_id : 1, sizeof(*all));
	for (i = 0; i < pt->ntargets && !err; i++) {
		const struct probe_target *t = pt->targets[i];

		for (j = 0; j < t->ncalls && !err; j++, id++) {
			all[n] = (struct function_traps) { t->calls[j].name, t->path, 0, 0 };
			err = read_traps(pt, id, per_cpu, ncpus, &all[n]);
			if (all[n].entries || all[n].returns)
				n++;
		}
	}
	free(per_cpu);
	if (err) {
		free(all);
		return err;
	}
	qsort(all, n, sizeof(*all), by_entries_then_returns);
	*out = all;
	return (ssize_t)n;
}
