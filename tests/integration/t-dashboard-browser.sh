#!/bin/bash
# t-dashboard-browser.sh - the dashboard in a real browser, on a real run.
#
# kregressd serves the database of a real run (tests/lib/dashboard.sh);
# Debian's chromium, driven by playwright-core from the npm packages make
# installed ($KREGRESS_BUILD/web-npm), opens every page as a user would
# (tests/web/browser.cjs): no console error and no failed request on any
# page, every same-origin link resolves, the series page plots exactly
# one point per complete boot per side (counted here from the database),
# a series whose work runs updates in place (the test changes its rows),
# the layout control's answers show beside their verdicts (written in),
# nothing jumps while a page loads, filters and search change the list
# and the URL, j/k/Enter and / work, the trends chart draws the noise
# band of its host's calibration of the same clock and plan
# (tests/fixtures/dashboard/calibration.sql) and says when there is none,
# and light, dark, laptop and wide screens are photographed into
# $KREGRESS_BUILD/test-artefacts/dashboard/.
set -u

. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/dashboard.sh"
PY=/usr/bin/python3
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NPM=$KREGRESS_BUILD/web-npm/node_modules
OUT=$KREGRESS_BUILD/test-artefacts/dashboard

[ -x "$CHROMIUM" ] || skip_all "no $CHROMIUM (make deps installs chromium)"
[ -d "$NPM/playwright-core" ] || skip_all "playwright-core is not installed (make web)"
dashboard_start || bail_out "kregressd did not start on the fixture"

# What the pages must show, from the database.
$PY - "$db" >"$tmp/expect.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql: db.execute(sql).fetchall()
plotted = q("SELECT id FROM series WHERE id IN (SELECT series_id FROM "
            "comparison WHERE verdict = 'regression')")[0][0]
runs = {}
for (run,) in q("SELECT id FROM run WHERE series_id = %d" % plotted):
    ok = dict(q("SELECT side, count(*) FROM boot WHERE run_id = %d AND "
                "status = 'ok' GROUP BY side" % run))
    metrics = q("SELECT count(DISTINCT s.workload || s.metric || s.params) "
                "FROM sample s JOIN boot b ON b.id = s.boot_id WHERE "
                "b.run_id = %d AND b.status = 'ok'" % run)[0][0]
    runs[run] = {"base": ok.get("base", 0), "patched": ok.get("patched", 0),
                 "metrics": metrics}
broken = q("SELECT id FROM series WHERE status = 'build-failed'")[0][0]
compare = q("SELECT b.build_id, p.build_id FROM series_build b JOIN "
            "series_build p ON p.series_id = b.series_id AND "
            "p.arch = b.arch WHERE b.side = 'base' AND "
            "p.side = 'patched' AND b.series_id = %d" % plotted)[0]
print(json.dumps({
    "series": [r[0] for r in q("SELECT id FROM series ORDER BY id")],
    "all": [r[0] for r in q("SELECT id FROM series ORDER BY id DESC")],
    "plotted": plotted, "runs": runs, "compare": list(compare),
    "regression": plotted,
    "building": broken, "building_build": q(
        "SELECT build_id FROM series_build WHERE series_id = %d AND "
        "side = 'patched'" % broken)[0][0],
    "panic": q("SELECT id FROM series WHERE subject LIKE '%panic%'")[0][0],
}))
PY
ok $? "the expected counts, from the database"

rm -rf "$OUT"
SRV=$SRV OUT=$OUT EXPECT=$tmp/expect.json DB=$db CHROMIUM=$CHROMIUM \
	NODE_PATH=$NPM timeout 600 node "$KREGRESS_SRC/tests/web/browser.cjs" \
	>"$tmp/results" 2>"$tmp/node.err"
rc=$?
while IFS=$'\t' read -r verdict desc why; do
	if [ "$verdict" = PASS ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   $why" >&2
	fi
done <"$tmp/results"
ok $rc "the browser test ran to its end"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/node.err" >&2
ls "$OUT"/*.png >/dev/null 2>&1
ok $? "screenshots are in $OUT"

done_testing
