/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Can this memsup trace here?  Capabilities and kernel support. */
#ifndef MEMSUP_PRIVILEGES_H
#define MEMSUP_PRIVILEGES_H

#include <stddef.h>

/*
 * Returns 0 when the effective capabilities cover BPF, perf events and
 * ptrace; otherwise -EPERM with the missing ones, comma-separated, in
 * missing.
 */
int check_capabilities(char *missing, size_t size);

/* Returns 0 when the kernel exposes its BTF, which CO-RE needs. */
int check_kernel_btf(void);

#endif
