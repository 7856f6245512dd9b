#!/usr/bin/env bash
# `make stress`: the reliability suite (tests/vm/stress.sh, full mode) in the
# VM on both kernels, each followed by a storm boot under -icount
# (tests/vm/storm.sh, paired with EEVDF), then the loader's bad-input
# checks; ends with the figures the issue asks for: runs held, faults
# survived, bad inputs tried, tasks lost.
#   LAVD_STRESS_SECS=N   seconds per stress-ng class (default 20)
#   LAVD_VM_KERNELS      kernels to use (default "7.3 7.2")
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${LAVD_STRESS_SECS:-20}
rc=0
mkdir -p build/results
all=build/results/stress-all.txt
: >"$all"
for k in ${LAVD_VM_KERNELS:-7.3 7.2}; do
	out=build/results/stress-$k
	rm -rf "$out" "$out-storm"
	tools/vm/run --kernel "$k" --cpus 4 --timeout $((secs * 20 + 900)) --out "$out" \
		-- sh tests/vm/stress.sh "stress-$k" full "$secs" 2>"$out.stderr" | tee -a "$all" || rc=1
	grep -E 'sched_ext|BUG|WARNING' "$out.stderr" | tail -5
	# The 10,000-thread storm under -icount, paired with EEVDF (storm.sh).
	tools/vm/run --kernel "$k" --cpus 4 --icount --timeout 900 --out "$out-storm" \
		-- sh tests/vm/storm.sh "stress-$k" pair 2>"$out-storm.stderr" | tee -a "$all" || rc=1
done
tests/loader/test_cli.sh build/scx_lavd | tee -a "$all" || rc=1
sum() { awk -v k="$1" '$1 == "FIGURE" && $2 == k { s += $3 } END { print s + 0 }' "$all"; }
bad=$(sed -n 's/^cli: \([0-9]*\) inputs tried.*/\1/p' "$all" | tail -1)
echo "stress figures: runs held $(sum runs_held)/$(sum runs), faults survived" \
	"$(sum faults_survived)/$(sum faults), bad inputs tried ${bad:-0}, tasks lost $(sum tasks_lost)"
[ "$(sum tasks_lost)" = 0 ] || rc=1
exit $rc
