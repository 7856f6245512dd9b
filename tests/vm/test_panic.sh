#!/usr/bin/env bash
# tests/vm/panic.sh's judgement of guest kernel panics, on hand-made fault
# reports (shortened from real ones): which the VM tier boots again (not
# ours, exit 0) and which fail it at once (ours, exit 1).
set -u
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$here/../check.sh"

# fault NAME: the report on stdin becomes $dir/NAME/fault.txt.
fault() { mkdir -p "$dir/$1"; cat >"$dir/$1/fault.txt"; }
# judge TEST FAULT WANT_RC: 0 = not ours, 1 = ours.
judge() { check_run panic "$1" "$3" '' bash -c '. "$1"; panic_not_ours "$2"' _ "$here/panic.sh" "$dir/$2"; }

# The CI fault of 2026-12-07: a stale int3 at a static-branch site of
# __schedule, in sched_ext's enable kthread, with a second report from our
# loader's CPU. Not ours, though the task is scx_enable_help and scx_lavd.
fault int3_enable <<'F'
[  349.058991] Oops: int3: 0000 [#1] SMP NOPTI
[  349.059658] CPU: 3 UID: 0 PID: 162 Comm: scx_enable_help Not tainted 7.2.13+deb14-cloud-amd64 #1
[  349.059929] Sched_ext: lavd (enabled+all)
[  349.059990] RIP: 0010:__schedule+0x5e6/0x1070
[  349.063212]  schedule+0x27/0xa0
[  349.064072] Oops: int3: 0000 [#2] SMP NOPTI
[  349.064249] CPU: 0 UID: 0 PID: 14449 Comm: scx_lavd Tainted: G      D
[  349.064400] Sched_ext: lavd (enabled+all), task: runnable_at=-4ms
[  349.064416] RIP: 0010:__schedule+0x5e6/0x1070
[  349.065000] Kernel panic - not syncing: Fatal exception
F
judge int3_static_branch int3_enable 0

# 1f7fd82's: the idle task's tick, a 2-byte NOP site.
fault int3_tick <<'F'
[  347.100000] Oops: int3: 0000 [#1] SMP NOPTI
[  347.100100] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Not tainted 7.2.13+deb14-cloud-amd64 #1
[  347.100200] Sched_ext: lavd (enabled+all)
[  347.100300] RIP: 0010:sched_tick+0xd4/0x2a0
[  347.100400] Kernel panic - not syncing: Fatal exception in interrupt
F
judge int3_tick int3_tick 0

# The CI fault of ea8cc33: the same while the scheduler was being enabled.
fault int3_enabling <<'F'
[    8.155118] Oops: int3: 0000 [#1] SMP NOPTI
[    8.155901] CPU: 3 UID: 0 PID: 166 Comm: scx_enable_help Not tainted 7.3.4+deb13-cloud-amd64 #1
[    8.155901] Sched_ext: lavd (enabling+all)
[    8.155901] RIP: 0010:update_rq_clock+0x3a/0x160
[    8.155901] Kernel panic - not syncing: Fatal exception in interrupt
F
judge int3_while_enabling int3_enabling 0

# An int3 inside BPF code is ours.
fault int3_bpf <<'F'
[  12.000000] Oops: int3: 0000 [#1] SMP NOPTI
[  12.000100] CPU: 2 UID: 0 PID: 77 Comm: stress-ng Not tainted 7.3.4+deb13-cloud-amd64 #1
[  12.000300] RIP: 0010:bpf_prog_e8477b1fb0aedf5f_lavd_enqueue+0x1f3/0x5a0
[  12.000400] Kernel panic - not syncing: Fatal exception
F
judge int3_bpf_prog int3_bpf 1

# The first fault decides: a page fault in our program, then an int3.
fault bpf_then_int3 <<'F'
[  20.000000] BUG: unable to handle page fault for address: 0000000000001234
[  20.000050] Oops: 0000 [#1] SMP NOPTI
[  20.000300] RIP: 0010:bpf_prog_1c0e22f4dc2e2f40_lavd_stopping+0x40/0x300
[  20.001000] Oops: int3: 0000 [#2] SMP NOPTI
[  20.001300] RIP: 0010:__schedule+0x5e6/0x1070
[  20.002000] Kernel panic - not syncing: Fatal exception
F
judge first_fault_decides bpf_then_int3 1

# A NULL dereference in sched_ext's own code is ours.
fault null_scx <<'F'
[  30.000000] BUG: kernel NULL pointer dereference, address: 0000000000000010
[  30.000050] Oops: 0000 [#1] SMP NOPTI
[  30.000100] CPU: 0 UID: 0 PID: 400 Comm: hackbench Not tainted 7.3.4+deb13-cloud-amd64 #1
[  30.000200] Sched_ext: lavd (enabled+all), task: runnable_at=+0ms
[  30.000300] RIP: 0010:scx_dsq_move+0x61/0x2c0
[  30.000400] Kernel panic - not syncing: Fatal exception
F
judge null_in_sched_ext null_scx 1

# A fault in a device's interrupt handler names only the loaded scheduler,
# with or without a task of ours: not ours.
fault gpf_irq <<'F'
[  40.000000] general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI
[  40.000100] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Not tainted 7.2.13+deb14-cloud-amd64 #1
[  40.000200] Sched_ext: lavd (enabled+all)
[  40.000300] RIP: 0010:virtnet_poll+0x1a2/0x5c0
[  40.000400] Kernel panic - not syncing: Fatal exception in interrupt
F
judge gpf_in_driver gpf_irq 0
sed -i 's/Sched_ext: lavd (enabled+all)$/Sched_ext: lavd (enabled+all), task: runnable_at=-1ms/' "$dir/gpf_irq/fault.txt"
judge gpf_in_driver_our_task gpf_irq 0

# Our loader as the current task is ours.
fault loader <<'F'
[  50.000000] BUG: unable to handle page fault for address: ffffffffffffff00
[  50.000050] Oops: 0000 [#1] SMP NOPTI
[  50.000100] CPU: 3 UID: 0 PID: 99 Comm: scx_lavd Not tainted 7.3.4+deb13-cloud-amd64 #1
[  50.000300] RIP: 0010:__kmalloc_noprof+0x120/0x400
[  50.000400] Kernel panic - not syncing: Fatal exception
F
judge loader_task loader 1

# No report, or an empty one: ours.
mkdir -p "$dir/none"
judge no_report none 1
: >"$dir/none/fault.txt"
judge empty_report none 1
[ "$fail" = 0 ]
