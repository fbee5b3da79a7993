// SPDX-License-Identifier: GPL-2.0-or-later
/* memsup: command line. */
#include "config.h"
#include "error.h"
#include "report.h"
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults; doc/design.md explains the sizes. */
enum {
	DEFAULT_RING_BYTES = 16 << 20,
	DEFAULT_MAX_THREADS = 16384,
};

static void
usage(FILE *out)
{
	fputs("Usage: memsup [OPTIONS] [--] CMD [ARGS...]\n"
	      "       memsup report [--events] FILE\n"
	      "\n"
	      "Run CMD under memsup and record every heap allocation and free of\n"
	      "its whole process tree; print a summary on exit.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output=FILE  write the capture to FILE\n"
	      "                     (default: memsup.CMD.PID.cap)\n"
	      "  -q, --quiet        print no summary\n"
	      "      --ring-size=SIZE\n"
	      "                     BPF ring buffer size, a power of two from 4K\n"
	      "                     to 2G; K, M and G suffixes (default: 16M)\n"
	      "      --uprobe-links=auto|session|perf\n"
	      "                     attach with one uprobe session link per file\n"
	      "                     (Linux 6.10+), or one perf link per probe;\n"
	      "                     auto picks session links where they work\n"
	      "  -h, --help         show this help and exit\n"
	      "  -V, --version      show the version and built-in features\n"
	      "\n"
	      "Exit status: CMD's own (128+N if killed by signal N); 124 if the\n"
	      "capture is incomplete; 125 if memsup failed; 126 if CMD cannot be\n"
	      "run; 127 if CMD was not found.  See memsup(1).\n", out);
}

/* "16M" -> 16777216; 0 when malformed. */
static uint64_t
parse_size(const char *arg)
{
	unsigned long long n;
	char *end;
	int shift = 0;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || end == arg || arg[0] == '-')
		return 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (*end || n > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)n << shift;
}

static void
version(void)
{
	printf("memsup %s\n"
	       "features: libbpf %s, per-process uprobes, stack traces: none\n",
	       PACKAGE_VERSION, LIBBPF_BUILD_VERSION);
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "uprobe-links", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_options o = {
		.ring_bytes = DEFAULT_RING_BYTES,
		.max_threads = DEFAULT_MAX_THREADS,
	};
	int c;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);

	/* '+': options end at CMD, whose own options are left alone. */
	while ((c = getopt_long(argc, argv, "+o:qhV", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'l':
			if (!strcmp(optarg, "auto")) {
				o.links = PROBE_LINKS_AUTO;
			} else if (!strcmp(optarg, "session")) {
				o.links = PROBE_LINKS_SESSION;
			} else if (!strcmp(optarg, "perf")) {
				o.links = PROBE_LINKS_PERF;
			} else {
				error_msg("--uprobe-links takes auto, session or perf, "
					  "not '%s'", optarg);
				return MS_EXIT_FAILURE;
			}
			break;
		case 'r': {
			uint64_t size = parse_size(optarg);

			/* The kernel's rule for BPF ring buffers. */
			if (size < 4096 || size > (1ULL << 31) || (size & (size - 1))) {
				error_msg("--ring-size must be a power of two from 4K "
					  "to 2G, not '%s'", optarg);
				return MS_EXIT_FAILURE;
			}
			o.ring_bytes = size;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			version();
			return 0;
		default:
			usage(stderr);
			return MS_EXIT_FAILURE;
		}
	}
	if (optind == argc) {
		error_msg("no command given");
		usage(stderr);
		return MS_EXIT_FAILURE;
	}
	o.argc = argc - optind;
	o.argv = argv + optind;
	return run_capture(&o);
}
