#!/usr/bin/env bash
# The comparison plots of docs/sim.md, from lavd-sim's --csv output, drawn
# with gnuplot: LAVD against EEVDF on every built-in topology.
#   tests/sim/plots.sh BIN OUTDIR [SEED] [DURATION_MS]
# Writes OUTDIR/sim-frames-cdf.png (game+compile frame times, CDF, one panel
# per topology), OUTDIR/sim-frames-deck.png (the frame series on deck) and
# OUTDIR/sim-busy-light.png (busy CPUs over time under the light load).
set -euo pipefail
bin=${1:?usage: plots.sh BIN OUTDIR [SEED] [DURATION_MS]}
out=${2:?usage: plots.sh BIN OUTDIR [SEED] [DURATION_MS]}
seed=${3:-1}; dur=${4:-5000}
command -v gnuplot >/dev/null || { echo "plots: gnuplot is missing (tools/setup.sh)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for t in deck desktop server hybrid; do
	for s in lavd eevdf; do
		for w in game+compile light; do
			d=$tmp/$t-$w-$s
			mkdir -p "$d"
			"$bin" --topo "$t" --workload "$w" --sched "$s" --seed "$seed" --duration-ms "$dur" \
				--quiet --csv "$d"
		done
	done
done

# Frame-time CDF: gnuplot's "smooth cumulative" over the sorted latencies,
# normalised by the frame count of each file.
{
	echo "set terminal pngcairo size 1100,800 font ',10'"
	echo "set output '$out/sim-frames-cdf.png'"
	echo "set datafile separator ','"
	echo "set multiplot layout 2,2 title 'game+compile: frame completion time CDF (seed $seed, $dur ms)'"
	echo "set xlabel 'frame time (ms)'; set ylabel 'fraction of frames'; set key bottom right; set grid"
	for t in deck desktop server hybrid; do
		nl=$(($(wc -l <"$tmp/$t-game+compile-lavd/frames.csv") - 1))
		ne=$(($(wc -l <"$tmp/$t-game+compile-eevdf/frames.csv") - 1))
		echo "set title '$t'"
		echo "plot '$tmp/$t-game+compile-lavd/frames.csv' every ::1 using (\$2/1000):(1.0/$nl) smooth cumulative lw 2 title 'lavd', \\"
		echo "     '$tmp/$t-game+compile-eevdf/frames.csv' every ::1 using (\$2/1000):(1.0/$ne) smooth cumulative lw 2 title 'eevdf'"
	done
	echo "unset multiplot"

	echo "set output '$out/sim-frames-deck.png'"
	echo "set terminal pngcairo size 1100,400 font ',10'"
	echo "set title 'deck, game+compile: frame completion time per frame (16.7 ms = one 60 Hz period)'"
	echo "set xlabel 'frame'; set ylabel 'ms'; set key top right"
	echo "plot '$tmp/deck-game+compile-lavd/frames.csv' every ::1 using 1:(\$2/1000) with points pt 7 ps 0.5 title 'lavd', \\"
	echo "     '$tmp/deck-game+compile-eevdf/frames.csv' every ::1 using 1:(\$2/1000) with points pt 7 ps 0.5 title 'eevdf', \\"
	echo "     16.667 with lines dt 2 lc 'black' title '60 Hz'"

	echo "set output '$out/sim-busy-light.png'"
	echo "set terminal pngcairo size 1100,800 font ',10'"
	echo "set multiplot layout 2,2 title 'light load: busy CPUs per 10 ms (seed $seed)'"
	echo "set xlabel 'time (ms)'; set ylabel 'busy CPUs'; set key top right"
	for t in deck desktop server hybrid; do
		echo "set title '$t'"
		echo "plot '$tmp/$t-light-lavd/timeline.csv' every ::1 using 1:2 with lines title 'lavd', \\"
		echo "     '$tmp/$t-light-eevdf/timeline.csv' every ::1 using 1:2 with lines title 'eevdf'"
	done
	echo "unset multiplot"
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "plots: wrote $out/sim-frames-cdf.png $out/sim-frames-deck.png $out/sim-busy-light.png" >&2
