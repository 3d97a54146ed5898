#!/bin/sh
# make bench: what --remote costs. The same cases run locally and through --remote with a local
# `qconform-worker --stdio` as the remote command (the stream, the relay and the keeper, no
# network), --jobs 1, the two taking turns, the best of three runs each; prints the ratio of
# their wall times (within this run: seconds across runs or machines say nothing) and checks
# that both gave every case the same verdict.
# Usage: suite/bench/bench_remote.sh BUILD_DIR [SPECS...] (default specs/litert)
set -eu
build=${1:-build}
shift || true
[ $# -gt 0 ] || set -- specs/litert
q=$build/qconform
out=$build/bench
mkdir -p "$out"
worker=$(cd "$build" && pwd)/qconform-worker
plugin=$(cd "$build" && pwd)/libqconform_reference.so

wall() { # NAME ARGS...: the run's wall seconds
	name=$1
	shift
	"$q" run "$@" --jobs 1 --quiet --json "$out/$name.json" >/dev/null ||
		[ $? -eq 1 ] || { echo "bench: qconform run $* failed" >&2; exit 1; }
	sed -n 's/.*"wall_seconds": \([0-9.]*\)}.*/\1/p' "$out/$name.json"
}
# each case's name and verdict, in the report's order (a case a line)
verdicts() {
	sed -n 's/^ *{"name": \("[^"]*"\),.*"verdict": \("[^"]*"\),.*/\1 \2/p' "$1"
}

l_best= r_best= all=
for i in 1 2 3; do
	l=$(wall local "$@")
	r=$(wall remote "$@" --remote "$worker --stdio" --plugin "$plugin")
	all="$all $l/$r"
	if [ -z "$l_best" ] || awk "BEGIN { exit !($l < $l_best) }"; then l_best=$l; fi
	if [ -z "$r_best" ] || awk "BEGIN { exit !($r < $r_best) }"; then r_best=$r; fi
done
verdicts "$out/local.json" >"$out/local.verdicts"
verdicts "$out/remote.json" >"$out/remote.verdicts"
cmp -s "$out/local.verdicts" "$out/remote.verdicts" ||
	{ echo "bench: --remote gave other verdicts than the local run" >&2; exit 1; }
cases=$(sed -n 's/.*"summary": {"cases": \([0-9]*\),.*/\1/p' "$out/local.json")
awk -v c="$cases" -v l="$l_best" -v r="$r_best" -v all="$all" -v s="$*" 'BEGIN {
	printf "--remote over %s: %d cases, --jobs 1 (best of 3 runs each, taking turns)\n", s, c
	printf "  local               %8.2f s %9.0f cases/s\n", l, c / l
	printf "  --remote (stdio)    %8.2f s %9.0f cases/s   %.2fx the local run\n", r, c / r, r / l
	printf "  each pair, local/remote s:%s\n", all
}'
