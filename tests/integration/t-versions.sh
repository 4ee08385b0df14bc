#!/bin/bash
# t-versions.sh - versions of one series followed over time, through the
# real kregressd (issue 16, item 4): v1 and v2 of a series (same
# change-id, tests/fixtures/mail/shapes/) queued together; v2's fetch
# links it to v1, supersedes v1 (whose apply job is cancelled with the
# reason) and carries over the review of the patch it leaves unchanged;
# then v2 and v1 of another series (matched by title and author) submitted
# through the API in the other order: v1 arrives superseded.  With the
# comparison rows the analysis would write for both versions, the API and
# `kregress results` show per metric v1's verdict next to v2's.
#
# No tree is configured, so a series that gets past its fetch ends
# "failed" at apply ("no tree configured"): the versions are decided
# before that, at fetch.
set -u

B=${KREGRESS_BUILD:?}
. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
PY=/usr/bin/python3
SHAPES=$KREGRESS_SRC/tests/fixtures/mail/shapes
TOKEN=versions-token-0123456789
export KREGRESS_TOKEN=$TOKEN

jget() {
	$PY -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
kr() { "$B/kregress" "$@" --server "$SRV" >"$tmp/out" 2>"$tmp/err"; }

mkdir -p "$tmp/state"
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"database": "$db",
	"api": { "listen": "127.0.0.1:0",
		 "tokens": [ { "name": "test", "value": "$TOKEN" } ] },
	"limits": { "workers": 1 }
}
CFG

# The database first, then v1 and v2 queued while no daemon runs: the one
# worker then fetches v1, then v2 (queued before v1's apply job).
daemon_start || bail_out "kregressd did not start"
daemon_stop TERM
sql "INSERT INTO series (mbox, status, created_at, updated_at) VALUES
	(readfile('$SHAPES/version-v1.mbox'), 'queued', 1, 1),
	(readfile('$SHAPES/version-v2.mbox'), 'queued', 1, 1);
     INSERT INTO job (kind, series_id, created_at, updated_at) VALUES
	('fetch', 1, 1, 1), ('fetch', 2, 1, 1);"
daemon_start || bail_out "kregressd did not restart"

is "$(wait_status 2 30)" failed "v2 goes through its fetch (then fails: no tree)"
is "$(sql "SELECT status, status_reason, superseded_by FROM series WHERE id = 1")" \
	"superseded|superseded by v2 (series 2)|2" \
	"v1, still queued for apply, is superseded by v2, saying so"
is "$(sql "SELECT kind, state, last_error FROM job WHERE series_id = 1 AND kind = 'apply'")" \
	"apply|failed|cancelled: superseded by v2 (series 2)" \
	"v1's queued apply job is cancelled with that reason"
is "$(sql "SELECT previous_id FROM series WHERE id = 2")" 1 \
	"v2 is linked to v1 (same change-id)"
is "$(sql "SELECT p.idx, t.name, t.value, t.from_version, t.from_series FROM patch p JOIN patch_trailer t ON t.patch_id = p.id WHERE p.series_id = 2")" \
	"1|Reviewed-by|Rev Iewer <rev@example.org>|1|1" \
	"v2 1/2, unchanged, keeps v1's review; 2/2, changed, does not"

curl -s "$SRV/api/v1/series/2" >"$tmp/s2.json"
is "$(jget "$tmp/s2.json" '(j["previous_id"], j["previous_version"], j["since_previous"]["series_id"], j["trailers"][0]["from_series"])')" \
	"(1, 1, 1, 1)" "the API: previous_id, its version, the carried trailer"
kr status 2
like "$(cat "$tmp/out")" "previous:    v1, series 1 (superseded)" \
	"kregress status 2 names the previous version"
kr status 1
like "$(cat "$tmp/out")" "superseded:  by v2, series 2" \
	"kregress status 1 names the version that superseded it"

# The other order, through the API: v2 first; v1, arriving later, is
# superseded on arrival.  No change-id: matched by title and author.
kr submit "$SHAPES/version-v2-noid.mbox"
ok $? "submit v2 (no change-id)"
is "$(wait_status 3 30)" failed "v2 goes through its fetch"
kr submit "$SHAPES/version-v1-noid.mbox"
is "$(wait_status 4 30)" superseded "v1 submitted after v2 ends superseded"
is "$(sql "SELECT status_reason, superseded_by FROM series WHERE id = 4")" \
	"fetch: superseded by v2 (series 3)|3" "with the reason, at its fetch"
is "$(sql "SELECT previous_id FROM series WHERE id = 3")" 4 \
	"and v2 is linked to it (by title and author)"
is "$(sql "SELECT count(*) FROM job WHERE series_id = 4 AND kind <> 'fetch'")" 0 \
	"nothing more is queued for the superseded v1"

# What the analysis would store for both versions: v1 regressed
# thp-fault, v2 fixed it and left memset-order as it was; only v1 had
# zero-swap, only v2 has pud-move.
$PY - "$db" <<'PYEOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=10)
rows = [
    (1, "thp-fault", "time", "regression", 21.0, 18.2, 23.9),
    (1, "memset-order", "fill", "no-change", 0.4, -1.0, 1.8),
    (1, "zero-swap", "pages", "improvement", -12.0, -14.1, -9.9),
    (2, "thp-fault", "time", "no-change", 0.3, -1.2, 1.9),
    (2, "memset-order", "fill", "no-change", -0.2, -1.6, 1.2),
    (2, "pud-move", "time", "likely-improvement", -4.1, -8.0, -0.2),
]
for sid, w, m, v, chg, lo, hi in rows:
    con.execute("INSERT INTO comparison (series_id, arch, workload, metric, "
                "unit, direction, n_base, n_new, change_pct, ci_low_pct, "
                "ci_high_pct, verdict) VALUES (?, 'x86_64', ?, ?, 'ns', "
                "'lower', 8, 8, ?, ?, ?, ?)", (sid, w, m, chg, lo, hi, v))
con.commit()
PYEOF
curl -s "$SRV/api/v1/series/2" >"$tmp/s2.json"
is "$(jget "$tmp/s2.json" '[(m["workload"], m["previous_verdict"], m["verdict"]) for m in j["since_previous"]["metrics"]]')" \
	"[('memset-order', 'no-change', 'no-change'), ('pud-move', None, 'likely-improvement'), ('thp-fault', 'regression', 'no-change'), ('zero-swap', 'improvement', None)]" \
	"the API: per metric v1's verdict next to v2's, each metric once"
is "$(jget "$tmp/s2.json" '[m["previous_change_pct"] for m in j["since_previous"]["metrics"] if m["workload"] == "thp-fault"]')" \
	"[21.0]" "with v1's change"
kr results 2
like "$(cat "$tmp/out")" "since v1 (series 1, superseded):" \
	"kregress results 2: a section since v1"
grep -Eq "^  x86_64 +thp-fault/time +regression +\+21.0% +no-change +\+0.3%$" "$tmp/out"
ok $? "thp-fault: v1 regression +21.0% next to v2 no-change +0.3%"
grep -Eq "^  x86_64 +zero-swap/pages +improvement +-12.0% +- +-$" "$tmp/out"
ok $? "a metric v2 no longer has: v1's verdict, nothing for v2"

done_testing
