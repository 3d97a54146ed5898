#!/bin/sh
# make bench-baseline REV=<commit>: this build's pipeline against an earlier commit's, in one
# run of this script and over that commit's specs/ (the work both can do): cases per second at
# --jobs 1 and --jobs 2, the best of three runs each, the two builds taking turns. The earlier
# commit is exported (git archive) and built under BUILD/bench/baseline-REV.
# Usage: suite/bench/bench_baseline.sh BUILD REV
set -eu
build=${1:?usage: bench_baseline.sh BUILD REV}
rev=${2:?usage: bench_baseline.sh BUILD REV}
sha=$(git rev-parse --verify "$rev^{commit}")
short=$(git rev-parse --short "$sha")
base=$build/bench/baseline-$short
if [ ! -x "$base/build/qconform" ]; then
	rm -rf "$base"
	mkdir -p "$base"
	git archive "$sha" | tar -x -C "$base"
	echo "bench: building $short in $base (log: $base.log)"
	make -C "$base" -j2 all >"$base.log" 2>&1 ||
		{ echo "bench: building $short failed (see $base.log)" >&2; exit 1; }
fi
out=$build/bench
wall() { # BINARY JOBS: the run's wall seconds and cases over the baseline's specs
	"$1" run "$base/specs" --jobs "$2" --quiet --json "$out/baseline.json" >/dev/null ||
		[ $? -eq 1 ] || { echo "bench: $1 run failed" >&2; exit 1; }
	sed -n 's/.*"summary": {"cases": \([0-9]*\),.*"wall_seconds": \([0-9.]*\)}.*/\2 \1/p' \
		"$out/baseline.json"
}
echo "pipeline over $short's specs/, best of 3 runs each (the two builds take turns)"
for j in 1 2; do
	b_best= n_best= b_cases= n_cases=
	for i in 1 2 3; do
		set -- $(wall "$base/build/qconform" $j)
		if [ -z "$b_best" ] || awk "BEGIN { exit !($1 < $b_best) }"; then b_best=$1; fi
		b_cases=$2
		set -- $(wall "$build/qconform" $j)
		if [ -z "$n_best" ] || awk "BEGIN { exit !($1 < $n_best) }"; then n_best=$1; fi
		n_cases=$2
	done
	awk -v j=$j -v b=$b_best -v n=$n_best -v bc=$b_cases -v nc=$n_cases -v r=$short 'BEGIN {
		printf "  --jobs %d  %s: %d cases %6.2f s %7.0f cases/s   this build: %d cases %6.2f s %7.0f cases/s   %.2fx\n",
		       j, r, bc, b, bc / b, nc, n, nc / n, (nc / n) / (bc / b)
	}'
done
