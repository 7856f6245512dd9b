#!/usr/bin/env bash
# Tier T4: load tests in the VM, on the 7.3 and the 7.2 kernel.
#   LAVD_VM_SECS=N    seconds per workload (default 30)
#   LAVD_VM_KERNELS   kernels to use (default "7.3 7.2")
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${LAVD_VM_SECS:-30}
rc=0
# A failed boot: show what the kernel said, not only the matching lines (a CI
# log is all there is to read afterwards).
show() { # STDERR_FILE RC
	if [ "$2" != 0 ]; then
		echo "---- $1 (VM exit $2), last 60 lines ----"
		tail -n 60 "$1"
	else
		grep -E 'sched_ext|BUG|WARNING' "$1" | tail -5
	fi
}
for k in ${LAVD_VM_KERNELS:-7.3 7.2}; do
	out=build/results/vm-$k
	rm -rf "$out" "$out-llc2"; mkdir -p build/results
	# load.sh, then the short subset of the reliability suite (stress.sh).
	tools/vm/run --kernel "$k" --cpus 4 --timeout $((secs * 10 + 1200)) --out "$out" \
		-- sh -c "sh tests/vm/load.sh vm-$k $secs; a=\$?; sh tests/vm/stress.sh vm-$k short 10; exit \$((a | \$?))" \
		2>"$out.stderr"; r=$?
	[ $r = 0 ] || rc=1
	show "$out.stderr" $r
	# A second boot with two sockets (two LLCs): the cross-LLC paths.
	tools/vm/run --kernel "$k" --cpus 4 --sockets 2 --timeout 600 --out "$out-llc2" \
		-- sh tests/vm/llc2.sh "vm-$k" 20 2>"$out-llc2.stderr"; r=$?
	[ $r = 0 ] || rc=1
	show "$out-llc2.stderr" $r
	# cgroup cpu.max under --enable-cpu-bw (a boot of its own: it changes the cgroup tree).
	rm -rf "$out-cbw"
	tools/vm/run --kernel "$k" --cpus 4 --timeout 600 --out "$out-cbw" \
		-- sh tests/vm/cbw.sh "vm-$k" 10 2>"$out-cbw.stderr"; r=$?
	[ $r = 0 ] || rc=1
	show "$out-cbw.stderr" $r
done
exit $rc
