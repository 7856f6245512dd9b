#!/usr/bin/env bash
# `make bench`: the benchmark suite in the VM, EEVDF and LAVD in the same
# boot, with -icount for repeatable timing; writes docs/benchmarks.md.
#   LAVD_BENCH_SECS (default 5)  LAVD_BENCH_REPS (default 3)  LAVD_KERNEL (7.3)
#   LAVD_BENCH_ONLY: some parts only (e.g. "wakeup,throughput", see suite.sh);
#   such a partial run prints its table and leaves docs/benchmarks.md alone.
#   LAVD_BENCH_FLOOR=1: also the minimal reference scheduler scx_floor
#   (tools/bench/floor/), printed as an extra table; only with LAVD_BENCH_ONLY.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${LAVD_BENCH_SECS:-5}; reps=${LAVD_BENCH_REPS:-3}; k=${LAVD_KERNEL:-7.3}
floor=${LAVD_BENCH_FLOOR:-0}
if [ "$floor" = 1 ] && [ -z "${LAVD_BENCH_ONLY:-}" ]; then
	echo "run.sh: LAVD_BENCH_FLOOR=1 needs LAVD_BENCH_ONLY (a full run with it would take twice as long)" >&2
	exit 2
fi
mkdir -p build/results
res=build/results/bench.txt
# what is measured is the build of now: the commit is taken before the run
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo "+dirty")
tools/vm/run --kernel "$k" --cpus 4 --icount --timeout $((secs * reps * 200 * (floor + 1) + 600)) --add tests/bench:/lavd/tests/bench \
	-- sh tests/bench/suite.sh "$secs" "$reps" "${LAVD_BENCH_ONLY:-all}" "$floor" | tee "$res"
machine="QEMU $("$(tools/vm/fetch-qemu)" --version | head -1 | awk '{print $4}') TCG -icount, 4 vCPUs, kernel $k, host $(nproc) cores $(uname -m)"
if [ -n "${LAVD_BENCH_ONLY:-}" ]; then
	python3 tests/bench/report.py "$res"
else
	python3 tests/bench/report.py "$res" --md docs/benchmarks.md --commit "$commit" --machine "$machine"
fi
