// SPDX-License-Identifier: GPL-2.0-or-later
/* memsup: command line. */
#include "config.h"
#include "capture.h"
#include "capture-policy.h"
#include "check.h"
#include "diff.h"
#include "error.h"
#include "human-numbers.h"
#include "procfs.h"
#include "pressure.h"
#include "probe-list.h"
#include "report.h"
#include "run.h"
#include "memsup.h"
#include "unwind.h"

#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most entries --max-threads and --max-processes give a BPF map. */
enum { MAX_MAP_ENTRIES = 1 << 24 };

static void
usage(void)
{
	fputs("Usage: memsup [OPTIONS] [--] CMD [ARGS...]\n"
	      "       memsup [OPTIONS] -p PID [--duration=DURATION]\n"
	      "       memsup report [--events] [--processes] [--pid=PID] [--command=NAME]\n"
	      "                     [-n N] [--by=point|chain] [--format=FORMAT]\n"
	      "                     [--metric=METRIC] [--full-names] [--suppress=FILE]\n"
	      "                     [--no-default-suppressions] [--debug-dir=DIR] [--strict]\n"
	      "                     FILE\n"
	      "       memsup diff [-n N] [--by=point|chain] [--format=FORMAT] [--metric=METRIC]\n"
	      "                   [--full-names] [--pid=PID] [--command=NAME] [--debug-dir=DIR]\n"
	      "                   [--strict]\n"
	      "                   [--fail-on-increase=PCT[,METRIC]] A B\n"
	      "       memsup check [--max-peak=SIZE] [--max-leaked=SIZE]\n"
	      "                    [--max-allocations=N] [--region=NAME | --command=NAME]\n"
	      "                    [--format=text|json] FILE\n"
	      "       memsup probes [--probe-sites=auto|entry] [--probe-forwarders]\n"
	      "                     [--free-returns] FILE...\n"
	      "\n"
	      "Run CMD under memsup, or attach to the running process PID, and\n"
	      "record every heap allocation and free of its whole process tree;\n"
	      "print a summary at the end.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output=FILE  write the capture to FILE\n"
	      "                     (default: memsup.CMD.PID.cap); - for standard\n"
	      "                     output, the workload's own going to stderr;\n"
	      "                     a device or a FIFO is written directly; a\n"
	      "                     memsup killed leaves FILE.XXXXXX, which\n"
	      "                     memsup report reads up to the cut\n"
	      "  -q, --quiet        print no summary\n"
	      "      --status       show the live status line on stderr even when\n"
	      "                     the workload writes to the same terminal\n"
	      "                     (by default: only on a terminal of its own)\n"
	      "  -p, --pid=PID      trace the running process PID and the children\n"
	      "                     it starts from now, until it exits, until\n"
	      "                     SIGINT or SIGTERM, or for --duration; then\n"
	      "                     let it go on untraced\n"
	      "      --duration=DURATION\n"
	      "                     with -p: detach after recording for DURATION\n"
	      "                     (500ms, 2s, 1m)\n"
	      "      --ring-size=SIZE\n"
	      "                     BPF ring buffer size, a power of two from 4K\n"
	      "                     to 2G; K, M and G suffixes (default: 16M)\n"
	      "      --pressure-timeout=0|DURATION|inf\n"
	      "                     when the ring fills past the watermark, stop\n"
	      "                     the tree, drain it and resume: inf (default\n"
	      "                     for a command) waits as long as it takes;\n"
	      "                     DURATION (500ms, 2s, 1m) kills the tree if a\n"
	      "                     stop takes longer; 0 (default with -p) never\n"
	      "                     stops and only counts what is lost\n"
	      "      --watermark=SIZE\n"
	      "                     ring fill that starts a stop (default: half\n"
	      "                     the ring, then lower as the stops show\n"
	      "                     the room they need)\n"
	      "      --uprobe-links=auto|session|perf\n"
	      "                     attach with one uprobe session link per file\n"
	      "                     (Linux 6.10+), or one perf link per probe;\n"
	      "                     auto picks session links where they work\n"
	      "      --max-threads=N\n"
	      "                     threads that can be inside an allocator call\n"
	      "                     at once (default: 4096; at most\n"
	      "                     kernel.threads-max); a call past that is\n"
	      "                     lost and counted\n"
	      "      --max-processes=N\n"
	      "                     under pressure stops: processes that can be\n"
	      "                     traced at once (default: 16384; at most\n"
	      "                     kernel.pid_max); one past that cannot be\n"
	      "                     stopped and fails the capture\n"
	      "      --stack=auto|fp|dwarf|none\n"
	      "                     take each allocation's call stack by walking\n"
	      "                     frame pointers (fp), by copying the stack and\n"
	      "                     unwinding it from DWARF call-frame information\n"
	      "                     (dwarf), by walking unwind tables built from\n"
	      "                     that information, then frame pointers, then a\n"
	      "                     copy (auto, the default), or not (none)\n"
	      "      --stack-depth=N\n"
	      "                     at most N frames of each stack, 1 to 127\n"
	      "                     (default: 64)\n"
	      "      --stack-copy=SIZE\n"
	      "                     copy at most SIZE bytes of stack for DWARF\n"
	      "                     unwinding, 512 to 64K in steps of 512\n"
	      "                     (default: 32K)\n"
	      "      --unwind-memory=SIZE\n"
	      "                     kernel memory for the rows of the unwind\n"
	      "                     tables auto walks, 4K to 4G (default: 8M);\n"
	      "                     code past it has its stacks copied\n"
	      "      --probe-sites=auto|entry\n"
	      "                     probe each allocator function at the first\n"
	      "                     instruction of its start that the kernel\n"
	      "                     emulates, where that sees what the entry\n"
	      "                     sees (auto, the default), or at its entry\n"
	      "                     (entry); memsup probes FILE lists them\n"
	      "      --probe-forwarders\n"
	      "                     probe every allocator function, also one\n"
	      "                     whose code only jumps to another that records\n"
	      "                     the same call (operator delete to free), and\n"
	      "                     the C++ runtime's operator new, which calls\n"
	      "                     malloc; by default only that other one is\n"
	      "                     probed\n"
	      "      --free-returns\n"
	      "                     probe the return of every free; by default a\n"
	      "                     free whose code provably makes no allocator\n"
	      "                     call has only its entry probed (memsup probes\n"
	      "                     FILE says which)\n"
	      "      --symbolize=capture|report|none\n"
	      "                     name every frame of the capture when the run\n"
	      "                     ends, from the files then, into the capture\n"
	      "                     (capture, the default), so that a rebuild or\n"
	      "                     another machine changes no report; or leave\n"
	      "                     the names to each report, from the files it\n"
	      "                     finds (report), and name no top site in the\n"
	      "                     summary either (none)\n"
	      "      --compress-level=N\n"
	      "                     compress the capture at zstd's level N, 1\n"
	      "                     (the default, the fastest) to 19 (smaller,\n"
	      "                     slower: the workload waits while memsup\n"
	      "                     compresses)\n"
	      "      --allow-partial\n"
	      "                     a statically linked program without symbols,\n"
	      "                     or a child made with CLONE_UNTRACED, runs\n"
	      "                     untraced with a warning, instead of making\n"
	      "                     the capture incomplete (124)\n"
	      "      --probes-only  attach every probe but record no call: what\n"
	      "                     the uprobe traps cost alone (bench/run's floor)\n"
	      "      --traps        at the end, list the uprobe traps each probed\n"
	      "                     function took, at its entry and at its\n"
	      "                     return, and the traps per recorded call\n"
	      "  -u, --user=NAME    run CMD as user NAME (default: under sudo, the\n"
	      "                     user who ran sudo)\n"
	      "      --keep-root    run CMD as root even under sudo\n"
	      "  -h, --help         show this help and exit\n"
	      "  -V, --version      show the version and built-in features\n"
	      "\n"
	      "SIGINT, SIGTERM and SIGHUP go to CMD; a second one, or one that\n"
	      "no traced process is left to take, ends tracing at once, and a\n"
	      "third ends memsup on the spot.\n"
	      "\n"
	      "Exit status: CMD's own (128+N if killed by signal N); 124 if the\n"
	      "capture is incomplete; 128+N if signal N ended tracing first; 125\n"
	      "if memsup failed; 126 if CMD cannot be run; 127 if CMD was not\n"
	      "found.  See memsup(1).\n", stdout);
}

/* "16M" -> 16777216; 0 when malformed. */
static uint64_t
parse_size(const char *arg)
{
	uint64_t n;

	return human_parse_size(arg, &n) ? n : 0;
}

/* A BPF map size, from 1 to MAX_MAP_ENTRIES; 0 when malformed. */
static size_t
parse_map_size(const char *arg)
{
	uint64_t n;

	if (!human_parse(arg, &n, NULL) || n > MAX_MAP_ENTRIES)
		return 0;
	return n;
}

/* "500ms", "2s", "1m", "inf"; returns false when malformed. */
static bool
parse_timeout(const char *arg, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "", 1000000000ULL }, { "s", 1000000000ULL },
		{ "ms", 1000000ULL }, { "m", 60000000000ULL },
	};
	uint64_t n;
	const char *end;
	size_t i;

	if (!strcmp(arg, "inf")) {
		*ns = PRESSURE_WAIT_FOREVER;
		return true;
	}
	if (!human_parse(arg, &n, &end))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (n > UINT64_MAX / units[i].ns - 1)
			return false;
		*ns = n * units[i].ns;
		return true;
	}
	return false;
}

static void
version(void)
{
#ifdef HAVE_DEMANGLE
	const char *demangling = "libiberty";
#else
	const char *demangling = "none";
#endif
#ifdef HAVE_LIBDW
	const char *source_lines = "libdw", *tables = "unwind tables, ";
	bool cfi = true;
#else
	const char *source_lines = "none", *tables = "";
	bool cfi = false;
#endif
#ifdef HAVE_LIBDEBUGINFOD
	const char *debuginfod = "libdebuginfod";
#else
	const char *debuginfod = "none";
#endif

	printf("memsup %s\n"
	       "features: libbpf %s, per-process uprobes,\n"
	       "  probe sites: %s%s,\n"
	       "  free return probes: %s,\n"
	       "  stack traces: %sframe pointers%s%s,\n"
	       "  demangling: %s, source lines: %s,\n"
	       "  debug files from debuginfod servers: %s\n",
	       PACKAGE_VERSION, LIBBPF_BUILD_VERSION,
	       probe_sites_decoder ? "emulated instructions, decoded by " :
				     "entries only (no x86 decoder)",
	       probe_sites_decoder ? probe_sites_decoder : "",
	       probe_sites_decoder && cfi ? "where a nested call is possible" :
					    "on every free (no x86 decoder or no libdw)",
	       tables,
	       unwind_backend ? ", DWARF by " : *tables ? " (no DWARF unwinder)" :
			       " only (no DWARF unwinder)",
	       unwind_backend ? unwind_backend : "", demangling, source_lines,
	       debuginfod);
}

struct keyword {
	const char *name;
	int value;
};

/* Each list in the order the help gives it, NULL-terminated. */
static const struct keyword stack_modes[] = {
	{ "auto", MS_STACK_AUTO }, { "fp", MS_STACK_FP },
	{ "dwarf", MS_STACK_DWARF }, { "none", MS_STACK_NONE }, { NULL, 0 },
};
static const struct keyword probe_links[] = {
	{ "auto", PROBE_LINKS_AUTO }, { "session", PROBE_LINKS_SESSION },
	{ "perf", PROBE_LINKS_PERF }, { NULL, 0 },
};
static const struct keyword symbolize_modes[] = {
	{ "capture", SYMBOLIZE_CAPTURE }, { "report", SYMBOLIZE_REPORT },
	{ "none", SYMBOLIZE_NONE }, { NULL, 0 },
};

/*
 * Sets *value to arg's among the keywords option takes; false, having
 * said which they are, when arg is none of them.
 */
static bool
parse_keyword(const char *option, const char *arg, const struct keyword *k,
	      int *value)
{
	char list[64] = "";
	size_t i;

	for (i = 0; k[i].name; i++) {
		if (!strcmp(arg, k[i].name)) {
			*value = k[i].value;
			return true;
		}
		/* "a, b or c" */
		if (i)
			strcat(list, k[i + 1].name ? ", " : " or ");
		strcat(list, k[i].name);
	}
	error_msg("%s takes %s, not '%s'", option, list, arg);
	return false;
}

static bool
parse_pid(const char *arg, pid_t *pid)
{
	uint64_t n;

	if (!human_parse(arg, &n, NULL) || !n || n > INT32_MAX) {
		error_msg("-p takes a process ID, not '%s'", arg);
		return false;
	}
	*pid = (pid_t)n;
	return true;
}

/*
 * --max-threads or --max-processes: the entries of a BPF map, no more
 * than the kernel's limit can exist at once.
 */
static bool
parse_map_option(const char *what, const char *limit, const char *arg,
		 size_t *entries)
{
	size_t n = parse_map_size(arg);
	/* No more can exist: a larger map only takes kernel memory. */
	unsigned long most = proc_kernel_limit(limit);

	if (!n) {
		error_msg("--max-%s takes a number from 1 to %d, not '%s'",
			  what, MAX_MAP_ENTRIES, arg);
		return false;
	}
	if (most && n > most) {
		error_msg("--max-%s=%zu is more than this machine can run "
			  "at once (kernel.%s is %lu)", what, n, limit, most);
		return false;
	}
	*entries = n;
	return true;
}

/* The ring's and the stacks' options; false, having said why, when wrong. */
static bool
take_bpf_option(int c, const char *arg, struct consumer_config *bpf)
{
	uint64_t size;
	size_t n;
	int v;

	switch (c) {
	case 'r':
		size = parse_size(arg);
		/* The kernel's rule for BPF ring buffers. */
		if (size < 4096 || size > RING_BYTES_MAX || (size & (size - 1))) {
			error_msg("--ring-size must be a power of two from 4K "
				  "to 2G, not '%s'", arg);
			return false;
		}
		bpf->ring_bytes = size;
		break;
	case 'l':
		if (!parse_keyword("--uprobe-links", arg, probe_links, &v))
			return false;
		bpf->links = v;
		break;
	case 'T':
		return parse_map_option("threads", "threads-max", arg,
					&bpf->max_threads);
	case 'M':
		return parse_map_option("processes", "pid_max", arg,
					&bpf->max_processes);
	case 'S':
		if (!parse_keyword("--stack", arg, stack_modes, &v))
			return false;
		bpf->stack_mode = v;
		break;
	case 'D':
		n = parse_map_size(arg);
		if (!n || n > MS_STACK_MAX) {
			error_msg("--stack-depth takes a number from 1 to %d, not '%s'",
				  MS_STACK_MAX, arg);
			return false;
		}
		bpf->stack_depth = (unsigned int)n;
		break;
	case 'C':
		size = parse_size(arg);
		if (size < MS_STACK_CHUNK || size > MS_STACK_COPY_MAX ||
		    size % MS_STACK_CHUNK) {
			error_msg("--stack-copy takes a size from 512 to 64K in "
				  "steps of 512, not '%s'", arg);
			return false;
		}
		bpf->stack_copy_bytes = size;
		break;
	case 'U':
		size = parse_size(arg);
		if (size < 4096 || size > (4ULL << 30)) {
			error_msg("--unwind-memory takes a size from 4K to 4G, "
				  "not '%s'", arg);
			return false;
		}
		bpf->unwind_bytes = size;
		break;
	case 'F':
		bpf->probes_only = true;
		break;
	}
	return true;
}

/* Any option of a capture; false, having said why, when wrong. */
static bool
take_option(int c, const char *arg, struct run_options *o,
	    struct capture_choices *given)
{
	int v;

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 's':
		o->status = true;
		break;
	case 'u':
		o->user = arg;
		break;
	case 'K':
		o->keep_root = true;
		break;
	case 'A':
		o->allow_partial = true;
		break;
	case 'X':
		o->print_traps = true;
		break;
	case 'p':
		return parse_pid(arg, &o->attach_pid);
	case 'd':
		if (!parse_timeout(arg, &o->duration_ns) ||
		    !o->duration_ns || o->duration_ns == PRESSURE_WAIT_FOREVER) {
			error_msg("--duration takes a duration such as 500ms, "
				  "2s or 1m, not '%s'", arg);
			return false;
		}
		break;
	case 'P':
		if (!parse_timeout(arg, &o->pressure_timeout_ns)) {
			error_msg("--pressure-timeout takes 0, a duration such as "
				  "500ms, 2s or 1m, or inf, not '%s'", arg);
			return false;
		}
		given->pressure_timeout_given = true;
		break;
	case 'w':
		given->watermark = parse_size(arg);
		if (!given->watermark) {
			error_msg("--watermark takes a size such as 64K or 8M, "
				  "not '%s'", arg);
			return false;
		}
		break;
	case 'i':
		return probe_sites_parse(arg, &o->probe_plan.sites);
	case 'W':
		o->probe_plan.forwarders = true;
		break;
	case 'R':
		o->probe_plan.free_returns = true;
		break;
	case 'Y':
		if (!parse_keyword("--symbolize", arg, symbolize_modes, &v))
			return false;
		o->symbolize = v;
		break;
	case 'Z': {
		uint64_t n;

		if (!human_parse(arg, &n, NULL) || !n || n > CAPTURE_LEVEL_MAX) {
			error_msg("--compress-level takes a number from 1 to %d, "
				  "not '%s'", CAPTURE_LEVEL_MAX, arg);
			return false;
		}
		o->compress_level = (int)n;
		break;
	}
	default:
		return take_bpf_option(c, arg, &o->bpf);
	}
	return true;
}

/*
 * Parses the options of a capture into o and given, up to CMD at optind.
 * Returns false when memsup is done, with its exit status in *status.
 */
static bool
parse_options(int argc, char **argv, struct run_options *o,
	      struct capture_choices *given, int *status)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "status", no_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "keep-root", no_argument, NULL, 'K' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "uprobe-links", required_argument, NULL, 'l' },
		{ "pressure-timeout", required_argument, NULL, 'P' },
		{ "watermark", required_argument, NULL, 'w' },
		{ "max-threads", required_argument, NULL, 'T' },
		{ "max-processes", required_argument, NULL, 'M' },
		{ "stack", required_argument, NULL, 'S' },
		{ "stack-depth", required_argument, NULL, 'D' },
		{ "stack-copy", required_argument, NULL, 'C' },
		{ "unwind-memory", required_argument, NULL, 'U' },
		{ "probes-only", no_argument, NULL, 'F' },
		{ "traps", no_argument, NULL, 'X' },
		{ "allow-partial", no_argument, NULL, 'A' },
		{ "probe-sites", required_argument, NULL, 'i' },
		{ "probe-forwarders", no_argument, NULL, 'W' },
		{ "free-returns", no_argument, NULL, 'R' },
		{ "symbolize", required_argument, NULL, 'Y' },
		{ "compress-level", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	capture_options_init(o);
	*given = (struct capture_choices){ 0 };
	*status = MS_EXIT_FAILURE;
	/* '+': options end at CMD, whose own options are left alone. */
	while ((c = getopt_long(argc, argv, "+o:qu:p:hV", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			*status = 0;
			return false;
		case 'V':
			version();
			*status = 0;
			return false;
		case '?':
			usage_hint(NULL);
			return false;
		default:
			if (!take_option(c, optarg, o, given))
				return false;
		}
	}
	return true;
}

/* The options that exclude or need each other; ncmd: CMD's words. */
static bool
check_combinations(const struct run_options *o, int ncmd)
{
	if (o->attach_pid && ncmd) {
		error_msg("-p and a command exclude each other");
		return false;
	}
	if (o->duration_ns && !o->attach_pid) {
		error_msg("--duration goes with -p");
		return false;
	}
	if (o->attach_pid && (o->user || o->keep_root)) {
		error_msg("-p attaches to a process as it runs: --user and "
			  "--keep-root do not apply");
		return false;
	}
	if (!o->attach_pid && !ncmd) {
		error_msg("no command given");
		usage_hint(NULL);
		return false;
	}
	if (o->user && o->keep_root) {
		error_msg("--user and --keep-root exclude each other");
		return false;
	}
	return true;
}

/* Completes o by the capture policy, saying what it refuses. */
static bool
apply_policy(struct run_options *o, const struct capture_choices *given)
{
	struct stack_support can = stack_support_built();
	bool auto_stacks = o->bpf.stack_mode == MS_STACK_AUTO;

	switch (capture_policy_apply(o, given, &can)) {
	case CAPTURE_POLICY_OK:
		break;
	case CAPTURE_POLICY_WATERMARK_PAST_RING:
		error_msg("--watermark must be below the ring size (%zu bytes)",
			  o->bpf.ring_bytes);
		return false;
	case CAPTURE_POLICY_NO_DWARF_UNWINDER:
		error_msg("--stack=dwarf: this memsup was built without a DWARF "
			  "unwinder (configure found no libunwind)");
		return false;
	}
	/* A stack from a malloc inside operator new starts at operator new's caller. */
	o->bpf.new_sites = o->bpf.stack_mode != MS_STACK_NONE && !o->probe_plan.forwarders;
	if (!can.dwarf_unwinder && auto_stacks && !o->quiet)
		error_msg("note: this memsup has no DWARF unwinder: stacks are %s",
			  o->bpf.stack_mode == MS_STACK_FP ?
			  "taken from frame pointers only" :
			  "walked from unwind tables and frame pointers, never copied");
	return true;
}

int
main(int argc, char **argv)
{
	struct capture_choices given;
	struct run_options o;
	int status;

	/*
	 * The live-block tables double as they grow.  glibc would raise its
	 * mmap threshold past each table freed and keep the old ones in the
	 * heap: a fixed threshold gives each back to the system at once.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return check_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "probes"))
		return probe_list_main(argc - 1, argv + 1);

	if (!parse_options(argc, argv, &o, &given, &status))
		return status;
	if (!check_combinations(&o, argc - optind) || !apply_policy(&o, &given))
		return MS_EXIT_FAILURE;
	if (!o.attach_pid) {
		o.argc = argc - optind;
		o.argv = argv + optind;
	}
	return run_capture(&o);
}
