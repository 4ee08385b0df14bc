#!/bin/bash
# t-watch.sh - the list watcher end to end: `kregress lists poll` reads a
# public-inbox Atom feed from a real HTTP server on loopback
# (tests/fixtures/fake-lore.py), fetches the threads of new patches
# through libcurl, and records series in a real SQLite database with their
# first pipeline job: filters, de-duplication, conditional requests (304),
# incomplete series, and bad feeds.
set -u

: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
KR=$KREGRESS_BUILD/kregress
FIX=$KREGRESS_SRC/tests/fixtures/mail
PY=/usr/bin/python3

run() {
	local name=$1
	shift
	"$KR" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
has() { grep -q -- "$2" "$tmp/$1.$3"; }

cp "$FIX/feed.atom" "$tmp/feed.atom"
lore_start --root "$FIX" --feed "$tmp/feed.atom" ||
	bail_out "the fake lore server did not start"

# config NAME FEED_URL SUBJECT_FILTERS PATH_FILTERS WAIT_S: a configuration
# in $tmp/NAME, whose database the next sql calls read
config() {
	mkdir -p "$tmp/$1"
	db=$tmp/$1/k.db
	cat >"$tmp/$1/config.json" <<EOF
{ "state_dir": "$tmp/$1", "database": "$tmp/$1/k.db",
  "lists": [ { "name": "lkml", "feed_url": "$2",
	"subject_filters": $3, "path_filters": $4,
	"poll_interval_s": 60, "incomplete_wait_s": $5 } ],
  "url_allowlist": ["$LORE/lkml/"] }
EOF
}

config mm "$LORE/lkml/new.atom" '["^mm"]' '["mm/*"]' 3600
run mm1 lists poll -c "$tmp/mm/config.json"
[ "$(rc mm1)" = 0 ] && has mm1 "queued: 1 " out && \
	has mm1 "entries: 7 " out
ok $? "first poll: 7 new entries, one series queued"

[ "$(sql "SELECT list, version, total, status FROM series")" = \
	"lkml|2|3|queued" ] && \
[ "$(sql "SELECT substr(msgid, 1, 6), base_commit IS NOT NULL FROM series")" = "cover.|1" ] && \
[ "$(sql "SELECT kind, state FROM job")" = "fetch|queued" ]
ok $? "the series row (v2, 3 patches, cover's Message-ID, base-commit) and its fetch job"

[ "$(grep -c "t.mbox.gz" "$lore_log")" = 1 ]
ok $? "the four entries of the series cost one thread fetch"

! grep -q "net-1" "$lore_log" && ! grep -q "dhcp22" "$lore_log"
ok $? "the net patch (subject filter) and the replies were not fetched"

run mm2 lists poll -c "$tmp/mm/config.json"
[ "$(rc mm2)" = 0 ] && has mm2 "queued: 0 " out && \
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] && \
	[ "$(sql "SELECT count(*) FROM job")" = 1 ]
ok $? "a new process polling again queues nothing twice (database de-dup)"

run mm3 lists poll -c "$tmp/mm/config.json" --rounds 3
[ "$(rc mm3)" = 0 ] && has mm3 "polled: 3 not-modified: 2 " out
ok $? "later polls send the ETag and get 304 Not Modified"

config net "$LORE/lkml/new.atom" '[]' '["net/*", "drivers/net/*"]' 3600
run net lists poll -c "$tmp/net/config.json"
[ "$(rc net)" = 0 ] && has net "queued: 1 " out && \
	[ "$(sql "SELECT msgid, total, status FROM series")" = \
		"net-1@example.org|1|queued" ]
ok $? "a list filtering net/ paths queues the net patch, not the mm series"

mkdir -p "$tmp/query"
cat >"$tmp/query/config.json" <<EOF
{ "state_dir": "$tmp/query", "database": "$tmp/query/k.db",
  "lists": [ { "name": "lkml-mm",
	"query_url": "$LORE/lkml/?q=dfn%3Amm%2F+s%3APATCH&x=A" } ],
  "url_allowlist": ["$LORE/lkml/"] }
EOF
run query lists poll -c "$tmp/query/config.json"
[ "$(rc query)" = 0 ] && has query "queued: 2 " out && \
	grep -q "^/lkml/?q=dfn%3Amm%2F+s%3APATCH&x=A$" "$lore_log"
ok $? "a list given as a search query (?q=...&x=A) is polled like a feed"

# (How soon it stops is tests/bench/stop-bench.sh's to print.)
config loop "$LORE/lkml/new.atom" '["^mm"]' '["mm/*"]' 3600
timeout 60 "$KR" lists watch -c "$tmp/loop/config.json" --for 3 \
	>"$tmp/loop.out" 2>"$tmp/loop.err"
echo $? >"$tmp/loop.rc"
[ "$(rc loop)" = 0 ] && has loop "^polled: 1 .*queued: 1 " out && \
	[ "$(sql "SELECT count(*) FROM job WHERE kind = 'fetch'")" = 1 ]
ok $? "lists watch --for 3: one poll in its 60 s interval, then it stops"

"$KR" lists watch -c "$tmp/loop/config.json" >"$tmp/term.out" \
	2>"$tmp/term.err" &
pid=$!
wait_for 30 grep -q "watching 1 list" "$tmp/term.err"
kill -TERM $pid
wait_pid 60 $pid
status=$?
[ $status = 0 ] && grep -q "queued: 0 " "$tmp/term.out"
ok $? "lists watch stops on SIGTERM (exit $status), nothing queued twice"

# a feed whose only series lacks its patch 2/3
$PY - "$tmp/feed2.atom" <<'EOF'
import sys
open(sys.argv[1], "w").write(
    '<?xml version="1.0" encoding="us-ascii"?>\n'
    '<feed xmlns="http://www.w3.org/2005/Atom">'
    '<entry><author><name>A</name><email>a@x</email></author>'
    '<title>[PATCH v2 1/3] mm: clear huge pages in forward order</title>'
    '<updated>2024-06-07T07:15:00Z</updated>'
    '<link href="@@BASE@@/lkml/missing/"/><id>urn:uuid:1</id></entry>'
    '</feed>\n')
EOF
cp "$tmp/feed2.atom" "$tmp/feed.atom"
config wait "$LORE/lkml/new.atom" '["^mm"]' '[]' 3600
run wait lists poll -c "$tmp/wait/config.json"
[ "$(rc wait)" = 0 ] && has wait "waiting: 1 " out && \
	[ "$(sql "SELECT count(*) FROM series")" = 0 ]
ok $? "an incomplete series waits for its missing patch"

config gone "$LORE/lkml/new.atom" '["^mm"]' '[]' 0
run gone lists poll -c "$tmp/gone/config.json"
[ "$(rc gone)" = 0 ] && has gone "incomplete: 1 " out && \
	[ "$(sql "SELECT status, status_reason FROM series")" = \
		"incomplete|incomplete after waiting: 2/3 missing" ] && \
	[ "$(sql "SELECT count(*) FROM job")" = 0 ]
ok $? "after its wait it is recorded incomplete, with no job"

# a thread whose missing patch arrives while the watcher waits
sed 's|/lkml/missing/|/lkml/grow-1/|' "$tmp/feed2.atom" >"$tmp/feed.atom"
config grow "$LORE/lkml/new.atom" '["^mm"]' '[]' 3600
run grow lists poll -c "$tmp/grow/config.json" --rounds 2
[ "$(rc grow)" = 0 ] && has grow "not-modified: 1 " out && \
	has grow "waiting: 1 " out && has grow "queued: 1 " out && \
	[ "$(grep -c "^/lkml/grow-1/t.mbox.gz" "$lore_log")" = 2 ] && \
	[ "$(sql "SELECT total, status FROM series")" = "3|queued" ]
ok $? "a waiting series is fetched again at the next poll and queued when complete"

printf 'this is <not xml' >"$tmp/feed.atom"
config bad "$LORE/lkml/new.atom" '[]' '[]' 0
run bad lists poll -c "$tmp/bad/config.json"
[ "$(rc bad)" = 1 ] && has bad "not well-formed XML" err && \
	has bad "errors: 1" out
ok $? "a feed that is not XML: counted error with the reason"

config nf "$LORE/lkml/nope/new.atom" '[]' '[]' 0
run nf lists poll -c "$tmp/nf/config.json"
[ "$(rc nf)" = 1 ] && has nf "HTTP 404" err
ok $? "a feed answering 404: error with the status"

before=$(wc -l <"$lore_log")
config out "$LORE/private/new.atom" '[]' '[]' 0
run out lists poll -c "$tmp/out/config.json"
[ "$(rc out)" = 1 ] && has out "refused: not in the URL allowlist" err && \
	[ "$(wc -l <"$lore_log")" = "$before" ]
ok $? "a feed outside the allowlist is refused without a request"

done_testing
