#!/usr/bin/env bash
# The loader binary refuses bad input with a clear message and exit code 2,
# before touching the kernel. Runs on any host.
set -u
bin=${1:-build/scx_lavd}
pass=0; fail=0
check() { # name expected_rc message_regex args...
	local name=$1 want=$2 re=$3; shift 3
	local out rc
	out=$("$bin" "$@" 2>&1); rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$re" <<<"$out"; then
		echo "PASS cli/$name"; pass=$((pass + 1))
	else
		echo "FAIL cli/$name: rc=$rc (want $want), output: $out"; fail=$((fail + 1))
	fi
}
check version 0 'scx_lavd [0-9]+\.[0-9]+' --version
check help 0 'slice-max-us' --help
check bad_number 2 'not a non-negative integer' --slice-max-us abc
check out_of_range 2 'out of range' --preempt-shift 11
check min_over_max 2 'must not exceed' --slice-min-us 6000 --slice-max-us 5000
check unknown_flag 2 'unknown option' --frobnicate
check missing_value 2 'needs a value' --slice-min-us
check stray_arg 2 'unexpected argument' foo
if [ ! -d /sys/kernel/sched_ext ]; then
	if [ "$(id -u)" = 0 ]; then
		check no_sched_ext 2 'no sched_ext' --run-secs 1
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
