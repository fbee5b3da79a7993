# Checks for building the BPF side: the target arch, clang with the BPF
# target, bpftool and the vmlinux.h to compile against.

# MS_BPF_ARCH: map the host cpu to the __TARGET_ARCH_ name bpf_tracing.h uses.
AC_DEFUN([MS_BPF_ARCH], [
	AC_REQUIRE([AC_CANONICAL_HOST])
	AS_CASE([$host_cpu],
		[x86_64], [BPF_TARGET_ARCH=x86; ms_vmlinux_arch=x86_64],
		[AC_MSG_ERROR([memsup supports x86_64 hosts only, not $host_cpu])])
	AC_SUBST([BPF_TARGET_ARCH])
])

# MS_LIBBPF_VERSION: record the libbpf version for memsup --version.
AC_DEFUN([MS_LIBBPF_VERSION], [
	ms_libbpf_version=`$PKG_CONFIG --modversion libbpf`
	AC_DEFINE_UNQUOTED([LIBBPF_BUILD_VERSION], ["$ms_libbpf_version"],
		[libbpf version memsup was built against])
])

# MS_PROG_BPF_CLANG: clang that can emit BPF objects.
AC_DEFUN([MS_PROG_BPF_CLANG], [
	AC_ARG_VAR([BPF_CLANG], [clang used to compile the BPF programs])
	AC_CHECK_PROGS([BPF_CLANG], [clang clang-16 clang-15 clang-14])
	AS_IF([test -z "$BPF_CLANG"],
		[AC_MSG_ERROR([clang is required to build the BPF programs (Debian: clang)])])
	AC_CACHE_CHECK([whether $BPF_CLANG can target bpf], [ms_cv_clang_bpf], [
		echo 'int f(void) { return 0; }' > conftest.bpf.c
		AS_IF([$BPF_CLANG -g -O2 -target bpf -c conftest.bpf.c -o conftest.bpf.o >&AS_MESSAGE_LOG_FD 2>&1],
			[ms_cv_clang_bpf=yes], [ms_cv_clang_bpf=no])
		rm -f conftest.bpf.c conftest.bpf.o
	])
	AS_IF([test "$ms_cv_clang_bpf" != yes],
		[AC_MSG_ERROR([$BPF_CLANG cannot compile for the BPF target (Debian: clang, llvm)])])
])

# MS_BPF_SYS_INCLUDES: clang -target bpf searches no multiarch directory,
# and libbpf's usdt.bpf.h reaches <asm/errno.h> through <linux/errno.h>.
AC_DEFUN([MS_BPF_SYS_INCLUDES], [
	AC_REQUIRE([AC_PROG_CC])
	ms_multiarch=`$CC -print-multiarch 2>/dev/null`
	BPF_SYS_CFLAGS=
	AS_IF([test -n "$ms_multiarch" && test -d "/usr/include/$ms_multiarch"],
		[BPF_SYS_CFLAGS="-idirafter /usr/include/$ms_multiarch"])
	AC_SUBST([BPF_SYS_CFLAGS])
])

# MS_PROG_BPFTOOL: Debian installs bpftool in /usr/sbin, which is often not
# in a user's PATH.
AC_DEFUN([MS_PROG_BPFTOOL], [
	AC_ARG_VAR([BPFTOOL], [bpftool used to link BPF objects and generate skeletons])
	AC_PATH_PROG([BPFTOOL], [bpftool], [], [$PATH$PATH_SEPARATOR/usr/sbin$PATH_SEPARATOR/sbin])
	AS_IF([test -z "$BPFTOOL"],
		[AC_MSG_ERROR([bpftool is required to generate BPF skeletons (Debian: bpftool)])])
	AC_CACHE_CHECK([whether $BPFTOOL can generate skeletons], [ms_cv_bpftool_skel], [
		AS_IF([$BPFTOOL gen help 2>&1 | grep -q skeleton],
			[ms_cv_bpftool_skel=yes], [ms_cv_bpftool_skel=no])
	])
	AS_IF([test "$ms_cv_bpftool_skel" != yes],
		[AC_MSG_ERROR([$BPFTOOL has no 'gen skeleton'; install a newer bpftool])])
])

# MS_VMLINUX_H: which vmlinux.h the BPF programs compile against.
#   vendored  (default) the pinned header in bpf/vmlinux/<arch>/: a build
#             never reads the build host's kernel
#   provided  a header the packager supplies with --with-vmlinux-h-path
#   generated dumped from /sys/kernel/btf/vmlinux at build time (opt-in)
AC_DEFUN([MS_VMLINUX_H], [
	AC_ARG_WITH([vmlinux-h],
		[AS_HELP_STRING([--with-vmlinux-h=vendored|provided|generated],
			[where vmlinux.h comes from @<:@default=vendored@:>@])],
		[ms_vmlinux_h=$withval], [ms_vmlinux_h=vendored])
	AC_ARG_WITH([vmlinux-h-path],
		[AS_HELP_STRING([--with-vmlinux-h-path=FILE],
			[vmlinux.h to use with --with-vmlinux-h=provided])],
		[ms_vmlinux_h_path=$withval], [ms_vmlinux_h_path=])
	AS_CASE([$ms_vmlinux_h],
		[vendored], [VMLINUX_H='$(top_srcdir)/bpf/vmlinux/'$ms_vmlinux_arch'/vmlinux.h'],
		[provided], [
			AS_IF([test -z "$ms_vmlinux_h_path"],
				[AC_MSG_ERROR([--with-vmlinux-h=provided needs --with-vmlinux-h-path=FILE])])
			AS_IF([test ! -r "$ms_vmlinux_h_path"],
				[AC_MSG_ERROR([cannot read vmlinux.h at $ms_vmlinux_h_path])])
			VMLINUX_H=$ms_vmlinux_h_path],
		[generated], [
			AS_IF([test ! -r /sys/kernel/btf/vmlinux],
				[AC_MSG_ERROR([--with-vmlinux-h=generated needs /sys/kernel/btf/vmlinux])])
			VMLINUX_H='bpf/generated/vmlinux.h'],
		[AC_MSG_ERROR([--with-vmlinux-h takes vendored, provided or generated, not '$ms_vmlinux_h'])])
	AS_IF([test -n "$ms_vmlinux_h_path" && test "$ms_vmlinux_h" != provided],
		[AC_MSG_ERROR([--with-vmlinux-h-path needs --with-vmlinux-h=provided])])
	AM_CONDITIONAL([VMLINUX_H_GENERATED], [test "$ms_vmlinux_h" = generated])
	AC_SUBST([VMLINUX_H])
])

# MS_WARNINGS: the warning set, and --enable-werror (used by CI).
AC_DEFUN([MS_WARNINGS], [
	AC_ARG_ENABLE([werror],
		[AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
		[], [enable_werror=no])
	WARN_CFLAGS="-Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter"
	AS_IF([test "$enable_werror" = yes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
	AC_SUBST([WARN_CFLAGS])
])

# MS_SANITIZERS: --enable-sanitizers builds memsup and its unit tests (not
# the fixtures, whose allocations the tests count) with AddressSanitizer
# and UndefinedBehaviorSanitizer.
AC_DEFUN([MS_SANITIZERS], [
	AC_ARG_ENABLE([sanitizers],
		[AS_HELP_STRING([--enable-sanitizers],
			[build memsup with AddressSanitizer and UndefinedBehaviorSanitizer])],
		[], [enable_sanitizers=no])
	SANITIZER_CFLAGS=
	AS_IF([test "$enable_sanitizers" = yes], [
		SANITIZER_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
		ms_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS $SANITIZER_CFLAGS"
		AC_MSG_CHECKING([whether $CC links with the sanitizers])
		AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
			[AC_MSG_RESULT([yes])],
			[AC_MSG_RESULT([no])
			 AC_MSG_ERROR([$CC cannot build with -fsanitize=address,undefined (Debian: libasan, libubsan)])])
		CFLAGS=$ms_save_CFLAGS])
	AC_SUBST([SANITIZER_CFLAGS])
])

# MS_LIBFUZZER: the fuzz targets need clang with libFuzzer (Debian:
# libclang-rt-dev).  --enable-fuzzer=check, the default, leaves them out
# when it is missing, and their test skips; =yes makes that an error, for
# CI, where a skipped fuzz test would pass unnoticed.
AC_DEFUN([MS_LIBFUZZER], [
	AC_REQUIRE([MS_PROG_BPF_CLANG])
	AC_ARG_ENABLE([fuzzer],
		[AS_HELP_STRING([--enable-fuzzer@<:@=yes|no|check@:>@],
			[build the libFuzzer targets of the tests @<:@check@:>@])],
		[], [enable_fuzzer=check])
	AS_CASE([$enable_fuzzer], [yes|no|check], [],
		[AC_MSG_ERROR([--enable-fuzzer takes yes, no or check, not $enable_fuzzer])])
	ms_libfuzzer=no
	AS_IF([test "$enable_fuzzer" != no], [
		AC_CACHE_CHECK([whether $BPF_CLANG has libFuzzer], [ms_cv_libfuzzer], [
			cat > conftest.fuzz.c <<_MS_EOF
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }
_MS_EOF
			AS_IF([$BPF_CLANG -fsanitize=fuzzer,address,undefined conftest.fuzz.c -o conftest.fuzz >&AS_MESSAGE_LOG_FD 2>&1],
				[ms_cv_libfuzzer=yes], [ms_cv_libfuzzer=no])
			rm -f conftest.fuzz.c conftest.fuzz
		])
		ms_libfuzzer=$ms_cv_libfuzzer])
	AS_IF([test "$enable_fuzzer" = yes && test "$ms_libfuzzer" = no],
		[AC_MSG_ERROR([$BPF_CLANG cannot build libFuzzer targets (Debian: libclang-rt-dev)])])
	FUZZ_CC=$BPF_CLANG
	AC_SUBST([FUZZ_CC])
	AM_CONDITIONAL([HAVE_LIBFUZZER], [test "$ms_libfuzzer" = yes])
])
