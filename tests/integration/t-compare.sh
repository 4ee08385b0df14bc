#!/bin/bash
# t-compare.sh - "kregress compare" as a user runs it: the seed threads'
# numbers, sample JSON with several metrics, and every kind of bad input.
set -u

K="$KREGRESS_BUILD/kregress"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
fail=0

ok() {	# ok COND-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

# jget FILE EXPR: evaluates a Python expression on the parsed JSON "j".
jget() {
	$PY -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Seed 002: ten raw mremap timings per side.
printf '%s\n' 180394 235728 238931 187330 241742 177925 182758 160872 \
	205813 245722 >"$T/control"
printf '%s\n' 15089 14056 25741 13838 14187 14778 14728 14418 15107 \
	13998 >"$T/pud"
"$K" compare "$T/control" "$T/pud" >"$T/out" 2>"$T/err"
ok $? "002: compare two files of raw timings"
grep -q 'improvement' "$T/out" && grep -q -- '-92.5%' "$T/out"
ok $? "002: table says improvement, -92.5%"
"$K" compare --json "$T/control" "$T/pud" >"$T/j"
ok $? "002: --json"
[ "$(jget "$T/j" 'j["comparisons"][0]["verdict"]')" = improvement ] &&
[ "$(jget "$T/j" 'j["comparisons"][0]["mann_whitney"]["exact"]')" = True ]
ok $? "002: JSON verdict improvement, exact Mann-Whitney"
[ "$(jget "$T/j" '"noisy" in j["comparisons"][0]["flags"]')" = True ]
ok $? "002: JSON flags noisy"
"$K" compare --json --direction higher "$T/control" "$T/pud" >"$T/j"
[ "$(jget "$T/j" 'j["comparisons"][0]["verdict"]')" = regression ]
ok $? "002 with --direction higher: the same drop is a regression"
"$K" compare --json - "$T/pud" <"$T/control" >"$T/j"
[ "$(jget "$T/j" 'j["comparisons"][0]["n_base"]')" = 10 ]
ok $? "base read from standard input"

# Seed 000: published mean, sd and n.
"$K" compare --json --base 349.5,74.5,48 --new 131,32.7,48 >"$T/j"
[ "$(jget "$T/j" 'j["comparisons"][0]["verdict"]')" = improvement ]
ok $? "000: 349.5+-74.5 vs 131+-32.7 (n=48) is an improvement"
# Seed 004: CPU0 exp-v2 is only a likely improvement, v1 is suspicious.
"$K" compare --json --base 237.383,31.288,95 --new 218.911,54.306,69 >"$T/j"
[ "$(jget "$T/j" 'j["comparisons"][0]["verdict"]')" = likely-improvement ]
ok $? "004: CPU0 base vs exp-v2 is likely-improvement"
"$K" compare --base 237.383,31.288,95 --new 112.298,0.36,80 >"$T/out"
grep -q 'suspicious' "$T/out"
ok $? "004: sd 0.36 on a mean of 112 is flagged suspicious"
# Seed 001: means only.
"$K" compare --base 8876.16,,100 --new 18157.6,?,100 >"$T/out"
ok $? "001: means only is not an error"
grep -q 'insufficient-data' "$T/out" && grep -q 'no standard deviation' "$T/out"
ok $? "001: insufficient-data, no standard deviation"
# Seed 003: one timing per side.
echo 2850 >"$T/orig"
echo 3936 >"$T/memchr"
"$K" compare "$T/orig" "$T/memchr" >"$T/out"
ok $? "003: one value per side is not an error"
grep -q 'insufficient-data' "$T/out"
ok $? "003: insufficient-data"

# Sample JSON with two metrics and their directions.
$PY - "$T" <<'EOF'
import json, random, sys
d = sys.argv[1]
r = random.Random(5)
for side, f in (("base", 1.0), ("new", 1.2)):
    s = []
    for i in range(12):
        s.append({"workload": "thp-fault", "metric": "pass", "unit": "us",
                  "direction": "lower", "value": 1000 * f * r.uniform(0.98, 1.02)})
        s.append({"workload": "thp-fault", "metric": "throughput",
                  "unit": "MB/s", "direction": "higher",
                  "value": 500 * r.uniform(0.99, 1.01)})
    json.dump(s if side == "base" else {"samples": s},
              open("%s/%s.json" % (d, side), "w"))
EOF
"$K" compare --json "$T/base.json" "$T/new.json" >"$T/j"
ok $? "sample JSON with two metrics"
[ "$(jget "$T/j" '[c["verdict"] for c in j["comparisons"]]')" = \
  "['regression', 'no-change']" ]
ok $? "pass +20% is a regression, throughput is no-change"
[ "$(jget "$T/j" 'all(c["p_holm"] >= c["p"] for c in j["comparisons"])')" = True ]
ok $? "Holm-adjusted p-values are reported"

# Bad input: clear errors, exit status 1 (2 for usage), no crash.
bad() {	# bad PATTERN DESCRIPTION ARGS...
	local pat=$1 desc=$2 rc
	shift 2
	"$K" compare "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || [ $rc -eq 2 ]
	local st=$?
	grep -q -- "$pat" "$T/err"
	ok $((st || $?)) "$desc: exit $rc, says '$pat'"
}
: >"$T/empty"
printf '1\nabc\n' >"$T/word"
printf '1\nnan\n' >"$T/nan"
printf '1\n-inf\n' >"$T/inf"
printf '[{"value": "12"}]' >"$T/strval.json"
printf '[{"value": 1' >"$T/broken.json"
printf '[{"value": 1, "direction": "sideways"}]' >"$T/dir.json"
head -c 17000000 /dev/zero | tr '\0' '1' >"$T/huge"
bad "no values" "empty file" "$T/empty" "$T/pud"
bad "not a finite number: 'abc'" "non-number" "$T/word" "$T/pud"
bad "not a finite number: 'nan'" "NaN" "$T/pud" "$T/nan"
bad "not a finite number: '-inf'" "infinity" "$T/pud" "$T/inf"
bad "is not a number" "JSON value as a string" "$T/strval.json" "$T/pud"
bad "bad JSON" "truncated JSON" "$T/broken.json" "$T/pud"
bad "sideways" "unknown direction" "$T/dir.json" "$T/pud"
bad "larger than the limit" "17 MB file" "$T/huge" "$T/pud"
bad "No such file" "missing file" "$T/nosuch" "$T/pud"
bad "negative" "negative sd" --base 10,-1,5 --new 10,1,5
bad "at least 1" "n = 0" --base 10,1,0 --new 10,1,5
bad "at least 1" "negative n" --base 10,1,5 --new 10,1,-5
bad "not a finite number" "NaN mean" --base nan,1,5 --new 10,1,5
bad "expected MEAN,SD,N" "two fields" --base 10,1 --new 10,1,5
bad "usage" "--base without --new" --base 10,1,5
bad "threshold" "bad threshold" --threshold 200 "$T/pud" "$T/pud"
bad "alpha" "bad alpha" --alpha 0 "$T/pud" "$T/pud"

echo "1..$n"
exit $fail
