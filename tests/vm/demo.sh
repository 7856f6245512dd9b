#!/bin/sh
# Guest side of `make run`: LAVD under a short mixed workload, with its
# statistics and exit info. A game-like wake chain runs alone, then against
# CPU hogs and hackbench.
set -u
. /lavd/tests/vm/lib.sh
SECS=${1:-10}
NCPU=$(nproc)
echo "== demo: kernel $(uname -r), $NCPU CPUs"
echo "== baseline (EEVDF, the kernel's fair class): wake chain + $NCPU CPU hogs"
stress-ng --cpu "$NCPU" -t "${SECS}s" >/dev/null 2>&1 &
wakechain --secs "$SECS" --name eevdf-loaded
wait
echo "== loading scx_lavd (the verifier needs 15-25 s under emulation)"
scx_lavd --stats 2 &
LPID=$!
if ! wait_state enabled 120; then
	echo "scx_lavd did not attach"; exit 1
fi
echo "== LAVD: wake chain alone"
wakechain --secs "$SECS" --name lavd-idle
echo "== LAVD: wake chain + $NCPU CPU hogs + hackbench"
stress-ng --cpu "$NCPU" -t "${SECS}s" >/dev/null 2>&1 &
( end=$(( $(date +%s) + SECS )); while [ "$(date +%s)" -lt "$end" ]; do hackbench -g 2 -l 100 >/dev/null; done ) &
wakechain --secs "$SECS" --name lavd-loaded
wait %2 %3 2>/dev/null
echo "== unloading"
kill -INT $LPID
wait $LPID
echo "== sched_ext state: $(state)"
