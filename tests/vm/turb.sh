# Guest side, sourced by storm.sh (its "turb" option): turbulent and steady
# CPUs (pol_cpu.h), under -icount, in the session the storm uses next
# (one verifier load less: ~100 s of the CI's time under -icount). An RT
# hog on the last CPU must make it turbulent (time lost to RT); an idle
# system and our own CPU load must not.
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

# turbulence_phase LOGNAME: the scheduler was just started (start_lavd
# LOGNAME) on an idle system; it keeps running afterwards.
turbulence_phase() {
	_tl=$1 _tn=$(nproc)
	_tfrom=$(($(wc -l <"/out/$_tl.log") + 1))
	# An idle system: CPUs idle since before the load saw no update_idle;
	# no gap was opened for them, so nothing is lost.
	sleep 2
	turbi=$(turb_now "$_tl")
	# Our own load, read once a second for 4 s.
	stress-ng --cpu "$_tn" -t 4s >/dev/null 2>&1 &
	S=$!
	turb0s=""
	nturb0=0
	for k in 1 2 3 4; do
		sleep 1
		v=$(turb_now "$_tl")
		turb0s="$turb0s $v"
		[ "$v" = 0 ] || nturb0=$((nturb0 + 1))
	done
	reap "$S" 10 || fail turbulent_rt_cpu "stress-ng --cpu $_tn failed or did not end"
	turb0="${turb0s# } (readings with a turbulent CPU: $nturb0 of 4)"
	rt_hog $((_tn - 1)) 4
	sleep 3
	turb=$(turb_now "$_tl")
	reap "$RTPID" 10
	# Tasks that can only run on the hogged CPU wait for RT throttling
	# there: this phase's longest wait is reported, not held to a limit
	# (the RT task is not ours to schedule).
	_tmw=$(interval_max_wait "/out/$_tl.log" "$_tfrom")
	if [ "$turbi" = 0 ] && [ "$nturb0" = 0 ] && [ "$turb" -ge 1 ]; then
		pass turbulent_rt_cpu "$turb CPU(s) turbulent under an RT hog, $turbi when idle, $turb0 under our own load; longest wait $_tmw us"
	else
		fail turbulent_rt_cpu "turbulent CPUs: $turbi idle (want 0), $turb0 under our load (want 0), $turb under an RT hog (want >= 1); $(tail -2 "/out/$_tl.log")"
	fi
}
