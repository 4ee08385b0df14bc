#!/bin/bash
# t-report.sh - the report stage in the real kregressd, against a real SMTP
# server on loopback (tests/fixtures/smtp-server.py, Debian's aiosmtpd)
# and a loopback patchwork (tests/fixtures/fake-lore.py): who gets which
# mail under policy "list", the headers and threading of what arrives, 78
# columns, moderation and `kregress report release`, each kind's first
# line, patchwork checks (token, states, order, never pending after a
# final state), SMTP down for a while, kill -9 while sending and after
# the message was handed over (exactly once), a refused mail, the outbox
# and an outbox that cannot be written (the reason names the cause).
#
# Series are written into the database as the earlier stages leave them
# (tests/fixtures/report-db.py), with a report job queued.
set -u
S=${KREGRESS_SRC:?}
B=${KREGRESS_BUILD:?}
PY=/usr/bin/python3
. "$S/tests/lib/tap.sh"
. "$S/tests/lib/daemon.sh"

$PY -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "python3-aiosmtpd is not installed (make deps)"

export KREGRESS_TOKEN=report-test-token-0123456789
is_q() { [ "$(sql "$1")" = "$2" ]; }
spooled() { ls "$tmp/spool" | grep -c '\.eml$'; }

# The SMTP server keeps one port, so that it can be stopped and started
# again under the daemon's smtp_url.
SPORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
smtp=
start_smtp() {	# start_smtp [OPTIONS]: on $SPORT, spool $tmp/spool
	rm -f "$tmp/smtp.port"
	$PY "$S/tests/fixtures/smtp-server.py" --spool "$tmp/spool" \
		--port "$SPORT" --port-file "$tmp/smtp.port" "$@" &
	smtp=$!
	wait_for 10 test -s "$tmp/smtp.port"
}
stop_smtp() { kill "$smtp"; wait "$smtp" 2>/dev/null; smtp=; }
at_exit '[ -z "$smtp" ] || stop_smtp'

lore_start --root "$S/tests/fixtures/mail" --checks-log "$tmp/checks.log" \
	--pw-token pw-token-0123456789 --pw-fail 1

config() {	# config POLICY [OUTBOX_DIR]: the daemon's configuration
	local outbox=
	[ $# -lt 2 ] || outbox="\"outbox_dir\": \"$2\","
	cat >"$tmp/config.json" <<JSON
{
	"state_dir": "$tmp/state",
	"api": { "listen": "127.0.0.1:0",
		 "tokens": [ { "name": "t", "value": "$KREGRESS_TOKEN" } ] },
	"lists": [ { "name": "linux-mm", "feed_url": "$LORE/nope/new.atom",
		     "poll_interval_s": 86400 } ],
	"mail": {
		"smtp_url": "smtp://127.0.0.1:$SPORT",
		"from": "kregress <bot@kregress.test>",
		"policy": "$1", $outbox
		"moderation_address": "moderators@kregress.test",
		"opt_in_lists": [ "linux-mm" ],
		"dashboard_url": "http://kregress.test/",
		"patchwork": [ { "url": "$LORE/",
				 "token": "pw-token-0123456789" } ]
	}
}
JSON
}
start() { daemon_start KREGRESS_TEST_BACKOFF_S=1 "$@"; }
series() { $PY "$S/tests/fixtures/report-db.py" "$db" "$@" --queue; }
status() { sql "SELECT status FROM series WHERE id = $1"; }
reported() { is_q "SELECT count(*) FROM job WHERE series_id = $1 AND
	kind = 'report' AND state IN ('queued', 'running')" 0; }
kr() { "$B/kregress" "$@" --server "$SRV" >"$tmp/out" 2>"$tmp/err"; }
# the message in spool file $1 whose header $2 is
header() { $PY - "$1" "$2" <<'PYEOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                   policy=email.policy.default)
print(m[sys.argv[2]] or "")
PYEOF
}
body() { $PY - "$1" <<'PYEOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                   policy=email.policy.default)
print(m.get_content(), end="")
PYEOF
}
# the widest line of file $1, CR of CRLF not counted
widest() {
	awk '{ sub(/\r$/, ""); if (length($0) > m) m = length($0) }
	     END { print m }' "$1"
}

config list
start_smtp
start
ok $? "kregressd starts with policy list, an SMTP server and patchwork"

# --- a regression on an opted-in list from patchwork: held, moderated -----
r1=$(series regression --source "$LORE/api/series/42/")
wait_for 20 reported "$r1"
is "$(status "$r1")" done "the regression's series is done (its report is held)"
is "$(sql "SELECT kind || ' ' || role || ' ' || status FROM notification
	WHERE series_id = $r1 ORDER BY id")" "regression public held
regression moderation sent" "two rows: the report, held, and its moderation copy, sent"
is "$(spooled)" 1 "one mail arrived: the moderation copy"
is "$(cat "$tmp/spool/1.env")" "MAIL FROM bot@kregress.test
RCPT TO moderators@kregress.test" "to the moderation address only"
held=$(sql "SELECT id FROM notification WHERE series_id = $r1 AND status = 'held'")
grep -q "kregress report release $held" "$tmp/spool/1.eml"
ok $? "the copy says how to release it (notification $held)"
case $(header "$tmp/spool/1.eml" Message-ID) in
"<kregress.regression.v1."*".moderation@kregress.test>") r=0 ;; *) r=1 ;; esac
ok $r "the copy's Message-ID is its own"

kr status "$r1"
grep -q "^  mail $held: *regression to Patch Author <author@example.org>, linux-mm@kvack.org, Reviewer One <reviewer@example.org> (smtp): held, 0 attempts$" "$tmp/out" &&
	grep -q "release it with: kregress report release $held" "$tmp/out"
ok $? "kregress status shows the held report and how to release it"
"$B/kregress" report release --server "$SRV" --token wrong-token-0123456789 \
	"$held" >/dev/null 2>"$tmp/err"
is $? 1 "release with a bad token: refused"
kr report release 9999
is $? 1 "releasing an unknown notification: refused"
grep -q "no notification 9999" "$tmp/err"
ok $? "... naming it"
kr report release "$held"
ok $? "kregress report release $held"
grep -q "notification $held of series $r1 released" "$tmp/out"
ok $? "... says what it released"
wait_for 20 is_q "SELECT status FROM notification WHERE id = $held" sent
ok $? "the released report is sent"
wait_for 20 reported "$r1"
is "$(spooled)" 2 "a second mail arrived: the report itself"
m=$tmp/spool/2.eml
is "$(sort "$tmp/spool/2.env")" "MAIL FROM bot@kregress.test
RCPT TO author@example.org
RCPT TO linux-mm@kvack.org
RCPT TO reviewer@example.org" "to the author and the thread's To and Cc"
is "$(header "$m" Subject)" \
	"[kregress regression] Re: [PATCH 0/2] mm/mremap: move PUDs the slow way" \
	"Subject: the kind, Re: and the series' subject"
cover=$(sql "SELECT msgid FROM series WHERE id = $r1")
is "$(header "$m" In-Reply-To) $(header "$m" References)" "<$cover> <$cover>" \
	"In-Reply-To and References: the cover letter"
case $(header "$m" Message-ID) in
"<kregress.regression.v1."[0-9a-f]*"@kregress.test>") r=0 ;; *) r=1 ;; esac
ok $r "Message-ID derived from kind and version ($(header "$m" Message-ID))"
is "$(header "$m" Message-ID)" "<$(sql "SELECT message_id FROM notification WHERE id = $held")>" \
	"the one the row recorded before sending"
is "$(header "$m" To) | $(header "$m" Cc)" \
	"Patch Author <author@example.org> | linux-mm@kvack.org, Reviewer One <reviewer@example.org>" \
	"To the author, Cc the thread"
grep -q $'^Content-Type: text/plain; charset=utf-8\r$' "$m"
ok $? "plain text, UTF-8"
test -n "$(header "$m" Date)"
ok $? "a Date"
is "$(widest "$m")" "$(($(widest "$m") <= 78 ? $(widest "$m") : 0))" \
	"no line over 78 columns ($(widest "$m"))"
body "$m" >"$tmp/body"
is "$(head -1 "$tmp/body")" \
	"Regression: mremap/move_pud +812.5% on x86_64, host local, and 1 more" \
	"the first line: metric, change, arch and host"
grep -q '^      16.9    154.212   +812.5%  \[+790.1%, +830.4%\]    0.00016  0.0031   8/8$' "$tmp/body"
ok $? "the table's row for the regression"
grep -q '^  Reported-by: kregress <bot@kregress.test>$' "$tmp/body" &&
	grep -q "^  Closes: http://kregress.test/series/$r1$" "$tmp/body"
ok $? "Reported-by and Closes to paste"
kr report release "$held"
is $? 1 "releasing it again: refused"
grep -q "is sent, not held" "$tmp/err"
ok $? "... saying it is sent"

# patchwork: a check per patch and arch, with the token, after a retry
$PY - "$tmp/checks.log" "$r1" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows[1:]]          # the first POST got a 503
assert all(r["auth"] == "Token pw-token-0123456789" for r in rows), rows
got = sorted((r["patch"], r["check"]["context"], r["check"]["state"])
             for r in ok)
assert got == sorted([(p, c, s) for p in (4201, 4202, 4203)
                      for c, s in (("kregress-x86_64", "fail"),
                                   ("kregress-arm64", "fail"))]), got
assert all(r["check"]["target_url"] == "http://kregress.test/series/%s"
           % sys.argv[2] for r in ok)
assert "regression: x86_64 mremap/move_pud" in ok[0]["check"]["description"]
PYEOF
ok $? "patchwork: fail on both arches for the 3 patches, with the token and the series' page, retried after a 503"
is "$(sql "SELECT count(*) FROM patchwork_check WHERE series_id = $r1 AND
	posted = state")" 6 "every check posted"

# --- pending when a run starts, and never pending after a final state ------
p1=$($PY "$S/tests/fixtures/report-db.py" "$db" no-change \
	--source "$LORE/api/series/42/")
sql "UPDATE series SET status = 'built' WHERE id = $p1; INSERT INTO job
	(kind, series_id, arch, created_at, updated_at) VALUES ('run', $p1,
	'x86_64', 0, 0)"
wait_for 20 is_q "SELECT count(*) FROM job WHERE series_id = $p1 AND
	state IN ('done', 'failed')" 2
is "$(status "$p1")" failed "the run without kernels fails the series"
$PY - "$tmp/checks.log" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][7:]
states = [(r["check"]["context"], r["check"]["state"]) for r in rows]
assert states[:3] == [("kregress-x86_64", "pending")] * 3, states
assert states[3:] == [("kregress-x86_64", "warning")] * 3, states
assert rows[3]["check"]["description"].startswith("not tested: run: x86_64:"), rows[3]
PYEOF
ok $? "patchwork: pending when the run started, then warning: not tested, with the reason"
is "$(sql "SELECT count(*) FROM notification WHERE series_id = $p1")" 0 \
	"an infrastructure failure mails nobody"
before=$(wc -l <"$tmp/checks.log")
sql "INSERT INTO job (kind, series_id, arch, created_at, updated_at)
	VALUES ('run', $p1, 'x86_64', 0, 0)"
wait_for 20 is_q "SELECT count(*) FROM job WHERE series_id = $p1 AND
	state IN ('done', 'failed')" 3
is "$(wc -l <"$tmp/checks.log")" "$before" "a run starting again posts no pending over a final state"

# --- clean results go to the author only; each kind's first line ----------
for kind in no-change inconclusive does-not-apply build-failed boot-failed; do
	s=$(series "$kind")
	wait_for 20 reported "$s"
	f=$tmp/spool/$(spooled).eml
	subj=$(header "$f" Subject)
	body "$f" >"$tmp/body"
	echo "# $kind: $(head -1 "$tmp/body")"
	case $kind in
	no-change) want="No significant change: 4 primary metrics decided, none moved" ;;
	inconclusive) want="Inconclusive: 2 primary metrics need more boots" ;;
	does-not-apply) want="Does not apply: patch 2/2 to linux-6.1 at ebbea9e8ee20" ;;
	build-failed) want="Build failed: x86_64: patched: mm/mremap.c:312:9: error: expected ';' before" ;;
	boot-failed) want="Boot failed: x86_64: the patched kernel did not boot to a complete result:" ;;
	esac
	test "$subj" = "[kregress $kind] Re: [PATCH 0/2] mm/mremap: move PUDs the slow way" &&
		test "$(head -1 "$tmp/body")" = "$want" &&
		test "$(sed 's/^RCPT TO //;t;d' "${f%.eml}.env")" = author@example.org &&
		test "$(widest "$f")" -le 78
	ok $? "$kind: its subject and first line, to the author only, 78 columns"
	is "$(sql "SELECT status || ' ' || (SELECT status FROM notification WHERE
		series_id = $s) FROM series WHERE id = $s")" \
		"$([ "${kind#*-}" = failed -o "$kind" = does-not-apply ] && echo "$kind" || echo done) sent" \
		"$kind: the series' status, the mail sent"
done
grep -q 'kregress submit SERIES.mbox' "$tmp/body" &&
	grep -q "^  Reported-by: kregress <bot@kregress.test>$" "$tmp/body" &&
	grep -q "Kernel panic - not syncing: kregress test: this patch panics" "$tmp/body"
ok $? "boot-failed: the panic line, the tags, a reproduce command"

# --- v2 says what changed since v1 -------------------------------------------
v1=$(series regression --change-id cid-1 --list other)
wait_for 20 reported "$v1"
v2=$(series no-change --change-id cid-1 --version 2 --list other)
wait_for 20 reported "$v2"
is "$(sql "SELECT recipients FROM notification WHERE series_id = $v1")" \
	moderators@kregress.test "a regression on a list not opted in goes to moderation"
f=$tmp/spool/$(spooled).eml
body "$f" >"$tmp/body"
grep -q "^Since v1 (series $v1):$" "$tmp/body" &&
	grep -q '^  x86_64 mremap/move_pud: regression +812.5% -> no-change +0.1%$' "$tmp/body"
ok $? "v2's report says what changed since v1's"
test "$(header "$f" Message-ID)" != "$(header "$tmp/spool/$(($(spooled) - 1)).eml" Message-ID)"
ok $? "and has its own Message-ID"

# --- SMTP down for a while: delivered once, later -------------------------------
stop_smtp
d1=$(series no-change)
wait_for 20 is_q "SELECT attempts > 0 AND status = 'pending' FROM notification
	WHERE series_id = $d1" 1
ok $? "SMTP down: the mail waits, pending"
case $(sql "SELECT status_reason FROM notification WHERE series_id = $d1") in
*"smtp://127.0.0.1:$SPORT"*) r=0 ;; *) r=1 ;; esac
ok $r "with the reason: $(sql "SELECT status_reason FROM notification WHERE series_id = $d1")"
case $(sql "SELECT status || '|' || status_reason FROM series WHERE id = $d1") in
"reporting|report: attempt "*" of 30 failed, retrying: 1 of 1 notifications not delivered yet"*) r=0 ;;
*) r=1 ;; esac
ok $r "the series is reporting, retrying ($(sql "SELECT status_reason FROM series WHERE id = $d1"))"
n0=$(spooled)
start_smtp
wait_for 30 reported "$d1"
is "$(status "$d1")" done "SMTP back: the series is done"
is "$(($(spooled) - n0))" 1 "the mail arrived once"
ok $([ "$(sql "SELECT attempts FROM notification WHERE series_id = $d1")" -ge 2 ]; echo $?) \
	"after $(sql "SELECT attempts FROM notification WHERE series_id = $d1") attempts"

# --- kill -9 while sending, before the message was handed over ------------
stop_smtp
start_smtp --stall rcpt --stall-file "$tmp/stalled"
k1=$(series no-change)
wait_for 20 test -s "$tmp/stalled"
ok $? "the server holds the mail at RCPT TO"
is "$(sql "SELECT status FROM notification WHERE series_id = $k1")" sending \
	"the row says sending"
daemon_stop 9
stop_smtp
n0=$(spooled)
start_smtp
start
wait_for 30 reported "$k1"
is "$(status "$k1")" done "after the restart the series is done"
is "$(($(spooled) - n0))" 1 "the mail arrived exactly once"
is "$(sql "SELECT status || ' ' || attempts FROM notification WHERE series_id = $k1")" \
	"sent 2" "sent, on the second attempt"

# --- kill -9 after the whole message was handed over -------------------------
stop_smtp
rm -f "$tmp/stalled"
n0=$(spooled)
start_smtp --stall eod --stall-file "$tmp/stalled"
k2=$(series no-change)
wait_for 20 test -s "$tmp/stalled"
ok $? "the server has the mail and holds back its answer"
is "$(sql "SELECT status FROM notification WHERE series_id = $k2")" handed \
	"the row says handed"
daemon_stop 9
stop_smtp
start_smtp
start
wait_for 30 reported "$k2"
is "$(($(spooled) - n0))" 1 "the mail is there once: not sent again"
case $(sql "SELECT status || '|' || status_reason FROM notification WHERE series_id = $k2") in
"sent|not confirmed: "*) r=0 ;; *) r=1 ;; esac
ok $r "the row is sent, not confirmed"

# --- a refused mail fails the series ---------------------------------------------
stop_smtp
start_smtp --refuse author@example.org
f1=$(series no-change)
wait_for 20 reported "$f1"
case $(sql "SELECT status || '|' || status_reason FROM series WHERE id = $f1") in
"failed|report: notification "*" refused: "*550*) r=0 ;; *) r=1 ;; esac
ok $r "a 550 fails the mail and the series: $(sql "SELECT status_reason FROM series WHERE id = $f1")"
is "$(sql "SELECT status FROM notification WHERE series_id = $f1")" failed \
	"the row is failed"

# --- the outbox ----------------------------------------------------------------------
daemon_stop TERM
config outbox
start
n0=$(spooled)
o1=$(series regression)
wait_for 20 reported "$o1"
path=$(sql "SELECT path FROM notification WHERE series_id = $o1")
is "$(sql "SELECT status || ' ' || transport FROM notification WHERE series_id = $o1")" \
	"written outbox" "policy outbox: the report is written, not sent"
test -f "$path" && case $path in "$tmp/state/outbox/$o1-"*"-regression.eml") true ;; *) false ;; esac
ok $? "as an .eml file in the outbox ($path)"
grep -q '^Subject: \[kregress regression\] Re: \[PATCH 0/2\]' "$path"
ok $? "the file is the whole message"
is "$(spooled)" "$n0" "nothing went to the SMTP server"
is "$(status "$o1")" done "the series is done"
"$B/kregress" report show -c "$tmp/config.json" "$o1" >"$tmp/show" 2>"$tmp/err"
ok $? "kregress report show $o1"
grep -q '^Subject: \[kregress regression\]' "$tmp/show" && grep -q '^From kregress@localhost ' "$tmp/show"
ok $? "... prints the mail as an mbox"
kr status --json "$o1"
$PY -c 'import json, sys
n = json.load(open(sys.argv[1]))["notifications"]
assert [(x["kind"], x["transport"], x["status"]) for x in n] == [("regression", "outbox", "written")], n
assert n[0]["bytes"] > 1000 and n[0]["path"].endswith(".eml"), n' "$tmp/out"
ok $? "the API shows the notification and its state"

# --- an outbox that cannot be written: the reason says why -------------------------
# A file where the directory should be (permission bits stop no root).
daemon_stop TERM
: >"$tmp/not-a-dir"
config outbox "$tmp/not-a-dir/outbox"
start
u1=$(series regression)
wait_for 20 is_q "SELECT attempts > 0 AND status = 'pending' FROM notification
	WHERE series_id = $u1" 1
ok $? "an outbox under a regular file: the report waits, pending"
is "$(sql "SELECT status_reason FROM notification WHERE series_id = $u1")" \
	"outbox: mkdir $tmp/not-a-dir/outbox: Not a directory" \
	"the row's reason names the call, the path and the cause"
why="notification $(sql "SELECT id FROM notification WHERE series_id = $u1"): outbox: mkdir $tmp/not-a-dir/outbox: Not a directory"
wait_for 20 is_q "SELECT instr(status_reason, '$why') > 0 FROM series WHERE id = $u1" 1
ok $? "and so does the series': $(sql "SELECT status_reason FROM series WHERE id = $u1")"
is "$(status "$u1")" reporting "the series is reporting, retrying"

[ "$tap_failed" = 0 ] || { echo "# daemon log:"; tail -80 "$daemon_log" | sed 's/^/#   /'; }
done_testing
