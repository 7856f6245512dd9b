#!/bin/sh
# Guest side: the scheduler on two LLCs (tools/vm/run --sockets 2), where the
# cross-LLC paths run: pulls by CPUs whose queue ran dry and the balance plan
# (pol_plan_balance) between saturated LLCs. Run through tests/vm/tier-vm.sh.
# Also on one socket cut in two by --virt-llc=2-2 (4 CPUs), given as ARGS.
#
#   sh tests/vm/llc2.sh TAG [SECS [SCX_LAVD ARGS...]]
#
# Heavy hogs (nice -5, weight 335) start pinned to LLC 0 and light ones
# (nice 10, weight 10) to LLC 1, then both are let loose: both queues hold
# work, LLC 0 has 33x the weight, so only the plan can move it.
set -u
TAG=${1:-vm}
DUR=${2:-20}
shift 2 2>/dev/null || shift $#
. /lavd/tests/vm/lib.sh
NCPU=$(nproc)
MAX_WAIT_US=2000000

echo "== $TAG: two LLCs, $NCPU CPUs: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list | tr '\n' ' ')"
if ! start_lavd llc2 "$@"; then
	fail two_llcs "did not attach"
	exit 1
fi
nllc=$(sed -n 's/.* in \([0-9]*\) LLCs*.*/\1/p' /out/llc2.log | head -1)
[ "$nllc" = 2 ] && pass two_llcs_seen "the loader sees 2 LLCs" ||
	fail two_llcs_seen "the loader sees '${nllc}' LLCs: $(head -2 /out/llc2.log)"
case " $* " in *" --virt-llc="*)
	grep -q 'split into 2 virtual LLCs' /out/llc2.log &&
		pass virt_llc_split "$(grep 'virtual LLC' /out/llc2.log)" ||
		fail virt_llc_split "no 'split into 2 virtual LLCs' in: $(head -3 /out/llc2.log)"
esac

half=$((NCPU / 2))
lo="0-$((half - 1))"; hi="$half-$((NCPU - 1))"
before=$(scx_errors | wc -l)
# (busybox has no nice: renice the shell, then exec; the workers inherit it)
sh -c "renice -n -5 -p \$\$ >/dev/null; exec taskset -c $lo stress-ng --cpu $NCPU -t ${DUR}s" >/dev/null 2>&1 &
heavy=$!
sh -c "renice -n 10 -p \$\$ >/dev/null; exec taskset -c $hi stress-ng --cpu $NCPU -t ${DUR}s" >/dev/null 2>&1 &
light=$!
sleep 2
# Let every worker run anywhere (the stress-ng workers are child processes).
for p in $(ls /proc | grep '^[0-9]*$'); do
	[ "$(cat /proc/$p/comm 2>/dev/null)" = stress-ng ] || continue
	taskset -a -p -c "0-$((NCPU - 1))" "$p" >/dev/null 2>&1
done
reap "$heavy" $((DUR + 60)); rh=$?
reap "$light" $((DUR + 60)); rl=$?
st=$(state)
after=$(scx_errors | wc -l)
stop_lavd
sum=$(grep summary /out/llc2.log | tail -1)
echo "$sum"
xs=$(log_num /out/llc2.log xllc_steal)
ps=$(log_num /out/llc2.log plan_steal)
mw=$(max_wait_us /out/llc2.log)
if [ "$st" = enabled ] && [ "$rh" = 0 ] && [ "$rl" = 0 ] && [ "$after" = "$before" ] &&
   [ "${xs:-0}" -gt 0 ] && [ "${ps:-0}" -gt 0 ] && [ "${mw:-99999999}" -lt "$MAX_WAIT_US" ]; then
	pass two_llcs_balance "cross-LLC pulls $xs, by the plan $ps, longest wait $mw us"
else
	fail two_llcs_balance "state $st, hogs rc $rh/$rl, new sched_ext errors $((after - before)), cross-LLC pulls '${xs}', plan '${ps}', longest wait '${mw}' us"
fi
exit $FAILED
