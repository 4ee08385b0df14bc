#!/bin/bash
# t-results.sh - the analysis as a user sees it: the real kregressd runs
# the analyze stage on runs, boots and samples written into its database
# the way the run stage writes them, and the API (series, samples) and
# "kregress results" show the comparisons.
#
# Series 1: an x86_64 run, 8 boots per side, thp-fault/pass 20% slower
# on the patched kernel, memset-order/fill unchanged (two params), plus an
# interrupted run that must not be used.  Series 2: every patched boot
# panicked.  An analysed series then goes through the report stage (on
# the default policy, an .eml file in the outbox) and ends "done".
set -u

B=${KREGRESS_BUILD:?}
. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
PY=/usr/bin/python3

# jq-like: evaluates a Python expression on the JSON in file $1 as j.
jget() {
	$PY -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

mkdir -p "$tmp/state"
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"database": "$db",
	"api": { "listen": "127.0.0.1:0" },
	"stats": { "threshold_pct": 3, "alpha": 0.05, "min_samples": 3,
		   "max_boots_per_side": 20, "fdr_method": "bh" }
}
CFG

daemon_start && "$B/kregress" status --server "$SRV" >/dev/null 2>&1
ok $? "kregressd serves the API"

# The rows the run stage writes, and the analyze job it queues, in one
# transaction.
$PY - "$db" <<'PYEOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=10)
c = con.cursor()
c.execute("INSERT INTO build (id, commit_id, arch, config_hash, status) "
          "VALUES (1, 'aaaa', 'x86_64', 'k', 'ok'), "
          "(2, 'bbbb', 'x86_64', 'k', 'ok')")
# (the daemon has written its configured host "local" already)
c.execute("INSERT OR IGNORE INTO host (id, name, uri, arch, accel) VALUES "
          "(1, 'local', 'qemu:///system', 'x86_64', 'tcg')")
nonce = [0]

def boot(sid, rid, side, status):
    nonce[0] += 1
    c.execute("INSERT INTO boot (series_id, build_id, host_id, side, seq, "
              "status, run_id, round, nonce) VALUES (?, ?, 1, ?, ?, ?, ?, "
              "1, ?)", (sid, 1 if side == "base" else 2, side, nonce[0],
                        status, rid, "n%d" % nonce[0]))
    return c.lastrowid

def sample(bid, w, m, params, it, v, unit="us", d="lower"):
    c.execute("INSERT INTO sample (boot_id, workload, metric, params, "
              "iteration, value, unit, direction) VALUES "
              "(?, ?, ?, ?, ?, ?, ?, ?)", (bid, w, m, params, it, v, unit, d))

def series(subject):
    c.execute("INSERT INTO series (subject, status, created_at, updated_at) "
              "VALUES (?, 'ran', 0, 0)", (subject,))
    return c.lastrowid

def run(sid, status):
    c.execute("INSERT INTO run (series_id, arch, accel, seed, plan, status, "
              "rounds, started_at) VALUES (?, 'x86_64', 'tcg', 7, 'p', ?, 2, "
              "0)", (sid, status))
    return c.lastrowid

s1 = series("[PATCH] mm: Optimizing hugepage zeroing")
# An interrupted run with a tenfold slowdown: must not be analysed.
r0 = run(s1, "interrupted")
for k in range(4):
    for side, level in (("base", 1000), ("patched", 10000)):
        sample(boot(s1, r0, side, "ok"), "thp-fault", "pass", "{}", 0, level)
r1 = run(s1, "decided")
for k in range(8):
    noise = 1 + 0.01 * ((k * 37) % 11 - 5) / 5
    for side in ("base", "patched"):
        bid = boot(s1, r1, side, "ok")
        for it in range(3):
            f = 1 + 0.001 * (it - 1)
            sample(bid, "thp-fault", "pass", "{}", it,
                   (1200 if side == "patched" else 1000) * noise * f)
            for mb in (16, 64):
                sample(bid, "memset-order", "fill",
                       '{"mb":%d,"order":"forward"}' % mb, it,
                       mb * 10 * noise * f)
boot(s1, r1, "patched", "panic")

s2 = series("[PATCH] mm: broken")
r2 = run(s2, "no-samples")
for k in range(3):
    sample(boot(s2, r2, "base", "ok"), "thp-fault", "pass", "{}", 0, 1000)
    boot(s2, r2, "patched", "panic")

for sid in (s1, s2):
    c.execute("INSERT INTO job (kind, series_id, created_at, updated_at) "
              "VALUES ('analyze', ?, 0, 0)", (sid,))
con.commit()
PYEOF
ok $? "runs, boots, samples and analyze jobs stored"

wait_sql 30 "SELECT count(*) FROM job WHERE kind = 'analyze' AND
	state IN ('done', 'failed')" 2
test "$(sql "SELECT state FROM job WHERE kind = 'analyze' ORDER BY id")" = \
	"$(printf 'done\nfailed')"
ok $? "the daemon ran both analyze jobs (series 1 done, series 2 failed)"
for _ in $(seq 150); do
	[ "$(sql "SELECT count(*) FROM job WHERE state IN ('queued',
		'running')")" = 0 ] && break
	sleep 0.2
done
test "$(sql "SELECT status || ' ' || (SELECT group_concat(kind || ' ' ||
	status) FROM notification WHERE series_id = 1) FROM series WHERE
	id = 1")" = "done regression written"
ok $? "series 1 reported: its regression mail written to the outbox, done"

kr() {
	"$B/kregress" "$@" --server "$SRV" >"$tmp/out" 2>"$tmp/err"
}

# --- the API ---------------------------------------------------------------
kr status --json 1
test "$(jget "$tmp/out" 'len(j["comparisons"])')" = 3
ok $? "GET /series/1: three comparisons (pass, fill at 16 and 64 MB)"
test "$(jget "$tmp/out" '[(c["metric"], c["verdict"]) for c in j["comparisons"]]')" = \
	"[('fill', 'no-change'), ('fill', 'no-change'), ('pass', 'regression')]"
ok $? "fill no-change twice, pass a regression"
test "$(jget "$tmp/out" 'round(j["comparisons"][2]["change_pct"])')" = 20
ok $? "pass: change +20%"
test "$(jget "$tmp/out" 'all((c["p_value"] < 0.05) == (c["ci_low_pct"] > 0 or c["ci_high_pct"] < 0) and c["ci_low_pct"] <= c["change_pct"] <= c["ci_high_pct"] for c in j["comparisons"])')" = True
ok $? "API: p_value < alpha exactly when the CI excludes 0, change_pct inside its CI"
test "$(jget "$tmp/out" '[c["params"] for c in j["comparisons"]][:2]')" = \
	"[{'mb': 16, 'order': 'forward'}, {'mb': 64, 'order': 'forward'}]"
ok $? "params are JSON objects"
test "$(jget "$tmp/out" 'all(c["p_holm"] >= c["p_adjusted"] >= c["p_value"] for c in j["comparisons"])')" = True
ok $? "p <= BH-adjusted p <= Holm p"
test "$(jget "$tmp/out" '[(r["status"], r["base_ok"], r["patched_ok"], r["patched_failed"], r["analyzed"]) for r in j["runs"]]')" = \
	"[('interrupted', 4, 4, 0, 0), ('decided', 8, 8, 1, 1)]"
ok $? "runs: status, boots ok/failed per side, which one was analysed"
test "$(jget "$tmp/out" 'set(c["run_id"] for c in j["comparisons"]) == {j["runs"][1]["id"]}')" = True
ok $? "every comparison comes from the decided run"

kr status --json 2
test "$(jget "$tmp/out" 'j["status"] + ": " + j["status_reason"]')" = \
	"failed: analyze: x86_64: no complete boots on the patched side (run 3 ended no-samples; 3 patched boots failed)"
ok $? "series 2 failed with the arch, side and run"

curl -s -o "$tmp/s" -w '%{http_code}' "$SRV/api/v1/series/1/samples" >"$tmp/code"
test "$(cat "$tmp/code")" = 200 &&
test "$(jget "$tmp/s" 'len(j["items"])')" = \
	"$(sql "SELECT count(*) FROM sample s JOIN boot b ON b.id = s.boot_id WHERE b.series_id = 1")"
ok $? "GET /series/1/samples: every sample of the series"
test "$(jget "$tmp/s" 'sorted(j["items"][0].keys())')" = \
	"['arch', 'boot', 'direction', 'id', 'iteration', 'metric', 'params', 'run', 'side', 'unit', 'value', 'workload']"
ok $? "a sample has boot, run, arch, side, workload, metric, params, iteration, value, unit, direction"

# Paging: 7 at a time through one run's thp-fault samples.
after=0
got=0
pages=0
while :; do
	curl -s "$SRV/api/v1/series/1/samples?run=2&metric=pass&limit=7&after=$after" >"$tmp/p"
	got=$((got + $(jget "$tmp/p" 'len(j["items"])')))
	pages=$((pages + 1))
	after=$(jget "$tmp/p" 'j["next_after"] or 0')
	[ "$after" = 0 ] && break
	[ $pages -gt 20 ] && break
done
test "$got" = 48 && test "$pages" = 7
ok $? "paging by after/next_after: 48 samples of run 2 in 7 pages of 7 ($got in $pages)"

test "$(curl -s -o /dev/null -w '%{http_code}' "$SRV/api/v1/series/99/samples")" = 404
ok $? "samples of an unknown series: 404"
curl -s -o "$tmp/e" -w '%{http_code}' "$SRV/api/v1/series/1/samples?limit=100000" >"$tmp/code"
test "$(cat "$tmp/code")" = 400 && grep -q 'limit must be an integer from 1 to 10000' "$tmp/e"
ok $? "a page over 10000 samples: 400 naming the cap"
test "$(curl -s -o /dev/null -w '%{http_code}' "$SRV/api/v1/series/1/samples?after=x")" = 400
ok $? "a malformed cursor: 400"

# --- kregress results --------------------------------------------------------
kr results 1
ok $? "kregress results 1"
grep -q '^x86_64 tcg, real time: run 2 decided after 2 rounds (seed 7); boots: base 8 ok, 0 failed; patched 8 ok, 1 failed$' "$tmp/out"
ok $? "results: the analysed run with its boots"
grep -q '^x86_64 tcg, real time: run 1 interrupted .*(not analyzed)$' "$tmp/out"
ok $? "results: the interrupted run, not analysed"
grep -Eq '^  thp-fault/pass +8/8 +999 +1198\.8 +\+20\.0% +\[\+19\.0%, \+21\.0%\] +0\.000155 +0\.000466 +0\.000466 +regression us$' "$tmp/out"
ok $? "results: pass 8/8, medians, +20.0%, CI, p, adjusted p, Holm p, regression"
grep -q '^  METRIC .* BASE MEDIAN PATCHED MEDIAN HL CHANGE ' "$tmp/out" &&
	grep -q 'not the ratio of the two medians' "$tmp/out"
ok $? "results: the header and legend say medians and Hodges-Lehmann"
# Every printed number against the samples and against the others: the
# medians are medians of per-boot medians, HL CHANGE the median of the
# pairwise ratios, the CI holds it, and P < alpha exactly when the CI
# excludes 0 (the table rounds to what it prints).
$PY - "$db" "$tmp/out" <<'PYEOF'
import re, sqlite3, statistics, sys
con = sqlite3.connect(sys.argv[1])
rows = {}
for w, m, params, side, boot, v in con.execute(
        "SELECT s.workload, s.metric, s.params, b.side, b.id, s.value "
        "FROM sample s JOIN boot b ON b.id = s.boot_id "
        "WHERE b.run_id = 2 AND b.status = 'ok'"):
    rows.setdefault((w + "/" + m, params), {}).setdefault(side, {}) \
        .setdefault(boot, []).append(v)
lines = open(sys.argv[2]).read().splitlines()
checked = 0
def value(v):   # numfmt.h's numfmt_value()
    return "%.0f" % v if 1e6 <= abs(v) < 1e15 else "%.6g" % v
for i, l in enumerate(lines):
    f = l.split()
    if len(f) < 12 or "/" not in f[0] or f[1] != "8/8":
        continue
    params = "{}"
    if i + 1 < len(lines) and lines[i + 1].strip().startswith("params "):
        params = lines[i + 1].strip()[7:]
    key = [k for k in rows if k[0] == f[0] and
           k[1].replace(" ", "") == params.replace(" ", "")][0]
    med = {s: [statistics.median(v) for v in rows[key][s].values()]
           for s in ("base", "patched")}
    assert f[2] == value(statistics.median(med["base"])), (l, med)
    assert f[3] == value(statistics.median(med["patched"])), (l, med)
    hl = statistics.median(y / x for x in med["base"]
                           for y in med["patched"]) - 1
    assert f[4] == "%+.1f%%" % (hl * 100), (l, hl)
    lo, hi = (float(v.strip("[],%")) for v in (f[5], f[6]))
    assert lo <= float(f[4].strip("%")) <= hi, l
    assert (float(f[7]) < 0.05) == (lo > 0 or hi < 0), l
    checked += 1
assert checked == 3, checked
PYEOF
ok $? "results: medians, HL change, CI and P agree with the samples and each other"
grep -q '^      params {"mb":64,"order":"forward"}$' "$tmp/out"
ok $? "results: params under their metric"
grep -q '^verdicts: 1 regression, 2 no-change$' "$tmp/out"
ok $? "results: the verdict counts"
[ "$tap_failed" = 0 ] || sed 's/^/# /' "$tmp/out"

kr status 1
grep -q '^  run:         x86_64 tcg, real time: run 2 decided after 2 rounds (seed 7); boots: base 8 ok, 0 failed; patched 8 ok, 1 failed$' "$tmp/out" &&
	grep -q '^  comparisons: 3 (kregress results 1)$' "$tmp/out"
ok $? "status ID lists the runs and counts the comparisons"

kr results --json 1
test "$(jget "$tmp/out" '(j["id"], len(j["runs"]), len(j["comparisons"]))')" = "(1, 2, 3)"
ok $? "results --json: id, runs and comparisons"

kr results 2
grep -q '^series 2: failed: analyze: x86_64: no complete boots on the patched side' "$tmp/out" &&
	grep -q '^no results yet$' "$tmp/out"
ok $? "results of the failed series: the reason, no results"

# --- kregress analyze: the stage by hand, other options ----------------------
status1=$(sql "SELECT status || '|' || status_reason FROM series WHERE id = 1")
cat >"$tmp/t30.json" <<CFG
{ "state_dir": "$tmp/state", "stats": { "threshold_pct": 30, "min_samples": 3 } }
CFG
"$B/kregress" analyze -c "$tmp/t30.json" --db "$db" 1 >"$tmp/out" 2>"$tmp/err"
ok $? "kregress analyze with T = 30% (the database given by --db)"
grep -Eq '^  thp-fault/pass +8/8 .* minor us$' "$tmp/out" &&
	grep -q '^verdicts: 1 minor, 2 no-change$' "$tmp/out"
ok $? "analyze prints the table: +20% is now minor"
test "$(sql "SELECT verdict FROM comparison WHERE metric = 'pass'")" = minor
ok $? "and replaced the stored rows"
test "$(sql "SELECT count(*) FROM comparison WHERE series_id = 1")" = 3
ok $? "without duplicates"
test "$(sql "SELECT status || '|' || status_reason FROM series WHERE id = 1")" = "$status1"
ok $? "the series' status is left alone"
"$B/kregress" analyze -c "$tmp/config.json" --json 1 >"$tmp/out" 2>"$tmp/err"
test "$(jget "$tmp/out" '[c["verdict"] for c in j["comparisons"]][2]')" = regression
ok $? "analyze --json with the daemon's configuration (its database): regression again"
"$B/kregress" analyze -c "$tmp/config.json" 2 >"$tmp/out" 2>"$tmp/err"
test $? = 1 && grep -q 'series 2: x86_64: no complete boots on the patched side' "$tmp/err"
ok $? "analyze of the broken series: exit 1 with the reason"
"$B/kregress" analyze -c "$tmp/config.json" 12x >"$tmp/out" 2>"$tmp/err"
test $? = 2
ok $? "analyze of a malformed id: usage error"
"$B/kregress" analyze -c "$tmp/no-such.json" 1 >"$tmp/out" 2>"$tmp/err"
test $? = 1 && grep -q 'no-such.json' "$tmp/err"
ok $? "analyze with a missing configuration: exit 1 naming it"

[ "$tap_failed" = 0 ] || sed 's/^/# /' "$tmp/daemon.log"
done_testing
