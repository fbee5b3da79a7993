// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "record.h"

#include <stddef.h>

const char *
call_name(uint32_t call)
{
	static const char *const names[MS_CALL_MAX] = {
		[MS_CALL_MALLOC] = "Malloc",
		[MS_CALL_CALLOC] = "Calloc",
		[MS_CALL_REALLOC] = "Realloc",
		[MS_CALL_REALLOCARRAY] = "ReallocArray",
		[MS_CALL_FREE] = "Free",
		[MS_CALL_ALIGNED_ALLOC] = "AlignedAlloc",
		[MS_CALL_MEMALIGN] = "Memalign",
		[MS_CALL_POSIX_MEMALIGN] = "PosixMemalign",
		[MS_CALL_VALLOC] = "Valloc",
		[MS_CALL_PVALLOC] = "Pvalloc",
	};

	return call < MS_CALL_MAX ? names[call] : NULL;
}
