#!/usr/bin/env bash
# Run the policy fuzzer for a bounded time and report in one line per result.
#
#   tests/fuzz/run.sh BIN SECS                    seeds replay, known crashes, then fuzz SECS
#   tests/fuzz/run.sh BIN SECS --expect-crash OP  the harness must find a bug in OP within SECS
#
# The committed corpus (tests/fuzz/corpus/) is only ever read: libFuzzer
# writes new inputs to the first corpus directory it is given, which is a
# scratch copy under $O/fuzz/ (O defaults to build). Crash inputs are kept
# in $O/fuzz/<bin>/artifacts/ across runs.
#
# Lines printed (the tier runner counts them):
#   PASS|FAIL fuzz/corpus_replay (...)          every seed runs clean, alone
#   PASS|FAIL fuzz/crash_replay/NAME (...)      a recorded bug (tests/fuzz/crashes/): FAIL
#                                               while it still reproduces
#   PASS|FAIL fuzz/policy (N execs in S s, corpus C)   the bounded fuzzing run
#   PASS|FAIL fuzz/selftest_detects_bug (...)   --expect-crash mode only
# Exits non-zero if any line is FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."

usage() { echo "usage: tests/fuzz/run.sh BIN SECS [--expect-crash OP]" >&2; exit 2; }
[ $# -ge 2 ] || usage
bin=$1 secs=$2 expect=""
if [ $# -ge 3 ]; then
	[ "$3" = --expect-crash ] && [ $# -eq 4 ] || usage
	expect=$4
fi
[ -x "$bin" ] || { echo "FAIL fuzz/policy (no fuzzer binary $bin: make $bin)"; exit 1; }
case $secs in ''|*[!0-9]*) usage ;; esac

seeds=tests/fuzz/corpus
O=${O:-build}
work=$O/fuzz/$(basename "$bin")
arts=$work/artifacts
rm -rf "$work/corpus" "$work/replay"
mkdir -p "$work/corpus" "$work/replay" "$arts"
cp "$seeds"/* "$work/corpus/"
cp "$seeds"/* "$work/replay/"
nseeds=$(ls "$seeds" | wc -l)
rc=0

# The first "invariant broken" or sanitizer line of a log, for the report.
why() {
	grep -m1 -E 'fuzz_policy: invariant broken|runtime error|ERROR: (AddressSanitizer|libFuzzer)' "$1" |
		sed 's/^fuzz_policy: //; s/^.*runtime error: /UB: /' | cut -c1-220
}
fz_stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }
# Newest artifact written since the marker file.
new_artifact() { find "$arts" -type f -newer "$1" -name '*-*' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-; }

if [ -z "$expect" ]; then
	# 1. The seeds alone: each must run clean before any mutation.
	log=$work/replay.log
	if "$bin" -runs=0 -artifact_prefix="$arts/" "$work/replay" >"$log" 2>&1; then
		echo "PASS fuzz/corpus_replay ($nseeds seeds)"
	else
		bad=""
		for f in "$seeds"/*; do
			"$bin" "$f" >/dev/null 2>&1 || { bad=$(basename "$f"); break; }
		done
		echo "FAIL fuzz/corpus_replay (seed ${bad:-?}: $(why "$log"))"
		rc=1
	fi

	# 2. Recorded bugs: reported until fixed, then they are regression tests.
	for f in tests/fuzz/crashes/*; do
		[ -f "$f" ] || continue
		case $f in *.md) continue ;; esac
		log=$work/crash-$(basename "$f").log
		if "$bin" "$f" >"$log" 2>&1; then
			echo "PASS fuzz/crash_replay/$(basename "$f") (no longer crashes)"
		else
			echo "FAIL fuzz/crash_replay/$(basename "$f") ($(why "$log"))"
			rc=1
		fi
	done
fi

# 3. The bounded run.
log=$work/fuzz.log
marker=$work/.start
touch "$marker"
start=$(date +%s)
"$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$arts/" "$work/corpus" "$seeds" >"$log" 2>&1
frc=$?
el=$(( $(date +%s) - start ))
execs=$(fz_stat number_of_executed_units "$log")
corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
crash=$(new_artifact "$marker")

if [ -n "$expect" ]; then
	if [ "$frc" != 0 ] && [ -n "$crash" ] && grep -q "invariant broken in $expect " "$log"; then
		echo "PASS fuzz/selftest_detects_bug (${execs:-?} execs in $el s: $(why "$log"))"
	elif [ "$frc" != 0 ]; then
		echo "FAIL fuzz/selftest_detects_bug (crashed, but not in $expect: $(why "$log"); ${crash:-no artifact})"
		rc=1
	else
		echo "FAIL fuzz/selftest_detects_bug (no crash in ${execs:-?} execs, $el s: the harness misses an injected bug)"
		rc=1
	fi
	exit $rc
fi

if [ "$frc" = 0 ] && [ -n "$execs" ]; then
	echo "PASS fuzz/policy ($execs execs in $el s, corpus ${corp:-?})"
else
	echo "FAIL fuzz/policy (${crash:-no crash file, exit $frc} after ${execs:-?} execs in $el s: $(why "$log"); log $log)"
	rc=1
fi
exit $rc
