#!/usr/bin/env bash
# lavd-sim tests: one line per test ("PASS name" / "FAIL name: why"), then
# "N passed, N failed"; exits non-zero if anything failed.
#
#   tests/sim/run.sh BIN [DEBUG_BIN]      run the tests
#   tests/sim/run.sh --regen BIN          rewrite tests/sim/golden/ from BIN
#
# BIN is build/lavd-sim; DEBUG_BIN (built with -DSIM_DEBUG, checks the
# invariants on every event) defaults to BIN --check.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
golden=$here/golden

regen=0
if [ "${1:-}" = --regen ]; then regen=1; shift; fi
bin=${1:?usage: run.sh [--regen] BIN [DEBUG_BIN]}
dbg=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok()  { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sim() { "$bin" "$@"; }
chk() { if [ -n "$dbg" ]; then "$dbg" "$@"; else "$bin" --check "$@"; fi; }
# jq-free JSON field read: number after "key": on its line (first match).
jnum() { grep -m1 "\"$2\":" "$1" | sed 's/.*: *\([-0-9.e]*\).*/\1/'; }
# field inside a named object: jobj FILE OBJ KEY
jobj() { awk -v o="\"$2\": {" -v k="\"$3\":" 'index($0,o){f=1} f&&index($0,k){sub(/.*: */,""); sub(/,$/,""); print; exit}' "$1"; }

# ---- golden cases: name|args (short runs, every scheduler and topology)
GOLDEN=(
	"deck-game-lavd|--topo deck --workload game --sched lavd --seed 1 --duration-ms 500"
	"deck-gamecompile-eevdf|--topo deck --workload game+compile --sched eevdf --seed 2 --duration-ms 300"
	"desktop-serverbatch-lavd|--topo desktop --workload server+batch --sched lavd --seed 3 --duration-ms 200"
	"hybrid-compile-vtime|--topo hybrid --workload compile --sched vtime --seed 4 --duration-ms 300"
	"server-light-fifo|--topo server --workload light --sched fifo --seed 5 --duration-ms 200"
	"example-files-lavd|--topo $here/topo-example.json --workload $here/workload-example.json --sched lavd --seed 6 --duration-ms 200"
)
TRACE="deck-game-lavd-trace|--topo deck --workload game --sched lavd --seed 1 --duration-ms 60"

if [ $regen = 1 ]; then
	mkdir -p "$golden"
	for g in "${GOLDEN[@]}"; do
		n=${g%%|*}; a=${g#*|}
		# shellcheck disable=SC2086
		sim $a --quiet --json "$tmp/$n.json" && sed "s|$here|TESTS|g" "$tmp/$n.json" > "$golden/$n.json"
		echo "wrote $golden/$n.json"
	done
	n=${TRACE%%|*}; a=${TRACE#*|}
	# shellcheck disable=SC2086
	sim $a --quiet --trace "$golden/$n.txt" && echo "wrote $golden/$n.txt"
	exit 0
fi

# ---- command line
sim --bogus >/dev/null 2>&1; [ $? = 2 ] && ok cli/unknown-flag || bad cli/unknown-flag "exit not 2"
sim --topo deck --workload game --sched lavd --seed 1 >/dev/null 2>&1
[ $? = 2 ] && ok cli/missing-duration || bad cli/missing-duration "exit not 2"
sim --topo deck --workload game --sched nope --seed 1 --duration-ms 10 >/dev/null 2>&1
[ $? = 2 ] && ok cli/unknown-sched || bad cli/unknown-sched "exit not 2"
sim --topo moon --workload game --sched lavd --seed 1 --duration-ms 10 >/dev/null 2>&1
[ $? = 2 ] && ok cli/unknown-topo || bad cli/unknown-topo "exit not 2"
sim --topo deck --workload game --sched lavd --seed x --duration-ms 10 >/dev/null 2>&1
[ $? = 2 ] && ok cli/bad-seed || bad cli/bad-seed "exit not 2"
echo '{"tasks": {"a": {"run": 100, "fly": 1}}}' > "$tmp/bad.json"
sim --topo deck --workload "$tmp/bad.json" --sched lavd --seed 1 --duration-ms 10 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "unknown event 'fly'" "$tmp/err" && ok cli/bad-workload-file ||
	bad cli/bad-workload-file "$(cat "$tmp/err")"

sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 10 --lavd-opt no-preempt,bogus >/dev/null 2>&1
[ $? = 2 ] && ok cli/bad-lavd-opt || bad cli/bad-lavd-opt "exit not 2"
sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 10 --lavd-opt '' >/dev/null 2>&1
[ $? = 2 ] && ok cli/empty-lavd-opt || bad cli/empty-lavd-opt "exit not 2"
sim --topo deck --workload game --sched eevdf --seed 1 --duration-ms 10 --lavd-opt no-preempt >/dev/null 2>&1
[ $? = 2 ] && ok cli/lavd-opt-needs-lavd || bad cli/lavd-opt-needs-lavd "exit not 2"

# ---- determinism: same seed, same bytes; another seed, other numbers
for s in lavd eevdf fifo vtime; do
	a=(--topo desktop --workload game+compile --sched $s --duration-ms 300 --quiet)
	sim "${a[@]}" --seed 7 --json "$tmp/d1.json" && sim "${a[@]}" --seed 7 --json "$tmp/d2.json" &&
		sim "${a[@]}" --seed 8 --json "$tmp/d3.json"
	if ! cmp -s "$tmp/d1.json" "$tmp/d2.json"; then bad determinism/$s "same seed, different JSON"
	elif cmp -s "$tmp/d1.json" "$tmp/d3.json"; then bad determinism/$s "seed has no effect"
	else ok determinism/$s; fi
done
for o in preempt-kick no-preempt,no-lock-boost,no-inherit; do
	a=(--topo desktop --workload game+compile --sched lavd --duration-ms 300 --quiet --lavd-opt $o)
	sim "${a[@]}" --seed 7 --json "$tmp/d1.json" && sim "${a[@]}" --seed 7 --json "$tmp/d2.json"
	cmp -s "$tmp/d1.json" "$tmp/d2.json" && ok determinism/lavd-opt/$o || bad determinism/lavd-opt/$o "same seed, different JSON"
done
sim --topo deck --workload server+batch --sched lavd --seed 9 --duration-ms 100 --quiet --trace "$tmp/t1" &&
	sim --topo deck --workload server+batch --sched lavd --seed 9 --duration-ms 100 --quiet --trace "$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" && ok determinism/trace || bad determinism/trace "traces differ"

# ---- invariants on every event, every topology x workload x scheduler
for t in deck desktop server hybrid; do
	d=1000; [ $t = server ] && d=300
	for w in game server batch compile light game+compile server+batch; do
		for s in lavd eevdf fifo vtime; do
			if out=$(chk --topo $t --workload $w --sched $s --seed 11 --duration-ms $d --quiet 2>&1); then
				ok invariants/$t/$w/$s
			else
				bad invariants/$t/$w/$s "$(echo "$out" | tail -1)"
			fi
		done
	done
done
chk --topo deck --workload game --sched lavd --seed 1 --duration-ms 100 --quiet --fault-at 50 2>"$tmp/err"
rc=$?
[ $rc = 3 ] && grep -q "invariant violated at event 50" "$tmp/err" && ok invariants/fault-detected ||
	bad invariants/fault-detected "exit $rc: $(cat "$tmp/err")"

# ---- LAVD mechanisms: preemption, futex lock holders (docs/sim.md "Mechanisms on vs off")
# A lock holder is never a preemption victim (checked at every claim under --check).
for tw in desktop/server+batch deck/game+compile desktop/game+compile; do
	for o in default preempt-kick; do
		oa=(); [ $o != default ] && oa=(--lavd-opt $o)
		if out=$(chk --topo ${tw%%/*} --workload ${tw#*/} --sched lavd --seed 12 --duration-ms 1000 --quiet \
			"${oa[@]}" --json "$tmp/m.json" 2>&1); then
			v=$(jobj "$tmp/m.json" system lavd_preempt_lock_holder)
			[ "$v" = 0 ] && ok mech/lock-holder-not-victim/$tw/$o ||
				bad mech/lock-holder-not-victim/$tw/$o "lock holder victims $v"
		else
			bad mech/lock-holder-not-victim/$tw/$o "$(echo "$out" | tail -1)"
		fi
	done
done
sim --topo desktop --workload server+batch --sched lavd --seed 1 --duration-ms 1000 --quiet --json "$tmp/m.json"
acq=$(jobj "$tmp/m.json" system lavd_lock_acquire); v=$(jobj "$tmp/m.json" system lavd_preempt_lock_holder)
[ "${acq:-0}" -gt 0 ] && [ "$v" = 0 ] && ok mech/lock-boost-sees-holders ||
	bad mech/lock-boost-sees-holders "acquires $acq, lock holder victims $v"
sim --topo desktop --workload server+batch --sched lavd --seed 1 --duration-ms 1000 --quiet --json "$tmp/m.json" \
	--lavd-opt no-lock-boost
acq=$(jobj "$tmp/m.json" system lavd_lock_acquire); r=$(jobj "$tmp/m.json" system lavd_lock_refill)
[ "$acq" = 0 ] && [ "$r" = 0 ] && ok mech/no-lock-boost || bad mech/no-lock-boost "acquires $acq, refills $r"
sim --topo deck --workload game+compile --sched lavd --seed 1 --duration-ms 2000 --quiet --json "$tmp/m.json"
n=$(jobj "$tmp/m.json" system lavd_preempt)
[ "${n:-0}" -gt 0 ] && ok mech/preempt-deck-gamecompile || bad mech/preempt-deck-gamecompile "preemptions $n"
sim --topo deck --workload game+compile --sched lavd --seed 1 --duration-ms 2000 --quiet --json "$tmp/m.json" \
	--lavd-opt no-preempt
n=$(jobj "$tmp/m.json" system lavd_preempt)
[ "$n" = 0 ] && ok mech/no-preempt || bad mech/no-preempt "preemptions $n"
# kick: the victim switches at once (engine preemptions) instead of at its next tick
sim --topo deck --workload game+compile --sched lavd --seed 1 --duration-ms 2000 --quiet --json "$tmp/m2.json" \
	--lavd-opt preempt-kick
k=$(jobj "$tmp/m2.json" system preemptions); n=$(jobj "$tmp/m2.json" system lavd_preempt)
p0=$(jobj "$tmp/m.json" system preemptions)
[ "${n:-0}" -gt 0 ] && [ "$k" -ge $((p0 + n / 2)) ] && ok mech/preempt-kick ||
	bad mech/preempt-kick "kick preemptions $k, no-preempt $p0, claims $n"

# ---- goldens: exact JSON summaries and one trace
for g in "${GOLDEN[@]}"; do
	n=${g%%|*}; a=${g#*|}
	# shellcheck disable=SC2086
	sim $a --quiet --json "$tmp/$n.json"
	sed -i "s|$here|TESTS|g" "$tmp/$n.json"
	if [ ! -f "$golden/$n.json" ]; then bad golden/$n "missing (run tests/sim/run.sh --regen BIN)"
	elif cmp -s "$golden/$n.json" "$tmp/$n.json"; then ok golden/$n
	else bad golden/$n "$(diff "$golden/$n.json" "$tmp/$n.json" | head -4 | tr '\n' ' ')"; fi
done
n=${TRACE%%|*}; a=${TRACE#*|}
# shellcheck disable=SC2086
sim $a --quiet --trace "$tmp/$n.txt"
cmp -s "$golden/$n.txt" "$tmp/$n.txt" && ok golden/$n || bad golden/$n "trace differs"

# ---- sanity
# lavd's frames are not worse than fifo's on deck under game+compile (3 seeds)
for seed in 1 2 3; do
	for s in lavd fifo; do
		sim --topo deck --workload game+compile --sched $s --seed $seed --duration-ms 5000 --quiet \
			--json "$tmp/f-$s.json"
	done
	l=$(jobj "$tmp/f-lavd.json" frames p99_ns); f=$(jobj "$tmp/f-fifo.json" frames p99_ns)
	[ -n "$l" ] && [ "$l" -le "$f" ] && ok sanity/frames-lavd-vs-fifo/seed$seed ||
		bad sanity/frames-lavd-vs-fifo/seed$seed "lavd p99 $l > fifo p99 $f"
done
# batch keeps every CPU busy and delivers the work the SMT model allows
for t in deck desktop hybrid; do
	for s in lavd eevdf fifo vtime; do
		sim --topo $t --workload batch --sched $s --seed 1 --duration-ms 500 --quiet --json "$tmp/b.json"
		u=$(jobj "$tmp/b.json" system utilisation)
		if awk -v u="$u" 'BEGIN{exit !(u >= 0.99)}'; then ok sanity/batch-busy/$t/$s
		else bad sanity/batch-busy/$t/$s "utilisation $u"; fi
	done
done
# weighted fairness among nice levels: vtime and eevdf weigh, fifo does not
# (lavd is not tested here: nice barely changes its shares, see docs/sim.md)
for s in eevdf vtime; do
	sim --topo desktop --workload batch --sched $s --seed 1 --duration-ms 2000 --quiet --json "$tmp/j.json"
	j=$(jobj "$tmp/j.json" batch jain)
	min=0.75
	if awk -v j="$j" -v m=$min 'BEGIN{exit !(j >= m)}'; then ok sanity/batch-jain/$s
	else bad sanity/batch-jain/$s "jain $j < $min"; fi
done
# the server keeps up with its open-loop load
for s in lavd eevdf fifo vtime; do
	sim --topo desktop --workload server --sched $s --seed 1 --duration-ms 500 --quiet --json "$tmp/s.json"
	a=$(jobj "$tmp/s.json" requests arrived); d=$(jobj "$tmp/s.json" requests done)
	[ -n "$d" ] && [ $((d * 100)) -ge $((a * 98)) ] && ok sanity/server-keeps-up/$s ||
		bad sanity/server-keeps-up/$s "done $d of $a"
done
# reports: CSV files and (if gnuplot is installed) plots
sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 200 --quiet --csv "$tmp/csv"
[ -s "$tmp/csv/summary.csv" ] && [ -s "$tmp/csv/timeline.csv" ] && [ -s "$tmp/csv/frames.csv" ] &&
	ok report/csv || bad report/csv "missing files"
if command -v gnuplot >/dev/null; then
	sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 200 --quiet --plot "$tmp/plot" 2>/dev/null
	[ -s "$tmp/plot/timeline.png" ] && [ -s "$tmp/plot/frames.png" ] && ok report/plot ||
		bad report/plot "no png"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
