#!/usr/bin/env bash
# Tier T1: the scheduler's BPF object is built by clang-19 (make) and the
# kernel's verifier accepts it: load, attach and unload in the VM on each kernel.
set -uo pipefail
cd "$(dirname "$0")/../.."
rc=0
if [ -s build/lavd.bpf.o ] && bpftool btf dump file build/lavd.bpf.o >/dev/null 2>&1; then
	echo "PASS bpf/build (clang-19 --target=bpf, $(stat -c %s build/lavd.bpf.o) bytes)"
else
	echo "FAIL bpf/build: build/lavd.bpf.o missing or without BTF"; rc=1
fi
kernels=${LAVD_VM_KERNELS:-7.3 7.2}
for k in $kernels; do
	log=build/results/bpf-$k.log
	mkdir -p build/results
	# With --stall-exit, and a stall report written after the scheduler
	# ran: --stall-exit must not stop a VM for a stall that came later
	# (kmsg level 3, the level of the kernel's own report).
	tools/vm/run --stall-exit --kernel "$k" --cpus 2 --timeout 300 -- \
		sh -c 'scx_lavd --run-secs 3; echo "loader rc=$?"
			echo "<3>rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: (a test, written by tier-bpf.sh)" >/dev/kmsg
			sleep 3; echo "guest done"' >"$log" 2>&1
	r=$?
	if grep -q 'scheduling .* CPUs' "$log" && grep -q 'loader rc=0' "$log"; then
		echo "PASS bpf/verifier-$k"
	else
		echo "FAIL bpf/verifier-$k: the kernel did not accept the program"
		grep -vE '^ *[0-9]+: ' "$log" | tail -40
		rc=1
	fi
	if [ "$r" = 0 ] && grep -q '^guest done' "$log"; then
		echo "PASS bpf/stall-after-enable-$k (the VM ran to its end)"
	else
		echo "FAIL bpf/stall-after-enable-$k: VM exit $r: --stall-exit stopped it, or the guest did not finish"
		tail -5 "$log"
		rc=1
	fi
done
# The harness's own check (tools/vm/run --stall-exit, which tier-vm.sh uses):
# a stall report before any BPF scheduler was enabled stops the VM at once,
# exit 126, not at the timeout. The kernel's report is written by hand.
log=build/results/stall-exit.log
t0=$(date +%s)
tools/vm/run --stall-exit --kernel "${kernels%% *}" --cpus 2 --timeout 300 -- \
	sh -c 'echo "<3>rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: (a test, written by tier-bpf.sh)" >/dev/kmsg
		sleep 250; echo "guest done"' >"$log" 2>&1
r=$? el=$(($(date +%s) - t0))
if [ "$r" = 126 ] && [ "$el" -lt 120 ] && grep -q '^vm/run: STALL' "$log" && ! grep -q '^guest done' "$log"; then
	echo "PASS bpf/stall-exit (VM stopped after ${el}s, exit 126)"
else
	echo "FAIL bpf/stall-exit: VM exit $r after ${el}s (want 126, well before the guest's 250 s)"
	tail -8 "$log"
	rc=1
fi
exit $rc
