#!/bin/sh
# Guest side of `make calib` (tests/calib/run.sh): each rt-app scenario of
# tests/calib/*.json under EEVDF, then under scx_lavd, REPS times, in one boot.
#   sh /lavd/tests/calib/guest.sh [REPS] [SCENARIO...]     (default: 3, all)
# Prints "CALIB <scenario> <eevdf|lavd> <rep> <metric> <value>" and a few
# "CALIBINFO key value" lines about the guest.
#
# Metrics, from rt-app's per-thread logs (one row per period: idx perf run
# period start end rel_st slack c_duration c_period wu_lat, times in us).
# Only threads with a timer (c_period > 0) count, and each thread's first 5
# rows are dropped (start-up). A row whose slack is <= 0 overran its period:
# rt-app did not sleep, its wu_lat is 0, so it is counted as an overrun and
# not pooled as a latency.
#   wake_p50_us wake_p90_us wake_p99_us wake_max_us  wu_lat percentiles
#                      (nearest rank, all threads' rows pooled)
#   wake_n             rows pooled          overruns   rows with slack <= 0
#   run_p50_us         wall time of the period's runtime event (p50)
#   slack_p50_us       time left in the period before the timer (p50)
#   loops_per_ms_p50   rt-app loops done per ms of runtime (p50): the CPU
#                      speed a thread saw (under TCG -icount it drops as more
#                      vCPUs are busy at once)
#   lavd_state         sched_ext state after the lavd run (must be enabled)
set -u
REPS=${1:-3}
[ $# -gt 0 ] && shift
SCEN=${*:-"periodic overload"}
. /lavd/tests/vm/lib.sh
HERE=/lavd/tests/calib

# Timer slack: rt-app's threads are SCHED_OTHER, whose clock_nanosleep()
# wake-ups the kernel may defer by the task's timer slack (50 us by
# default). The simulator's timers fire exactly on time, so the slack is set
# to 1 ns for this shell, and rt-app inherits it: wu_lat then measures the
# timer interrupt plus the scheduling delay, not the slack.
echo 1 >/proc/self/timerslack_ns 2>/dev/null || echo "CALIBINFO timerslack_write failed"

info() { echo "CALIBINFO $1 $2"; }
info kernel "$(uname -r)"
info nproc "$(nproc)"
info llc_shared_cpu_lists "$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | tr '\n' ' ')"
info llc_ids "$(cat /sys/devices/system/cpu/cpu*/cache/index3/id 2>/dev/null | tr '\n' ' ')"
info sched_domains_cpu0 "$(awk '/^cpu/ { c = ($1 == "cpu0") } c && /^domain/ { printf "%s %s %s; ", $1, $2, $3 }' /proc/schedstat 2>/dev/null)"
info eevdf_base_slice_ns "$(cat /sys/kernel/debug/sched/base_slice_ns 2>/dev/null || sysctl -n kernel.sched_base_slice_ns 2>/dev/null)"
info timerslack_ns "$(cat /proc/self/timerslack_ns 2>/dev/null)"

out() { echo "CALIB $S $SCHED $REP $1 $2"; }

# stats DIR: the metrics above from DIR/*.log.
stats() {
	: >/tmp/calib.wake; : >/tmp/calib.run; : >/tmp/calib.slack; : >/tmp/calib.speed
	ov=0
	for f in "$1"/*.log; do
		[ -e "$f" ] || continue
		awk -v w=/tmp/calib.wake -v r=/tmp/calib.run -v s=/tmp/calib.slack -v p=/tmp/calib.speed '
			/^#/ || NF < 11 { next }
			$10 + 0 <= 0 { next }
			{ n++ }
			n <= 5 { next }
			$8 + 0 <= 0 { ov++; next }
			{ print $11 >> w; print $3 >> r; print $8 >> s
			  if ($3 > 0) printf "%.0f\n", $2 * 1000 / $3 >> p }
			END { print ov + 0 }' "$f" >/tmp/calib.ov
		ov=$((ov + $(cat /tmp/calib.ov)))
	done
	# nearest rank: the ceil(n * p)-th smallest value
	pct='{ v[NR] = $1 }
	     END { for (i = 1; i <= np; i++) {
	               k = int(NR * p[i] / 100); if (k < NR * p[i] / 100) k++; if (k < 1) k = 1
	               printf "%s%s", NR ? v[k] : "nan", i < np ? " " : "\n" } }'
	set -- $(sort -n /tmp/calib.wake | awk -v np=4 'BEGIN { split("50 90 99 100", p, " ") } '"$pct")
	out wake_p50_us "$1"; out wake_p90_us "$2"; out wake_p99_us "$3"; out wake_max_us "$4"
	out wake_n "$(wc -l </tmp/calib.wake)"
	out overruns "$ov"
	out run_p50_us "$(sort -n /tmp/calib.run | awk -v np=1 'BEGIN { p[1] = 50 } '"$pct")"
	out slack_p50_us "$(sort -n /tmp/calib.slack | awk -v np=1 'BEGIN { p[1] = 50 } '"$pct")"
	out loops_per_ms_p50 "$(sort -n /tmp/calib.speed | awk -v np=1 'BEGIN { p[1] = 50 } '"$pct")"
}

# rtapp: run scenario $S once, under whatever scheduler is active.
rtapp() {
	d=/tmp/calib/$S-$SCHED-$REP
	rm -rf "$d"; mkdir -p "$d"
	# rt-app writes its logs to the current directory (logdir "./")
	(cd "$d" && rt-app "$HERE/$S.json" >"$d/rt-app.out" 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		out rtapp_rc "$rc"
		tail -20 "$d/rt-app.out"
		return 1
	fi
	stats "$d"
	# keep the raw logs (compressed) for run.sh's --out directory
	tar -czf "/out/rtapp-$S-$SCHED-$REP.tgz" -C /tmp/calib "$S-$SCHED-$REP" 2>/dev/null
	rm -rf "$d"
}

command -v rt-app >/dev/null || { echo "calib: rt-app is not in the VM image (tools/setup.sh, tools/vm/mkinitramfs)"; exit 1; }
st=0
for S in $SCEN; do
	[ -f "$HERE/$S.json" ] || { echo "calib: no scenario $HERE/$S.json"; exit 1; }
	REP=1
	while [ "$REP" -le "$REPS" ]; do
		SCHED=eevdf
		[ "$(state)" = disabled ] || { echo "calib: sched_ext is $(state), not disabled"; exit 1; }
		rtapp || st=1
		SCHED=lavd
		if start_lavd "calib-$S-$REP"; then
			rtapp || st=1
			out lavd_state "$(state)"
			stop_lavd
			grep summary "/out/calib-$S-$REP.log" | tail -1
		else
			echo "calib: scx_lavd did not attach"
			exit 1
		fi
		REP=$((REP + 1))
	done
done
exit $st
