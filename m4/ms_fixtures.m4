# Test fixtures that need more than a C compiler: the C++ program built
# against each allocator and statically, the Rust program, and the region
# fixture (sys/sdt.h).  None is required to build memsup; a test skips a
# missing fixture, and fails on it when MEMSUP_REQUIRE_BPF=1 (CI).
# --enable-all-fixtures makes a missing one an error already here, for CI,
# which installs everything.

# MS_FIXTURE_LINK(VAR, DESCRIPTION, LDFLAGS, LIBS, PACKAGE): whether a C++
# program links with LDFLAGS and LIBS; sets the conditional VAR.  PACKAGE
# is the Debian package the error names.
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
	MS_FIXTURE_REQUIRED([$ms_ok], [C++ does not link $2 (Debian: $5)])
	AM_CONDITIONAL([$1], [test "$ms_ok" = yes])
])

# MS_FIXTURE_REQUIRED(FOUND, MESSAGE): an error when FOUND is not yes and
# --enable-all-fixtures was given.
AC_DEFUN([MS_FIXTURE_REQUIRED], [
	AS_IF([test "$1" != yes && test "$enable_all_fixtures" = yes],
		[AC_MSG_ERROR([--enable-all-fixtures: $2])])
])

AC_DEFUN([MS_FIXTURES], [
	AC_REQUIRE([AC_PROG_CXX])
	AC_ARG_ENABLE([all-fixtures],
		[AS_HELP_STRING([--enable-all-fixtures],
			[fail unless every test fixture can be built])],
		[], [enable_all_fixtures=no])
	MS_FIXTURE_LINK([HAVE_CXX], [a program], [], [], [g++])
	MS_FIXTURE_LINK([HAVE_JEMALLOC], [with jemalloc], [], [-ljemalloc],
		[libjemalloc-dev])
	MS_FIXTURE_LINK([HAVE_MIMALLOC], [with mimalloc], [], [-lmimalloc],
		[libmimalloc-dev])
	MS_FIXTURE_LINK([HAVE_TCMALLOC], [with tcmalloc], [], [-ltcmalloc],
		[libgoogle-perftools-dev])
	MS_FIXTURE_LINK([HAVE_STATIC_CXX], [statically], [-static], [], [g++])
	MS_FIXTURE_LINK([HAVE_STATIC_JEMALLOC], [statically with jemalloc],
		[-static], [-ljemalloc -lpthread], [libjemalloc-dev])
	AC_CHECK_PROGS([RUSTC], [rustc])
	MS_FIXTURE_REQUIRED([${RUSTC:+yes}], [no rustc (Debian: rustc)])
	AM_CONDITIONAL([HAVE_RUSTC], [test -n "$RUSTC"])
	dnl The region fixture's marks, and what memsup/region.h includes.
	AC_CHECK_HEADER([sys/sdt.h], [ms_sdt=yes], [ms_sdt=no])
	MS_FIXTURE_REQUIRED([$ms_sdt], [no sys/sdt.h (Debian: systemtap-sdt-dev)])
	AM_CONDITIONAL([HAVE_SDT], [test "$ms_sdt" = yes])
])
