#!/bin/bash
# t-compare.sh - "kregress compare" as a user runs it: the seed threads'
# numbers, sample JSON with several metrics, and every kind of bad input.
set -u
. "$KREGRESS_SRC/tests/lib/tap.sh"

K="$KREGRESS_BUILD/kregress"
PY=/usr/bin/python3

# jget FILE EXPR: evaluates a Python expression on the parsed JSON "j".
jget() {
	$PY -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Seed 002: ten raw mremap timings per side.
printf '%s\n' 180394 235728 238931 187330 241742 177925 182758 160872 \
	205813 245722 >"$tmp/control"
printf '%s\n' 15089 14056 25741 13838 14187 14778 14728 14418 15107 \
	13998 >"$tmp/pud"
"$K" compare "$tmp/control" "$tmp/pud" >"$tmp/out" 2>"$tmp/err"
ok $? "002: compare two files of raw timings"
grep -Eq -- '^value +10/10 +196572 +14573 +-92\.4% +\[-93\.9%, -91\.7%\] .* improvement noisy$' "$tmp/out"
ok $? "002: table row: medians, HL change -92.4%, its CI, improvement"
# The printed numbers against each other: the HL change is the median of
# the 100 pairwise ratios (to the printed 0.1%), not the ratio of the two
# medians beside it (-92.6%), and the header and legend say so.
$PY - "$tmp/control" "$tmp/pud" "$tmp/out" <<'EOF2'
import re, statistics, sys
c = [float(v) for v in open(sys.argv[1])]
p = [float(v) for v in open(sys.argv[2])]
row = [l for l in open(sys.argv[3]) if l.startswith("value ")][0].split()
hl = statistics.median(y / x for x in c for y in p) - 1
assert row[4] == "%+.1f%%" % (hl * 100), (row, hl)
ratio = float(row[3]) / float(row[2]) - 1
assert row[4] != "%+.1f%%" % (ratio * 100), (row, ratio)
text = open(sys.argv[3]).read()
assert "HL change" in text and "median base" in text, text
assert "not the ratio of the\nmedians" in text, text
EOF2
ok $? "002: HL change is the median of the pairwise ratios, labelled so"
"$K" compare --json "$tmp/control" "$tmp/pud" >"$tmp/j"
ok $? "002: --json"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["verdict"]')" = improvement ] &&
[ "$(jget "$tmp/j" 'j["comparisons"][0]["mann_whitney"]["exact"]')" = True ]
ok $? "002: JSON verdict improvement, exact Mann-Whitney"
[ "$(jget "$tmp/j" '"noisy" in j["comparisons"][0]["flags"]')" = True ]
ok $? "002: JSON flags noisy"
"$K" compare --json --direction higher "$tmp/control" "$tmp/pud" >"$tmp/j"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["verdict"]')" = regression ]
ok $? "002 with --direction higher: the same drop is a regression"
"$K" compare --json - "$tmp/pud" <"$tmp/control" >"$tmp/j"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["n_base"]')" = 10 ]
ok $? "base read from standard input"

# Seed 000: published mean, sd and n.
"$K" compare --json --base 349.5,74.5,48 --new 131,32.7,48 >"$tmp/j"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["verdict"]')" = improvement ]
ok $? "000: 349.5+-74.5 vs 131+-32.7 (n=48) is an improvement"
# Seed 004: CPU0 exp-v2 is only a likely improvement, v1 is suspicious.
"$K" compare --json --base 237.383,31.288,95 --new 218.911,54.306,69 >"$tmp/j"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["verdict"]')" = likely-improvement ]
ok $? "004: CPU0 base vs exp-v2 is likely-improvement"
"$K" compare --base 237.383,31.288,95 --new 112.298,0.36,80 >"$tmp/out"
grep -q 'suspicious' "$tmp/out"
ok $? "004: sd 0.36 on a mean of 112 is flagged suspicious"
# Seed 001: means only.
"$K" compare --base 8876.16,,100 --new 18157.6,?,100 >"$tmp/out"
ok $? "001: means only is not an error"
grep -q 'insufficient-data' "$tmp/out" && grep -q 'no standard deviation' "$tmp/out"
ok $? "001: insufficient-data, no standard deviation"
# Seed 003: one timing per side.
echo 2850 >"$tmp/orig"
echo 3936 >"$tmp/memchr"
"$K" compare "$tmp/orig" "$tmp/memchr" >"$tmp/out"
ok $? "003: one value per side is not an error"
grep -q 'insufficient-data' "$tmp/out"
ok $? "003: insufficient-data"

# Sample JSON with two metrics and their directions.
$PY - "$tmp" <<'EOF'
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
"$K" compare --json "$tmp/base.json" "$tmp/new.json" >"$tmp/j"
ok $? "sample JSON with two metrics"
[ "$(jget "$tmp/j" '[c["verdict"] for c in j["comparisons"]]')" = \
  "['regression', 'no-change']" ]
ok $? "pass +20% is a regression, throughput is no-change"
[ "$(jget "$tmp/j" 'all(c["p_holm"] >= c["p"] for c in j["comparisons"])')" = True ]
ok $? "Holm-adjusted p-values are reported"

# Adaptive looks: 5 boots per side of a budget of 20.
head -5 "$tmp/control" >"$tmp/c5"
head -5 "$tmp/pud" >"$tmp/p5"
"$K" compare --json --budget 20 "$tmp/c5" "$tmp/p5" >"$tmp/j"
[ "$(jget "$tmp/j" 'j["comparisons"][0]["adaptive"]["next"]')" = stop ] &&
[ "$(jget "$tmp/j" 'round(j["comparisons"][0]["alpha"], 4)')" = 0.0179 ]
ok $? "--budget 20, 5 vs 5 separated: stop at the first look (alpha 0.0179)"
printf '%s\n' 100 120 90 110 95 >"$tmp/w1"
printf '%s\n' 105 92 118 99 111 >"$tmp/w2"
"$K" compare --budget 20 "$tmp/w1" "$tmp/w2" >"$tmp/out"
grep -q 'inconclusive' "$tmp/out" && grep -q 'continue, add boots' "$tmp/out"
ok $? "--budget 20, noisy 5 vs 5: inconclusive, continue"
"$K" compare --json --budget 20 "$tmp/control" "$tmp/pud" >"$tmp/j"
[ "$(jget "$tmp/j" 'round(j["comparisons"][0]["alpha"], 4)')" = 0.0131 ]
ok $? "--budget 20 at 10 per side: the second look's alpha 0.0131"

# Every verdict agrees with its numbers: p < alpha exactly when the CI
# excludes 0, the estimate inside its CI, a summary's change the ratio of
# the means it prints.
agree() {	# agree JSON-FILE
	$PY - "$1" <<'EOF2'
import json, sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    if c["verdict"] == "insufficient-data":
        continue
    lo, hi = c["ci"]
    sig = c["verdict"] in ("regression", "improvement", "likely-regression",
                           "likely-improvement", "minor")
    assert (c["p"] < c["alpha"]) == (lo > 0 or hi < 0) == sig, c
    assert lo <= c["change"] <= hi, c
    if c["center"] == "mean":
        # the JSON has 10 significant digits
        assert abs(c["change"] - (c["new"] / c["base"] - 1)) < 1e-9, c
EOF2
}
"$K" compare --json "$tmp/control" "$tmp/pud" >"$tmp/j" && agree "$tmp/j"
ok $? "002: the verdict agrees with its p and CI"
"$K" compare --json "$tmp/base.json" "$tmp/new.json" >"$tmp/j" && agree "$tmp/j"
ok $? "sample JSON: both verdicts agree with their p and CI"
for s in 349.5,74.5,48:131,32.7,48 31831,4286,100:18193,4915,100 \
	 237.383,31.288,95:218.911,54.306,69 258.065,19.97,61:241.522,19.3068,101 \
	 237.383,31.288,95:112.298,0.36,80; do
	"$K" compare --json --base "${s%%:*}" --new "${s##*:}" >"$tmp/j" &&
		agree "$tmp/j" || break
done
ok $? "summaries of seeds 000 and 004: change = new/base - 1 of the means, p < alpha <=> CI excludes 0"
"$K" compare --base 237.383,31.288,95 --new 218.911,54.306,69 >"$tmp/out"
$PY - "$tmp/out" <<'EOF2'
import sys
row = [l for l in open(sys.argv[1]) if l.startswith("mean ")][0].split()
assert row[4] == "%+.1f%%" % ((float(row[3]) / float(row[2]) - 1) * 100), row
assert "mean base" in open(sys.argv[1]).read()
EOF2
ok $? "004: the printed change is the ratio of the printed means"

# Bad input: clear errors, no crash.  Exit status 1 for a value it cannot
# use (in a file or a summary), 2 for an option it does not accept.
bad() {	# bad STATUS PATTERN DESCRIPTION ARGS...
	local want=$1 pat=$2 desc=$3 rc
	shift 3
	"$K" compare "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ]
	local st=$?
	grep -q -- "$pat" "$tmp/err"
	ok $((st || $?)) "$desc: exit $rc (want $want), says '$pat'"
}
: >"$tmp/empty"
printf '1\nabc\n' >"$tmp/word"
printf '1\nnan\n' >"$tmp/nan"
printf '1\n-inf\n' >"$tmp/inf"
printf '[{"value": "12"}]' >"$tmp/strval.json"
printf '[{"value": 1' >"$tmp/broken.json"
printf '[{"value": 1, "direction": "sideways"}]' >"$tmp/dir.json"
head -c 17000000 /dev/zero | tr '\0' '1' >"$tmp/huge"
bad 1 "no values" "empty file" "$tmp/empty" "$tmp/pud"
bad 1 "not a finite number: 'abc'" "non-number" "$tmp/word" "$tmp/pud"
bad 1 "not a finite number: 'nan'" "NaN" "$tmp/pud" "$tmp/nan"
bad 1 "not a finite number: '-inf'" "infinity" "$tmp/pud" "$tmp/inf"
bad 1 "is not a number" "JSON value as a string" "$tmp/strval.json" "$tmp/pud"
bad 1 "bad JSON" "truncated JSON" "$tmp/broken.json" "$tmp/pud"
bad 1 "sideways" "unknown direction" "$tmp/dir.json" "$tmp/pud"
bad 1 "larger than the limit" "17 MB file" "$tmp/huge" "$tmp/pud"
bad 1 "No such file" "missing file" "$tmp/nosuch" "$tmp/pud"
bad 1 "negative" "negative sd" --base 10,-1,5 --new 10,1,5
bad 1 "at least 1" "n = 0" --base 10,1,0 --new 10,1,5
bad 1 "at least 1" "negative n" --base 10,1,5 --new 10,1,-5
bad 1 "not a finite number" "NaN mean" --base nan,1,5 --new 10,1,5
bad 1 "expected MEAN,SD,N" "two fields" --base 10,1 --new 10,1,5
bad 2 "usage" "--base without --new" --base 10,1,5
bad 2 "threshold" "bad threshold" --threshold 200 "$tmp/pud" "$tmp/pud"
bad 2 "alpha" "bad alpha" --alpha 0 "$tmp/pud" "$tmp/pud"
bad 2 "usage" "--budget with summaries" --budget 20 --base 1,1,5 --new 1,1,5
bad 2 "budget" "--budget 0" --budget 0 "$tmp/pud" "$tmp/pud"

done_testing
