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
for k in ${LAVD_VM_KERNELS:-7.3 7.2}; do
	log=build/results/bpf-$k.log
	mkdir -p build/results
	tools/vm/run --kernel "$k" --cpus 2 --timeout 300 -- \
		sh -c 'scx_lavd --run-secs 3; echo "loader rc=$?"' >"$log" 2>&1
	if grep -q 'scheduling .* CPUs' "$log" && grep -q 'loader rc=0' "$log"; then
		echo "PASS bpf/verifier-$k"
	else
		echo "FAIL bpf/verifier-$k: the kernel did not accept the program"
		grep -vE '^ *[0-9]+: ' "$log" | tail -40
		rc=1
	fi
done
exit $rc
