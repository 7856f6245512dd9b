#!/usr/bin/env bash
# The loader binary refuses bad input with a clear message and exit code 2,
# before touching the kernel. Runs on any host.
set -u
bin=${1:-build/scx_lavd}
. "$(dirname "$0")/../check.sh"
check() { # name expected_rc message_regex args...
	local name=$1 want=$2 re=$3; shift 3
	check_run cli "$name" "$want" "$re" "$bin" "$@"
}
check version 0 'scx_lavd [0-9]+\.[0-9]+' --version
check help 0 'slice-max-us' --help
check bad_number 2 'not a non-negative integer' --slice-max-us abc
check out_of_range 2 'out of range' --preempt-shift 11
check min_over_max 2 'must not exceed' --slice-min-us 6000 --slice-max-us 5000
check unknown_flag 2 'unknown option' --frobnicate
check missing_value 2 'needs a value' --slice-min-us
check stray_arg 2 'unexpected argument' foo
check kick_without_preemption 2 'needs preemption' --no-preemption --preempt-kick

# Every flag that takes a value, with values that are not numbers, negative,
# overflowing, empty and one past each end of its range.
# flag:lo:hi  (hi+1 and lo-1 must be refused)
for spec in slice-max-us:1:1000000 slice-min-us:1:1000000 preempt-shift:0:10 \
	run-secs:1:31536000 warm-cpu-us:0:100000 pinned-slice-us:0:1000000 \
	lat-load-target-pct:0:200 mig-delta-pct:0:100 lb-low-util-pct:0:200 \
	lb-local-dsq-util-pct:0:200; do
	f=${spec%%:*} r=${spec#*:}; lo=${r%%:*} hi=${r#*:}
	check "${f}_word" 2 'not a non-negative integer' --"$f" abc
	check "${f}_negative" 2 'not a non-negative integer' --"$f" -5
	check "${f}_overflow" 2 'not a non-negative integer' --"$f" 99999999999999999999999
	check "${f}_empty" 2 'not a non-negative integer' --"$f" ''
	check "${f}_trailing" 2 'not a non-negative integer' --"$f" 12x
	check "${f}_above" 2 'out of range' --"$f" $((hi + 1))
	[ "$lo" -gt 0 ] && check "${f}_below" 2 'out of range' --"$f" $((lo - 1))
done
for v in abc 0 -1 86401 nan inf ''; do
	check "stats_bad_${v:-empty}" 2 'not a number of seconds' --stats "$v"
done
# Flags without a value given one.
for f in partial no-slice-boost no-preemption no-wake-sync no-futex-boost preempt-kick \
	verbose enable-cpu-bw autopilot autopower performance balanced powersave no-core-compaction \
	no-use-em no-freq-scaling; do
	check "${f}_with_value" 2 'unknown option|does not take' --"$f"=1
done
for v in abc 0 -1 86401 nan ''; do
	check "monitor_bad_${v:-empty}" 2 'not a number of seconds' --monitor "$v"
done
# Nothing to watch: a clear message, exit 1 (no scx_lavd runs on the test host).
check monitor_nothing_running 1 'no running scx_lavd' --monitor 0.1
check pinned_slice_below_min 2 'must be 0 \(off\) or within' --pinned-slice-us 100
check pinned_slice_above_max 2 'must be 0 \(off\) or within' --slice-max-us 3000 --pinned-slice-us 4000
check power_two_modes 2 'conflicts with an earlier power mode' --performance --powersave
check power_autopilot_autopower 2 'conflicts with an earlier power mode' --autopilot --autopower
check power_nocc_powersave 2 'conflicts with --powersave' --powersave --no-core-compaction
check power_nocc_balanced 2 'conflicts with --balanced' --no-core-compaction --balanced
check cpu_pref_order_bad 2 'not a CPU list' --cpu-pref-order 'a-b'
check cpu_pref_order_empty 2 'not a CPU list' --cpu-pref-order ''
for v in 0-2 3-2 2 2- -2 2-8x 1-1025 2-99999999999999999999 ''; do
	check "virt_llc_bad_${v:-empty}" 2 'is not MIN-MAX cores per virtual LLC' --virt-llc="$v"
done
check virt_llc_separate_value 2 'unexpected argument' --virt-llc 2-8
for v in verbose 3 '' 'info,x=debug'; do
	check "log_level_bad_${v:-empty}" 2 'is not one of error, warn, info, debug, trace' --log-level "$v"
done
if [ ! -d /sys/kernel/sched_ext ]; then
	if [ "$(id -u)" = 0 ]; then
		check no_sched_ext 2 'no sched_ext' --run-secs 1
	fi
fi
echo "cli: $((pass + fail)) inputs tried, $pass passed, $fail failed"
[ "$fail" = 0 ]
