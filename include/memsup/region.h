/* SPDX-License-Identifier: MIT */
/*
 * memsup/region.h: named regions for memsup's reports.
 *
 *	#include <memsup/region.h>
 *
 *	MEMSUP_REGION_BEGIN("parse");
 *	parse(input);
 *	MEMSUP_REGION_END("parse");
 *
 * `memsup -- PROGRAM` then reports, for each region name, how many times
 * it was entered, the allocations made and bytes allocated while it was
 * open, by any thread of the process, and its peak: the most the
 * process's live heap rose above its level at the begin.
 *
 * name is a NUL-terminated string, a literal or built at run time; memsup
 * keeps its first 255 bytes.  A region of one name is open from its first
 * begin to the end that balances it.  Each mark is a USDT probe
 * (sys/sdt.h, Debian's systemtap-sdt-dev): without memsup it costs one nop
 * instruction, and placing the name's address in a register.
 *
 * This header is under the MIT license, so that any program may include
 * it, whatever its own license.
 */
#ifndef MEMSUP_REGION_H
#define MEMSUP_REGION_H

#include <sys/sdt.h>

#define MEMSUP_REGION_BEGIN(name) \
	DTRACE_PROBE1(memsup, region_begin, (const char *)(name))
#define MEMSUP_REGION_END(name) \
	DTRACE_PROBE1(memsup, region_end, (const char *)(name))

#endif
