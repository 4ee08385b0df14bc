#!/bin/bash
# t-cli-trust.sh - the API commands against a server that answers what
# kregressd never would (tests/fixtures/fake-api.py on loopback): answers
# that are not what was asked for fail the command, saying so, and the
# text of an answer reaches the terminal escaped, whatever it holds (a
# Subject with ESC, CR, LF, C1 or bidi controls).  Issue 15, items 2
# and 9.
set -u

: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
. "$KREGRESS_SRC/tests/lib/tap.sh"
KR=$KREGRESS_BUILD/kregress
PY=/usr/bin/python3
export KREGRESS_TOKEN=trust-token-0123456789
unset KREGRESS_SERVER

# run NAME ARGS...: kregress ARGS, stdout/stderr/status in $tmp/NAME.*
run() {
	local name=$1
	shift
	"$KR" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
err() { cat "$tmp/$1.err"; }

# The answers; the series' texts are what a hostile mail can put there.
$PY - "$tmp/answers.json" <<'EOF'
import json, sys
evil = {
    "subject": "\x1b[2J\x1b[Hseries 9: done \u202eevil",
    "author": "Evil \x9b31mRed <e@x>",
    "status_reason": "apply: x\r\nseries 9: done",
}
series = dict(evil, id=9, status="does-not-apply", version=1, total=1,
              source_url="https://lore.example/x/\x07",
              created_at=1, updated_at=2,
              patches=[{"idx": 1, "subject": "p\x1b]0;title\x07"}],
              jobs=[{"id": 1, "kind": "apply", "state": "failed",
                     "attempts": 1, "max_attempts": 5,
                     "last_error": "bad\nline"}],
              builds=[], runs=[], boots=[],
              comparisons=[{"workload": "w\x1b[1m", "metric": "m",
                            "params": {"k\x1b": "v\x1b"},
                            "verdict": "no-change", "unit": "ns"}])
answers = {
    "POST /api/v1/series": [202, {"id": "x", "status": 5}],
    "GET /api/v1/series/9": [200, series],
    "GET /api/v1/series/3": [200, {"id": 4, "status": "done"}],
    "GET /api/v1/series/5": [200, "<html>not json</html>"],
    "GET /api/v1/series/6": [200, {"id": 6}],
    "GET /api/v1/series/7": [500, {"error": {"code": "x",
                                             "message": "no\x1b[2J"}}],
    "GET /api/v1/series": [200, {"items": {"id": 1}}],
    "GET /api/v1/series?before=100": [200, {"items": [{"status": "x"}]}],
    "GET /api/v1/series?before=200": [200, {"items": [evil | {"id": 9,
                                                     "status": "done"}]}],
}
json.dump(answers, open(sys.argv[1], "w"))
EOF
$PY "$KREGRESS_SRC/tests/fixtures/fake-api.py" --answers "$tmp/answers.json" \
	--port-file "$tmp/api.port" &
api_pid=$!
at_exit 'kill $api_pid; wait $api_pid 2>/dev/null'
wait_for 30 test -s "$tmp/api.port" || bail_out "fake-api.py did not start"
API=http://127.0.0.1:$(cat "$tmp/api.port")

# answer_submit BODY: what POST /api/v1/series answers from now on
answer_submit() {
	$PY - "$tmp/answers.json" "$1" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
a["POST /api/v1/series"] = [202, json.loads(sys.argv[2])]
json.dump(a, open(sys.argv[1], "w"))
EOF
}

# safe FILE: no control character (but LF), no C1 or bidi control, no
# malformed UTF-8 in FILE
safe() {
	$PY - "$1" <<'EOF'
import re, sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")          # raises on malformed UTF-8
bad = re.findall("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                 "\u202a-\u202e\u2066-\u2069]", t)
sys.exit(1 if bad else 0)
EOF
}

# --- item 9: what the CLI reads is checked -----------------------------------
run sub1 submit --server "$API" https://lore.example/x/1/
is "$(rc sub1)" 1 'submit: {"id":"x","status":5} is a failure (exit 1)'
is "$(cat "$tmp/sub1.out")" "" "submit: nothing printed as submitted"
like "$(err sub1)" "POST /api/v1/series: the answer names no series id" \
	"submit: stderr says what is wrong with the answer"
run sub1j submit --json --server "$API" https://lore.example/x/1/
is "$(rc sub1j)" 1 "submit --json: the same answer fails too"

answer_submit '{"id": 12, "status": "queued"}'
run sub2 submit --server "$API" https://lore.example/x/1/
is "$(rc sub2)|$(cat "$tmp/sub2.out")" \
	"0|submitted series 12 (queued); follow it with: kregress watch 12" \
	"submit: a proper answer is a submission"
answer_submit '{"id": 0, "status": "queued"}'
run sub3 submit --server "$API" https://lore.example/x/1/
is "$(rc sub3)" 1 "submit: series id 0 is no series"

run s3 status --server "$API" 3
is "$(rc s3)" 1 "status 3: an answer about series 4 fails"
like "$(err s3)" "/api/v1/series/3: the answer is not series 3" \
	"status 3: and says so"
run s5 status --server "$API" 5
is "$(rc s5)" 1 "status 5: an answer that is not JSON fails"
like "$(err s5)" "the answer is not JSON" "status 5: and says so"
run s5j status --json --server "$API" 5
is "$(rc s5j)|$(cat "$tmp/s5j.out")" "1|" \
	"status --json 5: fails, and prints nothing that is not JSON"
run s6 status --server "$API" 6
is "$(rc s6)" 1 "status 6: a series without a status fails"
like "$(err s6)" "series 6 in the answer has no status" "status 6: says so"
run w3 watch --server "$API" 3
is "$(rc w3)" 1 "watch 3: an answer about another series fails"
run r3 results --server "$API" 3
is "$(rc r3)" 1 "results 3: an answer about another series fails"
run list status --server "$API"
is "$(rc list)" 1 "status: a list whose items are no array fails"
like "$(err list)" 'the answer has no list of series ("items")' \
	"status: says so"
run list2 status --server "$API" --before 100
is "$(rc list2)" 1 "status: a listed series without an id fails"

run empty status --server '' 9
is "$(rc empty)" 2 "--server '': a usage error (exit 2), no default used"
like "$(err empty)" "kregress: error: --server is empty" \
	"--server '': says so"
KREGRESS_SERVER=$API run empty2 status --server '' 9
is "$(rc empty2)" 2 "--server '' is refused even when \$KREGRESS_SERVER is set"
run ftp status --server ftp://127.0.0.1/ 9
is "$(rc ftp)" 1 "--server ftp://...: refused"
like "$(err ftp)" 'not an http:// or https:// URL with a host' \
	"--server ftp://...: says why"
KREGRESS_SERVER='http://a b/' run envbad status 9
is "$(rc envbad)" 1 "a malformed \$KREGRESS_SERVER is refused"
like "$(err envbad)" 'KREGRESS_SERVER "http://a b/": not a URL' \
	"and named"

# --- item 2: what reaches the terminal is escaped ---------------------------
run st status --server "$API" 9
is "$(rc st)" 0 "status 9: exit 0"
check "status 9: no control character reaches the terminal" safe "$tmp/st.out"
like "$(cat "$tmp/st.out")" '  subject:     \x1b[2J\x1b[Hseries 9: done \u202eevil' \
	"status 9: the subject, its ESC and RLO escaped"
like "$(cat "$tmp/st.out")" '  author:      Evil \u009b31mRed <e@x>' \
	"status 9: the author's C1 CSI escaped"
like "$(cat "$tmp/st.out")" '  reason:      apply: x\x0d\x0aseries 9: done' \
	"status 9: a reason cannot forge a status line"
like "$(cat "$tmp/st.out")" 'last error: bad\x0aline' \
	"status 9: a job's last error is one line"
run res results --server "$API" 9
is "$(rc res)" 0 "results 9: exit 0"
check "results 9: nothing unescaped" safe "$tmp/res.out"
like "$(cat "$tmp/res.out")" 'params {"k\u001B":"v\\x1b"}' \
	"results 9: params keys and values escaped too"
run wt watch --server "$API" 9
is "$(rc wt)" 1 "watch 9 (does-not-apply): exit 1"
check "watch 9: nothing unescaped" safe "$tmp/wt.out"
run ls status --server "$API" --before 200
is "$(rc ls)" 0 "status (list): exit 0"
check "status (list): nothing unescaped" safe "$tmp/ls.out"
run s7 status --server "$API" 7
is "$(rc s7)" 1 "status 7: the server's error fails the command"
like "$(err s7)" 'HTTP 500: no\x1b[2J' "the server's error message, escaped"
check "the server's error message: nothing unescaped" safe "$tmp/s7.err"

run js status --json --server "$API" 9
is "$(rc js)" 0 "status --json 9: exit 0"
LC_ALL=C grep -q '[^ -~]' "$tmp/js.out"
is $? 1 "status --json 9: ASCII only, no control character"
$PY - "$tmp/js.out" "$tmp/answers.json" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))["GET /api/v1/series/9"][1]
sys.exit(0 if got == want else 1)
EOF
ok $? "status --json 9: the same document, its strings as sent"
run rj results --json --server "$API" 9
LC_ALL=C grep -q '[^ -~]' "$tmp/rj.out"
is $? 1 "results --json 9: ASCII only"

done_testing
