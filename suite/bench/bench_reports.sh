#!/bin/sh
# make bench-reports: the readers of reports at scale. From a real report, suite/bigreport.py
# makes reports of N cases (and their four shards); each reader's peak RSS and time:
# report --html --junit, diff of the report against itself, merge of the four shards.
# Usage: suite/bench/bench_reports.sh BUILD_DIR REPORT.json N...
set -eu
build=$1
src=$2
shift 2
q=$build/qconform
out=$build/bench
mkdir -p "$out"
measure() { # LABEL N COMMAND...: one line, peak RSS and wall time
	label=$1
	n=$2
	shift 2
	/usr/bin/time -f '%M %e' -o "$out/time.txt" "$@" >/dev/null 2>"$out/err.txt" || {
		st=$?
		# diff exits 1 on a regression, merge and report 1 when the run does not conform
		[ $st -le 1 ] || { cat "$out/err.txt" >&2; exit 1; }
	}
	read -r kb s <"$out/time.txt"
	awk -v l="$label" -v n="$n" -v kb="$kb" -v s="$s" \
		'BEGIN { printf "  %-22s %8d cases %9.1f MB peak RSS %8.2f s\n", l, n, kb / 1024, s }'
}
echo "readers of reports (from $src):"
for n in "$@"; do
	python3 suite/bigreport.py "$src" "$n" "$out/big.json" >/dev/null
	python3 suite/bigreport.py "$src" "$n" "$out/big.json" --shards 4 >/dev/null
	measure "report --html --junit" "$n" "$q" report "$out/big.json" --html "$out/big.html" \
		--junit "$out/big.xml"
	measure "diff" "$n" "$q" diff "$out/big.json" "$out/big.json"
	measure "merge of 4 shards" "$n" "$q" merge "$out/big.json.1" "$out/big.json.2" \
		"$out/big.json.3" "$out/big.json.4" --json "$out/merged.json"
	rm -f "$out/big.json" "$out/big.json".? "$out/merged.json" "$out/big.html" "$out/big.xml"
done
