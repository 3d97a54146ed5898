#!/bin/sh
# The mutation score (suite/mutants/README.md), run by `make mutation`:
#   score.sh QCONFORM VARIANT OUTDIR FLOOR JOBS CONTROL DEF...
# runs the specs of each variant definition DEF against OUTDIR/<name>.so,
# JOBS at a time: KILLED when the run does not conform (exit 1), SURVIVED when it
# does (exit 0), ERROR for anything else. Prints one line per mutant in the
# order given, then the score; exit 0 when the score is at least the percentage
# in FLOOR and the control mutant CONTROL survived, 1 when not, 2 on an error.
# (Internally: score.sh --one QCONFORM VARIANT OUTDIR DEF runs one mutant.)
set -u

here=$(dirname "$0")

# reference/variants/07-foo.var -> 07-foo, suite/mutants/control/noop.var -> control/noop
name_of() {
	base=$(basename "$1" .var)
	case $1 in
	"$here"/*) echo "${1#"$here"/}" | sed 's/\.var$//' ;;
	*) echo "$base" ;;
	esac
}

if [ "${1:-}" = --one ]; then
	qconform=$2 mutate=$3 out=$4 mut=$5
	dir=$out/$(name_of "$mut")
	rm -f "$dir/result"
	specs=$("$mutate" --field specs "$mut") || exit 2
	mkdir -p "$dir" || exit 2
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # specs is a list of paths
	# the first failing unit of cases decides: --max-failures 1 stops the run there
	"$qconform" run $specs --plugin "$dir.so" --timeout 10 --max-failures 1 \
		--json /dev/null >"$dir/run.out" 2>"$dir/run.err"
	rc=$?
	t1=$(date +%s.%N)
	case $rc in
	0) status=survived ;;
	1) status=KILLED ;;
	*) status=ERROR ;;
	esac
	# the totals: "cases fail error crash tmout n/s total" with a failure,
	# "total: N cases, none failing" without
	counts=$(awk '$NF == "total" { print $2 + $3 + $4 + $5, $1 }
		$1 == "total:" { print 0, $2 }' "$dir/run.out")
	[ -n "$counts" ] || counts="? ?"
	first=$(awk '/^(FAIL|ERROR|CRASH|TIMEOUT) / { sub(/:$/, "", $2); print $2; exit }' \
		"$dir/run.out")
	# the diagnosis: does the first op's best rule name this mutant (or one equal to it)?
	best=$(sed -n '/^diagnosis (/,$p' "$dir/run.out" | grep -o '" \[[^]]*\]' | head -n 1 |
		sed 's/^" \[//; s/\]$//')
	equal=$(sed -n '/^diagnosis (/,$p' "$dir/run.out" | grep -m 1 '^  Equally explained by:')
	name=$(name_of "$mut")
	case $best in
	"") named=- ;;
	"$name") named=named ;;
	*) case $equal in *" $name"[,\ ]*) named=equal ;; *) named=other:$best ;; esac ;;
	esac
	[ $rc -le 1 ] || first="qconform exit $rc: $(head -n 1 "$dir/run.err")"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	printf '%s %s %s %s %s\n' "$status" "$counts" "$secs" "$named" "${first:--}" >"$dir/result"
	exit 0
fi

if [ $# -lt 6 ]; then
	echo "usage: score.sh QCONFORM VARIANT OUTDIR FLOOR JOBS CONTROL DEF..." >&2
	exit 2
fi
qconform=$1 mutate=$2 out=$3 floor_file=$4 jobs=$5 control=$6
shift 6
floor=$(tr -d ' \n' <"$floor_file") || exit 2
case $floor in
'' | *[!0-9.]*)
	echo "$floor_file: expected a percentage, got '$floor'" >&2
	exit 2
	;;
esac

t0=$(date +%s)
printf '%s\n' "$control" "$@" |
	xargs -P "$jobs" -n 1 sh "$0" --one "$qconform" "$mutate" "$out" || exit 2
t1=$(date +%s)

line() { # name result-line
	set -- "$1" $2
	printf '%-36s %-8s %7s of %6s cases failed  %5ss  %-6s %s\n' "$1" "$2" "$3" "$4" "$5" \
		"${6%%:*}" "$7"
}

total=0 killed=0 errors=0 survivors= named=0 equal=0 others=
for mut in "$@"; do
	name=$(name_of "$mut")
	res=$(cat "$out/$name/result" 2>/dev/null) || res="ERROR ? ? ? no result"
	line "$name" "$res"
	total=$((total + 1))
	case $res in
	KILLED*)
		killed=$((killed + 1))
		case $(echo "$res" | awk '{ print $5 }') in
		named) named=$((named + 1)) ;;
		equal) equal=$((equal + 1)) ;;
		*) others="$others $name($(echo "$res" | awk '{ print $5 }'))" ;;
		esac
		;;
	survived*) survivors="$survivors $name" ;;
	*) errors=$((errors + 1)) ;;
	esac
done
name=$(name_of "$control")
res=$(cat "$out/$name/result" 2>/dev/null) || res="ERROR ? ? ? no result"
line "$name" "$res"

score=$(awk -v k=$killed -v n=$total 'BEGIN { printf "%.1f", n ? 100 * k / n : 0 }')
echo "mutation score: $killed/$total killed = $score% (floor $floor%), $((t1 - t0)) s"
[ -z "$survivors" ] || echo "survivors:$survivors"
echo "diagnosis: $named of $killed killed mutants named first, $equal more first among equal rules"
[ -z "$others" ] || echo "not named first:$others"
status=0
case $res in
survived*) ;;
*)
	echo "the control mutant $name must survive (it changes nothing): the mechanism is broken" >&2
	status=1
	;;
esac
if [ $errors -gt 0 ]; then
	echo "$errors mutant run(s) failed: see $out/<name>/run.err" >&2
	exit 2
fi
if awk -v s="$score" -v f="$floor" 'BEGIN { exit !(s < f) }'; then
	echo "the mutation score $score% is below the floor $floor% ($floor_file)" >&2
	status=1
fi
exit $status
