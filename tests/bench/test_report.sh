#!/usr/bin/env bash
# The benchmark's arithmetic and tools on the host: report.py's ratios,
# spreads and verdicts on hand-made results whose answers are worked out
# below, lavd-pingpong's output and bad usage, and tools/vm/sample-pc's
# report. make bench itself runs only in the VM and is not a test (its
# figures depend on the machine).
set -u
pp=${1:-build/vm-bin/lavd-pingpong}
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$here/../check.sh"
rep() { check_run report "$1" 0 "$2" python3 "$here/report.py" "$dir/res"; }

# hackbench is a time: the ratio is EEVDF's median over LAVD's,
# 4.2 / 3.5 = 1.20; per repetition 4.0/3.5 = 1.14, 4.4/3.6 = 1.22,
# 4.2/3.4 = 1.24 (spread 1.14-1.24); >= 0.97: met.
# schbench requests/s is work per second: LAVD's over EEVDF's,
# 8400 / 9000 = 0.93 < 0.97: not met.
# frame p99 is a latency: LAVD's median over EEVDF's, 7000 / 18750 = 0.37
# (EEVDF's median of 20000 and 17500; LAVD's third line has no value and is
# skipped); per repetition 7000/20000 = 0.35 and 7000/17500 = 0.40; <= 0.5:
# met. Frame misses 0 against 0: the ratio reads 1.00, but LAVD cannot do
# better than none, so the <= 0.25 target is met. Lines that are not five
# fields or whose value is not a number are skipped, so pipe_rtt_p99_us has
# no figure: missing.
cat >"$dir/res" <<'RES'
BENCH eevdf 1 hackbench_s 4.0
BENCH eevdf 2 hackbench_s 4.4
BENCH eevdf 3 hackbench_s 4.2
BENCH lavd 1 hackbench_s 3.5
BENCH lavd 2 hackbench_s 3.6
BENCH lavd 3 hackbench_s 3.4
BENCH eevdf 1 schbench_sat_rps 9000
BENCH lavd 1 schbench_sat_rps 8400
BENCH eevdf 1 frame_p99_us 20000
BENCH eevdf 2 frame_p99_us 17500
BENCH lavd 1 frame_p99_us 7000
BENCH lavd 2 frame_p99_us 7000
BENCH lavd 3 frame_p99_us 
BENCH eevdf 1 frame_miss_pct 0
BENCH lavd 1 frame_miss_pct 0
BENCH eevdf 1 pipe_rtt_p99_us n/a
noise that is not a result
RES
rep time_ratio '\(`hackbench_s`\) \| 4\.2 \| 3\.5 \| 1\.20 \| 1\.14-1\.24 \| ≥ 0\.97 \| met \|'
rep work_ratio '\(`schbench_sat_rps`\) \| 9000 \| 8400 \| 0\.93 \| 0\.93-0\.93 \| ≥ 0\.97 \| not met \|'
rep latency_ratio '\(`frame_p99_us`\) \| 18750 \| 7000 \| 0\.37 \| 0\.35-0\.40 \| ≤ 0\.5 \| met \|'
rep zero_against_zero '\(`frame_miss_pct`\) \| 0 \| 0 \| 1\.00 \| 1\.00-1\.00 \| ≤ 0\.25 \| met \|'
rep missing_metric '\(`pipe_rtt_p99_us`\) \| - \| - \| n/a \|  \|  \| missing \|'

# tools/vm/sample-pc report on hand-made samples. lavd has 4: one in user
# space (25 %), two in the lock slow path (50 %) with the same lock (RDI)
# and the same callers on the stack (a zero word is no text address), one
# in a BPF program at 0x10, whose closest line record before it is line 80's
# at 0x8 (25 %). eevdf has 1. Each pattern is one line (grep -E reads a
# newline in a pattern as "or").
sp="$here/../../tools/vm/sample-pc"
cat >"$dir/ksyms" <<'KS'
ffffffff81000000 T _stext
ffffffff81001000 T native_queued_spin_lock_slowpath
ffffffff81002000 T _task_rq_lock
ffffffff81003000 T task_sched_runtime
ffffffff81004000 D some_data
ffffffffc0001000 t bpf_prog_0123456789abcdef_lavd_enqueue	[bpf]
KS
cat >"$dir/samples" <<'SM'
lavd 0 0000000000401000 0000000000000003 -
lavd 1 ffffffff81001010 ff00000000002608 ffffffff81002010,ffffffff81003010,0000000000000000
lavd 2 ffffffff81001020 ff00000000002608 ffffffff81002010,ffffffff81003010
lavd 3 ffffffffc0001010 0000000000000000 -
eevdf 0 ffffffff81003020 0000000000000000 -
SM
cat >"$dir/lines" <<'LN'
ffffffffc0001000 lavd_enqueue dsq.bpf.c:75 void BPF_STRUCT_OPS(lavd_enqueue)
ffffffffc0001008 lavd_enqueue dsq.bpf.c:80 x = y;
ffffffffc0001018 lavd_enqueue dsq.bpf.c:81 z = x;
LN
spr() { check_run sample-pc "$1" 0 "$2" python3 "$sp" report "$dir/samples" "$dir/ksyms" \
	--callers native_queued_spin_lock_slowpath --bpf-lines "$dir/lines"; }
spr total '^== lavd: 4 samples$'
spr lock_share '^ +50\.00% +2 +native_queued_spin_lock_slowpath$'
spr user_share '^ +25\.00% +1 +\(user\)$'
spr bpf_line '^ +25\.00% +1 +dsq\.bpf\.c:80 x = y;$'
spr lock_arg '^ +2 +ff00000000002608$'
spr callers '^ +2 +_task_rq_lock < task_sched_runtime$'
spr other_tag '^ *100\.00% +1 +task_sched_runtime$'
check_run sample-pc usage 2 'sample-pc record SOCKET' python3 "$sp" bogus

# tools/vm/insn-count's files carry a sixth field, the instructions executed
# at that address: the report sums those. 30 in the lock path, 10 in user
# space: 75 % and 25 %. compare: A has 100 instructions in
# task_sched_runtime over 10 requests (10 each); B 300 over 25 (12 each) and
# 50 in a BPF program (2 each): totals 10 and 14, each symbol 2 more in B.
cat >"$dir/a.insns" <<'IC'
a - ffffffff81003020 - - 100
IC
cat >"$dir/b.insns" <<'IC'
b - ffffffff81001010 - - 30
b - 0000000000401000 - - 10
IC
check_run sample-pc weighted 0 '^ +75\.00% +30 +native_queued_spin_lock_slowpath$' \
	python3 "$sp" report "$dir/b.insns" "$dir/ksyms"
check_run sample-pc weighted_total 0 '^== b: 40 instructions$' python3 "$sp" report "$dir/b.insns" "$dir/ksyms"
cat >"$dir/b.insns" <<'IC'
b - ffffffff81003020 - - 300
b - ffffffffc0001010 - - 50
IC
spc() { check_run sample-pc "$1" 0 "$2" python3 "$sp" compare "$dir/a.insns" "$dir/ksyms" 10 \
	"$dir/b.insns" "$dir/ksyms" 25; }
spc compare_total '^per unit: A total 10, B total 14$'
spc compare_sym '^ +\+2 +10 +12 +task_sched_runtime$'
spc compare_bpf '^ +\+2 +0 +2 +bpf_prog_0123456789abcdef_lavd_enqueue$'
check_run sample-pc compare_units 2 'units must be positive' python3 "$sp" compare \
	"$dir/a.insns" "$dir/ksyms" 0 "$dir/b.insns" "$dir/ksyms" 25

# tools/bench/insn-profile refuses bad settings before it boots anything.
ip="$here/../../tools/bench/insn-profile"
check_run insn-profile bad_sched 2 "unknown scheduler 'cfs'" env LAVD_IP_SCHEDS="eevdf cfs" "$ip" "$dir/ip"
check_run insn-profile bad_secs 2 'LAVD_IP_SECS must be a number' env LAVD_IP_SECS=8s "$ip" "$dir/ip"
check_run insn-profile no_bin 2 'no scx_lavd at' env LAVD_IP_BIN="$dir/none" "$ip" "$dir/ip"

check_run pingpong runs 0 '^pingpong t trips=[1-9][0-9]* rtt_avg_us=[0-9.]+ rtt_p50_us=[0-9.]+ rtt_p99_us=[0-9.]+ rtt_p999_us=[0-9.]+ rtt_max_us=[0-9.]+$' \
	"$pp" --secs 1 --name t
check_run pingpong secs_zero 2 'must be 1-3600' "$pp" --secs 0
check_run pingpong secs_junk 2 'must be 1-3600' "$pp" --secs 1x
check_run pingpong no_value 2 'needs a value' "$pp" --secs
check_run pingpong unknown_flag 2 usage "$pp" --bogus 1
[ "$fail" = 0 ]
