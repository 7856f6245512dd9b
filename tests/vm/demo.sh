#!/bin/sh
# Guest side of `make run`: a game-like wake chain (tools/bench/wakechain.c)
# under EEVDF and under LAVD with the same loads: CPU hogs on every CPU, then
# hogs plus hackbench; LAVD also alone. Then LAVD's statistics and exit info.
# Plain TCG (no -icount): figures vary from run to run; `make bench` is the
# repeatable comparison.
set -u
. /lavd/tests/vm/lib.sh
SECS=${1:-10}
NCPU=$(nproc)

# loaded NAME [hackbench]: the wake chain beside NCPU CPU hogs (and hackbench in a loop).
loaded() {
	stress-ng --cpu "$NCPU" -t "${SECS}s" >/dev/null 2>&1 &
	hogs=$!
	hb=
	if [ "${2:-}" = hackbench ]; then
		( end=$(( $(date +%s) + SECS )); while [ "$(date +%s)" -lt "$end" ]; do hackbench -g 2 -l 100 >/dev/null; done ) &
		hb=$!
	fi
	wakechain --secs "$SECS" --name "$1"
	wait $hogs $hb 2>/dev/null
}

echo "== demo: kernel $(uname -r), $NCPU CPUs, ${SECS}s per run"
echo "== EEVDF (the kernel's fair class): wake chain + $NCPU CPU hogs, then + hackbench"
loaded eevdf-hogs
loaded eevdf-hogs-hackbench hackbench
echo "== loading scx_lavd (the verifier needs 15-25 s under emulation)"
scx_lavd --stats 2 &
LPID=$!
if ! wait_state enabled 120; then
	echo "scx_lavd did not attach"; exit 1
fi
echo "== LAVD: wake chain alone, + $NCPU CPU hogs, then + hackbench"
wakechain --secs "$SECS" --name lavd-alone
loaded lavd-hogs
loaded lavd-hogs-hackbench hackbench
echo "== unloading"
kill -INT $LPID
wait $LPID
echo "== sched_ext state: $(state)"
