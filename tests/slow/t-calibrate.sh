#!/bin/bash
# t-calibrate.sh - A/A calibration on the real libvirt/QEMU (TCG,
# instruction time), by hand and by the daemon, with a short plan and a
# small budget so that it stays a few minutes.
#
#   kregressd (calibration idle_s 0): a series runs before any
#     calibration exists (the configured threshold, no calibration);
#     once the daemon is idle it calibrates the host ("new host") in the
#     runs' ABBA design, its boots are boots of the host; a second series
#     then runs with that calibration linked, its looks and its analysis
#     at the calibrated thresholds, which the API, status and results
#     show; GET /api/v1/hosts publishes the host's false alarms;
#   kregress calibrate -c CONFIG, by hand: the configuration's host, plan
#     and base booted against itself, the figures per metric, --json with
#     every per-boot value, stored in the daemon's database, which the API
#     then shows as the host's current calibration; --replay of the --json
#     output gives the same figures without booting.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
set -u
PY=/usr/bin/python3
KR=$KREGRESS_BUILD/kregress
export KREGRESS_VM_PREFIX=kregress-cal$$-
build_cache_private || bail_out "no build cache of its own"
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
export KREGRESS_TOKEN=cal-token-0123456789abcdef
# heartbeats (and so the calibration scheduler) every second
export KREGRESS_TEST_LEASE_S=3
at_exit '"$KR" host reap >/dev/null 2>&1'

[ "$(id -u)" = 0 ] || skip_all "needs root for qemu:///system"
timeout 20 virsh -c qemu:///system version >/dev/null 2>&1 ||
	skip_all "libvirtd is not running (make check starts it)"
build_user_setup
tree=$(linux_tree) || skip_all "no linux-source-6.1 tree or tarball"

plan 33

# jget FILE EXPR: a Python expression on the JSON in FILE as j.
jget() {
	$PY -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

chmod 755 "$tmp"
# A short plan in instruction time: two workloads, a few seconds a boot.
cat >"$tmp/short.plan" <<'PLAN'
kregress-plan 1
machine 256 1
clock instructions
timeout 60
thp always
run thp-fault --size-mb 8 --iterations 3 --warmup 1
run page-zero-check --checks 2000 --iterations 3 --warmup 1
PLAN

# --- the daemon ---------------------------------------------------------
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$KREGRESS_TOKEN" } ]
	},
	"trees": [ { "name": "linux-6.1", "path": "$tree",
		     "branch": "master" } ],
	"arches": { "x86_64": { "base_config": "tinyconfig", "make_jobs": 2 } },
	"hosts": [ { "name": "local", "uri": "qemu:///system",
		     "arch": "x86_64", "accel": "tcg", "capacity": 1 } ],
	"plans": { "x86_64": { "tcg": "$tmp/short.plan" } },
	"stats": { "max_boots_per_side": 6 },
	"calibration": { "idle_s": 0, "interval_s": 0, "boots_per_side": 2,
			 "simulations": 50 },
	"limits": { "boot_timeout_s": 120, "workers": 1 }
}
CFG
ex=$KREGRESS_SRC/tests/fixtures/examples/move-pud-revert.mbox
daemon_start
ok $? "kregressd started, calibration when idle"
"$KR" submit --server "$SRV" "$ex" >"$tmp/out" 2>&1
one=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "${one:-0}" 1800)
is "$st|$(sql "SELECT count(*) FROM run_calibration")" "done|0" \
	"a first series ran and was analysed before any calibration"
is "$(sql "SELECT count(*) FROM comparison WHERE series_id = $one AND
	(calibration_id IS NOT NULL OR threshold_pct != 3)")" 0 \
	"... at the configured 3%, with no calibration"
wait_sql 900 "SELECT status FROM calibration ORDER BY id LIMIT 1" done
ok $? "the idle daemon calibrated the host"
cal=$(sql "SELECT id FROM calibration WHERE status = 'done' LIMIT 1")
is "$(sql "SELECT reason || ' ' || arch || ' ' || clock || ' ' ||
	boots_per_side || ' ' || budget FROM calibration WHERE id = ${cal:-0}")" \
	"new host x86_64 instructions 2 6" \
	"a new host: 2 boots a side, for runs with a budget of 6"
is "$(sql "SELECT group_concat(side || ':' || n, ' ') FROM (SELECT side,
	count(*) n FROM boot WHERE calibration_id = ${cal:-0} AND status =
	'ok' GROUP BY side ORDER BY side)")" "base:2 patched:2" \
	"its boots are the host's boots, the base on both sides of the ABBA order"
is "$(sql "SELECT count(*) = (SELECT count(DISTINCT workload || metric ||
	params) FROM sample s JOIN boot b ON b.id = s.boot_id WHERE
	b.calibration_id = ${cal:-0}) FROM calibration_metric WHERE
	calibration_id = ${cal:-0} AND comparisons = 50 AND threshold_pct >= 3")" 1 \
	"a stored row per metric of its samples, each with 50 comparisons"
# Every boot's, the four complete ones and any that failed and was
# booted again (seen once under load: five).
is "$(sql "SELECT count(*) >= 4 AND count(*) = sum(console_path LIKE
	'$tmp/state/runs/calibration-$cal/%') FROM boot WHERE
	calibration_id = ${cal:-0}")" 1 \
	"its console logs under STATE_DIR/runs/"
is "$(sql "SELECT count(*) FROM job WHERE kind = 'calibrate' AND
	state = 'done'")" 1 "one calibrate job did it"

"$KR" submit --server "$SRV" "$ex" >"$tmp/out" 2>&1
two=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "${two:-0}" 1800)
run=$(sql "SELECT max(id) FROM run WHERE series_id = ${two:-0}")
is "$st|$(sql "SELECT group_concat(calibration_id) FROM run_calibration
	WHERE run_id = ${run:-0}")" "done|$cal" \
	"the second series' run used the calibration"
is "$(sql "SELECT count(*) FROM comparison WHERE run_id = ${run:-0} AND
	(calibration_id IS NOT $cal OR threshold_pct IS NULL)")" 0 \
	"every comparison records the calibration and the threshold it used"
is "$(sql "SELECT count(*) FROM comparison c JOIN calibration_metric m ON
	m.calibration_id = $cal AND m.workload = c.workload AND m.metric =
	c.metric AND m.params = c.params WHERE c.run_id = ${run:-0} AND
	abs(c.threshold_pct - max(3, coalesce(m.resolve_pct, 0),
	coalesce(m.alarm_pct, 0))) > 1e-9")" 0 \
	"... the configured 3% or what the host resolves, whichever is larger"
is "$(sql "SELECT status = 'decided' = ((SELECT count(*) FROM comparison
	WHERE run_id = r.id AND is_primary AND verdict NOT IN ('regression',
	'improvement', 'minor', 'no-change')) = 0) FROM run r WHERE
	r.id = ${run:-0}")" 1 \
	"the run stopped as decided exactly when its primary metrics are decisive at those thresholds"
"$KR" results --server "$SRV" "$two" >"$tmp/results" 2>&1
grep -E "^  thresholds?: \+-[0-9.]+% " "$tmp/results" | grep "host local" |
	grep -q "A/A calibration $cal\b"
ok $? "kregress results says which thresholds and calibration the run used"
grep '^  threshold' "$tmp/results" | sed 's/^/# /'
curl -s "$SRV/api/v1/hosts" >"$tmp/hosts.json"
is "$(jget "$tmp/hosts.json" '[(h["name"], [c["id"] for c in h["calibration"]["current"]], h["calibration"]["last"]["status"]) for h in j["items"]]')" \
	"[('local', [$cal], 'done')]" "GET /api/v1/hosts: the host's current calibration"
is "$(jget "$tmp/hosts.json" 'sorted(j["items"][0]["calibration"]["current"][0]["false_alarms"])')" \
	"['real', 'simulated', 'target']" \
	"... with its false alarms published, simulated and real"
is "$(jget "$tmp/hosts.json" 'j["items"][0]["calibration"]["current"][0]["false_alarms"]["simulated"]["comparisons"] == 50 * len(j["items"][0]["calibration"]["current"][0]["metrics"])')" \
	True "... 50 resampled comparisons per metric"

# By hand into the daemon's database.
timeout 900 "$KR" calibrate -c "$tmp/config.json" --host qemu:///system \
	--arch x86_64 --seed 5 --changes 10 --json >"$tmp/cal.json" \
	2>"$tmp/cal.err"
ok $? "kregress calibrate -c CONFIG: the configuration's host, plan, base and boots"
is "$(jget "$tmp/cal.json" '(len(j["per_boot"]), sorted(b["side"] for b in j["per_boot"]), j["clock"], j["calibration_id"] == int("'"$(sql "SELECT max(id) FROM calibration")"'"))')" \
	"(4, ['base', 'base', 'patched', 'patched'], 'instructions', True)" \
	"four boots of the ABBA order, two a side, instruction time, its stored id"
is "$(jget "$tmp/cal.json" 'sorted({m["workload"] for m in j["metrics"]})')" \
	"['page-zero-check', 'thp-fault']" "every workload of the plan"
is "$(jget "$tmp/cal.json" '[m["metric"] for m in j["metrics"] if m["primary"] and m["workload"] == "page-zero-check"]')" \
	"['word_check']" "the primary metrics as the workloads declare them"
is "$(jget "$tmp/cal.json" 'all(m["comparisons"] == 50 and m["threshold_pct"] >= 3 and m["n"] == 4 and len(m["changes"]) == 1 for m in j["metrics"])')" \
	True "per metric: 50 comparisons, 4 boots, a threshold no smaller than the configured 3%, the +10% figures"
is "$(jget "$tmp/cal.json" 'all(m["cv"] < 0.01 for m in j["metrics"] if m["primary"])')" \
	True "instruction time: every primary metric repeats within 1%"
is "$(jget "$tmp/cal.json" '(j["design"]["budget"], j["design"]["alpha"], j["design"]["min_samples"])')" \
	"(6, 0.05, 5)" "the design of the runs: the configuration's"
"$KR" calibrate --replay "$tmp/cal.json" --budget 6 --simulations 50 \
	--seed 5 --changes 10 --json >"$tmp/replay.json" 2>"$tmp/replay.err"
ok $? "kregress calibrate --replay of the --json output"
$PY - "$tmp/cal.json" "$tmp/replay.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
keys = ("cv", "comparisons", "false_alarms", "threshold_pct", "resolve_pct",
        "detectable_pct", "stop_mean", "changes")
assert [[m[k] for k in keys] for m in a["metrics"]] == \
    [[m[k] for k in keys] for m in b["metrics"]]
PYEOF
ok $? "the replay gives the same figures from the same values and seed"
"$KR" calibrate --replay "$tmp/cal.json" --simulations 50 >"$tmp/table" 2>&1
grep -Eq '^  page-zero-check/word_check \* +4 ' "$tmp/table" &&
	grep -q '^false alarms: 0 in [0-9]* resampled A/A comparisons' "$tmp/table" &&
	grep -Eq '^  thp-fault/pass \* +4 +[0-9]{6,} ' "$tmp/table"
ok $? "the table: a line per metric, primary ones starred, medians in full, the false alarms"
"$KR" calibrate --arch x86_64 --kernel /nonexistent >"$tmp/out" 2>&1
is $? 2 "no --host: a usage error"
"$KR" calibrate --host qemu:///system --arch x86_64 >"$tmp/out" 2>&1
test $? = 2 && grep -q 'without -c CONFIG, --kernel is required' "$tmp/out"
ok $? "without -c nothing is stored and --kernel is required"
is "$(sql "SELECT reason || ' ' || status || ' ' || boots_per_side || ' ' ||
	(build_id = (SELECT build_id FROM calibration WHERE id = $cal))
	FROM calibration ORDER BY id DESC LIMIT 1")" "by hand done 2 1" \
	"stored by hand, on the same base"
curl -s "$SRV/api/v1/hosts" >"$tmp/hosts.json"
is "$(jget "$tmp/hosts.json" '[c["reason"] for c in j["items"][0]["calibration"]["current"]] + [j["items"][0]["calibration"]["current"][0]["false_alarms"]["real"]["calibrations"]]')" \
	"['by hand', 2]" \
	"it is the host's current calibration; the real false alarms count both"
"$KR" calibrate -c "$tmp/config.json" --host qemu:///nowhere \
	--arch x86_64 >"$tmp/out" 2>&1
test $? = 1 && grep -q 'not a host of arch x86_64' "$tmp/out"
ok $? "-c with a host the configuration does not name: refused"

daemon_stop TERM
is $? 0 "SIGTERM: the daemon exits cleanly"
if [ "$tap_failed" -gt 0 ]; then
	echo "# daemon log (tail):"
	tail -60 "$daemon_log" | sed 's/^/#   /'
fi
done_testing
