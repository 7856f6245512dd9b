#!/bin/sh
# Guest side of the storm boot: 10,000 threads woken at once, under
# -icount (tools/vm/run --icount), where the VM's timing is repeatable and
# its vCPUs take turns instead of racing for the host's cores. Checks:
# every thread finishes, the scheduler stays enabled, and its own record of
# the longest runnable wait stays under 1 s (issue 6).
#
#   sh tests/vm/storm.sh TAG [pair] [turb]
#
# pair: run the same storm under EEVDF first, in this boot, and report its
# waits next to ours (make stress). threadstorm measures waits from user
# space (after a nap, across sched_yield), the same way under both.
# turb: first, in the same session, the turbulence checks of turb.sh; the
# storm's longest wait is then read from the stats lines of the storm only.
set -u
TAG=${1:-vm}
[ $# = 0 ] || shift
PAIR= TURB=
for a in "$@"; do
	case "$a" in
	pair) PAIR=pair ;;
	turb) TURB=1 ;;
	*) echo "storm.sh: unknown option $a" >&2; exit 2 ;;
	esac
done
. /lavd/tests/vm/lib.sh
. /lavd/tests/vm/turb.sh
MAX_WAIT_US=1000000
STORM="threadstorm --threads 10000 --rounds 3 --timeout-s 600"
user_wait() { echo "$1" | sed -n 's/.*\(max_wait_ms=[0-9]*\).*/\1/p'; }

echo "== $TAG: 10,000-thread storm, kernel $(uname -r), $(nproc) CPUs"
[ "$(state)" = disabled ] || { fail precondition "sched_ext state is $(state)"; exit 1; }
eevdf=
if [ "$PAIR" = pair ]; then
	eevdf=$($STORM 2>&1)
	echo "under EEVDF: $eevdf"
fi
if ! start_lavd storm; then
	fail attach "did not attach"
	exit 1
fi
if [ -n "$TURB" ]; then
	turbulence_phase storm
	sleep 2		# the RT hog's waits end in a stats line before the storm's
	from=$(($(wc -l </out/storm.log) + 1))
fi
out=$($STORM 2>&1); rc=$?
st=$(state)
echo "under LAVD: $out"
[ -z "$TURB" ] || sleep 2	# a stats line after the storm's last wait
stop_lavd
grep -E 'summary|max_wait:|EXIT' /out/storm.log
if [ -n "$TURB" ]; then
	# no stats line since the storm began: unknown, not 0
	mw=
	[ -z "$(stat_rows /out/storm.log $((from - 1)) MAXWAITus)" ] ||
		mw=$(interval_max_wait /out/storm.log "$from")
else
	mw=$(max_wait_us /out/storm.log)
fi
lost=$(storm_lost "$out" 10000)
figure tasks_lost "$lost"
fault_done threads_10k "$([ $rc = 0 ] && [ "$st" = enabled ] && [ "$lost" = 0 ] && echo 1 || echo 0)" \
	"rc=$rc state=$st lost=$lost"
figure runs 1
if [ -n "$mw" ] && [ "$mw" -lt $MAX_WAIT_US ]; then
	figure runs_held 1
	pass storm_wait "longest wait ${mw} us (scheduler's record); from user space $(user_wait "$out")${eevdf:+, EEVDF $(user_wait "$eevdf")}"
else
	fail storm_wait "longest wait ${mw:-unknown} us (scheduler's record), limit $MAX_WAIT_US; from user space $(user_wait "$out")${eevdf:+, EEVDF $(user_wait "$eevdf")}"
fi
exit $FAILED
