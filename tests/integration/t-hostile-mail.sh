#!/bin/bash
# t-hostile-mail.sh - mail and servers that mean harm, through the real
# daemon and the fake lore server (tests/fixtures/fake-lore.py) on
# loopback (issue 15, items 1, 2 and 6):
#
#  - a patch with a NUL byte inside a hunk line reaches the daemon by the
#    API's mbox, by URL and by list polling: every way in applies the same
#    content check and says the same thing (the API with a 400, the fetch
#    stage as the series' reason); a NUL that only decoding makes
#    (quoted-printable =00) is refused by the apply stage's scanner;
#  - a Subject whose RFC 2047 words decode to ESC, CR and LF is stored as
#    sent and shown escaped by `kregress status` and in the daemon's log;
#  - what went wrong is the reason a user reads: HTTP 404 and a refused
#    redirect and a gzip bomb fail at once naming the cause, HTTP 500 is
#    retried naming it, a message over 8 MiB is named as skipped instead
#    of "no patch in the thread", and an author with a line break is a
#    bad author, not a repository error.
#
# Run under ASan/UBSan (make SANITIZE=address,undefined BUILD=build-asan)
# the daemon must also report nothing.
set -u
B=${KREGRESS_BUILD:?}
S=${KREGRESS_SRC:?}
. "$S/tests/lib/tap.sh"
. "$S/tests/lib/daemon.sh"
PY=/usr/bin/python3
TOKEN=hostile-token-0123456789abcdef
export KREGRESS_TOKEN=$TOKEN

git_() {
	git -c user.name=Dev -c user.email=dev@example.org \
		-c init.defaultBranch=master "$@"
}

# --- a small tree and the threads the fake lore server serves --------------
tree=$tmp/linux
mkdir -p "$tree/mm"
for i in $(seq 1 40); do echo "/* memory.c line $i */"; done \
	>"$tree/mm/memory.c"
git_ -C "$tree" init -q && git_ -C "$tree" add -A &&
	git_ -C "$tree" commit -q -m "Linux 6.1-ish"
git_ clone -q "$tree" "$tmp/work"
sed -i '10s|.*|/* memory.c line 10, faster */|' "$tmp/work/mm/memory.c"
GIT_AUTHOR_DATE="2024-06-01T10:00:00+02:00" \
	git_ -C "$tmp/work" commit -q -a -m "mm: make line 10 faster" \
	-m "Signed-off-by: Dev <dev@example.org>"
git_ -C "$tmp/work" format-patch -q --stdout -1 >"$tmp/one.mbox"
mkdir -p "$tmp/threads"
# make NAME SUBJECT FROM MESSAGE-ID [PY-EXPR]: a thread in $tmp/threads
# from one.mbox, with its Subject, From, Message-ID, and the bytes b
# changed by PY-EXPR
$PY - "$tmp/one.mbox" "$tmp/threads" <<'EOF'
import re, sys
src, out = sys.argv[1], sys.argv[2]
one = open(src, "rb").read()
def make(name, subject, author, msgid, change=lambda b: b):
    b = re.sub(rb"(?m)^Subject: .*$", b"Subject: " + subject, one)
    b = re.sub(rb"(?m)^From: .*$", b"From: " + author, b, count=1)
    b = re.sub(rb"(?m)^(Subject: .*)$", rb"\1\nMessage-Id: <" + msgid + b">",
               b, count=1)
    open("%s/%s.mbox" % (out, name), "wb").write(change(b))
dev = b"Dev <dev@example.org>"
make("nul", b"[PATCH] mm: nul in a hunk", dev, b"nul-1@example.org",
     lambda b: b.replace(b"+/* memory.c line 10, faster */",
                         b"+/* memory.c line 10,\0faster */"))
make("qp", b"[PATCH] mm: decoded nul\nMIME-Version: 1.0\n"
     b"Content-Type: text/plain; charset=UTF-8\n"
     b"Content-Transfer-Encoding: quoted-printable", dev, b"qp-1@example.org",
     lambda b: b.replace(b"+/* memory.c line 10, faster */",
                         b"+/* memory.c line 10,=00faster */"))
# a Subject of RFC 2047 words that decode to ESC [2J ESC [H CR LF, and a
# hunk heading (free text in a diff) with a raw ESC and CR; the context
# line is not in the tree, so the hunk is named in the reason
make("evil", b"=?utf-8?q?=1B=5B2J=1B=5BH=0D=0Aseries_1=3A_done?= mm: evil",
     dev, b"evil-1@example.org",
     lambda b: re.sub(rb"(?m)^(@@ -\d+,\d+ \+\d+,\d+ @@).*$",
                      b"\\1 \x1b[2J\rforged", b)
                .replace(b"\n /* memory.c line 9 */",
                         b"\n /* not in the tree */"))
make("author", b"[PATCH] mm: forged author",
     b"=?utf-8?q?Jane=0ADoe?= <jane@example.org>", b"author-1@example.org")
big = b"x" * 76 + b"\n"
make("big", b"[PATCH] mm: a message over 8 MiB", dev, b"big-1@example.org",
     lambda b: b.replace(b"\n\nSigned-off-by",
                         b"\n\n" + big * (9 * 2**20 // len(big)) +
                         b"\nSigned-off-by"))
EOF
ok $? "threads: a NUL in a hunk, a decoded NUL, an evil Subject, a forged author, 9 MiB"
nul_line=$($PY -c 'import sys; b = open(sys.argv[1], "rb").read(); print(b[:b.index(b"\0")].count(b"\n") + 1)' "$tmp/threads/nul.mbox")

lore_start --root "$S/tests/fixtures/mail" --threads "$tmp/threads" ||
	bail_out "the fake lore server did not start"

cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ]
	},
	"url_allowlist": [ "$LORE/linux-mm/", "$LORE/evil/", "$LORE/big/",
			   "$LORE/status/" ],
	"trees": [ { "name": "small", "path": "$tree", "branch": "master" } ],
	"arches": { "x86_64": { "base_config": "tinyconfig" } },
	"hosts": [],
	"limits": { "max_body_bytes": 16777216, "max_mbox_bytes": 16777216 },
	"lists": [ { "name": "linux-mm", "feed_url": "$LORE/linux-mm/new.atom",
		     "subject_filters": [ "nul in a hunk" ],
		     "poll_interval_s": 3600 } ]
}
CFG
daemon_start || bail_out "kregressd did not start"

# submit WHAT: kregress submit WHAT; prints the series id
submit() {
	"$B/kregress" submit --server "$SRV" "$1" >"$tmp/submit.out" \
		2>"$tmp/submit.err"
	sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/submit.out"
}
# final ID: "status|reason" once the series is final
final() {
	wait_status "$1" 60 >/dev/null
	sql "SELECT status || '|' || status_reason FROM series WHERE id = $1"
}
# job ID KIND: "state|attempts" of the series' job of KIND
job() {
	sql "SELECT state || '|' || attempts FROM job WHERE series_id = $1
	     AND kind = '$2'"
}

# --- item 1: a NUL byte in a hunk line, by every way in --------------------
"$B/kregress" submit --server "$SRV" "$tmp/threads/nul.mbox" \
	>"$tmp/api.out" 2>"$tmp/api.err"
is "$?" 1 "the API refuses an mbox with a NUL byte"
like "$(cat "$tmp/api.err")" \
	"HTTP 400: a NUL byte at line $nul_line (mail has none)" \
	"the API says where the NUL is"

id=$(submit "$LORE/linux-mm/nul-1@example.org/")
is "$(final "$id")" \
	"fetch-failed|fetch: $LORE/linux-mm/nul-1@example.org/: a NUL byte at line $nul_line (mail has none)" \
	"by URL: the same check, the same words, as the series' reason"
is "$(job "$id" fetch)" "failed|1" "by URL: failed at once, not retried"

wait_for 30 test -n "$(sql "SELECT id FROM series WHERE list = 'linux-mm'")"
ok $? "the list watcher queued the thread with the NUL"
w=$(sql "SELECT id FROM series WHERE list = 'linux-mm'")
is "$(final "$w")" \
	"fetch-failed|fetch: $LORE/linux-mm/nul-1@example.org/: a NUL byte at line $nul_line (mail has none)" \
	"by list polling: the same check and the same reason"

id=$(submit "$LORE/linux-mm/qp-1@example.org/")
r=$(final "$id")
case $r in
"does-not-apply|apply: rejected: patch 1/1: NUL byte at line "*" of the diff"*) v=0 ;;
*) v=1 ;;
esac
ok $v "a NUL made by decoding =00: the scanner rejects the patch ($r)"

# --- item 2: an evil Subject is stored as sent, shown escaped --------------
id=$(submit "$LORE/linux-mm/evil-1@example.org/")
final "$id" >/dev/null
is "$(sql "SELECT hex(substr(subject, 1, 2)) FROM series WHERE id = $id")" \
	1B5B "the Subject is stored as it was sent (ESC [)"
"$B/kregress" status --server "$SRV" "$id" >"$tmp/evil.txt"
like "$(cat "$tmp/evil.txt")" \
	'  subject:     \x1b[2J\x1b[H\x0d\x0aseries 1: done mm: evil' \
	"kregress status shows it escaped"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$tmp/evil.txt"
is $? 1 "kregress status: no control character but line ends"
like "$(cat "$tmp/evil.txt")" '@@ -7,7 +7,7 @@ \x1b[2J\x0dforged' \
	"kregress status: the hunk that failed, its heading escaped"
grep -q 'apply of series '"$id"' failed: .*@@ \\x1b\[2J\\x0dforged' \
	"$daemon_log" &&
	! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$daemon_log"
ok $? "the daemon's log names the hunk escaped, and holds no control character"

# --- item 6: the reason names the cause ----------------------------------
id=$(submit "$LORE/linux-mm/nope@example.org/")
is "$(final "$id")" \
	"fetch-failed|fetch: $LORE/linux-mm/nope@example.org/t.mbox.gz: HTTP 404 Not Found" \
	"HTTP 404: fetch-failed at once, the status in the reason"
is "$(job "$id" fetch)" "failed|1" "HTTP 404: not retried"

id=$(submit "$LORE/evil/x/")
r=$(final "$id")
like "$r" "fetch-failed|fetch: $LORE/private/x/t.mbox.gz: refused: " \
	"a redirect off the allowlist: refused, naming the target"
is "$(job "$id" fetch)" "failed|1" "a refused redirect: not retried"

id=$(submit "$LORE/big/x/")
is "$(final "$id")" "fetch-failed|fetch: $LORE/big/x/t.mbox.gz: larger than the limit of 16777216 bytes once decompressed" \
	"a gzip bomb: over the cap, said so"
is "$(job "$id" fetch)" "failed|1" "over the cap: not retried"

id=$(submit "$LORE/status/500/x/")
wait_sql 30 "SELECT state || '|' || attempts FROM job WHERE series_id = $id" \
	"queued|1"
ok $? "HTTP 500: the job is queued again"
is "$(sql "SELECT status || '|' || status_reason FROM series WHERE id = $id")" \
	"fetching|fetch: attempt 1 of 5 failed, retrying: $LORE/status/500/x/t.mbox.gz: HTTP 500 Internal Server Error" \
	"HTTP 500: retried, and the status says why"

id=$(submit "$LORE/linux-mm/big-1@example.org/")
like "$(final "$id")" \
	"fetch-failed|fetch: no patch in the thread; message 1 skipped: message exceeds the limit of 8388608 bytes" \
	"a message over 8 MiB: named as skipped, with the limit"

id=$(submit "$LORE/linux-mm/author-1@example.org/")
is "$(final "$id")" \
	"does-not-apply|apply: patch 1/1: bad author: a control character in the name or address, which a git commit cannot hold" \
	"a line break in the author: a bad author, not a repository error"

is "$(sql "SELECT count(*) FROM series WHERE status_reason LIKE '%see the log%'
	OR status_reason LIKE '%repository error%'") $(sql "SELECT count(*)
	FROM job WHERE last_error LIKE '%see the log%'")" "0 0" \
	"no reason says \"see the log\""

# --- and nothing broke ------------------------------------------------------
ok $(kill -0 "$daemon_pid"; echo $?) "the daemon is still running"
! grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer" "$daemon_log"
ok $? "no sanitizer report"
daemon_stop TERM
ok $? "SIGTERM: exit 0"

if [ $tap_failed != 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$daemon_log" | tail -60
fi
done_testing
