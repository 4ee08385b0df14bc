#!/bin/bash
# t-watch-restart.sh - an incomplete series the list watcher waits on
# survives a restart of kregressd (issue 16, item 5): it is a row of the
# database, not a note in memory.  Two threads are seen incomplete by the
# first daemon; the feed then moves on (it lists neither any more) while
# the daemon is down.  The second daemon still looks at both: the one
# whose missing patch came is queued, the other keeps waiting with the
# time it was first seen.  A third start, once that wait is over (moved
# back two hours in the database while no daemon runs), gives it up as
# incomplete at once: the wait was not started again by the restarts.
set -u

B=${KREGRESS_BUILD:?}
. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
FIX=$KREGRESS_SRC/tests/fixtures/mail

# feed FILE THREAD...: an Atom feed whose entries are patch 1/3 of each
# thread (the fake lore serves /lkml/THREAD/t.mbox.gz)
feed() {
	local out=$1 t
	shift
	{
		echo '<?xml version="1.0" encoding="us-ascii"?>'
		echo '<feed xmlns="http://www.w3.org/2005/Atom">'
		for t in "$@"; do
			echo "<entry><author><name>A</name><email>a@x</email></author>"
			echo "<title>[PATCH v2 1/3] mm: clear huge pages in forward order</title>"
			echo "<updated>2024-06-07T07:15:00Z</updated>"
			echo "<link href=\"@@BASE@@/lkml/$t/\"/><id>urn:uuid:$t</id></entry>"
		done
		echo '</feed>'
	} >"$out.tmp" && mv "$out.tmp" "$out"
}

# grow-r is missing 2/3 at its first fetch and complete afterwards;
# seed-002, another series, is a [PATCH v4 5/5] whose 1-4 never come
feed "$tmp/feed.atom" grow-r seed-002
lore_start --root "$FIX" --feed "$tmp/feed.atom" ||
	bail_out "the fake lore server did not start"
mkdir -p "$tmp/state"
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"database": "$db",
	"api": { "listen": "127.0.0.1:0" },
	"lists": [ { "name": "lkml", "feed_url": "$LORE/lkml/new.atom",
		     "poll_interval_s": 3600, "incomplete_wait_s": 3600 } ],
	"url_allowlist": [ "$LORE/lkml/" ]
}
CFG

daemon_start || bail_out "kregressd did not start"
wait_sql 30 "SELECT group_concat(thread, ' ') FROM (SELECT thread FROM watch_pending ORDER BY thread)" \
	"grow-r seed-002"
ok $? "the first daemon waits on both incomplete threads, in the database"
is "$(sql "SELECT count(*) FROM series")" 0 "and queues neither"
seen=$(sql "SELECT first_seen FROM watch_pending WHERE thread = 'seed-002'")
daemon_stop TERM
is $? 0 "the first daemon stops"

feed "$tmp/feed.atom"	# the feed moves on: neither thread is in it
daemon_start || bail_out "kregressd did not restart"
wait_sql 30 "SELECT count(*) FROM series WHERE source_url = '$LORE/lkml/grow-r/'" 1
ok $? "the second daemon queues grow-r, complete now, from its stored wait"
wait_sql 30 "SELECT group_concat(thread) FROM watch_pending" seed-002
ok $? "and keeps waiting on the other, which the feed no longer lists"
is "$(sql "SELECT first_seen FROM watch_pending WHERE thread = 'seed-002'")" \
	"$seen" "with the time the first daemon saw it: the wait goes on"
is "$(grep -c "^/lkml/seed-002/t.mbox.gz" "$lore_log")" 2 \
	"it was fetched again after the restart"
daemon_stop TERM

# the wait ends while no daemon runs
sql "UPDATE watch_pending SET first_seen = first_seen - 7200"
daemon_start || bail_out "kregressd did not start a third time"
wait_sql 30 "SELECT status || '|' || status_reason FROM series WHERE source_url = '$LORE/lkml/seed-002/'" \
	"incomplete|incomplete after waiting: 1/5 2/5 3/5 4/5 missing"
ok $? "after its wait, counted from the first sighting, it is recorded incomplete"
is "$(sql "SELECT count(*) FROM watch_pending")" 0 "and waits no more"
is "$(sql "SELECT count(*) FROM job WHERE series_id = (SELECT id FROM series WHERE source_url = '$LORE/lkml/seed-002/')")" \
	0 "with no job"
daemon_stop TERM

done_testing
