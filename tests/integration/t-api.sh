#!/bin/bash
# t-api.sh - the API and the CLI against the real kregressd.
#
# Starts kregressd on a temporary state directory and a free loopback
# port, submits a URL and an mbox file through "kregress submit", reads
# them back with status/results (tables and --json), checks that bad
# input gives a clear error and writes nothing, then kills the daemon
# with SIGKILL while a job holds a lease, restarts it and checks that no
# series or job was lost or duplicated and the interrupted job runs again.
# URLs are served by the fake lore server (tests/fixtures/fake-lore.py);
# no tree is configured, so fetched series end "failed" at apply with
# "no tree configured", an honest final state.
set -u

B=${KREGRESS_BUILD:?}
. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
PY=/usr/bin/python3
TOKEN=integration-token-0123456789

diag() {
	sed 's/^/# /' "$@"
}

lore_start --root "$KREGRESS_SRC/tests/fixtures/mail" ||
	bail_out "the fake lore server did not start"
NOTREE='apply: no tree configured (trees[] of the configuration is empty)'

mkdir -p "$tmp/state"
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"database": "$tmp/state/kregress.db",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ],
		"max_body_bytes": 65536
	},
	"url_allowlist": [ "https://lore.kernel.org/", "$LORE/lkml/" ]
}
CFG

# api_up: the API answers kregress status
api_up() {
	"$B/kregress" status --server "$SRV" >/dev/null 2>&1
}

daemon_start && api_up
ok $? "kregressd serves the API on 127.0.0.1:$daemon_port"
if ! kill -0 "$daemon_pid" 2>/dev/null; then
	diag "$tmp/daemon.log"
	done_testing
fi

kr() {
	"$B/kregress" "$@" >"$tmp/out" 2>"$tmp/err"
}

export KREGRESS_TOKEN=$TOKEN

# --- submissions -----------------------------------------------------------
kr submit --server "$SRV" \
	"$LORE/lkml/20231122.1@example.org/t.mbox.gz"
ok $? "submit a URL"
grep -q '^submitted series 1 (queued)' "$tmp/out"
ok $? "submit prints the new series id"

cat >"$tmp/series.mbox" <<'MBOX'
From 0123456789abcdef Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.org>
Date: Wed, 22 Nov 2023 10:00:00 +0000
Subject: [PATCH] mm: make clear_huge_page faster
Message-ID: <20231122.2@example.org>

The change.
---
 mm/memory.c | 1 +
MBOX
kr submit --server "$SRV" --json "$tmp/series.mbox"
ok $? "submit an mbox file"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 2 and d["status"] == "queued"))' "$tmp/out"
ok $? "submit --json prints the API's answer"

test "$(sql "SELECT count(*) FROM series")" = 2
ok $? "two series stored"
test "$(sql "SELECT length(mbox) FROM series WHERE id = 2")" = \
	"$(stat -c %s "$tmp/series.mbox")"
ok $? "the mbox is stored byte for byte"
test "$(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")" = 2
ok $? "one fetch job per series"

# --- reading ---------------------------------------------------------------
KREGRESS_SERVER=$SRV kr status
ok $? "status lists series (server from KREGRESS_SERVER)"
test "$(grep -c '^[12] ' "$tmp/out")" = 2
ok $? "status shows both series"

# the daemon's configuration names port 0: the client's names the port
printf '{ "api": { "listen": "127.0.0.1:%s" } }\n' "$daemon_port" \
	>"$tmp/client.json"
kr status -c "$tmp/client.json" 1
ok $? "status ID (server from the config's api.listen)"
grep -q '^series 1: ' "$tmp/out" && grep -qF "$LORE/lkml/" "$tmp/out"
ok $? "status ID shows the series and its source"

kr status --server "$SRV" --json 2
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 2 and d["mbox_bytes"] > 0 and d["jobs"][0]["kind"] == "fetch"))' "$tmp/out"
ok $? "status --json ID is the API's series object"

kr results --server "$SRV" 1
ok $? "results ID"
grep -q '^series 1: ' "$tmp/out"
ok $? "results names the series and its state"
kr results --server "$SRV" --json 1
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 1 and isinstance(d["comparisons"], list)))' "$tmp/out"
ok $? "results --json has the comparisons array"

# --- bad input: clear errors, nothing written -------------------------------
KREGRESS_TOKEN= kr submit --server "$SRV" https://lore.kernel.org/r/x
test $? = 2 && grep -q 'needs a token' "$tmp/err"
ok $? "submit without a token: usage error naming the token"
kr submit --server "$SRV" --token wrong https://lore.kernel.org/r/x
test $? = 1 && grep -q 'HTTP 401' "$tmp/err"
ok $? "wrong token: HTTP 401 reported"
kr submit --server "$SRV" https://10.1.2.3/r/x
test $? = 1 && grep -q 'HTTP 403.*allowlist' "$tmp/err"
ok $? "URL outside the allowlist: HTTP 403 reported"
# Issue 15: matched on the raw URL, these were accepted and then fetched
# the /private/ the server resolves them to.
for trick in "$LORE/lkml/../private/x/" "$LORE/lkml/%2e%2e/private/x/" \
	     "$LORE/lkml/..%2fprivate/x/"; do
	kr submit --server "$SRV" "$trick"
	test $? = 1 && grep -q 'HTTP 403.*refused: ' "$tmp/err"
	ok $? "a dot segment out of the allowlist: HTTP 403 ($trick)"
done
kr submit --server "$SRV" "https://lore.kernel.org@10.1.2.3/r/x"
test $? = 1 && grep -q 'HTTP 403.*user information' "$tmp/err"
ok $? "user information in the URL: HTTP 403 naming it"
kr submit --server "$SRV" "$tmp/no-such-file"
test $? = 1 && grep -q 'no-such-file' "$tmp/err"
ok $? "missing file: error names it"
printf 'not a mail at all\n' >"$tmp/garbage"
kr submit --server "$SRV" "$tmp/garbage"
test $? = 1 && grep -q 'HTTP 400.*not an mbox' "$tmp/err"
ok $? "a file that is not mail: HTTP 400 reported"
head -c 70000 /dev/zero | tr '\0' 'a' | sed '1s/^/From: x\n\n/' >"$tmp/big"
kr submit --server "$SRV" "$tmp/big"
test $? = 1 && grep -q 'HTTP 413' "$tmp/err"
ok $? "an mbox over max_body_bytes: HTTP 413 reported"
kr status --server "$SRV" 999
test $? = 1 && grep -q 'HTTP 404' "$tmp/err"
ok $? "unknown id: HTTP 404 reported"
kr status --server "$SRV" abc
test $? = 2
ok $? "malformed id: usage error"
kr status --server http://127.0.0.1:1
test $? = 1 && grep -q 'is kregressd running' "$tmp/err"
ok $? "no server: says where it tried"
kr status -c "$tmp/no-such-config.json"
test $? = 1
ok $? "unreadable config named with -c: error"
# One query, one snapshot: the daemon may queue series 1's next job at any
# moment, and two separate counts would see different tables.
test "$(sql "SELECT count(*) FROM series")" = 2 &&
	test "$(sql "SELECT count(*) = count(CASE WHEN series_id IN (1, 2)
		     THEN 1 END) FROM job")" = 1
ok $? "bad input wrote no series and no job"

curl -s "$SRV/api/v1/health" >"$tmp/out"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["status"] != "ok")' "$tmp/out"
ok $? "health: ok"
curl -s "$SRV/metrics" | grep -q '^kregress_http_requests_total{method="POST",route="/api/v1/series",code="401"} 1$'
ok $? "metrics count the 401"

# --- watch ------------------------------------------------------------------
# Series 1 is fetched, then fails at apply (no tree): watch follows it to
# the end.
timeout 30 "$B/kregress" watch --server "$SRV" --interval 1 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc = 1 && tail -1 "$tmp/out" | grep -qF "series 1: failed ($NOTREE)"
ok $? "watch (piped) ends at the final state, exit 1 for a failure"
! grep -q $'\033' "$tmp/out" && test "$(sort "$tmp/out" | uniq -d | wc -l)" = 0
ok $? "watch (piped): plain lines, one per change"
kr watch --server "$SRV" --json 1
$PY -c 'import json, sys; d = json.loads(open(sys.argv[1]).readline()); sys.exit(d["status"] != "failed")' "$tmp/out"
ok $? "watch --json prints the series as JSON"

# --- kill -9 while a job holds a lease --------------------------------------
daemon_stop TERM
ok $? "SIGTERM: the daemon and its API stop cleanly"
daemon_start KREGRESS_TEST_STAGE_SLEEP=60 && api_up
ok $? "restarted with a stage that holds its lease for 60 s"
kr submit --server "$SRV" "$LORE/lkml/3@example.org/"
ok $? "submit a third series"
leased() {
	"$B/kregress" status --server "$SRV" --json 3 >"$tmp/s3" 2>/dev/null &&
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); j = d["jobs"]; sys.exit(not (len(j) == 1 and j[0]["state"] == "running" and d["status"] == "fetching"))' "$tmp/s3"
}
wait_for 10 leased
ok $? "the API shows its fetch job running (leased), series fetching"
if command -v script >/dev/null; then
	# A pseudo-terminal for 3 s: the block is drawn, then redrawn.
	timeout 3 script -qec "$B/kregress watch --server $SRV --interval 1 3" \
		/dev/null >"$tmp/out" 2>&1
	grep -q $'\033\[[0-9]*A\r\033\[J' "$tmp/out" &&
		grep -q 'fetch: running, attempt 1/5' "$tmp/out"
	ok $? "watch on a terminal redraws its block in place"
else
	skip "script(1) (util-linux) is not installed: no terminal to watch on"
fi
before="$(sql "SELECT count(*) FROM series") $(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")"
daemon_stop 9
test "$(sql "SELECT state || '|' || attempts FROM job WHERE series_id = 3")" = "running|1"
ok $? "after kill -9 the job is still leased by the dead daemon"
daemon_start && api_up
ok $? "restarted after kill -9"
timeout 30 "$B/kregress" watch --server "$SRV" --interval 1 3 >"$tmp/out" 2>&1
tail -1 "$tmp/out" | grep -qF "series 3: failed ($NOTREE)"
ok $? "the interrupted job ran again to the series' end"
kr status --server "$SRV" --json 3
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); j = d["jobs"]; sys.exit(not (len(j) == 2 and j[0]["kind"] == "fetch" and j[0]["attempts"] == 1 and j[0]["state"] == "done" and j[1]["kind"] == "apply" and j[1]["state"] == "failed" and j[1]["last_error"].startswith("no tree configured")))' "$tmp/out"
ok $? "fetch ran again, the attempt the kill cost not counted (attempts 1), then apply failed with its reason (API)"
test "$(sql "SELECT count(*) FROM series") $(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")" = "$before"
ok $? "no series or fetch job lost or duplicated ($before)"
test "$(sql "SELECT status FROM series ORDER BY id" | tr '\n' ' ')" = \
	"failed fetch-failed failed "

ok $? "every series reached its final state"
grep -q 'released 1 stale lease,' "$tmp/daemon.log"
ok $? "the restart logged the released lease"

# --- SIGHUP: new tokens for the next request -------------------------------
sed -i "s/$TOKEN/rotated-token-9876543210/" "$tmp/config.json"
kill -HUP "$daemon_pid"
wait_for 5 grep -q 'reloaded.*api.tokens to the next request' "$tmp/daemon.log"
kr submit --server "$SRV" --token rotated-token-9876543210 - <"$tmp/series.mbox"
ok $? "after SIGHUP the new token is accepted (mbox from stdin)"
kr submit --server "$SRV" "$tmp/series.mbox"
test $? = 1 && grep -q 'HTTP 401' "$tmp/err"
ok $? "... and the old one refused"

daemon_stop TERM
ok $? "SIGTERM after recovery: exit status 0"

# --- the API's port is taken: a clear error, exit status 1 ----------------
# The port is held by a listener that got it from the kernel.
$PY - "$tmp/held" <<'PYEOF' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(30)
PYEOF
holder=$!
wait_for 10 test -s "$tmp/held"
port=$(cat "$tmp/held")
sed "s/127.0.0.1:0/127.0.0.1:$port/" "$tmp/config.json" >"$tmp/busy.json"
timeout 20 "$B/kregressd" -c "$tmp/busy.json" 2>"$tmp/err"
test $? = 1 && grep -q "http: error: 127.0.0.1:$port: cannot listen: Address already in use" "$tmp/err"
ok $? "port in use: kregressd exits 1 naming the address"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

if [ $tap_failed != 0 ]; then
	echo "# daemon log:"
	diag "$tmp/daemon.log"
fi
done_testing
