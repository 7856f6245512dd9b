#!/usr/bin/env bash
# Print the lavd vs eevdf comparison table of docs/sim.md (markdown).
#   tests/sim/compare.sh BIN [SEED] [DURATION_MS] [SCHEDS]
set -euo pipefail
bin=${1:?usage: compare.sh BIN [SEED] [DURATION_MS] [SCHEDS]}
seed=${2:-1}; dur=${3:-5000}; scheds=${4:-lavd eevdf}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
jobj() { awk -v o="\"$2\": {" -v k="\"$3\":" 'index($0,o){f=1} f&&index($0,k){sub(/.*: */,""); sub(/,$/,""); print; exit}' "$1"; }
ms()  { awk -v v="$1" 'BEGIN{printf "%.2f", v/1e6}'; }
us()  { awk -v v="$1" 'BEGIN{printf "%.0f", v/1e3}'; }
echo "seed $seed, ${dur} ms simulated per run"
echo
echo "| topo | workload | sched | key results | sched delay p99 / p99.9 (us) | switches | migrations | energy (J) |"
echo "|---|---|---|---|---|---|---|---|"
for t in deck desktop server hybrid; do
	for w in game game+compile server server+batch batch; do
		for s in $scheds; do
			j=$tmp/$t-$w-$s.json
			"$bin" --topo $t --workload $w --sched $s --seed "$seed" --duration-ms "$dur" --quiet --json "$j"
			case $w in
			game|game+compile) k="frames p50 $(ms "$(jobj "$j" frames p50_ns)") / p99 $(ms "$(jobj "$j" frames p99_ns)") / p99.9 $(ms "$(jobj "$j" frames p99_9_ns)") ms, misses $(jobj "$j" frames misses)/$(jobj "$j" frames n)" ;;
			server|server+batch) k="requests p50 $(us "$(jobj "$j" requests p50_ns)") / p99 $(us "$(jobj "$j" requests p99_ns)") us, $(jobj "$j" requests done) done" ;;
			batch) k="work $(jobj "$j" system work_cpus) CPUs, Jain $(jobj "$j" batch jain)" ;;
			esac
			echo "| $t | $w | $s | $k | $(us "$(jobj "$j" delay p99_ns)") / $(us "$(jobj "$j" delay p99_9_ns)") | $(jobj "$j" system context_switches) | $(jobj "$j" system migrations) | $(jobj "$j" system energy_j) |"
		done
	done
done
