# Shared by the shell tests: TAP output, a private work directory, the
# privilege check, and the normaliser that turns `memsup report --events`
# into a sequence independent of pids, tids and addresses.
#
# A test sources this file, calls require_bpf if it needs BPF and ptrace,
# then calls ok/not_ok/check and finally done_testing.

set -u

tests_run=0
tests_failed=0

ok() {
	tests_run=$((tests_run + 1))
	echo "ok $tests_run - $*"
}

not_ok() {
	tests_run=$((tests_run + 1))
	tests_failed=$((tests_failed + 1))
	echo "not ok $tests_run - $*"
}

# diag TEXT...: a TAP comment per line.
diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

# check NAME COMMAND...: one test point from a command's success.
# (Shell functions share their variables: the helpers' own start with _.)
check() {
	_check_name=$1
	shift
	if "$@"; then ok "$_check_name"; else not_ok "$_check_name"; fi
}

# quietly COMMAND...: COMMAND with its output dropped, for check.
quietly() {
	"$@" > /dev/null
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected: $2" "actual:   $3"
	fi
}

# check_same NAME EXPECTED_FILE ACTUAL_FILE: compares, shows the diff.
check_same() {
	if diff -u "$2" "$3" > "$work/diff" 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/# /' "$work/diff"
	fi
}

done_testing() {
	echo "1..$tests_run"
	[ "$tests_failed" -eq 0 ]
	exit
}

# skip_all REASON: the whole file is skipped; with MEMSUP_REQUIRE_BPF=1 a
# skip is a failure, so that CI cannot pass without running these tests.
# When some tests ran already, the rest is one skipped test point.
skip_all() {
	if [ "${MEMSUP_REQUIRE_BPF:-0}" = 1 ]; then
		not_ok "MEMSUP_REQUIRE_BPF=1 but: $*"
		done_testing
	fi
	if [ "$tests_run" -gt 0 ]; then
		tests_run=$((tests_run + 1))
		echo "ok $tests_run # SKIP $*"
		done_testing
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# not_built WHAT: a fixture configure could not build (no C++ compiler,
# no jemalloc...): skipped, but a failure when MEMSUP_REQUIRE_BPF=1, as
# CI installs everything.
not_built() {
	if [ "${MEMSUP_REQUIRE_BPF:-0}" = 1 ]; then
		not_ok "$1: not built, but MEMSUP_REQUIRE_BPF=1 (see configure's output)"
	else
		ok "# SKIP $1: not built here (see configure's output)"
	fi
}

# skip_point REASON: one test point skipped for a condition of the
# machine that is not memsup's (a nosuid mount...): a failure when
# MEMSUP_REQUIRE_BPF=1, as CI must run everything.
skip_point() {
	if [ "${MEMSUP_REQUIRE_BPF:-0}" = 1 ]; then
		not_ok "$1, but MEMSUP_REQUIRE_BPF=1"
	else
		ok "# SKIP $1"
	fi
}

# Under sudo, memsup runs the workload as the user who ran sudo, who may
# not enter the private work directory: the tests that want that say so.
unset SUDO_UID SUDO_GID

work=$(mktemp -d "${TMPDIR:-/tmp}/memsup-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 99

# Every memsup run is bounded: a hang fails the test instead of CI.
# MEMSUP_PROBE_SITES=entry runs every capture with --probe-sites=entry
# (tests/entry-sites.test); $probe_sites is that option, for the tests
# that run $MEMSUP themselves.  MEMSUP_PROBE_FORWARDERS=1 adds
# --probe-forwarders --free-returns to the captures of memsup and
# start_memsup, every function and every return probed
# (tests/forwarders.test).
MEMSUP_TIMEOUT=${MEMSUP_TIMEOUT:-120}
probe_sites=--probe-sites=${MEMSUP_PROBE_SITES:-auto}
every_probe=${MEMSUP_PROBE_FORWARDERS:+--probe-forwarders --free-returns}
memsup() {
	case ${1:-} in
	report | diff | check | probes) timeout --foreground -k 5 "$MEMSUP_TIMEOUT" "$MEMSUP" "$@" ;;
	*) timeout --foreground -k 5 "$MEMSUP_TIMEOUT" "$MEMSUP" "$probe_sites" \
		$every_probe "$@" ;;
	esac
}

# start_memsup ARGS...: a capture in the background, as the memsup
# function runs it, with memsup's own pid in $memsup_pid: a signal the
# test sends to it is memsup's, not a wrapper's that passes it on late.
# A watchdog bounds it instead of timeout(1): SIGTERM after MEMSUP_TIMEOUT,
# SIGKILL 5 s on.
start_memsup() {
	"$MEMSUP" "$probe_sites" $every_probe "$@" &
	memsup_pid=$!
	(
		trap 'kill $_sleep 2> /dev/null; exit 0' TERM
		sleep "$MEMSUP_TIMEOUT" & _sleep=$!
		wait $_sleep || exit 0
		kill -TERM "$memsup_pid"
		sleep 5 & _sleep=$!
		wait $_sleep || exit 0
		kill -KILL "$memsup_pid"
	) > /dev/null 2>&1 &
	eval "_watchdog_$memsup_pid=$!"
}

# wait_memsup PID: waits for a memsup of start_memsup; its exit status in
# $status.  Its watchdog ends with it.
wait_memsup() {
	wait "$1"
	status=$?
	eval "kill \$_watchdog_$1 2> /dev/null; wait \$_watchdog_$1"
}

# dies PID: PID is gone, or a zombie, within 60 s (a SIGKILL sent as
# memsup exits takes effect when PID next runs, which a loaded machine
# may put off).
dies() {
	_i=0
	while [ $_i -lt 1200 ]; do
		case $(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2> /dev/null) in
		'' | Z* | X*) return 0 ;;
		esac
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

# require_bpf: skip unless memsup can trace here.  Only what memsup
# says of the machine is a reason to skip (src/record/run.c, check_environment
# and explain_bpf_failure: exit status 125 and one line naming missing
# capabilities, no BTF or no BPF); any other failure, a verifier
# rejection or a crash, is memsup's and fails the file.
require_bpf() {
	memsup -q -o "$work/probe.cap" -- true 2> "$work/probe.err"
	_probe_status=$?
	if [ $_probe_status = 0 ]; then
		rm -f "$work/probe.cap" "$work/probe.err"
		return
	fi
	if [ $_probe_status = 125 ] && [ "$(wc -l < "$work/probe.err")" = 1 ] &&
	    grep -Eq \
		-e '^memsup: memsup needs root, or CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE; missing: ' \
		-e '^memsup: this kernel exposes no BTF \(/sys/kernel/btf/vmlinux\); ' \
		-e '^memsup: cannot .*: this kernel has no BPF support \(CONFIG_BPF_SYSCALL\)$' \
		"$work/probe.err"; then
		skip_all "memsup cannot trace here: $(cat "$work/probe.err")"
	fi
	not_ok "memsup -- true: exit status $_probe_status"
	diag "stderr was:" "$(cat "$work/probe.err")"
	done_testing
}

# capture NAME [OPTIONS --] CMD...: runs CMD under memsup into NAME.cap,
# with the summary in NAME.err and the exit status in $status.
capture() {
	_capture_name=$1
	shift
	memsup -o "$work/$_capture_name.cap" "$@" > "$work/$_capture_name.out" \
		2> "$work/$_capture_name.err"
	status=$?
}

# wait_recorded CAPTURE EVENT: waits (60 s at most) until memsup's
# temporary file for CAPTURE, synced each second, holds a record that
# memsup report --events prints matching the extended regular expression
# EVENT; the file's name in $tmp.  A handshake with a running memsup:
# what it recorded, not a sleep that a loaded machine may outlast.
wait_recorded() {
	tmp=
	_i=0
	while [ $_i -lt 600 ]; do
		tmp=$(ls "$1".* 2> /dev/null)
		if [ -n "$tmp" ] && "$MEMSUP" report --events "$tmp" 2> /dev/null |
		    grep -Eq "$2"; then
			return
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	diag "wait_recorded $1: no record matching '$2' in ${tmp:-no temporary file} after 60 s"
}

# status_of PID FIELD: a field of /proc/PID/status.
status_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# wait_traced PID: until PID has a tracer, for at most 30 s.
wait_traced() {
	_i=0
	while [ "$(status_of "$1" TracerPid)" = 0 ] && [ $_i -lt 600 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}

# normalize [all] < events: the records inside the marker regions (see
# tests/fixtures/fixture.h), or with "all" every record, with processes
# named P1, P2... and blocks A1, A2... in order of appearance.  A block's
# name lives from the call that returned it to the one that freed it, so
# the sequence does not depend on where the allocator places blocks.  An
# exec ends a region.
normalize() {
	awk -v begin=19 -v end=23 -v all="${1:-}" '
	function proc(pid) {
		if (!(pid in pname))
			pname[pid] = "P" (++npids)
		return pname[pid]
	}
	function field(key,   i) {
		for (i = 5; i <= NF; i++)
			if (index($i, key "=") == 1)
				return substr($i, length(key) + 2)
		return ""
	}
	function born(pid, ptr) {
		if (ptr == "0x0")
			return "NULL"
		live[pid, ptr] = "A" (++nblocks)
		return live[pid, ptr]
	}
	function died(pid, ptr,   name) {
		if (ptr == "0x0")
			return "NULL"
		if (!((pid, ptr) in live))
			return "?"
		name = live[pid, ptr]
		delete live[pid, ptr]
		return name
	}
	{
		pid = $2; what = $4
		if (all)
			inside[pid] = 1
		if (what == "Fork") {
			child = field("child")
			inside[child] = inside[pid]
			for (k in live) {
				split(k, key, SUBSEP)
				if (key[1] == pid)
					live[child, key[2]] = live[k]
			}
			if (inside[pid])
				print proc(pid), "Fork", proc(child)
			next
		}
		if (what == "Exec") {
			inside[pid] = 0
			next
		}
		if (what == "Stack" || what == "Mapping")
			next
		if (what == "Exit") {
			if (inside[pid])
				print proc(pid), "Exit", $5
			next
		}
		size = field("size"); ptr = field("ptr")
		if (what == "Malloc" && size == begin && !inside[pid]) {
			marker[pid] = ptr
			next
		}
		if (what == "Free" && (pid in marker) && ptr == marker[pid]) {
			delete marker[pid]
			inside[pid] = 1
			next
		}
		if (what == "Malloc" && size == end && inside[pid] && !all) {
			inside[pid] = 0
			next
		}
		if (!inside[pid])
			next
		if (what == "Free")
			print proc(pid), what, died(pid, ptr)
		else if (what == "Realloc" || what == "ReallocArray") {
			old = field("old")
			# A failed realloc leaves the block live under its name.
			if (ptr == "0x0" && size != 0)
				print proc(pid), what, size, (((pid, old) in live) ? live[pid, old] : "?"), "NULL"
			else {
				oldname = (old == "0x0") ? "NULL" : died(pid, old)
				print proc(pid), what, size, oldname, born(pid, ptr)
			}
		} else
			print proc(pid), what, size, born(pid, ptr)
	}'
}

# lost NAME: the lost-records count of NAME's summary.
lost() {
	sed -n 's/^  lost records: *//p' "$work/$1.err" | exact
}

# left_out NAME: the stacks left out that NAME's summary counts (0 when
# it names none).
left_out() {
	_left=$(exact < "$work/$1.err" |
		sed -n 's/^  stacks left out: \([0-9]*\) (the ring was full)$/\1/p')
	echo "${_left:-0}"
}

# stops NAME: the pressure stops of NAME's summary (0 when there were none).
stops() {
	_stops=$(sed -n 's/^  pressure stops: *//p' "$work/$1.err" | exact)
	echo "${_stops:-0}"
}

# pairs_done NAME: the malloc/free pairs the fixtures of NAME say they made.
pairs_done() {
	awk '$1 == "pairs" { n += $2 } END { print n + 0 }' "$work/$1.out"
}

# pairs_seen NAME: the Malloc(16) calls inside marker regions of NAME.cap.
pairs_seen() {
	memsup report --events "$work/$1.cap" | normalize | grep -c ' Malloc 16 '
}

# summary_field FILE SECTION FIELD: a value from a summary, as shown,
# where SECTION is "whole tree" (with more than one process), "process
# PID" or "process" for the first, and FIELD e.g. "peak live heap".
summary_field() {
	awk -v section="$2" -v field="$3" '
		/^  [^ ]/ { here = (index($0, "  " section) == 1) }
		here && index($0, "    " field ":") == 1 {
			sub("^    " field ": *", ""); print; exit
		}' "$1"
}

# process_field FILE PID FIELD: a column of PID's line in a summary's
# process table, as shown: exit, allocations, peak, leaked or command.
process_field() {
	awk -v pid="$2" -v field="$3" '
		function trim(s) { gsub(/^ +| +$/, "", s); return s }
		/^  processes, largest peak first:$/ { table = 1; next }
		table && trim(substr($0, 3, 9)) == pid {
			if (field == "exit") print trim(substr($0, 13, 9))
			if (field == "allocations") print trim(substr($0, 23, 13))
			if (field == "peak") print trim(substr($0, 37, 12))
			if (field == "leaked") print trim(substr($0, 50, 12))
			if (field == "command") print substr($0, 64)
			exit
		}' "$1"
}

# check_replayed NAME: memsup report NAME.cap gives the summary that the
# live run printed to NAME.err, line for line (up to the size classes,
# which only the report has, and the top sites, which the run adds).
check_replayed() {
	sed -n '/^memsup summary/,$p' "$work/$1.err" | sed '/^top sites by/,$d' |
		grep -v '^memsup:' > "$work/$1.live"
	memsup report -n 0 "$work/$1.cap" | sed -n '/^memsup summary/,$p' |
		sed '/^allocations by size/,$d' > "$work/$1.replayed"
	check_same "$1: report replays the live summary" "$work/$1.live" \
		"$work/$1.replayed"
}

# exact < TEXT: TEXT with its figures as a person reads them turned back
# into exact ones: "19.1 MiB (20,012,176 bytes)" into "20012176 bytes",
# "7,012" into "7012".
exact() {
	sed -E -e 's/[0-9.]+ [KMGTPE]iB \(([0-9,]+ bytes)\)/\1/g' \
		-e ':a' -e 's/([0-9]),([0-9]{3})/\1\2/' -e 'ta'
}

# summary_exact FILE SECTION FIELD: summary_field's figure, exact.
summary_exact() {
	summary_field "$@" | exact
}
