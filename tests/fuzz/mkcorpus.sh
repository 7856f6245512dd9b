#!/usr/bin/env bash
# Write the seed corpus of the policy fuzzer (tests/fuzz/corpus/), deterministically.
#
#   tests/fuzz/mkcorpus.sh [DIR]      default DIR: tests/fuzz/corpus
#
# Every operation of tests/fuzz/fuzz_policy.c appears in at least one seed
# (checked at the end). Op numbers are read from the FZ_OPS list of the
# harness, so reordering the ops there cannot silently change what a seed
# means: re-run this script and commit the result.
#
# Encoding (see the comment at the top of fuzz_policy.c): a value is a tag
# byte, tag & 7 = 0 edge table, 2 small (tag >> 3), 3/4/5/6 raw 1/2/4/8
# bytes little-endian, 7 power of two plus (tag >> 3) - 16.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus}
src=$here/fuzz_policy.c

# Op name -> number, in the order of the FZ_OPS X-macro list.
declare -A OP
n=0
for name in $(sed -n '/^#define FZ_OPS(X)/,/^$/p' "$src" | grep -o 'X([A-Z_0-9]*)' | sed 's/X(\(.*\))/\1/'); do
	OP[$name]=$n
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "mkcorpus: no ops found in $src" >&2; exit 1; }

# Edge table indices used below (fz_edges[] in the harness).
E0=0; E1=1; E2=2; E8=5; E100=8; E1024=10; E10000=12; E100K=13; E500US=14; E5MS=16
E10MS=17; E1S=18; EU32=21; E2P32=22; E2P62=25; E2P63=27; EMAXM1=29; EMAX=30

hx() { printf '%02x' "$1"; }
op() { hx "${OP[$1]}"; }			# op byte
e() { hx $(($1 << 3)); }			# edge value
s() { hx $((($1 << 3) | 2)); }			# small value 0..31
b1() { printf '03%02x' "$1"; }			# one raw byte
b2() { printf '04%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)); }
b4() { printf '05'; for i in 0 1 2 3; do printf '%02x' $(($1 >> (8 * i) & 255)); done; }
byte() { hx "$1"; }				# a plain byte argument (index, flag)
# A raw task: avg acc wait wake run last_runnable last_quiescent last_running svc lat_cri waker wakee ran_before
task_frame() { echo "$(b4 2000000)$(e $E0)$(b2 60)$(b2 60)$(b2 60)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(b2 900)$(b2 1500)$(b2 3000)$(s 1)"; }
task_hog()   { echo "$(e $E1S)$(e $E1S)$(e $E0)$(e $E0)$(s 1)$(e $E0)$(e $E0)$(e $E0)$(e $E2P62)$(s 9)$(e $E0)$(e $E0)$(s 0)"; }
task_edge()  { echo "$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EU32)$(e $EU32)$(e $EU32)$(e $EU32)"; }

HDR="000000"			# default cfg, clock at 0, one CPU
HDR4="00$(b4 123456789)03"	# default cfg, four CPUs
# loader-valid cfg: slice_max 2000 us, slice_min 200 us, shift 3, no flags
HDRC="01$(b2 1999)$(b1 199)0300$(b4 5000000)01"

rm -rf "$out"
mkdir -p "$out"
seed() { printf '%s' "$2" | xxd -r -p > "$out/$1"; }

seed arith_sat "$HDR$(op P_MINMAX)$(e $EMAX)$(e $E0)$(e $E1)$(op P_CLAMP)$(s 5)$(s 10)$(s 1)$(op P_DIV)$(s 10)$(e $E0)$(s 0)$(op P_SUB_SAT)$(s 3)$(s 5)$(s 0)$(op P_ADD_SAT)$(e $EMAX)$(e $E1)$(s 0)$(op P_MUL_SAT)$(e $E2P32)$(e $E2P32)$(s 0)"
seed arith_avg "$HDR$(op P_LOG2X)$(e $E2P63)$(s 0)$(s 0)$(op P_EWMA)$(e $E1)$(e $E0)$(s 0)$(op P_EWMA)$(e $E0)$(e $E100)$(s 0)$(op P_EWMA_ASYM)$(e $E8)$(e $E10000)$(s 0)$(op P_FREQ)$(e $E0)$(e $E100K)$(s 0)$(op P_P2S)$(b1 50)$(s 0)$(s 0)"
seed arith_mul_edges "$HDR$(op P_MUL_SAT)$(e $EMAXM1)$(s 2)$(s 0)$(op P_MUL_SAT)$(b4 4294967295)$(b4 4294967295)$(s 0)$(op P_CLAMP)$(e $EMAX)$(s 1)$(e $E1S)$(op P_LOG2X)$(e $E0)$(s 0)$(s 0)"
seed ctx_boost "$HDR$(op P_CTX)$(b2 2047)$(op P_CTX)$(b2 12)$(op P_CTX)$(e $EU32)"
seed lat_cri_frame "$HDR$(op P_LAT_CRI)$(e $E100)$(s 3)$(task_frame)$(b2 2000)$(op P_LAT_CRI_NORM)$(b2 900)$(b2 1500)"
seed lat_cri_hog "$HDR$(op P_LAT_CRI)$(e $E10000)$(b2 2047)$(task_hog)$(e $E0)$(op P_LAT_CRI_NORM)$(s 9)$(e $E0)$(op P_WALL_TO_INVR)$(e $E1S)$(b2 512)$(b2 1024)$(op P_WALL_TO_INVR)$(e $EMAX)$(e $E0)$(e $EMAX)"
seed task_wake_run "$HDR$(op P_TASK_HOOKS)$(byte 1)$(e $E10MS)$(s 0)$(s 0)$(s 0)$(task_frame)$(task_hog)$(op P_TASK_HOOKS)$(byte 2)$(e $E10MS)$(s 0)$(s 0)$(s 0)$(task_frame)"
seed task_account_stop "$HDR$(op P_TASK_HOOKS)$(byte 3)$(s 0)$(e $E5MS)$(e $E5MS)$(s 0)$(task_frame)$(op P_TASK_HOOKS)$(byte 4)$(s 0)$(s 0)$(s 0)$(s 0)$(task_hog)$(op P_TASK_HOOKS)$(byte 5)$(e $E1S)$(s 0)$(s 0)$(s 0)$(task_frame)"
seed task_init_edges "$HDR$(op P_TASK_HOOKS)$(byte 15)$(e $E1S)$(e $E5MS)$(s 7)$(s 0)$(task_edge)$(op P_TASK_HOOKS)$(byte 7)$(e $E0)$(e $E5MS)$(s 0)$(s 0)$(task_frame)$(op P_TASK_HOOKS)$(byte 0)$(s 0)$(s 0)$(s 0)$(s 0)$(task_hog)$(op P_TASK_HOOKS)$(byte 6)$(e $E1S)$(s 0)$(s 0)$(s 0)$(task_frame)"
seed greedy "$HDR$(op P_GREEDY)$(e $E1S)$(e $E100)$(task_frame)$(op P_GREEDY)$(e $E0)$(s 1)$(task_hog)"
seed deadline "$HDR$(op P_DL_DELTA)$(e $E500US)$(e $E1024)$(b2 1200)$(e $E5MS)$(op P_WEIGHT_SCALE)$(e $E5MS)$(s 1)$(s 0)$(s 0)$(op P_COMPETE)$(s 4)$(s 9)$(s 0)$(s 0)$(op P_VDEADLINE)$(e $E1S)$(e $E5MS)$(e $E10MS)$(s 0)$(op P_CLOCK)$(e $E1S)$(e $EMAX)$(s 3)$(b2 700)"
seed deadline_edges "$HDR$(op P_DL_DELTA)$(e $EMAX)$(e $EMAX)$(e $E0)$(e $E2P62)$(op P_WEIGHT_SCALE)$(e $EMAX)$(e $E10000)$(s 0)$(s 0)$(op P_CLOCK)$(e $E0)$(e $E1S)$(e $E0)$(e $E0)"
seed sys_slice "$HDR$(op P_SYS_INIT)$(s 4)$(byte 0)$(op P_SLICE_TARGET)$(s 1)$(s 3)$(op P_SLICE_TARGET)$(s 2)$(e $E0)$(op P_THR)$(b2 2000)$(b2 600)$(s 6)$(op P_THR)$(s 5)$(s 9)$(s 0)"
seed sys_update "$HDR$(op P_SYS_UPDATE)$(e $E5MS)$(b2 600)$(b2 1800)$(s 0)$(b2 900)$(e $E1S)$(s 5)$(s 4)$(b2 1000)$(s 10)$(e $E10MS)$(b4 30000000)$(s 20)$(b2 12000)$(b2 1800)$(e $E1S)$(s 6)$(s 4)$(s 4)"
seed task_slice "$HDR$(op P_TASK_SLICE)$(e $E5MS)$(b2 600)$(b2 1800)$(s 0)$(s 0)$(s 1)$(s 4)$(b2 500)$(s 0)$(e $E1S)$(b2 900)$(e $E500US)$(op P_TASK_SLICE)$(e $E5MS)$(b2 600)$(b2 1800)$(s 0)$(s 0)$(s 9)$(s 1)$(b2 1000)$(s 0)$(e $E1S)$(b2 900)$(e $E10MS)"
seed cfg_raw "$HDR$(op P_CFG_RAW)$(e $EMAX)$(s 1)$(e $EMAX)$(e $EU32)$(s 4)$(s 3)$(e $EMAX)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(e $EMAX)$(e $E0)$(e $E10MS)$(e $EMAX)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(e $E0)$(e $E0)"
seed preempt "$HDR$(op P_PREEMPT)$(b2 1500)$(e $E5MS)$(e $E1S)$(e $E500US)$(e $E5MS)$(e $E5MS)$(b2 1000)$(byte 0)$(e $E1S)$(b2 400)$(s 1)$(e $E1S)$(b2 400)$(s 3)"
seed futex "$HDR$(op P_FUTEX)$(s 0)$(s 0)$(op P_FUTEX)$(b1 137)$(s 1)$(op P_FUTEX)$(s 7)$(e $EMAX)$(op P_FUTEX)$(b1 141)$(s 0)$(op P_FUTEX)$(s 2)$(s 0)"
seed cpu_lost_warmth "$HDR$(op P_LOST)$(e $E10MS)$(e $E5MS)$(b4 3000000)$(b2 300)$(b2 900)$(op P_LOST)$(e $EMAX)$(e $E0)$(e $E0)$(e $E0)$(s 0)$(op P_WARMTH)$(s 2)$(e $E1S)$(e $E500US)$(e $E500US)$(e $E500US)$(e $E1024)$(e $E1S)$(s 2)$(byte 1)"
seed balance "$HDR$(op P_BALANCE)$(s 8)$(s 2)$(byte 2)$(s 5)$(byte 3)$(b2 1500)$(s 3)$(s 2)$(byte 6)$(b2 1500)$(s 3)$(s 2)"
seed world_lifecycle "$HDRC$(op S_INIT)$(byte 1)$(byte 0)$(s 9)$(op S_WAKE)$(byte 0)$(byte 0)$(op S_ENQUEUE)$(byte 1)$(s 3)$(op S_RUNNING)$(byte 1)$(byte 0)$(byte 0)$(op S_ADVANCE)$(e $E5MS)$(op S_STOP)$(byte 1)$(byte 200)$(byte 150)$(e $E500US)$(op S_QUIESCENT)$(byte 1)$(byte 1)$(op S_ADVANCE)$(e $E10MS)$(op S_WAKE)$(byte 0)$(byte 0)$(op S_ENQUEUE)$(byte 1)$(s 1)$(op S_RUNNING)$(byte 1)$(byte 0)$(byte 0)$(op S_STOP)$(byte 1)$(byte 205)$(byte 205)$(e $E500US)"
seed world_stats "$HDR4$(op S_SYS_UPDATE)$(b2 500)$(e $E10MS)$(byte 100)$(b2 2000)$(b2 900)$(e $E1S)$(byte 4)$(op S_CPU_LOST)$(byte 1)$(e $E10MS)$(e $E5MS)$(e $E500US)$(op S_CPU_LOST)$(byte 1)$(e $E10MS)$(e $E10MS)$(e $E0)$(op S_SYS_UPDATE)$(e $E0)$(e $E10MS)$(byte 128)$(s 0)$(s 0)$(s 0)$(byte 0)$(op S_WARMTH)$(byte 0)$(byte 1)$(e $E500US)$(e $E500US)$(e $E500US)"
seed world_preempt "$HDR4$(op S_ENQUEUE)$(byte 0)$(s 0)$(op S_RUNNING)$(byte 0)$(byte 0)$(byte 1)$(op S_ENQUEUE)$(byte 1)$(s 0)$(op S_RUNNING)$(byte 1)$(byte 1)$(byte 0)$(op S_WAKE)$(byte 2)$(byte 0)$(op S_ENQUEUE)$(byte 2)$(b2 1027)$(op S_PREEMPT)$(byte 2)$(e $E500US)$(byte 0)$(op S_PREEMPT)$(byte 3)$(s 0)$(byte 1)$(byte 1)"
seed world_balance "$HDR4$(op S_BALANCE)$(byte 3)$(byte 7)$(byte 0)$(s 0)$(byte 2)$(s 6)$(s 9)$(op S_BALANCE)$(byte 5)$(byte 7)$(byte 0)$(s 0)$(byte 4)$(s 6)$(e $E100)$(op S_BALANCE)$(byte 1)$(byte 7)$(byte 0)$(e $EMAX)$(byte 1)$(s 0)$(s 0)"
seed world_warmth "$HDRC$(op S_RUNNING)$(byte 2)$(byte 0)$(byte 0)$(op S_STOP)$(byte 2)$(byte 205)$(byte 205)$(e $E500US)$(op S_WARMTH)$(byte 2)$(byte 1)$(e $E500US)$(e $E500US)$(e $E500US)$(op S_RUNNING)$(byte 2)$(byte 0)$(byte 0)$(op S_STOP)$(byte 2)$(byte 100)$(byte 205)$(e $E10MS)$(op S_INIT)$(byte 3)$(byte 2)$(e $E10000)"

seed power "$HDR$(op P_POWER)$(e $E5MS)$(e $E10MS)$(b2 1500)$(b2 1024)$(s 16)$(byte 3)$(byte 1)$(byte 2)$(s 3)$(s 1)$(s 2)$(s 5)$(s 1)$(b2 600)$(b2 2000)$(b2 4000)$(b2 8000)$(s 0)$(s 0)$(s 0)$(s 0)$(s 0)$(s 0)$(s 0)$(b2 512)$(b2 30)$(b2 50)$(b2 60)$(b2 60)$(b2 60)$(b4 8000000)$(e $E0)$(e $E100)"
seed power_edges "$HDR$(op P_POWER)$(e $EMAX)$(e $E0)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(byte 255)$(byte 4)$(byte 13)$(e $EU32)$(byte 7)$(byte 39)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)$(e $EMAX)"
# Every op in at least one seed: decode the op bytes the way the harness does would need
# the harness; instead check that each op's byte was emitted by this script.
missing=""
for name in "${!OP[@]}"; do
	grep -q "\$(op $name)" "$0" || missing="$missing $name"
done
if [ -n "$missing" ]; then
	echo "mkcorpus: no seed for:$missing" >&2
	exit 1
fi
echo "mkcorpus: $(ls "$out" | wc -l) seeds, $n ops, in $out"
