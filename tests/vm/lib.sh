# Shared helpers for guest-side test scripts (busybox sh). Source it.
# Each check prints "PASS $TAG/name" or "FAIL $TAG/name: why".
TAG=${TAG:-vm}
FAILED=0
mkdir -p /out
# Each line ends with the guest's uptime in seconds, "[t=N s]": where a
# boot's time goes (the CI run is held under 40 min).
up_s() { cut -d. -f1 /proc/uptime; }
pass() { echo "PASS $TAG/$1${2:+ ($2)} [t=$(up_s) s]"; }
fail() { echo "FAIL $TAG/$1: $2 [t=$(up_s) s]"; FAILED=1; }
state() { cat /sys/kernel/sched_ext/state 2>/dev/null || echo missing; }

# wait_state WANT SECS: poll until sched_ext reaches a state.
wait_state() {
	i=0
	while [ $i -lt "$2" ]; do
		[ "$(state)" = "$1" ] && return 0
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# Lines in dmesg that mean the scheduler failed (not a normal unload).
scx_errors() {
	dmesg | grep -iE 'sched_ext.*(error|stall|watchdog|failed to run)|runnable task stall' |
		grep -v 'unregistered from user space' || true
}

# start_lavd LOGNAME [ARGS]: start the loader, wait until it is enabled.
# The verifier takes 15-25 s under TCG. Sets LPID.
start_lavd() {
	log=/out/$1.log
	shift
	scx_lavd --stats 1 "$@" >"$log" 2>&1 &
	LPID=$!
	if wait_state enabled 120; then
		return 0
	fi
	echo "--- $log"
	tail -30 "$log"
	return 1
}

# reap PID SECS: wait for a background process at most SECS seconds (then
# SIGKILL it); returns its exit code, 124 if it had to be killed.
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt "$2" ]; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

# stop_lavd: SIGINT, wait for the loader (30 s at most); returns its exit code.
stop_lavd() {
	kill -INT "$LPID" 2>/dev/null
	reap "$LPID" 30
}

# stat_rows LOG FROM COLUMN...: of each --stats row after line FROM of LOG,
# the named columns (found by the header, the line that starts with SEQ),
# space-separated, one row per line. Nothing if a column is not in the header.
stat_rows() {
	_sr_f=$1 _sr_from=$2; shift 2
	awk -v from="$_sr_from" -v want="$*" '
		BEGIN { nw = split(want, w, " ") }
		$1 == "SEQ" { for (j = 1; j <= nw; j++) { c[j] = 0; for (i = 1; i <= NF; i++) if ($i == w[j]) c[j] = i }; next }
		NR > from && $1 ~ /^[0-9]+$/ {
			for (j = 1; j <= nw; j++) if (!c[j]) next
			line = ""
			for (j = 1; j <= nw; j++) line = line (j > 1 ? " " : "") $(c[j])
			print line
		}' "$_sr_f"
}

# stat_col LOGNAME COLUMN: that column of the last --stats line (0 if none).
stat_col() {
	stat_rows "/out/$1.log" 0 "$2" | awk '{ v = $1 } END { print v + 0 }'
}

# interval_max_wait LOG FROM_LINE: the longest per-interval MAXWAITus of a
# stats log from that line on (the loader resets the interval maximum at
# each --stats line).
interval_max_wait() {
	stat_rows "$1" $(($2 - 1)) MAXWAITus | awk '$1 + 0 > m { m = $1 + 0 } END { print m + 0 }'
}

# turb_now LOGNAME: turbulent CPUs in the last --stats line.
turb_now() { stat_col "$1" TURB; }

# rt_hog CPU SECS: a SCHED_FIFO busy loop on CPU for SECS seconds, in the background; sets RTPID.
rt_hog() {
	taskset -c "$1" chrt -f 50 sh -c "end=\$(( \$(date +%s) + $2 )); while [ \$(date +%s) -lt \$end ]; do :; done" &
	RTPID=$!
}

# log_num LOG KEY: the number after KEY= on the last line of LOG that has
# one (the loader's summary lines are KEY=VALUE lists).
log_num() {
	sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | tail -1
}

# max_wait_us LOG: the scheduler's longest runnable wait from its summary line.
max_wait_us() { log_num "$1" max_wait_us; }

# Figures the reliability suite totals on the host (tier-stress.sh).
figure() { echo "FIGURE $1 $2"; }

# A fault injected while the scheduler runs: the command runs the fault;
# afterwards the scheduler must still be enabled (or, for faults that end
# it, the kernel must be back on the fair class: the command checks that).
fault_done() { # NAME OK(1|0) DETAIL
	figure faults 1
	if [ "$2" = 1 ]; then
		figure faults_survived 1
		pass "fault_$1" "$3"
	else
		fail "fault_$1" "$3"
	fi
}

# storm_lost OUTPUT THREADS: threads a threadstorm started and did not join
# (all of them if it printed no counts: it died or timed out).
storm_lost() {
	ts_started=$(echo "$1" | sed -n 's/.*started=\([0-9]*\).*/\1/p')
	ts_joined=$(echo "$1" | sed -n 's/.*joined=\([0-9]*\).*/\1/p')
	if [ -n "$ts_started" ] && [ -n "$ts_joined" ]; then
		echo $((ts_started - ts_joined))
	else
		echo "$2"
	fi
}
