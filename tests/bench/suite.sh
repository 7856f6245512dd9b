#!/bin/sh
# Guest side of `make bench`: the same suite under EEVDF and under LAVD, in
# the same boot, REPS times, alternating. Prints "BENCH sched rep key value".
#   sh tests/bench/suite.sh SECS REPS [PARTS [FLOOR]]
# PARTS: "all" (default) or some of frame wakeup server schbench pingpong
# throughput light, comma-separated (LAVD_BENCH_ONLY of tests/bench/run.sh).
# FLOOR=1 (LAVD_BENCH_FLOOR): also under the minimal reference scheduler
# scx_floor, first in, first out and by virtual time (tools/bench/floor/):
# what sched_ext itself costs, apart from LAVD's policy.
set -u
SECS=${1:-5}
REPS=${2:-3}
PARTS=${3:-all}
FLOOR=${4:-0}
part() { [ "$PARTS" = all ] || case ",$PARTS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
. /lavd/tests/vm/lib.sh
N=$(nproc)
out() { echo "BENCH $SCHED $REP $1 $2"; }
# out_us PREFIX LINE NAME...: each "NAME_us=V" of a tool's result LINE as
# metric PREFIX_NAME_us (lavd-schbench and lavd-pingpong print this way).
out_us() {
	local pre=$1 line=$2 name
	shift 2
	for name in "$@"; do
		out "${pre}_${name}_us" "$(echo "$line" | sed -n "s/.* ${name}_us=\([0-9.]*\).*/\1/p")"
	done
}

# Busy CPUs averaged over a command's run: the run time of every task on
# every CPU (/proc/schedstat, field 7 of the cpuN lines, ns; schedstats are
# switched on for it) over the elapsed time. /proc/stat's tick sampling is
# useless here: a 300 us task woken by a timer right after the tick is never
# caught running by one (it read 0.000 busy CPUs under -icount). The
# ternary is parenthesised: awk reads printf ... > x as a redirection.
schedstat_run_ns() { awk '/^cpu[0-9]/ { s += $8 } END { printf "%.0f", s }' /proc/schedstat; }
busy_cpus() {
	echo 1 >/proc/sys/kernel/sched_schedstats 2>/dev/null
	r0=$(schedstat_run_ns); u0=$(cut -d' ' -f1 /proc/uptime)
	"$CMD" >/dev/null 2>&1
	r1=$(schedstat_run_ns); u1=$(cut -d' ' -f1 /proc/uptime)
	awk -v r0="$r0" -v r1="$r1" -v u0="$u0" -v u1="$u1" \
		'BEGIN { d = (u1 - u0) * 1e9; printf "%.3f", (d > 0 ? (r1 - r0) / d : 0) }'
}
light() { wakechain --fps 30 --stages 2 --work-us 300 --secs "$SECS" --name light; }

# Background hogs are waited for by PID: a bare `wait` would also wait for
# the scx_lavd loader start_lavd left in the background, which never exits
# on its own (this hung the first make bench in the LAVD pass).
suite() {
	# frame pipeline under 2x overload
	if part frame; then
		stress-ng --cpu $((2 * N)) -t "$((SECS + 2))s" >/dev/null 2>&1 &
		HOG=$!
		sleep 1
		r=$(wakechain --secs "$SECS" --name frame)
		wait "$HOG"
		out frame_p99_us "$(echo "$r" | sed -n 's/.*p99_us=\([0-9]*\).*/\1/p')"
		out frame_miss_pct "$(echo "$r" | sed -n 's/.*miss_pct=\([0-9.]*\).*/\1/p')"
	fi

	# wake-up latency under load (normal policy)
	if part wakeup; then
		stress-ng --cpu "$N" -t "$((SECS + 2))s" >/dev/null 2>&1 &
		HOG=$!
		sleep 1
		cyclictest --policy=other -t "$N" -D "$SECS" -q -h 100000 -i 1000 >/tmp/cyc.txt 2>&1
		wait "$HOG"
		awk '/^[0-9]/ { b = $1 + 0; for (i = 2; i <= NF; i++) { c[b] += $i; tot += $i; sum += b * $i } }
		     /# Max Latencies/ { for (i = 4; i <= NF; i++) if ($i + 0 > mx) mx = $i + 0 }
		     END { acc = 0; for (b = 0; b <= 100000; b++) { acc += c[b]; if (!p99 && acc >= tot * 0.99) p99 = b }
		           printf "%.1f %d %d\n", tot ? sum / tot : 0, p99, mx }' /tmp/cyc.txt >/tmp/cyc.res
		read avg p99 mx </tmp/cyc.res
		out wakeup_avg_us "$avg"; out wakeup_p99_us "$p99"; out wakeup_max_us "$mx"
	fi

	# request/response server at a fixed rate, with background hogs
	if part server; then
		stress-ng --cpu "$N" -t "$((SECS + 2))s" >/dev/null 2>&1 &
		HOG=$!
		sleep 1
		r=$(lavd-schbench -m 2 -t 2 --think-us 300 --rps 1000 --secs "$SECS" --name server)
		wait "$HOG"
		out server_req_p50_us "$(echo "$r" | sed -n 's/.*req_p50_us=\([0-9]*\).*/\1/p')"
		out server_req_p99_us "$(echo "$r" | sed -n 's/.*req_p99_us=\([0-9]*\).*/\1/p')"
	fi

	# schbench-style, saturation and fixed rate, no background load
	if part schbench; then
		r=$(lavd-schbench -m 2 -t $((2 * N)) --think-us 300 --secs "$SECS" --name sat)
		out_us schbench_sat "$r" wake_p50 wake_p99 wake_p999 req_p50 req_p99 req_p999
		out schbench_sat_rps "$(echo "$r" | sed -n 's/.* rps=\([0-9.]*\).*/\1/p')"
		r=$(lavd-schbench -m 2 -t $((2 * N)) --think-us 300 --rps 2000 --secs "$SECS" --name rate)
		out_us schbench_rate "$r" wake_p99 req_p50 req_p99
	fi

	# pipe round trips, one by one: perf bench sched pipe below gives only
	# their mean, and the tail is where upstream LAVD was found far behind
	# EEVDF (p99 477 us against 14). Alone, then beside one hog per CPU.
	if part pingpong; then
		r=$(lavd-pingpong --secs "$SECS" --name pipe)
		out_us pipe "$r" rtt_p50 rtt_p99 rtt_p999
		stress-ng --cpu "$N" -t "$((SECS + 2))s" >/dev/null 2>&1 &
		HOG=$!
		sleep 1
		r=$(lavd-pingpong --secs "$SECS" --name pipehogs)
		wait "$HOG"
		out_us pipe_hogs "$r" rtt_p50 rtt_p99
	fi

	# throughput
	if part throughput; then
		t=$(hackbench -g 4 -l 200 2>&1 | sed -n 's/^Time: *//p')
		out hackbench_s "$t"
		t=$(perf bench sched pipe -l 20000 2>&1 | sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p')
		out pipe_usecs_op "$t"
		t=$(perf bench sched messaging -g 4 -l 100 2>&1 | sed -n 's/^ *Total time: *\([0-9.]*\).*/\1/p')
		out messaging_s "$t"
		t=$(stress-ng --cpu "$N" -t "${SECS}s" --metrics-brief 2>&1 | awk '/metrc:.* cpu /{print $(NF-1)}')
		out batch_bogo_ops_s "$t"
	fi

	part light || return 0
	# light periodic load: average busy CPUs (run time / elapsed: the same
	# work gives the same figure however many CPUs do it) ...
	CMD=light
	out light_busy_cpus "$(busy_cpus)"
	# ... and CPUs awake per 10 ms window: what compaction lowers. Traced
	# (cpusused reads the kernel's sched_switch events after the run, so it
	# wakes no CPU itself; the kernel's own threads count, under either
	# scheduler), and sampled every 10 ms as before (the sampler wakes a CPU
	# in every window itself: 1.00 is that measure's floor).
	# Each entry is KEY:FLAG (FLAG "-" for none).
	for kf in light_cpus_awake:- light_cpus_sampled:--sample; do
		k=${kf%%:*} f=${kf#*:}
		[ "$f" = - ] && f=
		light >/dev/null 2>&1 &
		L=$!
		u=$(cpusused $f "$SECS" | sed -n 's/.*cpus_used=\([0-9.]*\).*/\1/p')
		wait "$L"
		out "$k" "$u"
	done
}

# The first seconds after boot still run the kernel's own start-up work
# (crypto self-tests and the like): EEVDF's first light-load run read 1.3
# busy CPUs for a load of 0.02 when it came first.
sleep 10
REP=1
while [ "$REP" -le "$REPS" ]; do
	SCHED=eevdf
	suite
	SCHED=lavd
	if start_lavd "bench-$REP"; then
		suite
		stop_lavd
		grep summary "/out/bench-$REP.log"
	else
		echo "bench: scx_lavd did not attach"
		exit 1
	fi
	for m in fifo vtime; do
		[ "$FLOOR" = 1 ] || break
		scx_floor $m &
		F=$!
		if ! wait_state enabled 120; then
			echo "bench: scx_floor $m did not attach"
			exit 1
		fi
		SCHED=floor-$m
		suite
		kill "$F"
		wait "$F" || echo "bench: scx_floor $m ended with $?"
		wait_state disabled 30
	done
	REP=$((REP + 1))
done
