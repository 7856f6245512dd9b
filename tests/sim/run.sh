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
	"desktop-gameirq-lavd|--topo desktop --workload game+irq --sched lavd --seed 7 --duration-ms 300"
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
for v in warm-cpu-us= warm-cpu-us=x warm-cpu-us=100001 warm-cpu-us=-1 warm-cpu-us; do
	sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 10 --lavd-opt "$v" >/dev/null 2>&1
	[ $? = 2 ] && ok "cli/bad-warm-cpu-us/$v" || bad "cli/bad-warm-cpu-us/$v" "exit not 2"
done
sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 10 --lavd-opt warm-cpu-us=100000 --quiet
[ $? = 0 ] && ok cli/warm-cpu-us-max || bad cli/warm-cpu-us-max "100000 refused"
echo '{"tasks": {"a": {"policy": "SCHED_FIFO", "run": 100, "sleep": 100}}}' > "$tmp/bad.json"
sim --topo deck --workload "$tmp/bad.json" --sched lavd --seed 1 --duration-ms 10 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q 'needs "cpus"' "$tmp/err" && ok cli/rt-task-needs-cpu || bad cli/rt-task-needs-cpu "$(cat "$tmp/err")"
echo '{"tasks": {"a": {"policy": "SCHED_DEADLINE", "cpus": [1], "run": 100}}}' > "$tmp/bad.json"
sim --topo deck --workload "$tmp/bad.json" --sched lavd --seed 1 --duration-ms 10 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "not supported" "$tmp/err" && ok cli/rt-bad-policy || bad cli/rt-bad-policy "$(cat "$tmp/err")"

# ---- determinism: same seed, same bytes; another seed, other numbers
for s in lavd eevdf fifo vtime; do
	a=(--topo desktop --workload game+compile --sched $s --duration-ms 300 --quiet)
	sim "${a[@]}" --seed 7 --json "$tmp/d1.json" && sim "${a[@]}" --seed 7 --json "$tmp/d2.json" &&
		sim "${a[@]}" --seed 8 --json "$tmp/d3.json"
	if ! cmp -s "$tmp/d1.json" "$tmp/d2.json"; then bad determinism/$s "same seed, different JSON"
	elif cmp -s "$tmp/d1.json" "$tmp/d3.json"; then bad determinism/$s "seed has no effect"
	else ok determinism/$s; fi
done
for o in preempt-kick no-preempt,no-lock-boost,no-inherit no-turbulence no-warmth count-balance \
	warm-cpu-us=200 warm-cpu-us=200,no-warmth; do
	a=(--topo desktop --workload game+compile+irq --sched lavd --duration-ms 300 --quiet --lavd-opt $o)
	sim "${a[@]}" --seed 7 --json "$tmp/d1.json" && sim "${a[@]}" --seed 7 --json "$tmp/d2.json"
	cmp -s "$tmp/d1.json" "$tmp/d2.json" && ok determinism/lavd-opt/$o || bad determinism/lavd-opt/$o "same seed, different JSON"
done
sim --topo deck --workload server+batch --sched lavd --seed 9 --duration-ms 100 --quiet --trace "$tmp/t1" &&
	sim --topo deck --workload server+batch --sched lavd --seed 9 --duration-ms 100 --quiet --trace "$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" && ok determinism/trace || bad determinism/trace "traces differ"

# ---- invariants on every event, every topology x workload x scheduler
for t in deck desktop server hybrid; do
	d=1000; [ $t = server ] && d=300
	for w in game server batch compile light game+compile server+batch game+irq server+irq; do
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

# turbulence (lost time to RT/IRQ -> steady CPUs for critical tasks), game+irq, 3 s
for t in deck desktop; do
	a=(--topo $t --workload game+irq --sched lavd --seed 1 --duration-ms 3000 --quiet)
	sim "${a[@]}" --json "$tmp/t1.json" && sim "${a[@]}" --lavd-opt no-turbulence --json "$tmp/t2.json"
	on=$(jobj "$tmp/t1.json" system lavd_turb_place); off=$(jobj "$tmp/t2.json" system lavd_turb_place)
	tc=$(jobj "$tmp/t1.json" system lavd_turbulent_cpus_avg)
	[ -n "$on" ] && [ -n "$off" ] && [ "$off" -gt 0 ] && [ $((on * 4)) -le "$off" ] &&
		awk -v x="$tc" 'BEGIN{exit !(x >= 1.9 && x <= 2.0)}' && ok mech/turbulence/$t ||
		bad mech/turbulence/$t "critical runs on turbulent CPUs $on (no-turbulence $off), turbulent CPUs $tc"
done
# no lost time without RT tasks (also checked every round under --check): the option changes nothing
strip() { grep -v '"lavd_opt"\|"duration_ms"' "$1"; }
a=(--topo desktop --workload game+compile --sched lavd --seed 2 --duration-ms 500 --quiet)
sim "${a[@]}" --json "$tmp/t1.json" && sim "${a[@]}" --lavd-opt no-turbulence --json "$tmp/t2.json"
if diff <(strip "$tmp/t1.json") <(strip "$tmp/t2.json") >/dev/null &&
	[ "$(jobj "$tmp/t1.json" system lavd_turbulent_cpus_avg)" = 0.0 ]; then ok mech/no-turbulence-without-rt
else bad mech/no-turbulence-without-rt "turbulence without lost time"; fi
# warmth: off by default (the loader's --warm-cpu-us 0); with a budget, waits and fewer migrations
a=(--topo desktop --workload compile --sched lavd --seed 1 --duration-ms 2000 --quiet)
sim "${a[@]}" --json "$tmp/w0.json"; sim "${a[@]}" --lavd-opt warm-cpu-us=200 --json "$tmp/w1.json"
sim "${a[@]}" --lavd-opt warm-cpu-us=200,no-warmth --json "$tmp/w2.json"
w0=$(jobj "$tmp/w0.json" system lavd_warm_wait); w1=$(jobj "$tmp/w1.json" system lavd_warm_wait)
w2=$(jobj "$tmp/w2.json" system lavd_warm_wait)
m1=$(jobj "$tmp/w1.json" system migrations); m2=$(jobj "$tmp/w2.json" system migrations)
[ "$w0" = 0 ] && [ "$w2" = 0 ] && ok mech/warmth-off || bad mech/warmth-off "warm waits: default $w0, no-warmth $w2"
[ "${w1:-0}" -gt 0 ] && [ "$m1" -lt "$m2" ] && ok mech/warmth-fewer-migrations ||
	bad mech/warmth-fewer-migrations "warm waits $w1, migrations $m1 (no-warmth $m2)"
diff <(strip "$tmp/w0.json") <(strip "$tmp/w2.json") >/dev/null && ok mech/no-warmth-is-default ||
	bad mech/no-warmth-is-default "warm-cpu-us=200,no-warmth differs from the default"
# balance by weight vs count on an intermittent load: both steal, differently, bounded
for t in desktop server; do
	a=(--topo $t --workload "$here/workload-nice-mix.json" --sched lavd --seed 1 --duration-ms 2000 --quiet)
	sim "${a[@]}" --json "$tmp/b1.json" && sim "${a[@]}" --lavd-opt count-balance --json "$tmp/b2.json"
	s1=$(jobj "$tmp/b1.json" system lavd_xllc_steal); s2=$(jobj "$tmp/b2.json" system lavd_xllc_steal)
	p1=$(jobj "$tmp/b1.json" imbalance weight_p99); p2=$(jobj "$tmp/b2.json" imbalance weight_p99)
	n1=$(jobj "$tmp/b1.json" imbalance samples)
	[ "${s1:-0}" -gt 0 ] && [ "$s1" != "$s2" ] && [ "${n1:-0}" -ge 190 ] &&
		awk -v a="$p1" -v b="$p2" 'BEGIN{exit !(a >= 1 && a <= 12 && b >= 1 && b <= 12)}' &&
		ok mech/balance/$t-differs-bounded ||
		bad mech/balance/$t-differs-bounded "steals $s1 vs $s2, weight p99 $p1 vs $p2, samples $n1"
done
# the balance plan: saturated LLCs (no queue runs dry) get balanced by weight only with it
for t in desktop server; do
	a=(--topo $t --workload batch --sched lavd --seed 1 --duration-ms 2000 --quiet)
	sim "${a[@]}" --json "$tmp/p1.json" && sim "${a[@]}" --lavd-opt no-plan --json "$tmp/p2.json"
	q1=$(jobj "$tmp/p1.json" system lavd_plan_steal); q2=$(jobj "$tmp/p2.json" system lavd_plan_steal)
	m1=$(jobj "$tmp/p1.json" imbalance weight_mean); m2=$(jobj "$tmp/p2.json" imbalance weight_mean)
	[ "${q1:-0}" -gt 0 ] && [ "$q2" = 0 ] &&
		awk -v a="$m1" -v b="$m2" 'BEGIN{exit !(a * 2 < b)}' && ok mech/balance/$t-plan-saturated ||
		bad mech/balance/$t-plan-saturated "plan steals $q1 (no-plan $q2), weight imbalance mean $m1 vs $m2"
done
# RT tasks from a workload file (rt-app policy): they run as asked, the class never sees them;
# under LAVD their CPU is the one turbulent CPU
cat > "$tmp/rt.json" <<'EOF'
{ "tasks": { "hog": { "policy": "SCHED_FIFO", "cpus": [3], "run": 3000, "sleep": 1000 },
             "work": { "instance": 4, "run": [500, 2000], "sleep": [500, 3000] } } }
EOF
for s in lavd eevdf fifo vtime; do
	if out=$(chk --topo deck --workload "$tmp/rt.json" --sched $s --seed 1 --duration-ms 1000 --quiet \
		--json "$tmp/rt-out.json" 2>&1); then
		c=$(jobj "$tmp/rt-out.json" hog cpu_ns); x=$(jobj "$tmp/rt-out.json" system lavd_turbulent_cpus_avg)
		if [ "${c:-0}" -lt 700000000 ]; then bad rt/file/$s "RT hog ran $c ns of 1 s"
		elif [ $s = lavd ] && ! awk -v x="$x" 'BEGIN{exit !(x >= 0.9 && x <= 1.0)}'; then
			bad rt/file/$s "turbulent CPUs $x, not 1"
		else ok rt/file/$s; fi
	else
		bad rt/file/$s "$(echo "$out" | tail -1)"
	fi
done

# core compaction (power.bpf.c): light load on fewer CPUs than EEVDF uses, at a bounded
# latency cost (the latency guard); saturation uses them all; fixed modes do what they say
jsys() { jobj "$1" system "$2"; }
a=(--topo desktop --workload light --seed 1 --duration-ms 3000 --quiet)
sim "${a[@]}" --sched lavd --json "$tmp/c1.json" && sim "${a[@]}" --sched eevdf --json "$tmp/c2.json" &&
	sim "${a[@]}" --sched lavd --lavd-opt no-compaction --json "$tmp/c3.json"
u1=$(jsys "$tmp/c1.json" cpus_used_mean); u2=$(jsys "$tmp/c2.json" cpus_used_mean)
u3=$(jsys "$tmp/c3.json" cpus_used_mean); d1=$(jobj "$tmp/c1.json" delay p99_ns)
awk -v a="$u1" -v b="$u2" -v c="$u3" -v d="$d1" 'BEGIN{exit !(a < 0.9 * b && a < 0.9 * c && d != "" && d < 2000000)}' &&
	ok mech/compaction/light-fewer-cpus ||
	bad mech/compaction/light-fewer-cpus "CPUs used $u1 (eevdf $u2, no-compaction $u3), delay p99 $d1 ns"
a=(--topo desktop --workload batch --sched lavd --seed 1 --duration-ms 1000 --quiet)
sim "${a[@]}" --json "$tmp/c4.json"
w=$(jsys "$tmp/c4.json" work_cpus); act=$(jsys "$tmp/c4.json" lavd_active_cpus_avg)
awk -v w="$w" -v x="$act" 'BEGIN{exit !(w >= 19.9 && x >= 31.5)}' && ok mech/compaction/batch-uses-all ||
	bad mech/compaction/batch-uses-all "work $w CPUs, active $act"
a=(--topo desktop --workload light --sched lavd --seed 1 --duration-ms 1000 --quiet)
sim "${a[@]}" --lavd-opt performance --json "$tmp/c5.json" && sim "${a[@]}" --lavd-opt powersave --json "$tmp/c6.json"
p5=$(awk '/"lavd_mode_share"/{f=1} f&&/"performance"/{sub(/.*: */,"");sub(/,$/,"");print;exit}' "$tmp/c5.json")
a5=$(jsys "$tmp/c5.json" lavd_active_cpus_avg); a6=$(jsys "$tmp/c6.json" lavd_active_cpus_avg)
awk -v p="$p5" -v a="$a5" -v b="$a6" 'BEGIN{exit !(p == 1 && a == 32 && b < 16)}' && ok mech/compaction/fixed-modes ||
	bad mech/compaction/fixed-modes "performance share $p5 active $a5, powersave active $a6"
for o in performance,powersave balanced,performance no-compaction,powersave no-compaction,balanced; do
	sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 10 --lavd-opt $o >/dev/null 2>&1
	[ $? = 2 ] && ok cli/lavd-opt-conflict/$o || bad cli/lavd-opt-conflict/$o "exit not 2"
done
# big/little: performance-critical runs go to big cores, with every CPU usable
sim --topo hybrid --workload game+compile --sched lavd --seed 1 --duration-ms 1000 --quiet --json "$tmp/c7.json"
pc=$(jsys "$tmp/c7.json" lavd_sched_perf_cri); pb=$(jsys "$tmp/c7.json" lavd_sched_perf_cri_big)
[ "${pc:-0}" -gt 0 ] && [ $((pb * 10)) -ge $((pc * 4)) ] && ok mech/big-little/perf-cri-on-big ||
	bad mech/big-little/perf-cri-on-big "perf-critical runs $pc, on big cores $pb"
sim --topo desktop --workload game --sched lavd --seed 1 --duration-ms 500 --quiet --json "$tmp/c8.json"
[ "$(jsys "$tmp/c8.json" lavd_sched_big)" = 0 ] && ok mech/big-little/none-without-little ||
	bad mech/big-little/none-without-little "big-core runs counted on a uniform machine"

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
sim --topo desktop --workload batch --sched lavd --seed 1 --duration-ms 200 --quiet --csv "$tmp/csv2"
h=$(head -1 "$tmp/csv2/timeline.csv"); r=$(sed -n 5p "$tmp/csv2/timeline.csv")
[[ "$h" == *,lavd_turbulent_cpus,imbalance_weight,imbalance_count,cpus_used ]] &&
	awk -v r="$r" 'BEGIN{split(r, f, ","); exit !(f[6] >= 1 && f[7] >= 1 && f[8] == 32)}' &&
	ok report/csv-imbalance || bad report/csv-imbalance "header '$h', row '$r'"
if command -v gnuplot >/dev/null; then
	sim --topo deck --workload game --sched lavd --seed 1 --duration-ms 200 --quiet --plot "$tmp/plot" 2>/dev/null
	[ -s "$tmp/plot/timeline.png" ] && [ -s "$tmp/plot/frames.png" ] && ok report/plot ||
		bad report/plot "no png"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
