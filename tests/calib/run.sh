#!/usr/bin/env bash
# `make calib`: the simulator against the VM on the same rt-app files.
#
#   tests/calib/run.sh            sim + VM + docs/calibration.md
#   LAVD_CALIB_VM=0 tests/calib/run.sh   sim only; reuse the last VM results
#                                 (build/results/calib/vm.txt) for the report
#   LAVD_CALIB_REPS (3)  VM repetitions and simulator seeds (1..REPS)
#   LAVD_CALIB_SCENARIOS ("periodic overload")   LAVD_KERNEL (7.3)
#
# Each scenario is one file, tests/calib/NAME.json, in the subset of rt-app's
# JSON that both rt-app 1.0 (Debian bookworm) and lavd-sim read unchanged:
#   (i)   lavd-sim --topo tests/calib/vm4.json (the VM's topology as the
#         guest kernel and scx_lavd's loader read it: 4 CPUs sharing one LLC
#         by shared_cpu_list, no SMT, equal capacity)
#         --sched eevdf|lavd, seeds 1..REPS, for the file's global.duration;
#   (ii)  the VM (QEMU TCG, -icount, 4 vCPUs) runs tests/calib/guest.sh: rt-app
#         under EEVDF, then under scx_lavd, REPS times;
#   (iii) docs/calibration.md: per scenario p50/p90/p99 wake-up latency,
#         sim-eevdf | vm-eevdf | sim-lavd | vm-lavd, median over the
#         repetitions (min-max).
#
# What is compared. In the VM: rt-app's wu_lat (per period, the time from the
# timer's expiry to the thread running again after clock_nanosleep()), for
# every thread with a timer, its first 5 periods dropped. In the simulator:
# the same quantity from --trace, the time from each "wake" of a task of a
# template with a timer to its next "run" (the start-up wake and the first
# 5 timer wake-ups of each task dropped). The simulator's --json class delay
# percentiles are not used for the table: they also count the waits of a
# preempted task to run again, and --json has no p90. They are kept in
# build/results/calib/sim.txt (json_p50_us, json_p99_us) for reference.
#
# Scenario choices, shared by both sides:
#   - "runtime" events, not "run": rt-app's run executes a fixed number of
#     calibrated loops, and under QEMU TCG -icount the vCPUs take turns on one
#     virtual clock (one instruction = 2 ns, whichever vCPU executes it), so
#     k busy vCPUs each progress at 1/k speed: 4 threads of "run 2 ms" would
#     each take up to 8 ms of virtual time. "runtime" spins until that much
#     (virtual) wall time has passed, so each period occupies a vCPU for the
#     same time as the simulator's run event occupies a CPU. (The simulator
#     reads run and runtime alike: work at capacity 1024.) Difference that
#     remains: a runtime event that is preempted ends on time with less work
#     done, where the simulator's run is fixed work and ends later.
#   - "calibration": a fixed ns-per-loop value (500), so rt-app skips its
#     start-up calibration (seconds of busy loop on CPU0, and under -icount a
#     value that depends on how many vCPUs were busy meanwhile). With runtime
#     events the value only sets how much work rt-app does between two clock
#     reads ("32 us" = 32000 / 500 = 64 loops), i.e. by how much a runtime
#     event can overshoot. In a first VM run at 100 ns/loop a thread did
#     ~1.1-2 loops per us with the 4 periodic threads running together, so
#     320-loop chunks took ~150-300 us and the 2 ms events overshot by ~6 %;
#     at 500 a chunk is ~30-60 us.
#   - "log_size": an integer (MB of per-thread buffer, written at exit): in
#     rt-app 1.0 the string "file" turns logging OFF (its strcmp tests are
#     inverted; "disable" would turn it on), and a buffer keeps file writes
#     out of the measured run.
#   - timer "ref": "unique" (one timer per thread, as the simulator does) and
#     "mode": "absolute" (the simulator ignores the key; its timers are
#     absolute): every thread keeps the grid that starts at rt-app's common
#     t_zero, so the threads wake together each period, as in the simulator.
#     In rt-app's default "relative" mode an overrun restarts the thread's
#     period at the overrun's end: in the first run after boot the start-up
#     periods overran by 5-28 ms, the 4 threads ended up out of phase, and
#     that run's latencies were 2-3x lower than the next ones'. After an
#     overrun rt-app runs the missed periods back to back (slack <= 0, no
#     sleep, wu_lat 0: counted as overruns, not pooled), where the simulator
#     skips them.
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${LAVD_CALIB_REPS:-3}
k=${LAVD_KERNEL:-7.3}
scens=${LAVD_CALIB_SCENARIOS:-periodic overload}
runvm=${LAVD_CALIB_VM:-1}
res=build/results/calib
sim=build/lavd-sim
mkdir -p "$res"
[ -x "$sim" ] || { echo "calib: $sim is missing (make build/lavd-sim)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "calib: python3 is needed" >&2; exit 2; }

# ---- (i) the simulator
: >"$res/sim.txt"
for s in $scens; do
	wl=tests/calib/$s.json
	[ -f "$wl" ] || { echo "calib: no scenario $wl" >&2; exit 2; }
	dur=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["global"]["duration"]) * 1000)' "$wl")
	for sched in eevdf lavd; do
		topo=tests/calib/vm4.json
		for seed in $(seq 1 "$reps"); do
			base=$res/sim-$s-$sched-$seed
			"$sim" --topo "$topo" --workload "$wl" --sched "$sched" --seed "$seed" \
				--duration-ms "$dur" --quiet --json "$base.json" --trace "$base.trace"
			python3 - "$wl" "$base.json" "$base.trace" "$s" "$sched" "$seed" >>"$res/sim.txt" <<'EOF'
import json, sys
wl, js, tr, scen, sched, seed = sys.argv[1:]
tasks = json.load(open(wl))["tasks"]
# Task ids: templates in file order, their instances in turn (no forks here).
ids, nid = {}, 0
for name, t in tasks.items():
    n = int(t.get("instance", 1))
    timed = any(k.rstrip("0123456789") == "timer" for k in t)
    for _ in range(n):
        ids[nid] = timed
        nid += 1
woke, seen, lat = {}, {}, []
for line in open(tr):
    ts, cpu, what, tid = line.split()
    tid = int(tid)
    if not ids.get(tid):
        continue
    if what == "wake":
        woke[tid] = int(ts)
    elif what == "run" and tid in woke:
        seen[tid] = seen.get(tid, 0) + 1
        if seen[tid] > 6:          # the start-up wake + 5 timer wake-ups
            lat.append(int(ts) - woke[tid])
        del woke[tid]
lat.sort()
def pct(p):
    if not lat:
        return "nan"
    r = -(-len(lat) * p // 100)
    return "%.1f" % (lat[max(r, 1) - 1] / 1e3)
out = lambda k, v: print("SIM %s %s %s %s %s" % (scen, sched, seed, k, v))
for p in (50, 90, 99):
    out("wake_p%d_us" % p, pct(p))
out("wake_max_us", pct(100))
out("wake_n", len(lat))
j = json.load(open(js))
for name, t in tasks.items():
    if any(k.rstrip("0123456789") == "timer" for k in t):
        c = j["classes"][t.get("class", name)]
        out("json_p50_us", "%.1f" % (c["p50_ns"] / 1e3))
        out("json_p99_us", "%.1f" % (c["p99_ns"] / 1e3))
        break
EOF
			rm -f "$base.trace"
		done
	done
done
echo "calib: simulator done ($res/sim.txt)" >&2

# ---- (ii) the VM
if [ "$runvm" = 1 ]; then
	rm -rf "$res/vm-out"
	# shellcheck disable=SC2086
	flock /tmp/lavd-vm.lock tools/vm/run --kernel "$k" --cpus 4 --icount --timeout 1800 \
		--add tests/calib:/lavd/tests/calib --out "$res/vm-out" \
		-- sh /lavd/tests/calib/guest.sh "$reps" $scens | tee "$res/vm.txt"
fi
[ -s "$res/vm.txt" ] || { echo "calib: no VM results in $res/vm.txt" >&2; exit 1; }

# ---- (iii) the report
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src sim tests/calib || echo "+dirty")
qemu=$("$(tools/vm/fetch-qemu)" --version | head -1 | awk '{print $4}')
rtapp=$(dpkg-query -W -f='${Version}' rt-app 2>/dev/null || echo unknown)
machine="QEMU $qemu TCG, -icount shift=1,sleep=off,align=off (2 ns of virtual time per guest instruction), 50 us HPET turn deadline, -cpu max -smp 4, 2048 MB; kernel $k; rt-app $rtapp (Debian bookworm); host $(nproc) cores $(uname -m) ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
python3 - "$res/sim.txt" "$res/vm.txt" docs/calibration.md "$commit" "$machine" "$reps" $scens <<'EOF'
import re, sys, statistics
simf, vmf, md, commit, machine, reps = sys.argv[1:7]
scens = sys.argv[7:]
data = {}   # (scen, side, sched, metric) -> [values]
info = {}
def add(scen, side, sched, metric, v):
    try:
        v = float(v)
    except ValueError:
        return
    data.setdefault((scen, side, sched, metric), []).append(v)
for line in open(simf):
    f = line.split()
    if len(f) == 6 and f[0] == "SIM":
        add(f[1], "sim", f[2], f[4], f[5])
for line in open(vmf):
    f = line.split()
    if len(f) == 6 and f[0] == "CALIB" and f[4] == "lavd_state":
        info.setdefault("lavd_state", set()).add(f[5])
    elif len(f) == 6 and f[0] == "CALIB":
        add(f[1], "vm", f[2], f[4], f[5])
    elif len(f) >= 2 and f[0] == "CALIBINFO":
        info[f[1]] = " ".join(f[2:])

def cell(scen, side, sched, metric, digits=0):
    v = data.get((scen, side, sched, metric))
    if not v:
        return "—"
    fmt = "%%.%df" % digits
    m = statistics.median(v)
    if len(v) == 1:
        return fmt % m
    return "%s (%s–%s)" % (fmt % m, fmt % min(v), fmt % max(v))
def med(scen, side, sched, metric):
    v = data.get((scen, side, sched, metric))
    return statistics.median(v) if v else None

cols = [("sim", "eevdf"), ("vm", "eevdf"), ("sim", "lavd"), ("vm", "lavd")]
L = []
L.append("# Calibration: simulator vs VM on the same rt-app files")
L.append("")
L.append("Generated by `make calib` (tests/calib/run.sh); the section *Where sim and VM")
L.append("disagree* is kept from the previous version of this file, the rest is rewritten.")
L.append("")
L.append("- commit: `%s`" % commit)
L.append("- VM: %s" % machine)
if info:
    L.append("- guest: kernel %s, %s CPUs, LLC shared_cpu_list per CPU: %s, timer slack %s ns" % (
        info.get("kernel", "?"), info.get("nproc", "?"), info.get("llc_shared_cpu_lists", "?").strip() or "?",
        info.get("timerslack_ns", "?")))
    L.append("- guest L3 ids per CPU: %s (scx_lavd's loader keys LLCs by shared_cpu_list, not by this id); sched domains of CPU 0 (/proc/schedstat): %s; EEVDF base slice %s ns" % (
        info.get("llc_ids", "?").strip() or "?", info.get("sched_domains_cpu0", "?").strip() or "?",
        info.get("eevdf_base_slice_ns", "?").strip() or "?"))
L.append("- simulator: `build/lavd-sim --topo tests/calib/vm4.json` (4 CPUs, 1 LLC, no SMT, capacity 1024), seeds 1..%s" % reps)
L.append("- repetitions: %s VM runs per scheduler (EEVDF, then scx_lavd, in one boot), %s simulator seeds" % (reps, reps))
L.append("- cells: median over the repetitions (min–max), µs. VM: rt-app `wu_lat`; sim: wake→run")
L.append("  from `--trace`; both: threads with a timer, first 5 periods of each dropped, nearest-rank percentiles")
L.append("")
L.append("Reproduce: `make calib` (about 15 min of wall time on a 2-core host; the VM part")
L.append("runs under `flock /tmp/lavd-vm.lock`). `LAVD_CALIB_VM=0 make calib` redoes the simulator")
L.append("side and the report against the last VM results.")
L.append("")
for s in scens:
    L.append("## %s (`tests/calib/%s.json`)" % (s, s))
    L.append("")
    L.append("| wake-up latency | sim-eevdf | vm-eevdf | sim-lavd | vm-lavd |")
    L.append("| --- | --- | --- | --- | --- |")
    for p in ("p50", "p90", "p99"):
        L.append("| %s | %s |" % (p, " | ".join(cell(s, a, b, "wake_%s_us" % p) for a, b in cols)))
    L.append("| max | %s |" % " | ".join(cell(s, a, b, "wake_max_us") for a, b in cols))
    L.append("| samples | %s |" % " | ".join(cell(s, a, b, "wake_n") for a, b in cols))
    L.append("")
    extra = []
    for sched in ("eevdf", "lavd"):
        extra.append("VM %s: overruns %s, runtime event p50 %s µs, slack p50 %s µs, "
                     "rt-app loops per ms of runtime p50 %s" % (
            sched, cell(s, "vm", sched, "overruns"), cell(s, "vm", sched, "run_p50_us"),
            cell(s, "vm", sched, "slack_p50_us"), cell(s, "vm", sched, "loops_per_ms_p50")))
        extra.append("sim %s `--json` class delay (includes re-queue after preemption): p50 %s, p99 %s µs" % (
            sched, cell(s, "sim", sched, "json_p50_us", 1), cell(s, "sim", sched, "json_p99_us", 1)))
    for e in extra:
        L.append("- " + e)
    ratios = []
    for sched in ("eevdf", "lavd"):
        for p in ("p50", "p90", "p99"):
            a, b = med(s, "sim", sched, "wake_%s_us" % p), med(s, "vm", sched, "wake_%s_us" % p)
            if a is not None and b is not None:
                ratios.append("%s %s %+.0f µs" % (sched, p, b - a))
    if ratios:
        L.append("- VM minus sim (medians): " + ", ".join(ratios))
    L.append("")
if "lavd_state" in info:
    L.append("scx_lavd's state after every run: %s." % ", ".join(sorted(info["lavd_state"])))
    L.append("")

keep = None
try:
    old = open(md).read()
    m = re.search(r"^## Where sim and VM disagree\n.*?(?=^## |\Z)", old, re.S | re.M)
    if m:
        keep = m.group(0).rstrip() + "\n"
except OSError:
    pass
L.append(keep if keep else "## Where sim and VM disagree\n\n(to be written from the tables above)\n")
open(md, "w").write("\n".join(L).rstrip() + "\n")
print("calib: wrote %s" % md, file=sys.stderr)
EOF
