/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Can this memsup trace here?  Capabilities and kernel support. */
#ifndef MEMSUP_PRIVILEGES_H
#define MEMSUP_PRIVILEGES_H

/*
 * Returns 0 when the effective capabilities cover BPF, perf events and
 * ptrace; otherwise -EPERM with *why listing the missing ones,
 * comma-separated; another negative errno when capget fails.
 */
int check_capabilities(const char **why);

/* Returns 0 when the kernel exposes its BTF, which CO-RE needs. */
int check_kernel_btf(void);

/*
 * The capabilities, the kernel's BTF and memsup's PID namespace, each
 * failure told the user; *pidns_inum gets the namespace.  Returns 0, or
 * memsup's exit status once the user is told why not.
 */
int check_environment(unsigned int *pidns_inum);
/* Tells the user why what, a step of loading the BPF programs, failed with err. */
void explain_bpf_failure(const char *what, int err);

#endif
