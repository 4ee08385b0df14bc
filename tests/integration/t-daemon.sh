#!/bin/bash
# t-daemon.sh - the real kregressd on a temporary state directory: config
# checking, a job running to its end and one failing honestly, kill -9 in
# the middle of a lease and
# the restart that recovers it, a fatal signal's stack in the log, SIGTERM
# giving a lease back, SIGHUP, and a database from the future.  Jobs and series are put in with the sqlite3
# CLI, as another process would.
set -u
build=${KREGRESS_BUILD:?}
src=${KREGRESS_SRC:?}
kd=$build/kregressd
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/daemon.sh"

# A series without results: its report job finds nothing to tell anyone
# and the series is done.  (KIND, default report, is the job's kind.)
new_series() {	# new_series NAME [KIND]: prints the id of a new series
	sql "INSERT INTO series (subject, created_at, updated_at)
	   VALUES ('[PATCH] mm: $1', strftime('%s'), strftime('%s'));
	   INSERT INTO job (kind, series_id, created_at, updated_at)
	   VALUES ('${2:-report}', last_insert_rowid(), strftime('%s'),
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

# --- a job runs to its end, a job that cannot run fails honestly ----------
# The daemon serves the API too: on a free port, not on the default 8080.
cat >"$tmp/config.json" <<JSON
{ "state_dir": "state", "limits": { "workers": 2 },
  "api": { "listen": "127.0.0.1:0" } }
JSON
daemon_start
ok $? "daemon starts on a fresh state directory"
ok $([ -f "$db" ]; echo $?) "database created under state_dir"
grep -q "released 0 stale leases" "$daemon_log"
ok $? "start-up logs the stale leases it released"

s1=$(new_series one)
wait_sql 10 "SELECT status FROM series WHERE id = $s1" done
is "$(sql "SELECT status || '|' || ifnull(status_reason, '') FROM series
	 WHERE id = $s1")" "done|" "the report job ran: series done"
is "$(sql "SELECT state || '|' || ifnull(last_error, '') || '|' || attempts
	 FROM job WHERE series_id = $s1")" "done||1" "job done at once"
grep -q "report: series $s1: nothing to report (reporting)" "$daemon_log" &&
	grep -q "pipeline: job [0-9]*: report of series $s1 done" "$daemon_log"
ok $? "log lines as module: subject: message"
s0=$(new_series zero frobnicate)
wait_sql 10 "SELECT status FROM series WHERE id = $s0" failed
is "$(sql "SELECT status || '|' || status_reason FROM series WHERE id = $s0")" \
	"failed|frobnicate: unknown job kind" \
	"an unknown job fails its series with the reason"
is "$(sql "SELECT state || '|' || last_error || '|' || attempts FROM job
	 WHERE series_id = $s0")" "failed|unknown job kind|1" \
	"the job failed permanently, not retried"

# SIGHUP: reload, and a broken file is refused without stopping.
kill -HUP "$daemon_pid"
wait_for 5 grep -q "config: $tmp/config.json: reloaded" "$daemon_log"
ok $? "SIGHUP reloads the configuration"
cp "$tmp/config.json" "$tmp/config.good"
echo '{"limits": {"workers": 2}, "bogus": 1}' >"$tmp/config.json"
kill -HUP "$daemon_pid"
wait_for 5 grep -q "config: error: reload: $tmp/config.json: bogus: unknown key; keeping" "$daemon_log"
ok $? "a bad configuration on SIGHUP is refused"
ok $(kill -0 "$daemon_pid"; echo $?) "daemon still running"
cp "$tmp/config.good" "$tmp/config.json"
daemon_stop TERM
is $? 0 "SIGTERM: exit status 0"

# --- kill -9 while a job holds its lease ----------------------------------
daemon_start KREGRESS_TEST_STAGE_SLEEP=60
s2=$(new_series two)
wait_for 10 grep -q "job [0-9]*: test hook: sleeping" "$daemon_log"
ok $? "job claimed and sleeping in its stage"
is "$(sql "SELECT state || '|' || attempts || '|' || (lease_owner IS NOT NULL)
	 FROM job WHERE series_id = $s2")" "running|1|1" "job leased"
is "$(sql "SELECT status FROM series WHERE id = $s2")" reporting \
	"series is reporting"
daemon_stop 9
is "$(sql "SELECT state FROM job WHERE series_id = $s2")" running \
	"after kill -9 the lease is still held by the dead daemon"

daemon_start
wait_sql 10 "SELECT status FROM series WHERE id = $s2" done
grep -q "released 1 stale lease," "$daemon_log"
ok $? "restart releases the dead daemon's lease"
is "$(sql "SELECT state || '|' || attempts || '|' || leases_lost FROM job
	 WHERE series_id = $s2")" "done|1|1" \
	"the job ran again, the attempt the kill cost not counted (lost lease 1)"
is "$(sql "SELECT status || '|' || ifnull(status_reason, '') FROM series
	 WHERE id = $s2")" \
	"done|" "series reached its end"
is "$(sql "SELECT count(*) FROM job WHERE series_id = $s2")" 1 \
	"no job duplicated"
is "$(sql "SELECT count(*) || ' ' || (SELECT count(*) FROM job) FROM series")" \
	"3 3" "no series or job lost or duplicated"
daemon_stop TERM

# --- a fatal signal: the stack in the log, then the default action --------
# (Under AddressSanitizer its own report takes the place of the daemon's,
# and its exit status is the test environment's 125: see crash.h.)
if grep -qa __asan_init "$kd"; then
	want_rc=125 head='ERROR: AddressSanitizer: SEGV'
	frame='^    #[0-9]+ 0x[0-9a-f]+ '
else
	want_rc=139 head='^kregressd: killed by SIGSEGV; the stack'
	frame='^[^ ]*kregressd\([^)]*\) ?\[0x[0-9a-f]+\]$'
fi
daemon_start
kill -SEGV "$daemon_pid"
{ wait "$daemon_pid"; rc=$?; } 2>/dev/null
daemon_pid=
is "$rc" "$want_rc" "SIGSEGV ends the daemon (exit status $want_rc)"
sed -n "/$head/,\$p" "$daemon_log" >"$tmp/crash"
grep -Eq "$frame" "$tmp/crash"
ok $? "its log names the signal and gives the stack, frame by frame"
sed -n '1,4s/^/#   /p' "$tmp/crash"

# --- SIGTERM gives a held lease back --------------------------------------
# The stage would sleep for an hour: exiting at all is not waiting for it
# (the time it takes is tests/bench/stop-bench.sh's to print).
daemon_start KREGRESS_TEST_STAGE_SLEEP=3600
s3=$(new_series three)
wait_sql 10 "SELECT state FROM job WHERE series_id = $s3" running
ok $? "job running"
daemon_term 60
is $? 0 "SIGTERM during a job: exit status 0, without waiting for the stage"
is "$(sql "SELECT state || '|' || attempts || '|' || ifnull(lease_owner, '-')
	 FROM job WHERE series_id = $s3")" "queued|0|-" \
	"lease released, attempt not counted"
daemon_start
wait_sql 10 "SELECT status FROM series WHERE id = $s3" done
is "$(sql "SELECT attempts FROM job WHERE series_id = $s3")" 1 \
	"job runs after the restart"
daemon_stop TERM

# --- heartbeats keep a job that outlives its lease ------------------------
daemon_start KREGRESS_TEST_LEASE_S=3 KREGRESS_TEST_STAGE_SLEEP=6
s4=$(new_series four)
wait_sql 10 "SELECT state FROM job WHERE series_id = $s4" running
e1=$(sql "SELECT lease_expires FROM job WHERE series_id = $s4")
extended() {
	e2=$(sql "SELECT lease_expires FROM job WHERE series_id = $s4")
	[ "${e2:-0}" -gt "$e1" ]
}
wait_for 10 extended
ok $? "heartbeat extended the lease ($e1 -> $e2)"
wait_sql 15 "SELECT status FROM series WHERE id = $s4" done
is "$(sql "SELECT state || '|' || attempts FROM job WHERE series_id = $s4")" \
	"done|1" "job ran once, past its 3 s lease, never re-claimed"
daemon_stop TERM

# --- a database from a newer kregress is refused --------------------------
sql "PRAGMA user_version = 999"
"$kd" -c "$tmp/config.json" 2>"$tmp/newer.log"
is $? 1 "newer database: exit status 1"
grep -q "schema version 999 is newer than this binary" "$tmp/newer.log"
ok $? "newer database: clear message"

if [ $tap_failed -ne 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$daemon_log"
fi
done_testing
