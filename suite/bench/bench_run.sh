#!/bin/sh
# make bench: the pipeline's throughput over specs/ with the reference plugin, in one run of
# this script (compare ratios within one run, not seconds across runs): cases per second at
# --jobs 1 and --jobs 2, what --shard 1/4 costs against the whole run, and the harness's own
# time per case (the run's wall time less the kernel's, at --jobs 1).
# Usage: suite/bench/bench_run.sh BUILD_DIR [SPECS...]
set -eu
build=${1:-build}
shift || true
[ $# -gt 0 ] || set -- specs
q=$build/qconform
out=$build/bench
mkdir -p "$out"

# wall seconds and cases of a report (its summary line)
summary() {
	sed -n 's/.*"summary": {"cases": \([0-9]*\),.*"wall_seconds": \([0-9.]*\)}.*/\1 \2/p' "$1"
}
# the kernel's seconds summed over the report's cases
kernel_seconds() {
	grep -o '"seconds": [-+.0-9eE]*' "$1" | awk '{ s += $2 } END { printf "%.6f\n", s }'
}
run() { # NAME ARGS...: the best wall time of two runs
	name=$1
	shift
	best=
	for i in 1 2; do
		"$q" run "$@" --quiet --json "$out/$name.json" --html /dev/null --junit /dev/null \
			>/dev/null || { echo "bench: qconform run $* failed" >&2; exit 1; }
		w=$(summary "$out/$name.json" | cut -d' ' -f2)
		if [ -z "$best" ] || awk "BEGIN { exit !($w < $best) }"; then
			best=$w
			cp "$out/$name.json" "$out/$name.best.json"
		fi
	done
	echo "$best"
}

j1=$(run jobs1 "$@" --jobs 1)
j2=$(run jobs2 "$@" --jobs 2)
s4=$(run shard "$@" --jobs 2 --shard 1/4)
cases=$(summary "$out/jobs1.best.json" | cut -d' ' -f1)
shard_cases=$(summary "$out/shard.best.json" | cut -d' ' -f1)
kern=$(kernel_seconds "$out/jobs1.best.json")
awk -v c="$cases" -v sc="$shard_cases" -v j1="$j1" -v j2="$j2" -v s4="$s4" -v k="$kern" 'BEGIN {
	printf "pipeline over %s: %d cases (best of 2 runs each)\n", ARGV[1], c
	printf "  --jobs 1            %8.2f s %9.0f cases/s\n", j1, c / j1
	printf "  --jobs 2            %8.2f s %9.0f cases/s   %.2fx --jobs 1\n", j2, c / j2, j1 / j2
	printf "  --jobs 2 --shard 1/4 %7.2f s %9d cases     %.2f of the whole run (ideal 0.25)\n", s4, sc, s4 / j2
	printf "  harness per case    %8.1f us (--jobs 1: wall %.2f s less kernel %.2f s)\n", 1e6 * (j1 - k) / c, j1, k
}' "$*"
