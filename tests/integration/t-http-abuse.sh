#!/bin/bash
# t-http-abuse.sh - the real kregressd's API against slow clients.
#
# A slowloris opens connections and sends one header line a second,
# never ending its headers; every byte restarts an idle timeout, so only
# a per-address limit and a deadline for the headers keep the API up.
# The daemon runs with small limits (32 connections, 8 per address,
# headers due in 6 s, idle timeout 120 s so that it cannot be what
# closes anything).  Loopback addresses 127.0.0.2... stand in for other
# clients (tests/fixtures/slow-client.py).
#  1. 20 slow connections from one address: 12 are refused at once, 8
#     held; GET /api/v1/health from 127.0.0.1 answers meanwhile; the 8
#     are cut off at the deadline, without an answer.
#  2. 32 slow connections from four addresses hold every slot: a health
#     check waits and is answered once the deadline frees them.
set -u
src=${KREGRESS_SRC:?}
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/daemon.sh"
PY=/usr/bin/python3
SLOW=$src/tests/fixtures/slow-client.py
slow=
at_exit '[ -z "$slow" ] || { kill "$slow"; wait "$slow"; }'

metric() {	# metric NAME: its value on /metrics
	curl -s --max-time 10 "$SRV/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

closed() {	# closed FILE: connections the server closed so far
	grep -c '^closed' "$1"
}

closed_at_least() {	# closed_at_least FILE N
	[ "$(closed "$1")" -ge "$2" ]
}

cat >"$daemon_config" <<JSON
{
	"state_dir": "$tmp/state",
	"api": { "listen": "127.0.0.1:0" },
	"limits": {
		"api_connections": 32,
		"api_connections_per_address": 8,
		"api_header_timeout_s": 6,
		"api_idle_timeout_s": 120
	}
}
JSON
daemon_start || bail_out "kregressd did not start"
port=$daemon_port

# --- 1. more slow clients than the per-address limit ----------------------
: >"$tmp/slow1"
$PY "$SLOW" --port "$port" --source 127.0.0.2 --count 20 --interval 1 \
	--max-seconds 60 >"$tmp/slow1" &
slow=$!
wait_for 30 closed_at_least "$tmp/slow1" 12
ok $? "20 slow connections from one address: 12 refused at once"
is "$(closed "$tmp/slow1")" 12 "... and 8 held"
code=$(curl -s -o "$tmp/health" -w '%{http_code}' --max-time 30 \
	"$SRV/api/v1/health")
is "$code" 200 "GET /api/v1/health from another address answers meanwhile"
is "$(closed "$tmp/slow1")" 12 "... while the 8 slow clients still trickle"
curl -s -o /dev/null --max-time 10 --interface 127.0.0.2 "$SRV/api/v1/health"
ok $((! $?)) "a ninth connection from their address is refused"
is "$(metric kregress_http_connections_refused_total)" 13 \
	"/metrics counts the 13 refused connections"

wait_for 60 grep -q '^done' "$tmp/slow1"
ok $? "the slow clients are cut off"
# Held until the deadline (to the millisecond the server counts in).
is "$(awk '$1 == "closed" && $3 >= 5.99 && $4 == 0' "$tmp/slow1" | wc -l)" 8 \
	"... the 8 held ones at the 6 s header deadline, without an answer"
is "$(metric kregress_http_header_timeouts_total)" 8 \
	"/metrics counts 8 header timeouts"
wait "$slow"
slow=

# --- 2. slow clients in every slot -----------------------------------------
: >"$tmp/slow2"
$PY "$SLOW" --port "$port" --source 127.0.0.2 --source 127.0.0.3 \
	--source 127.0.0.4 --source 127.0.0.5 --count 8 --interval 1 \
	--max-seconds 60 >"$tmp/slow2" &
slow=$!
wait_for 30 grep -q '^held 32' "$tmp/slow2"
ok $? "32 slow connections from four addresses hold every slot"
start=$(date +%s.%N)
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 \
	"$SRV/api/v1/health")
is "$code" 200 "a health check waits and is answered once the deadline frees them"
awk -v a="$start" -v b="$(date +%s.%N)" \
	'BEGIN { printf "# it waited %.1f s\n", b - a }'
wait_for 60 grep -q '^done' "$tmp/slow2"
ok $? "... and all 32 were cut off"
wait "$slow"
slow=

daemon_stop TERM
ok $? "kregressd ran on and stops cleanly on SIGTERM"
[ "$tap_failed" = 0 ] || sed 's/^/# /' "$daemon_log" >&2
done_testing
