#!/bin/sh
# Guest side: turbulent and steady CPUs (pol_cpu.h), under -icount
# (tools/vm/run --icount). An RT hog on the last CPU must make it turbulent
# (time lost to RT); an idle system and our own CPU load must not.
#
#   sh tests/vm/turb.sh TAG
#
# Why -icount: lost time is what a CPU spends neither idle nor running our
# tasks, by the guest's clock. Under plain TCG the host (2 cores for 4
# vCPUs) stops vCPUs for milliseconds, and a vCPU stopped between two of our
# tasks (the scheduler path touches emulated devices: IPIs, timers) loses
# that time as surely as to an RT task. Traced in the guest with the host
# running two busy loops, 60 s of stress-ng --cpu 4: 83 and 334 of ~20,000
# intervals lost over a quarter (some all of it), 0 to 7 of 45 readings with
# a CPU turbulent (four runs); a CI run had 2 of 4 so. Under -icount the
# guest's clock only runs while its vCPU does: with the host just as busy,
# no interval after the first lost over a quarter, and 0 of 57 readings.
# There our own load may make no CPU turbulent at all.
set -u
TAG=${1:-vm}
. /lavd/tests/vm/lib.sh
NCPU=$(nproc)

echo "== $TAG: turbulent CPUs, kernel $(uname -r), $NCPU CPUs, -icount"
[ "$(state)" = disabled ] || { fail precondition "sched_ext state is $(state)"; exit 1; }

# Tasks that can only run on the hogged CPU wait for RT throttling there,
# so this session's longest wait is reported, not held to a limit (the RT
# task is not ours to schedule).
if start_lavd turb; then
	# An idle system: CPUs idle since before the load saw no update_idle;
	# no gap was opened for them, so nothing is lost.
	sleep 2
	turbi=$(turb_now turb)
	# Our own load, read once a second for 4 s.
	stress-ng --cpu "$NCPU" -t 4s >/dev/null 2>&1 &
	S=$!
	turb0s=""
	nturb0=0
	for k in 1 2 3 4; do
		sleep 1
		v=$(turb_now turb)
		turb0s="$turb0s $v"
		[ "$v" = 0 ] || nturb0=$((nturb0 + 1))
	done
	reap "$S" 10
	turb0="${turb0s# } (readings with a turbulent CPU: $nturb0 of 4)"
	rt_hog $((NCPU - 1)) 4
	sleep 3
	turb=$(turb_now turb)
	reap "$RTPID" 10
	stop_lavd
	if [ "$turbi" = 0 ] && [ "$nturb0" = 0 ] && [ "$turb" -ge 1 ]; then
		pass turbulent_rt_cpu "$turb CPU(s) turbulent under an RT hog, $turbi when idle, $turb0 under our own load; longest wait $(max_wait_us /out/turb.log) us"
	else
		fail turbulent_rt_cpu "turbulent CPUs: $turbi idle (want 0), $turb0 under our load (want 0), $turb under an RT hog (want >= 1); $(tail -2 /out/turb.log)"
	fi
else
	fail turbulent_rt_cpu "did not attach"
fi
exit $FAILED
