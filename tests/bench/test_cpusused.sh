#!/usr/bin/env bash
# cpusused's trace analysis on hand-made traces whose answer is worked out
# below (the tool measures the benchmark's light-load target). Runs on any host.
set -u
bin=${1:-build/vm-bin/cpusused}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../check.sh"
check() { check_run cpusused "$1" "$2" "$3" "$bin" --parse "$4"; } # name want_rc regex trace
sw() { # cpu time prev_comm prev_pid next_comm next_pid
	printf '%16s-%-7s [%03d] d..2. %12s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=S ==> next_comm=%s next_pid=%s next_prio=120\n' \
		"$3" "$4" "$1" "$2" "$3" "$4" "$5" "$6"
}
mk() { # entries marks...: a header, then stdin
	printf '# tracer: nop\n#\n# entries-in-buffer/entries-written: %s   #P:2\n#\n' "$1"
	cat
}
# The span is 100.000-100.050 s: 5 windows of 10 ms, 4 in every one of the
# 10 grid placements (1 ms apart), 40 window slots in all.
# - CPU 0 runs pid 10 over 100.015-100.016: one window in 9 placements, two
#   in the one whose boundary falls inside (grid at 100.006): 11.
# - CPU 1 runs pid 20 from before the start to 100.005: the first window of
#   the 6 placements starting at or before 100.005: 6.
# - CPU 1 runs the measurement itself (pid 99, the start mark's writer) over
#   100.030-100.031: not counted.
# (11 + 6) / 40 = 0.425.
{
	printf '%16s-%-7s [%03d] ...1. %12s: tracing_mark_write: cpusused start\n' cpusused 99 1 100.000000
	sw 1 100.005000 b 20 swapper/1 0
	sw 0 100.015000 swapper/0 0 a 10
	sw 0 100.016000 a 10 swapper/0 0
	sw 1 100.030000 swapper/1 0 cpusused 99
	sw 1 100.031000 cpusused 99 swapper/1 0
	printf '%16s-%-7s [%03d] ...1. %12s: tracing_mark_write: cpusused end\n' cpusused 99 0 100.050000
} | mk 7/7 >"$dir/t1"
check worked_example 0 'cpus_used=0\.425 windows=4 cpus=2 switches=5' "$dir/t1"
# A CPU that runs something the whole span is awake in every slot: 40/40.
{
	printf '%16s-%-7s [%03d] ...1. %12s: tracing_mark_write: cpusused start\n' cpusused 99 1 100.000000
	sw 0 100.050000 hog 30 swapper/0 0
	printf '%16s-%-7s [%03d] ...1. %12s: tracing_mark_write: cpusused end\n' cpusused 99 1 100.050000
} | mk 3/3 >"$dir/t2"
check busy_span 0 'cpus_used=1\.000 ' "$dir/t2"
sed 's|entries-written: 7/7|entries-written: 7/9|' "$dir/t1" >"$dir/t3"
check lost_events 1 'lost events' "$dir/t3"
grep -v 'cpusused end' "$dir/t1" >"$dir/t4"
check no_end_mark 1 'no start and end marks' "$dir/t4"
check missing_file 1 'No such file' "$dir/none"
check_run cpusused bad_seconds 2 usage "$bin" 0
[ "$fail" = 0 ]
