#!/bin/bash
# t-daemon.sh - the real kregressd on a temporary state directory: config
# checking, a job failing honestly, kill -9 in the middle of a lease and
# the restart that recovers it, SIGTERM giving a lease back, SIGHUP, and a
# database from the future.  Jobs and series are put in with the sqlite3
# CLI, as another process would.
set -u
build=${KREGRESS_BUILD:?}
src=${KREGRESS_SRC:?}
kd=$build/kregressd
tmp=$(mktemp -d /tmp/t-daemon.XXXXXX)
pid=
n=0
failed=0

cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() {	# ok COND-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}
is() {	# is GOT WANT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"
		echo "#   got: '$1'"
		echo "#  want: '$2'"
		failed=1
	fi
}

db=$tmp/state/kregress.db
q() { sqlite3 -cmd ".timeout 5000" "$db" "$@"; }

# wait_for SECONDS COMMAND...: until the command succeeds.
wait_for() {
	local i limit=$(($1 * 10))
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# wait_q SECONDS SQL WANT: until the query returns WANT.
wait_q() {
	local i limit=$(($1 * 10))
	for ((i = 0; i < limit; i++)); do
		[ "$(q "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

start() {	# start [ENV=VALUE...]: daemon in the background, log appended
	env "$@" "$kd" -c "$tmp/config.json" 2>>"$tmp/log" &
	pid=$!
	wait_for 10 grep -q "ready: pid $pid" "$tmp/log"
}

stop() {	# stop SIGNAL: signal the daemon and return its exit status
	local rc
	kill -"$1" "$pid"
	{ wait "$pid"; rc=$?; } 2>/dev/null
	pid=
	return $rc
}

# report is a stage not implemented yet: its job fails honestly.
new_series() {	# prints the id of a new series with a queued run job
	q "INSERT INTO series (subject, created_at, updated_at)
	   VALUES ('[PATCH] mm: $1', strftime('%s'), strftime('%s'));
	   INSERT INTO job (kind, series_id, created_at, updated_at)
	   VALUES ('report', last_insert_rowid(), strftime('%s'),
		   strftime('%s'));
	   SELECT max(id) FROM series;"
}

# --- configuration checks -------------------------------------------------
out=$("$kd" -n -c "$src/config.example.json" 2>&1)
ok $? "config.example.json passes -n"
is "$out" "configuration OK" "-n prints configuration OK"

cat >"$tmp/bad.json" <<'JSON'
{
	"hosts": [
		{ "name": "a", "uri": "qemu:///system", "arch": "x86_64" },
		{ "name": "b", "uri": "http://example.org/", "arch": "x86_64" }
	]
}
JSON
out=$("$kd" -n -c "$tmp/bad.json" 2>&1)
is $? 2 "bad value: exit status 2"
is "$out" "$tmp/bad.json: hosts[1].uri: not a libvirt URI (e.g. qemu:///system, qemu+ssh://host/system)" \
	"bad value: one line naming hosts[1].uri"

echo '{"limits": {"workers": 2, "wokers": 3}}' >"$tmp/bad2.json"
out=$("$kd" -n -c "$tmp/bad2.json" 2>&1)
is $? 2 "unknown key: exit status 2"
is "$out" "$tmp/bad2.json: limits.wokers: unknown key" "unknown key named"

echo '{"limits": {"workers": "2"}}' >"$tmp/bad3.json"
out=$("$kd" -n -c "$tmp/bad3.json" 2>&1)
is "$? $out" "2 $tmp/bad3.json: limits.workers: expected an integer, not a string" \
	"wrong type named"

printf '{"state_dir": "/a",\n"state_dir": "/b"}' >"$tmp/bad4.json"
out=$("$kd" -n -c "$tmp/bad4.json" 2>&1)
is $? 2 "duplicate key: exit status 2"
case $out in *"line 2"*"duplicate object key"*) r=0 ;; *) r=1 ;; esac
ok $r "duplicate key reported with its line: $out"

echo '{ "state_dir": ' >"$tmp/bad5.json"
"$kd" -n -c "$tmp/bad5.json" >/dev/null 2>&1
is $? 2 "not JSON: exit status 2"
"$kd" -n -c "$tmp/missing.json" >/dev/null 2>&1
is $? 2 "missing file: exit status 2"
"$kd" -x >/dev/null 2>&1
is $? 2 "unknown option: exit status 2"

# --- a job that cannot succeed yet fails honestly -------------------------
# The daemon serves the API too: on a free port, not on the default 8080.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/config.json" <<JSON
{ "state_dir": "state", "limits": { "workers": 2 },
  "api": { "listen": "127.0.0.1:$port" } }
JSON
start
ok $? "daemon starts on a fresh state directory"
ok $([ -f "$db" ]; echo $?) "database created under state_dir"
grep -q "released 0 stale leases" "$tmp/log"
ok $? "start-up logs the stale leases it released"

s1=$(new_series one)
wait_q 10 "SELECT status FROM series WHERE id = $s1" failed
is "$(q "SELECT status || '|' || status_reason FROM series WHERE id = $s1")" \
	"failed|report: not implemented yet" "series failed with its reason"
is "$(q "SELECT state || '|' || last_error || '|' || attempts FROM job
	 WHERE series_id = $s1")" "failed|not implemented yet|1" \
	"job failed permanently with \"not implemented yet\""
grep -q "pipeline: job [0-9]*: report of series $s1 failed: not implemented yet" "$tmp/log"
ok $? "log line as module: subject: message"

# SIGHUP: reload, and a broken file is refused without stopping.
kill -HUP "$pid"
wait_for 5 grep -q "config: $tmp/config.json: reloaded" "$tmp/log"
ok $? "SIGHUP reloads the configuration"
cp "$tmp/config.json" "$tmp/config.good"
echo '{"limits": {"workers": 2}, "bogus": 1}' >"$tmp/config.json"
kill -HUP "$pid"
wait_for 5 grep -q "config: error: reload: $tmp/config.json: bogus: unknown key; keeping" "$tmp/log"
ok $? "a bad configuration on SIGHUP is refused"
ok $(kill -0 "$pid"; echo $?) "daemon still running"
cp "$tmp/config.good" "$tmp/config.json"
stop TERM
is $? 0 "SIGTERM: exit status 0"

# --- kill -9 while a job holds its lease ----------------------------------
start KREGRESS_TEST_STAGE_SLEEP=60
s2=$(new_series two)
wait_for 10 grep -q "job [0-9]*: test hook: sleeping" "$tmp/log"
ok $? "job claimed and sleeping in its stage"
is "$(q "SELECT state || '|' || attempts || '|' || (lease_owner IS NOT NULL)
	 FROM job WHERE series_id = $s2")" "running|1|1" "job leased"
is "$(q "SELECT status FROM series WHERE id = $s2")" reporting \
	"series is reporting"
stop 9
is "$(q "SELECT state FROM job WHERE series_id = $s2")" running \
	"after kill -9 the lease is still held by the dead daemon"

start
wait_q 10 "SELECT status FROM series WHERE id = $s2" failed
grep -q "released 1 stale lease," "$tmp/log"
ok $? "restart releases the dead daemon's lease"
is "$(q "SELECT state || '|' || attempts || '|' || last_error FROM job
	 WHERE series_id = $s2")" "failed|2|not implemented yet" \
	"the job ran again (attempt 2)"
is "$(q "SELECT status_reason FROM series WHERE id = $s2")" \
	"report: not implemented yet" "series reached its end"
is "$(q "SELECT count(*) FROM job WHERE series_id = $s2")" 1 \
	"no job duplicated"
is "$(q "SELECT count(*) || ' ' || (SELECT count(*) FROM job) FROM series")" \
	"2 2" "no series or job lost or duplicated"
stop TERM

# --- SIGTERM gives a held lease back --------------------------------------
start KREGRESS_TEST_STAGE_SLEEP=60
s3=$(new_series three)
wait_q 10 "SELECT state FROM job WHERE series_id = $s3" running
ok $? "job running"
t0=$(date +%s)
stop TERM
is $? 0 "SIGTERM during a job: exit status 0"
ok $(($(date +%s) - t0 < 5 ? 0 : 1)) "stopped promptly"
is "$(q "SELECT state || '|' || attempts || '|' || ifnull(lease_owner, '-')
	 FROM job WHERE series_id = $s3")" "queued|0|-" \
	"lease released, attempt not counted"
start
wait_q 10 "SELECT status FROM series WHERE id = $s3" failed
is "$(q "SELECT attempts FROM job WHERE series_id = $s3")" 1 \
	"job runs after the restart"
stop TERM

# --- heartbeats keep a job that outlives its lease ------------------------
start KREGRESS_TEST_LEASE_S=3 KREGRESS_TEST_STAGE_SLEEP=6
s4=$(new_series four)
wait_q 10 "SELECT state FROM job WHERE series_id = $s4" running
e1=$(q "SELECT lease_expires FROM job WHERE series_id = $s4")
sleep 3
e2=$(q "SELECT lease_expires FROM job WHERE series_id = $s4")
ok $([ "$e2" -gt "$e1" ]; echo $?) "heartbeat extended the lease ($e1 -> $e2)"
wait_q 15 "SELECT status FROM series WHERE id = $s4" failed
is "$(q "SELECT state || '|' || attempts FROM job WHERE series_id = $s4")" \
	"failed|1" "job ran once, past its 3 s lease, never re-claimed"
stop TERM

# --- a database from a newer kregress is refused --------------------------
q "PRAGMA user_version = 999"
"$kd" -c "$tmp/config.json" 2>"$tmp/newer.log"
is $? 1 "newer database: exit status 1"
grep -q "schema version 999 is newer than this binary" "$tmp/newer.log"
ok $? "newer database: clear message"

if [ $failed -ne 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$tmp/log"
fi
echo "1..$n"
