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
PY=/usr/bin/python3
T=$(mktemp -d /tmp/t-api-sh.XXXXXX)
TOKEN=integration-token-0123456789
n=0
fail=0
pid=
lore=

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

# check "description" command...: ok when the command succeeds.
check() {
	local what=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$what"
}

diag() {
	sed 's/^/# /' "$@"
}

cleanup() {
	[ -n "$pid" ] && { kill -9 "$pid"; wait "$pid"; } 2>/dev/null
	[ -n "$lore" ] && { kill "$lore"; wait "$lore"; } 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

sql() {
	$PY - "$T/state/kregress.db" "$1" <<'PYEOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=10)
for row in con.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
PYEOF
}

$PY "$KREGRESS_SRC/tests/fixtures/fake-lore.py" \
	--root "$KREGRESS_SRC/tests/fixtures/mail" --port-file "$T/lore.port" \
	--log "$T/lore.log" &
lore=$!
for _ in $(seq 100); do [ -s "$T/lore.port" ] && break; sleep 0.1; done
LORE=http://127.0.0.1:$(cat "$T/lore.port")
NOTREE='apply: no tree configured (trees[] of the configuration is empty)'

port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SRV=http://127.0.0.1:$port
mkdir -p "$T/state"
cat >"$T/config.json" <<CFG
{
	"state_dir": "$T/state",
	"database": "$T/state/kregress.db",
	"api": {
		"listen": "127.0.0.1:$port",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ],
		"max_body_bytes": 65536
	},
	"url_allowlist": [ "https://lore.kernel.org/", "$LORE/lkml/" ]
}
CFG

start_daemon() {
	"$B/kregressd" -c "$T/config.json" 2>>"$T/daemon.log" &
	pid=$!
	for _ in $(seq 100); do
		"$B/kregress" status --server "$SRV" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

start_daemon
ok $? "kregressd serves the API on 127.0.0.1:$port"
if ! kill -0 "$pid" 2>/dev/null; then
	diag "$T/daemon.log"
	echo "1..$n"
	exit 1
fi

kr() {
	"$B/kregress" "$@" >"$T/out" 2>"$T/err"
}

export KREGRESS_TOKEN=$TOKEN

# --- submissions -----------------------------------------------------------
kr submit --server "$SRV" \
	"$LORE/lkml/20231122.1@example.org/t.mbox.gz"
ok $? "submit a URL"
grep -q '^submitted series 1 (queued)' "$T/out"
ok $? "submit prints the new series id"

cat >"$T/series.mbox" <<'MBOX'
From 0123456789abcdef Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.org>
Date: Wed, 22 Nov 2023 10:00:00 +0000
Subject: [PATCH] mm: make clear_huge_page faster
Message-ID: <20231122.2@example.org>

The change.
---
 mm/memory.c | 1 +
MBOX
kr submit --server "$SRV" --json "$T/series.mbox"
ok $? "submit an mbox file"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 2 and d["status"] == "queued"))' "$T/out"
ok $? "submit --json prints the API's answer"

test "$(sql "SELECT count(*) FROM series")" = 2
ok $? "two series stored"
test "$(sql "SELECT length(mbox) FROM series WHERE id = 2")" = \
	"$(stat -c %s "$T/series.mbox")"
ok $? "the mbox is stored byte for byte"
test "$(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")" = 2
ok $? "one fetch job per series"

# --- reading ---------------------------------------------------------------
KREGRESS_SERVER=$SRV kr status
ok $? "status lists series (server from KREGRESS_SERVER)"
test "$(grep -c '^[12] ' "$T/out")" = 2
ok $? "status shows both series"

kr status -c "$T/config.json" 1
ok $? "status ID (server from the config's api.listen)"
grep -q '^series 1: ' "$T/out" && grep -qF "$LORE/lkml/" "$T/out"
ok $? "status ID shows the series and its source"

kr status --server "$SRV" --json 2
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 2 and d["mbox_bytes"] > 0 and d["jobs"][0]["kind"] == "fetch"))' "$T/out"
ok $? "status --json ID is the API's series object"

kr results --server "$SRV" 1
ok $? "results ID"
grep -q '^series 1: ' "$T/out"
ok $? "results names the series and its state"
kr results --server "$SRV" --json 1
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["id"] == 1 and isinstance(d["comparisons"], list)))' "$T/out"
ok $? "results --json has the comparisons array"

# --- bad input: clear errors, nothing written -------------------------------
KREGRESS_TOKEN= kr submit --server "$SRV" https://lore.kernel.org/r/x
test $? = 2 && grep -q 'needs a token' "$T/err"
ok $? "submit without a token: usage error naming the token"
kr submit --server "$SRV" --token wrong https://lore.kernel.org/r/x
test $? = 1 && grep -q 'HTTP 401' "$T/err"
ok $? "wrong token: HTTP 401 reported"
kr submit --server "$SRV" https://10.1.2.3/r/x
test $? = 1 && grep -q 'HTTP 403.*allowlist' "$T/err"
ok $? "URL outside the allowlist: HTTP 403 reported"
# Issue 15: matched on the raw URL, these were accepted and then fetched
# the /private/ the server resolves them to.
for trick in "$LORE/lkml/../private/x/" "$LORE/lkml/%2e%2e/private/x/" \
	     "$LORE/lkml/..%2fprivate/x/"; do
	kr submit --server "$SRV" "$trick"
	test $? = 1 && grep -q 'HTTP 403.*refused: ' "$T/err"
	ok $? "a dot segment out of the allowlist: HTTP 403 ($trick)"
done
kr submit --server "$SRV" "https://lore.kernel.org@10.1.2.3/r/x"
test $? = 1 && grep -q 'HTTP 403.*user information' "$T/err"
ok $? "user information in the URL: HTTP 403 naming it"
kr submit --server "$SRV" "$T/no-such-file"
test $? = 1 && grep -q 'no-such-file' "$T/err"
ok $? "missing file: error names it"
printf 'not a mail at all\n' >"$T/garbage"
kr submit --server "$SRV" "$T/garbage"
test $? = 1 && grep -q 'HTTP 400.*not an mbox' "$T/err"
ok $? "a file that is not mail: HTTP 400 reported"
head -c 70000 /dev/zero | tr '\0' 'a' | sed '1s/^/From: x\n\n/' >"$T/big"
kr submit --server "$SRV" "$T/big"
test $? = 1 && grep -q 'HTTP 413' "$T/err"
ok $? "an mbox over max_body_bytes: HTTP 413 reported"
kr status --server "$SRV" 999
test $? = 1 && grep -q 'HTTP 404' "$T/err"
ok $? "unknown id: HTTP 404 reported"
kr status --server "$SRV" abc
test $? = 2
ok $? "malformed id: usage error"
kr status --server http://127.0.0.1:1
test $? = 1 && grep -q 'is kregressd running' "$T/err"
ok $? "no server: says where it tried"
kr status -c "$T/no-such-config.json"
test $? = 1
ok $? "unreadable config named with -c: error"
# One query, one snapshot: the daemon may queue series 1's next job at any
# moment, and two separate counts would see different tables.
test "$(sql "SELECT count(*) FROM series")" = 2 &&
	test "$(sql "SELECT count(*) = count(CASE WHEN series_id IN (1, 2)
		     THEN 1 END) FROM job")" = 1
ok $? "bad input wrote no series and no job"

curl -s "$SRV/api/v1/health" >"$T/out"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["status"] != "ok")' "$T/out"
ok $? "health: ok"
curl -s "$SRV/metrics" | grep -q '^kregress_http_requests_total{method="POST",route="/api/v1/series",code="401"} 1$'
ok $? "metrics count the 401"

# --- watch ------------------------------------------------------------------
# Series 1 is fetched, then fails at apply (no tree): watch follows it to
# the end.
timeout 30 "$B/kregress" watch --server "$SRV" --interval 1 1 >"$T/out" 2>"$T/err"
rc=$?
test $rc = 1 && tail -1 "$T/out" | grep -qF "series 1: failed ($NOTREE)"
ok $? "watch (piped) ends at the final state, exit 1 for a failure"
! grep -q $'\033' "$T/out" && test "$(sort "$T/out" | uniq -d | wc -l)" = 0
ok $? "watch (piped): plain lines, one per change"
kr watch --server "$SRV" --json 1
$PY -c 'import json, sys; d = json.loads(open(sys.argv[1]).readline()); sys.exit(d["status"] != "failed")' "$T/out"
ok $? "watch --json prints the series as JSON"

# --- kill -9 while a job holds a lease --------------------------------------
kill -TERM "$pid"
wait "$pid"
ok $? "SIGTERM: the daemon and its API stop cleanly"
pid=
KREGRESS_TEST_STAGE_SLEEP=60 start_daemon
ok $? "restarted with a stage that holds its lease for 60 s"
kr submit --server "$SRV" "$LORE/lkml/3@example.org/"
ok $? "submit a third series"
leased() {
	"$B/kregress" status --server "$SRV" --json 3 >"$T/s3" 2>/dev/null &&
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); j = d["jobs"]; sys.exit(not (len(j) == 1 and j[0]["state"] == "running" and d["status"] == "fetching"))' "$T/s3"
}
for _ in $(seq 100); do leased && break; sleep 0.1; done
leased
ok $? "the API shows its fetch job running (leased), series fetching"
if command -v script >/dev/null; then
	# A pseudo-terminal for 3 s: the block is drawn, then redrawn.
	timeout 3 script -qec "$B/kregress watch --server $SRV --interval 1 3" \
		/dev/null >"$T/out" 2>&1
	grep -q $'\033\[[0-9]*A\r\033\[J' "$T/out" &&
		grep -q 'fetch: running, attempt 1/5' "$T/out"
	ok $? "watch on a terminal redraws its block in place"
fi
before="$(sql "SELECT count(*) FROM series") $(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")"
{ kill -9 "$pid"; wait "$pid"; } 2>/dev/null
pid=
test "$(sql "SELECT state || '|' || attempts FROM job WHERE series_id = 3")" = "running|1"
ok $? "after kill -9 the job is still leased by the dead daemon"
start_daemon
ok $? "restarted after kill -9"
timeout 30 "$B/kregress" watch --server "$SRV" --interval 1 3 >"$T/out" 2>&1
tail -1 "$T/out" | grep -qF "series 3: failed ($NOTREE)"
ok $? "the interrupted job ran again to the series' end"
kr status --server "$SRV" --json 3
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); j = d["jobs"]; sys.exit(not (len(j) == 2 and j[0]["kind"] == "fetch" and j[0]["attempts"] == 2 and j[0]["state"] == "done" and j[1]["kind"] == "apply" and j[1]["state"] == "failed" and j[1]["last_error"].startswith("no tree configured")))' "$T/out"
ok $? "fetch ran again (attempt 2), then apply failed with its reason (API)"
test "$(sql "SELECT count(*) FROM series") $(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")" = "$before"
ok $? "no series or fetch job lost or duplicated ($before)"
test "$(sql "SELECT status FROM series ORDER BY id" | tr '\n' ' ')" = \
	"failed fetch-failed failed "

ok $? "every series reached its final state"
grep -q 'released 1 stale lease,' "$T/daemon.log"
ok $? "the restart logged the released lease"

# --- SIGHUP: new tokens for the next request -------------------------------
sed -i "s/$TOKEN/rotated-token-9876543210/" "$T/config.json"
kill -HUP "$pid"
for _ in $(seq 50); do
	grep -q 'reloaded.*api.tokens to the next request' "$T/daemon.log" && break
	sleep 0.1
done
kr submit --server "$SRV" --token rotated-token-9876543210 - <"$T/series.mbox"
ok $? "after SIGHUP the new token is accepted (mbox from stdin)"
kr submit --server "$SRV" "$T/series.mbox"
test $? = 1 && grep -q 'HTTP 401' "$T/err"
ok $? "... and the old one refused"

kill -TERM "$pid"
wait "$pid"
ok $? "SIGTERM after recovery: exit status 0"
pid=

# --- the API's port is taken: a clear error, exit status 1 ----------------
$PY -c 'import socket, sys, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); open(sys.argv[2], "w").close(); time.sleep(30)' "$port" "$T/held" &
holder=$!
for _ in $(seq 100); do [ -e "$T/held" ] && break; sleep 0.1; done
timeout 20 "$B/kregressd" -c "$T/config.json" 2>"$T/err"
test $? = 1 && grep -q "http: error: 127.0.0.1:$port: cannot listen: Address already in use" "$T/err"
ok $? "port in use: kregressd exits 1 naming the address"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

if [ $fail != 0 ]; then
	echo "# daemon log:"
	diag "$T/daemon.log"
fi
echo "1..$n"
exit $fail
