# Test fixtures that need more than a C compiler: the C++ program built
# against each allocator and statically, the Rust program, and the region
# fixture (sys/sdt.h).  None is
# required to build memsup; tests/allocators.test skips a missing build,
# and fails on it when MEMSUP_REQUIRE_BPF=1 (CI).

# MS_FIXTURE_LINK(VAR, DESCRIPTION, LDFLAGS, LIBS): whether a C++ program
# links with LDFLAGS and LIBS; sets the conditional VAR.
AC_DEFUN([MS_FIXTURE_LINK], [
	AC_MSG_CHECKING([whether C++ links $2])
	ms_save_LDFLAGS=$LDFLAGS
	ms_save_LIBS=$LIBS
	LDFLAGS="$LDFLAGS $3"
	LIBS="$4 $LIBS"
	AC_LANG_PUSH([C++])
	AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <vector>]],
			[[std::vector<int> v(3); return v.size() != 3;]])],
		[ms_ok=yes], [ms_ok=no])
	AC_LANG_POP([C++])
	LDFLAGS=$ms_save_LDFLAGS
	LIBS=$ms_save_LIBS
	AC_MSG_RESULT([$ms_ok])
	AM_CONDITIONAL([$1], [test "$ms_ok" = yes])
])

AC_DEFUN([MS_FIXTURES], [
	AC_REQUIRE([AC_PROG_CXX])
	MS_FIXTURE_LINK([HAVE_CXX], [a program], [], [])
	MS_FIXTURE_LINK([HAVE_JEMALLOC], [with jemalloc], [], [-ljemalloc])
	MS_FIXTURE_LINK([HAVE_MIMALLOC], [with mimalloc], [], [-lmimalloc])
	MS_FIXTURE_LINK([HAVE_TCMALLOC], [with tcmalloc], [], [-ltcmalloc])
	MS_FIXTURE_LINK([HAVE_STATIC_CXX], [statically], [-static], [])
	MS_FIXTURE_LINK([HAVE_STATIC_JEMALLOC], [statically with jemalloc],
		[-static], [-ljemalloc -lpthread])
	AC_CHECK_PROGS([RUSTC], [rustc])
	AM_CONDITIONAL([HAVE_RUSTC], [test -n "$RUSTC"])
	dnl The region fixture's marks, and what memsup/region.h includes.
	AC_CHECK_HEADER([sys/sdt.h], [ms_sdt=yes], [ms_sdt=no])
	AM_CONDITIONAL([HAVE_SDT], [test "$ms_sdt" = yes])
])
