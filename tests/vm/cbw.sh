#!/bin/sh
# Guest side: cgroup CPU bandwidth (cpu.max) under scx_lavd --enable-cpu-bw.
# Run through tests/vm/tier-vm.sh (one boot per kernel, 4 CPUs).
#
#   sh tests/vm/cbw.sh TAG [SECS]
#
# Cgroups (cgroup v2, cpu controller on):
#   lim       cpu.max "20000 100000" (20 % of one CPU), 2 CPU hogs
#   par/kid   par "20000 100000", kid "max", 2 hogs in kid: nested limit
#   free      "max", 2 hogs: never throttled
# Checks, from each cgroup's cpu.stat usage_usec over SECS seconds:
#   - without --enable-cpu-bw nothing enforces cpu.max (sched_ext tasks are
#     not in the fair class, whose throttling is what cpu.max drives);
#   - with it, lim and kid use 20 % of one CPU +-30 % (relative), free
#     uses well over that, the scheduler stays enabled, every stress-ng
#     exits 0 (no task lost);
#   - throttled tasks come back when their cgroup is removed (moved out,
#     then rmdir) and when the scheduler is unloaded.
set -u
TAG=${1:-vm}
DUR=${2:-10}
. /lavd/tests/vm/lib.sh
CG=/sys/fs/cgroup
LO=140	# per mille of one CPU: 20 % -30 %
HI=260	# ... +30 %
LO50=350	# the same for 50 % (cpu.max changed at run time)
HI50=650

echo "== $TAG: cpu.max, kernel $(uname -r), $(nproc) CPUs, ${DUR}s"
[ "$(state)" = disabled ] || fail precondition "sched_ext state is $(state)"
if ! echo +cpu >$CG/cgroup.subtree_control; then
	fail cpu_controller "cannot enable the cpu controller"
	exit 1
fi
mkdir -p $CG/lim $CG/par/kid $CG/free $CG/gone
echo +cpu >$CG/par/cgroup.subtree_control
echo "20000 100000" >$CG/lim/cpu.max
echo "20000 100000" >$CG/par/cpu.max
echo "20000 100000" >$CG/gone/cpu.max
echo "lim: $(cat $CG/lim/cpu.max), par: $(cat $CG/par/cpu.max), kid: $(cat $CG/par/kid/cpu.max), free: $(cat $CG/free/cpu.max)"

usage() { sed -n 's/^usage_usec \([0-9]*\)/\1/p' "$CG/$1/cpu.stat"; }
# Microseconds since boot (/proc/uptime has centiseconds).
now_us() { awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime; }
# hogs CGROUP N SECS: N CPU hogs in CGROUP for SECS seconds, in the background; sets HPID.
hogs() {
	sh -c "echo \$\$ >$CG/$1/cgroup.procs && exec stress-ng --cpu $2 -t ${3}s" >/dev/null 2>&1 &
	HPID=$!
}
# measure SECS CGROUP...: per mille of one CPU each top-level cgroup used
# over SECS; sets PM_<cgroup>.
measure() {
	secs=$1; shift
	for g in "$@"; do eval "u0_$g=$(usage "$g")"; done
	t0=$(now_us)
	sleep "$secs"
	t1=$(now_us)
	for g in "$@"; do
		eval "u0=\$u0_$g"
		u1=$(usage "$g")
		eval "PM_$g=$(( (u1 - u0) * 1000 / (t1 - t0) ))"
	done
}
# in_band VALUE [LOW HIGH]: within LOW..HIGH (default $LO..$HI).
in_band() { [ "$1" -ge "${2:-$LO}" ] && [ "$1" -le "${3:-$HI}" ]; }

# 1. Without --enable-cpu-bw: cpu.max is not enforced by us.
if start_lavd cbw_off; then
	hogs lim 2 $((DUR + 4)); h=$HPID
	sleep 2
	measure "$DUR" lim
	reap "$h" 30; rc=$?
	stop_lavd
	if [ "$rc" = 0 ] && [ "$PM_lim" -gt $HI ]; then
		pass cpu_max_not_enforced_without_flag "2 hogs under cpu.max 20 % used $PM_lim per mille of a CPU: the fair class's throttling does not apply to sched_ext tasks"
	else
		fail cpu_max_not_enforced_without_flag "hogs rc $rc, used $PM_lim per mille (expected well above $HI)"
	fi
	grep -q 'cpu_bw:' /out/cbw_off.log && fail no_cpu_bw_summary_without_flag "$(grep cpu_bw: /out/cbw_off.log)"
else
	fail cpu_max_not_enforced_without_flag "did not attach"
fi

# 2. With --enable-cpu-bw: 20 % on average, nested too; "max" is free.
if ! start_lavd cbw --enable-cpu-bw; then
	fail attach_cpu_bw "did not attach"
	exit 1
fi
pass attach_cpu_bw "$(grep -o 'cpu.max enforced' /out/cbw.log)"
before=$(scx_errors | wc -l)
# lim's hogs outlast the 50 % and max windows below (~DUR + 14 s from here)
hogs lim 2 $((DUR + 22)); h1=$HPID
hogs par/kid 2 $((DUR + 4)); h2=$HPID
hogs free 2 $((DUR + 4)); h3=$HPID
sleep 2
# (par's usage_usec includes kid's)
measure "$DUR" lim par free
pm20=$PM_lim
reap "$h2" 30; r2=$?
reap "$h3" 30; r3=$?
# cpu.max changed while running (ops.cgroup_set_bandwidth): 50 %, then max.
# Measured once the other cgroups' hogs are gone. Until lavd_now() stopped
# using scx_bpf_now() (scx.bpf.h), the first 5 s here often read 283-363 per
# mille on 7.2: the timer, on an idle CPU, read a clock up to 870 ms stale and
# skipped period refills. This test then accepted one window in three; with
# the clock fixed, seconds read 483-557 ms on 7.2 and 492-564 on 7.3, and the
# first window must be in the band.
echo "50000 100000" >$CG/lim/cpu.max
sleep 1
measure 5 lim
pm50=$PM_lim
echo max >$CG/lim/cpu.max
sleep 1
measure 3 lim
pmmax=$PM_lim
echo "20000 100000" >$CG/lim/cpu.max
reap "$h1" 30; r1=$?
st=$(state)
after=$(scx_errors | wc -l)
echo "used (per mille of one CPU): lim $pm20, par $PM_par, free $PM_free"
cat $CG/lim/cpu.stat | tr '\n' ' '; echo
if [ "$r1" = 0 ] && [ "$st" = enabled ] && in_band "$pm20"; then
	pass cpu_max_20pct "lim used $pm20 per mille of one CPU (20 % +-30 %: $LO..$HI)"
else
	fail cpu_max_20pct "lim used $pm20 per mille (want $LO..$HI), hogs rc $r1, state $st"
fi
if [ "$r2" = 0 ] && in_band "$PM_par"; then
	pass cpu_max_nested "par 20 % with its child kid at max: kid's hogs used $PM_par per mille"
else
	fail cpu_max_nested "par (20 %, hogs in kid) used $PM_par per mille (want $LO..$HI), hogs rc $r2"
fi
if [ "$r3" = 0 ] && [ "$PM_free" -ge 1000 ]; then
	pass cpu_max_unlimited_free "free (max) used $PM_free per mille with 2 hogs"
else
	fail cpu_max_unlimited_free "free (max) used $PM_free per mille (want >= 1000), hogs rc $r3"
fi
if [ "$r1" = 0 ] && in_band "$pm50" $LO50 $HI50 && [ "$pmmax" -ge 1000 ]; then
	pass cpu_max_changed_at_run_time "lim at 50 %: $pm50 per mille, then at max: $pmmax"
else
	fail cpu_max_changed_at_run_time "lim at 50 %: $pm50 per mille (want $LO50..$HI50), at max: $pmmax (want >= 1000)"
fi
if [ "$st" = enabled ] && [ "$after" = "$before" ]; then
	pass cpu_bw_stays_enabled
else
	fail cpu_bw_stays_enabled "state $st, new sched_ext errors $((after - before))"
	scx_errors | tail -5
fi

# 3. A throttled cgroup removed: its hogs moved to the root cgroup while
# throttled, then rmdir. They must run on and finish.
sh -c "echo \$\$ >$CG/gone/cgroup.procs && exec stress-ng --cpu 2 -t 6s" >/dev/null 2>&1 &
h=$!
sleep 2
for p in $(cat $CG/gone/cgroup.procs); do echo "$p" >$CG/cgroup.procs; done
rmdir $CG/gone; rd=$?
reap "$h" 30; rc=$?
if [ "$rc" = 0 ] && [ "$rd" = 0 ] && [ "$(state)" = enabled ]; then
	pass cpu_bw_cgroup_removed "hogs moved out and their cgroup removed while throttled: finished"
else
	fail cpu_bw_cgroup_removed "hogs rc $rc, rmdir rc $rd, state $(state)"
fi

# Cgroup churn: limited cgroups made, used and removed in a loop. Each
# cgroup's shell counts to 1000 (tens of ms of CPU under TCG, past its
# 10 ms per 100 ms period): until 2026-12-07 it counted to 5000, ~3 s per
# cgroup at 10 % of a CPU, 96 s of the boot.
i=0
while [ $i -lt 30 ]; do
	mkdir $CG/churn$i && echo "10000 100000" >$CG/churn$i/cpu.max &&
		sh -c "echo \$\$ >$CG/churn$i/cgroup.procs && n=0 && while [ \$n -lt 1000 ]; do n=\$((n + 1)); done" &&
		rmdir $CG/churn$i || break
	i=$((i + 1))
done
if [ $i = 30 ] && [ "$(state)" = enabled ]; then
	pass cpu_bw_cgroup_churn "30 limited cgroups made, used and removed"
else
	fail cpu_bw_cgroup_churn "stopped at $i, state $(state)"
fi

# 4. Unload while tasks are set aside: the kernel gives them back to the fair class.
hogs lim 2 8; h=$HPID
sleep 3
sa=$(tail -3 /out/cbw.log)
stop_lavd; lrc=$?
reap "$h" 30; rc=$?
grep -E 'summary|cpu_bw|EXIT' /out/cbw.log
ev=$(log_num /out/cbw.log throttle_events)
rel=$(log_num /out/cbw.log released)
ncg=$(sed -n 's/.*cpu_bw:.* cgroups=\([0-9]*\).*/\1/p' /out/cbw.log | tail -1)
if [ "$lrc" = 0 ] && [ "$rc" = 0 ] && wait_state disabled 15; then
	pass cpu_bw_unload_while_throttled "loader rc 0, hogs finished under the fair class"
else
	fail cpu_bw_unload_while_throttled "loader rc $lrc, hogs rc $rc, state $(state)"
fi
# root, lim, par, par/kid, free at least (gone was removed)
if [ "${ev:-0}" -gt 0 ] && [ "${rel:-0}" -gt 0 ] && [ "${ncg:-0}" -ge 4 ]; then
	pass cpu_bw_counters "throttle events $ev, tasks moved back $rel, cgroups tracked $ncg"
else
	fail cpu_bw_counters "summary: $(grep cpu_bw: /out/cbw.log)"
fi
# The rounds that refill cgroup periods run every 10 ms by the scheduler's
# clock; with the stale clock above they seemed 780-950 ms apart in every
# such boot (a host stall in the VM may add some 100 ms, not that).
gap=$(log_num /out/cbw.log max_round_gap_us)
if [ -n "$gap" ] && [ "$gap" -lt 300000 ]; then
	pass cpu_bw_round_clock "longest time between statistics rounds: $gap us"
else
	fail cpu_bw_round_clock "longest time between statistics rounds: ${gap:-not reported} us (want < 300000)"
fi
mw=$(max_wait_us /out/cbw.log)
echo "longest runnable wait with cpu.max: $mw us ($(grep max_wait: /out/cbw.log))"
exit $FAILED
