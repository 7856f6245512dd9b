#!/bin/sh
# Guest-side smoke test of the VM harness (run it with
# `tools/vm/run -- sh tests/vm/smoke.sh`): kernel with sched_ext, no BPF
# scheduler loaded, and the load/latency tools working. Exits 0 if all good.
set -u
fail=0
step() { echo "== $*"; }
bad() { echo "FAIL: $*"; fail=1; }

step "kernel $(uname -r), $(nproc) CPUs"
st=/sys/kernel/sched_ext/state
if [ -r "$st" ]; then
	s=$(cat "$st")
	echo "sched_ext state: $s"
	[ "$s" = disabled ] || bad "sched_ext state is '$s', expected 'disabled'"
else
	bad "$st missing: kernel without sched_ext?"
fi
step "ls /sys/kernel/sched_ext/"
ls -l /sys/kernel/sched_ext/ || bad "cannot list /sys/kernel/sched_ext"

step "stress-ng --cpu 2 -t 3 --metrics-brief"
stress-ng --cpu 2 -t 3 --metrics-brief || bad "stress-ng failed ($?)"
step "hackbench -l 100"
hackbench -l 100 || bad "hackbench failed ($?)"
step "cyclictest --policy=other -t 2 -D 3 -q"
cyclictest --policy=other -t 2 -D 3 -q || bad "cyclictest failed ($?)"

[ $fail = 0 ] && echo "smoke: OK" || echo "smoke: FAILED"
exit $fail
