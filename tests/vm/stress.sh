#!/bin/sh
# Guest side of the reliability suite: the stress-ng class matrix and the
# fault loops, all under scx_lavd. Run through tests/vm/tier-stress.sh (make
# stress, full) or tests/vm/tier-vm.sh (make test, the short subset, in a
# boot of its own).
#
#   sh tests/vm/stress.sh TAG full|short SECS
#
# Prints PASS/FAIL lines, and "FIGURE key value" lines that the host side
# totals (runs held, faults survived, tasks lost).
set -u
TAG=${1:-vm}
MODE=${2:-short}
SECS=${3:-10}
. /lavd/tests/vm/lib.sh
NCPU=$(nproc)
MAX_WAIT_US=1000000	# issue 6: the longest runnable wait stays below 1 s

# Processes of a command that outlived it (a task left behind).
leftovers() { # NAME
	n=0
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = "$1" ] && n=$((n + 1))
	done
	echo $n
}

# One stress-ng class under the running scheduler: it must finish with
# status 0 (every worker it started completed), the scheduler must stay
# enabled, no stress-ng process may be left, and (unless the class runs
# real-time threads of its own) no task may wait 1 s or more.
LOG=
run_class() { # CLASS WAIT_CHECK(1|0) [extra stress-ng args]
	cls=$1 chk=$2; shift 2
	from=$(($(wc -l <"$LOG") + 1))
	out=$(stress-ng --"$cls" "$NCPU" "$@" -t "${SECS}s" --metrics-brief 2>&1); rc=$?
	sleep 1
	st=$(state)
	left=$(leftovers stress-ng)
	mw=$(interval_max_wait "$LOG" "$from")
	figure runs 1
	[ "$left" = 0 ] || figure tasks_lost "$left"
	if [ $rc = 0 ] && [ "$st" = enabled ] && [ "$left" = 0 ] &&
		{ [ "$chk" = 0 ] || [ "$mw" -lt $MAX_WAIT_US ]; }; then
		figure runs_held 1
		pass "matrix_$cls" "longest wait ${mw} us"
	else
		fail "matrix_$cls" "rc=$rc state=$st left=$left max_wait=${mw}us; $(echo "$out" | tail -2)"
	fi
}

echo "== $TAG: stress $MODE, kernel $(uname -r), $NCPU CPUs, ${SECS}s per run"
[ "$(state)" = disabled ] || { fail precondition "sched_ext state is $(state)"; exit 1; }

if ! start_lavd "matrix"; then
	fail attach "did not attach"
	exit 1
fi
LOG=/out/matrix.log

# The matrix. mutex runs SCHED_FIFO lockers as root; schedpolicy (the
# "sched" class: stress-ng's --sched is the option that sets a policy for
# all stressors, and it refused "4") switches its workers between
# policies, RT ones included: their waits are not ours.
if [ "$MODE" = full ]; then
	classes="cpu:1 switch:1 futex:1 mutex:0 fork:1 clone:1 pipe:1 sem:1 affinity:1 nice:1 yield:1 schedpolicy:0 mq:1 timer:1"
else
	classes="affinity:1 nice:1 yield:1 clone:1"
fi
for c in $classes; do
	run_class "${c%:*}" "${c#*:}"
done

# 10,000 threads started at once, all woken together: here a fault only
# (every thread must finish, the scheduler stay enabled). Its waits are
# held to the 1 s limit in a boot of its own under -icount (storm.sh).
# Under plain TCG this VM's 4 vCPUs share 2 host cores: the storm took
# 15-27 s under LAVD (12-17 s under EEVDF) and waited 1-3 s (EEVDF 1.5-9
# s), against 11.5-12 s and about 0.1 s under -icount. Our reading, not
# measured: vCPUs spin on the shared queue's lock while the host runs its
# holder's vCPU late.
if [ "$MODE" = full ]; then
	from=$(($(wc -l <"$LOG") + 1))
	out=$(threadstorm --threads 10000 --rounds 3 --timeout-s 300 2>&1); rc=$?
	st=$(state)
	echo "$out"
	figure tasks_lost "$(storm_lost "$out" 10000)"
	fault_done threads_10k "$([ $rc = 0 ] && [ "$st" = enabled ] && echo 1 || echo 0)" \
		"rc=$rc state=$st $out; longest wait $(interval_max_wait "$LOG" "$from") us"
fi

# Affinity and nice churn on CPU hogs: every hog's mask and nice level
# change every few milliseconds.
stress-ng --cpu "$NCPU" -t "${SECS}s" >/dev/null 2>&1 &
hogs=$!
sleep 1
pids=$(for d in /proc/[0-9]*; do [ "$(cat "$d/comm" 2>/dev/null)" = stress-ng-cpu ] && echo "${d#/proc/}"; done)
end=$(( $(date +%s) + SECS - 2 )) n=0
while [ "$(date +%s)" -lt "$end" ]; do
	for p in $pids; do
		taskset -p $(( (n % ((1 << NCPU) - 1)) + 1 )) "$p" >/dev/null 2>&1
		renice -n $(( n % 40 - 20 )) -p "$p" >/dev/null 2>&1
		n=$((n + 1))
	done
done
wait $hogs; rc=$?
st=$(state)
fault_done affinity_nice_churn "$([ $rc = 0 ] && [ "$st" = enabled ] && [ $n -gt 0 ] && echo 1 || echo 0)" \
	"$n changes, hogs rc=$rc, state=$st"

# cgroup churn: create a group, move a busy task in, set its weight and
# bandwidth, move it out, remove the group; while hogs run.
echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
stress-ng --cpu "$NCPU" -t "${SECS}s" >/dev/null 2>&1 &
hogs=$!
sh -c 'while :; do :; done' &
spin=$!
end=$(( $(date +%s) + SECS - 2 )) n=0 bad=0
while [ "$(date +%s)" -lt "$end" ]; do
	g=/sys/fs/cgroup/lavd-churn-$n
	mkdir "$g" || { bad=$((bad + 1)); break; }
	echo "$spin" >"$g/cgroup.procs" || bad=$((bad + 1))
	echo $(( n % 1000 + 1 )) >"$g/cpu.weight" 2>/dev/null
	echo "$(( (n % 9 + 1) * 10000 )) 100000" >"$g/cpu.max" 2>/dev/null
	echo "$spin" >/sys/fs/cgroup/cgroup.procs || bad=$((bad + 1))
	rmdir "$g" || bad=$((bad + 1))
	n=$((n + 1))
done
kill "$spin"; wait "$spin" 2>/dev/null
wait $hogs; rc=$?
st=$(state)
fault_done cgroup_churn "$([ $rc = 0 ] && [ "$st" = enabled ] && [ $bad = 0 ] && [ $n -gt 0 ] && echo 1 || echo 0)" \
	"$n groups created and removed, $bad errors, state=$st"

# An RT hog starving one CPU (RT throttling leaves it 5%): the scheduler
# stays enabled and the tasks that can move elsewhere do.
taskset -c $((NCPU - 1)) chrt -f 50 sh -c "end=\$(( \$(date +%s) + $SECS )); while [ \$(date +%s) -lt \$end ]; do :; done" &
rt=$!
stress-ng --cpu "$NCPU" --pipe 1 -t "${SECS}s" >/dev/null 2>&1; rc=$?
reap "$rt" 30
st=$(state)
fault_done rt_starve "$([ $rc = 0 ] && [ "$st" = enabled ] && echo 1 || echo 0)" "hogs rc=$rc, state=$st"

# SIGSTOP of the loader for longer than the watchdog timeout (30 s): the
# scheduler lives in the kernel and must go on scheduling without it.
stress-ng --cpu "$NCPU" --switch 1 -t 40s >/dev/null 2>&1 &
hogs=$!
kill -STOP "$LPID"
sleep 35
st=$(state)
kill -CONT "$LPID"
wait $hogs; rc=$?
sleep 2
alive=0; kill -0 "$LPID" 2>/dev/null && alive=1
fault_done loader_sigstop "$([ "$st" = enabled ] && [ $rc = 0 ] && [ $alive = 1 ] && echo 1 || echo 0)" \
	"state after 35 s stopped: $st, hogs rc=$rc, loader alive=$alive"

stop_lavd; rc=$?
mw=$(max_wait_us "$LOG")
grep -E 'summary|EXIT' "$LOG"
if [ $rc = 0 ] && wait_state disabled 15; then pass unload "longest wait of the session ${mw} us"; else fail unload "rc=$rc state=$(state)"; fi
# Our queue counters (the balancer's and core compaction's view of the
# LLC queues) after the churn above, read on an idle machine just before
# the unload: a task that left a queue uncounted (a property change while
# queued, a switch to RT) would stay in them.
ql=$(log_num "$LOG" queued_left) al=$(log_num "$LOG" affn_left)
if [ -n "$ql" ] && [ -n "$al" ] && [ "$ql" -le "$NCPU" ] && [ "$al" -le "$NCPU" ]; then
	pass queue_counters "queued_left=$ql affn_left=$al after the session"
else
	fail queue_counters "queued_left='$ql' affn_left='$al' after the session (at most $NCPU expected)"
fi

# CPU offline/online in a loop: each one makes the kernel ask for a restart;
# the loader must come back every time. Full mode only: make test's load
# boot (tests/vm/load.sh, hotplug_restart) already takes one CPU offline
# and online and sees the loader restart.
last=/sys/devices/system/cpu/cpu$((NCPU - 1))/online
loops=3
if [ "$MODE" != full ]; then
	:
elif [ -w "$last" ] && start_lavd hotloop; then
	# cyc, not i: reap and wait_state (lib.sh) use i.
	cyc=0 ok=1
	while [ $cyc -lt $loops ]; do
		echo 0 >"$last"; sleep 1; echo 1 >"$last"
		j=0
		while [ $j -lt 120 ] && ! { [ "$(grep -c 'scheduling' /out/hotloop.log)" -ge $((cyc + 2)) ] &&
			[ "$(state)" = enabled ]; }; do
			sleep 1; j=$((j + 1))
		done
		[ $j -lt 120 ] || { ok=0; break; }
		cyc=$((cyc + 1))
	done
	stress-ng --cpu "$NCPU" -t 3s >/dev/null 2>&1 || ok=0
	stop_lavd || ok=0
	wait_state disabled 15 || ok=0
	fault_done hotplug_loop $ok "$cyc of $loops offline/online cycles restarted"
else
	fault_done hotplug_loop 0 "no hotplug control or did not attach"
fi

wait_state disabled 20 || fail final_state "left in state $(state)"
exit $FAILED
