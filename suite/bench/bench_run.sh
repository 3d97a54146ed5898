#!/bin/sh
# make bench: the pipeline's throughput over specs/ with the reference plugin, in one run of
# this script (compare ratios within one run, not seconds across runs): cases per second at
# --jobs 1 and --jobs 2, what --shard 1/4 costs against the whole run and what any shard pays
# whatever its size (--shard 1/1000: loading and planning every spec), the harness's own
# time per case (the run's wall time less the kernel's, at --jobs 1), and the whole command's
# time with the HTML and JUnit it writes after the run; the diagnosis's cost on a failing run
# and on a passing one.
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
run() { # NAME ARGS...: the best wall time of two runs (the run's own; the HTML and JUnit after
	# it in $out/NAME.e2e, the best of the whole command's seconds)
	name=$1
	shift
	best=
	e2e=
	for i in 1 2; do
		t0=$(date +%s.%N)
		st=0
		"$q" run "$@" --quiet --json "$out/$name.json" --html "$out/$name.html" \
			--junit "$out/$name.xml" >/dev/null || st=$?
		# exit 1 is a run that does not conform (the diagnosis's runs): a result
		[ $st -le 1 ] || { echo "bench: qconform run $* failed" >&2; exit 1; }
		t1=$(date +%s.%N)
		e=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$e2e" ] || awk "BEGIN { exit !($e < $e2e) }"; then
			e2e=$e
		fi
		w=$(summary "$out/$name.json" | cut -d' ' -f2)
		if [ -z "$best" ] || awk "BEGIN { exit !($w < $best) }"; then
			best=$w
			cp "$out/$name.json" "$out/$name.best.json"
		fi
	done
	echo "$e2e" >"$out/$name.e2e"
	echo "$best"
}

j1=$(run jobs1 "$@" --jobs 1)
j2=$(run jobs2 "$@" --jobs 2)
s4=$(run shard "$@" --jobs 2 --shard 1/4)
f=$(run fixed "$@" --jobs 2 --shard 1/1000)
# the diagnosis (README, Diagnosis): a kernel that fails a share of the cases (the stub
# ignore_axis: per-axis parameters ignored), with and without --no-diagnose; and what keeping
# the data of the cases it samples costs a run that passes (the reference, --no-diagnose)
bad=$build/stubs/libstub_ignore_axis.so
dg=$(run diag "$@" --jobs 2 --plugin "$bad")
nd=$(run nodiag "$@" --jobs 2 --plugin "$bad" --no-diagnose)
pn=$(run passnodiag "$@" --jobs 2 --no-diagnose)
failing=$(grep -o '"FAIL": [0-9]*' "$out/nodiag.best.json" | tail -n 1 | cut -d' ' -f2)
cases=$(summary "$out/jobs1.best.json" | cut -d' ' -f1)
shard_cases=$(summary "$out/shard.best.json" | cut -d' ' -f1)
kern=$(kernel_seconds "$out/jobs1.best.json")
e1=$(cat "$out/jobs1.e2e")
e2=$(cat "$out/jobs2.e2e")
awk -v c="$cases" -v sc="$shard_cases" -v j1="$j1" -v j2="$j2" -v s4="$s4" -v k="$kern" \
	-v e1="$e1" -v e2="$e2" -v f="$f" -v dg="$dg" -v nd="$nd" -v pn="$pn" -v fl="$failing" 'BEGIN {
	printf "pipeline over %s: %d cases (best of 2 runs each)\n", ARGV[1], c
	printf "  --jobs 1            %8.2f s %9.0f cases/s\n", j1, c / j1
	printf "  --jobs 2            %8.2f s %9.0f cases/s   %.2fx --jobs 1\n", j2, c / j2, j1 / j2
	printf "  --jobs 2 --shard 1/4 %7.2f s %9d cases     %.2f of the whole run (ideal 0.25)\n", s4, sc, s4 / j2
	printf "  fixed cost of a shard %6.2f s (--shard 1/1000: loading and planning every spec), %.2f of the whole run\n", f, f / j2
	printf "  harness per case    %8.1f us (--jobs 1: wall %.2f s less kernel %.2f s)\n", 1e6 * (j1 - k) / c, j1, k
	printf "  end to end (the command, with its HTML and JUnit): --jobs 1 %.2f s, --jobs 2 %.2f s\n", e1, e2
	printf "  diagnosis, a kernel failing %d of %d cases (%.1f%%): %.2f s with, %.2f s --no-diagnose: %.2fx\n", fl, c, 100 * fl / c, dg, nd, dg / nd
	printf "  diagnosis on, a passing run: %.2f s, --no-diagnose %.2f s: %.2fx\n", j2, pn, j2 / pn
}' "$*"
