# shellcheck shell=bash
# panic_not_ours OUTDIR: whether a guest kernel panic is not ours to fail
# on, from its fault report (OUTDIR/fault.txt, written by tools/vm/run from
# the first fault line to the panic). Sourced by tests/vm/tier-vm.sh, which
# boots such a VM once more (once per tier); tested by tests/vm/test_panic.sh.
# A panic without a report counts as ours. Not ours:
#
# - a first fault "Oops: int3" outside BPF code: an int3 that no handler
#   claimed, in kernel text. The kernel patches static branches and static
#   calls through a temporary int3 (text_poke_bp), and sched_ext flips static
#   keys whenever a scheduler loads or unloads. Under TCG a vCPU can run a
#   stale translation of a site after the patch completed; it traps on the
#   int3 after the kernel stopped expecting it. Seen twice in clean-clone CI
#   runs, both about 347 s into the 7.2 load boot, right after a scheduler
#   load: RIP at sched_tick+0xd4 (1f7fd82; a 2-byte NOP, a static-branch
#   site) and at __schedule+0x5e6 in sched_ext's enable kthread (2026-12-07:
#   the byte before RIP was by then the first byte of a 5-byte jmp, the other
#   form of such a site). A third time (2026-12-07) 8 s into a 7.3 boot,
#   while our scheduler was being enabled ("lavd (enabling+all)"): RIP at
#   update_rq_clock+0x3a, in the same enable kthread. No BPF program
#   executes int3, and the kernel's BUG() is ud2, not int3.
# - any other fault whose report names no sched_ext, BPF program or
#   trampoline function and not our loader as the current task. The kernel
#   names the loaded BPF scheduler in every oops ("Sched_ext: lavd
#   (enabled+all)", with ", task: ..." when the current task is one of
#   ours): context, not the culprit.
#
# One awk per question, no pipes: under pipefail a "grep -v | grep -q" that
# quits early can fail on SIGPIPE, which a "!" would turn into "not ours".
panic_not_ours() {
	local f=$1/fault.txt

	[ -s "$f" ] || return 1
	if awk '/Oops: / && !oops { oops = 1; int3 = /Oops: int3/ }
		/RIP: / && !rip { rip = 1; bpf = /bpf_prog|bpf_trampoline/ }
		END { exit !(int3 && !bpf) }' "$f"; then
		return 0
	fi
	! awk '!/Sched_ext: / && /scx_|sched_ext|ext\.c|bpf_prog|bpf_trampoline|bpf_struct_ops|lavd/ {
		found = 1 } END { exit !found }' "$f"
}
