#!/bin/bash
# t-intake.sh - `kregress series parse` on files and on URLs served by a
# real HTTP server on loopback that answers like lore and patchwork
# (tests/fixtures/fake-lore.py), through libcurl; plus hostile input: not
# mail, binary garbage, a 50 MB mbox, 12,000 messages, a reply chain 5,000
# deep, URLs outside the allowlist.
set -u

: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
KR=$KREGRESS_BUILD/kregress
FIX=$KREGRESS_SRC/tests/fixtures/mail
PY=/usr/bin/python3
# run NAME ARGS...: runs kregress, keeps stdout/stderr/status in $tmp/NAME.*
run() {
	local name=$1
	shift
	"$KR" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
has() { grep -q -- "$2" "$tmp/$1.$3"; }	# has NAME PATTERN out|err

# --- files ---
run file series parse "$FIX/v2-series.mbox"
[ "$(rc file)" = 0 ] && has file "^version: v2" out && \
	has file "^status: complete" out && has file "^base-commit: " out
ok $? "a format-patch mbox file: v2, complete, base-commit"

run json series parse --json "$FIX/thread-v1-v2.mbox"
$PY - "$tmp/json.out" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == 2 and s["status"] == "complete", s["status"]
assert [p["index"] for p in s["patches"]] == [1, 2, 3]
assert s["older"][0]["version"] == 1
t = s["patches"][0]["trailers"]
assert {"name": "Tested-by", "value": "Tess Ter <tess@example.org>",
        "message_id": "t-v2-1@example.org"} in t, t
assert s["patches"][0]["author_name"] == "J\u00f6rg M\u00fcller"
assert s["patches"][0]["files"] == ["mm/memory.c"]
assert s["patches"][0]["tz_offset_min"] == 120
EOF
ok $? "--json: revisions, trailers, author, files as JSON"

run missing series parse "$FIX/missing-2.mbox"
[ "$(rc missing)" = 0 ] && has missing "^status: incomplete (missing 2/3)" out
ok $? "a series missing 2/3 is incomplete and says which"

run disc series parse "$FIX/discussion.mbox"
[ "$(rc disc)" = 0 ] && has disc "^status: empty" out && \
	has disc "no patch among the 2 messages" out
ok $? "a discussion thread has no patch"

printf 'Dear all,\nthis is not mail.\n' >"$tmp/prose"
run prose series parse "$tmp/prose"
[ "$(rc prose)" = 0 ] && has prose "skipped: not a mail message" out
ok $? "prose: skipped with its reason"

# Seeded, so that a failure can be run again with the same bytes.
$PY -c 'import random, sys
r = random.Random(19)
sys.stdout.buffer.write(r.randbytes(1 << 20))' >"$tmp/garbage"
run garbage series parse "$tmp/garbage"
[ "$(rc garbage)" = 0 ] && has garbage "^status: empty" out &&
	has garbage "^reason: no patch in the thread" out &&
	has garbage "message 1 skipped: not a mail message" out
ok $? "1 MiB of binary garbage: no series, the message skipped with its reason"

run nofile series parse "$tmp/does-not-exist"
[ "$(rc nofile)" = 1 ] && has nofile "No such file" err
ok $? "a missing file: exit 1 and the reason"

# --- big and deep input, generated here ---
$PY - "$tmp" <<'EOF'
import sys
tmp = sys.argv[1]
N = 12000
filler = "".join(" context line %d of the patch body, to make it the size "
                 "of a real one\n" % i for i in range(60))
with open(tmp + "/big.mbox", "w") as f:
    for i in range(1, N + 1):
        f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n"
                "From: Big Sender <big@example.org>\n"
                "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
                "Subject: [PATCH %d/%d] file%d: change\n"
                "Message-ID: <big-%d@example.org>\n\n"
                "Change %d.\n\nSigned-off-by: Big Sender <big@example.org>\n"
                "---\ndiff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n"
                "@@ -1,61 +1,61 @@\n-old\n+new\n%s\n"
                % (i, N, i, i, i, i, i, i, i, filler))
D = 5000
with open(tmp + "/deep.mbox", "w") as f:
    f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: a <a@x>\n"
            "Subject: [PATCH] deep\nMessage-ID: <d0@x>\n\n"
            "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\n")
    for i in range(1, D + 1):
        f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: r <r@x>\n"
                "Subject: Re: [PATCH] deep\nMessage-ID: <d%d@x>\n"
                "In-Reply-To: <d%d@x>\nReferences: <d0@x> <d%d@x>\n\n%s\n\n"
                % (i, i - 1, i - 1,
                   "Acked-by: Deep <deep@x>" if i == D else "> quoted"))
EOF
size=$(stat -c %s "$tmp/big.mbox")
run big series parse "$tmp/big.mbox"
[ "$(rc big)" = 1 ] && has big "larger than the limit of 33554432 bytes" err
ok $? "a $((size / 1048576)) MiB mbox over the default cap: clear error"

start=$(date +%s)
run big2 series parse --max-bytes 64M --json "$tmp/big.mbox"
end=$(date +%s)
[ "$(rc big2)" = 0 ] && $PY -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["total"] == 12000 and len(s["patches"]) == 12000, s["total"]
assert s["status"] == "complete"' "$tmp/big2.out"
ok $? "with --max-bytes 64M: 12,000 patches, complete ($((end - start)) s)"

run big3 series parse --max-bytes 64M --max-messages 10000 "$tmp/big.mbox"
[ "$(rc big3)" = 1 ] && has big3 "more than 10000 messages" err
ok $? "over --max-messages: clear error"

run deep series parse --json "$tmp/deep.mbox"
[ "$(rc deep)" = 0 ] && grep -q '"value": "Deep <deep@x>"' "$tmp/deep.out"
ok $? "a reply chain 5,000 deep: the trailer at the bottom reaches the patch"

# --- URLs, through libcurl, to a real server on loopback ---
lore_start --root "$FIX" --slow 600 || bail_out "the fake lore server did not start"
A=(--allow "$LORE/lkml/" --allow "$LORE/slow/" --allow "$LORE/old/"
   --allow "$LORE/evil/" --allow "$LORE/loop/" --allow "$LORE/big/"
   --allow "$LORE/api" --allow "$LORE/series" --allow "$LORE/sneaky/"
   --allow "http://localhost:$lore_port/lkml/")

run lore series parse "${A[@]}" "$LORE/lkml/cover.123@example.org/"
[ "$(rc lore)" = 0 ] && has lore "^version: v2" out && \
	has lore "^older revision: v1" out && \
	has lore "Tested-by: Tess Ter" out && \
	grep -qx "/lkml/cover.123@example.org/t.mbox.gz" "$lore_log"
ok $? "a lore message URL fetches the thread's t.mbox.gz (gzip)"

run lore2 series parse "${A[@]}" "$LORE/lkml/cover.123@example.org/T/#u"
[ "$(rc lore2)" = 0 ] && has lore2 "^version: v2" out
ok $? "a lore .../T/#u URL too"

run raw series parse "${A[@]}" "$LORE/lkml/x@y/raw"
[ "$(rc raw)" = 0 ] && has raw "^patches: 1 of 3" out && \
	has raw "^status: incomplete" out
ok $? "a lore .../raw message"

run gz series parse "${A[@]}" "$LORE/lkml/missing/t.mbox.gz"
[ "$(rc gz)" = 0 ] && has gz "missing 2/3" out
ok $? "a t.mbox.gz URL directly"

run nf series parse "${A[@]}" "$LORE/lkml/nope/"
[ "$(rc nf)" = 1 ] && has nf "HTTP 404" err
ok $? "404: exit 1 with the status"

# The server would answer after 10 minutes: an error saying so is the
# timeout's (how soon is tests/bench/stop-bench.sh's to print).
run slow series parse "${A[@]}" --timeout 1 "$LORE/slow/x@y/"
[ "$(rc slow)" = 1 ] && has slow "imeout\|timed out" err
ok $? "a slow server hits the total timeout: $(head -1 "$tmp/slow.err")"

run redir series parse "${A[@]}" "$LORE/old/x@y/t.mbox.gz"
[ "$(rc redir)" = 0 ] && has redir "^version: v2" out
ok $? "a redirect inside the allowlist is followed"

run evil series parse "${A[@]}" "$LORE/evil/x/t.mbox.gz"
[ "$(rc evil)" = 1 ] && has evil "/private/x/t.mbox.gz: refused: not in the URL allowlist" err && \
	! grep -q "^/private" "$lore_log"
ok $? "a redirect out of the allowlist is refused before the request"

# Issue 15: the allowlist was matched on the raw URL, the request made
# for the URL libcurl (and then the server) resolved.  Each of these got
# /private/ requested before.
for trick in "$LORE/lkml/../private/x/t.mbox.gz" \
	     "$LORE/lkml/x/../../private/x/t.mbox.gz" \
	     "$LORE/lkml/%2e%2e/private/x/t.mbox.gz" \
	     "$LORE/lkml/.%2E/private/x/t.mbox.gz" \
	     "$LORE/lkml/..%2Fprivate/x/t.mbox.gz" \
	     "$LORE/sneaky/x/t.mbox.gz"; do
	before=$(grep -c "^/private" "$lore_log")
	run trick series parse "${A[@]}" "$trick"
	after=$(grep -c "^/private" "$lore_log")
	[ "$(rc trick)" = 1 ] && has trick "refused: " err && \
		[ "$before" = "$after" ]
	ok $? "dot segments, encoded or not, do not leave the allowlist: $trick"
done
for trick in "http://127.0.0.1:$lore_port@localhost:$lore_port/lkml/x@y/" \
	     "http://localhost:$lore_port%2F@127.0.0.1:$lore_port/private/x@y/" \
	     "http://:@localhost:$lore_port/lkml/x@y/"; do
	before=$(wc -l <"$lore_log")
	run trick series parse "${A[@]}" "$trick"
	after=$(wc -l <"$lore_log")
	[ "$(rc trick)" = 1 ] && \
		has trick "refused: no host, or user information, in the URL" err &&
		[ "$before" = "$after" ]
	ok $? "user information in the URL: refused, no request: $trick"
done
for spelling in "HTTP://LOCALHOST:$lore_port/lkml/x@y/" \
		"http://localhost.:$lore_port/lkml/x@y/" \
		"http://localhost:$lore_port/lkml/./cover.123@example.org/"; do
	run spelt series parse "${A[@]}" "$spelling"
	[ "$(rc spelt)" = 0 ] && has spelt "^version: v2" out
	ok $? "another spelling of an allowed URL is fetched: $spelling"
done

run loop series parse "${A[@]}" "$LORE/loop/x/t.mbox.gz"
[ "$(rc loop)" = 1 ] && has loop "more than 5 redirects" err
ok $? "a redirect loop stops after 5"

run bomb series parse "${A[@]}" "$LORE/big/x/t.mbox.gz"
[ "$(rc bomb)" = 1 ] && has bomb "larger than the limit of 33554432 bytes once decompressed" err
ok $? "a gzip bomb stops at the size cap"

run pw series parse "${A[@]}" "$LORE/api/series/42/"
[ "$(rc pw)" = 0 ] && has pw "^status: complete" out && \
	grep -qx "/series/42/mbox/" "$lore_log"
ok $? "a patchwork /api/series/ID/ URL: JSON, then its mbox (gzip encoded)"

run pw2 series parse "${A[@]}" "$LORE/api/1.3/series/43/"
[ "$(rc pw2)" = 1 ] && has pw2 "private/43/mbox/: refused" err && \
	! grep -q "^/private" "$lore_log"
ok $? "a patchwork mbox link outside the allowlist is refused"

run pw3 series parse "${A[@]}" "$LORE/api/series/44/"
[ "$(rc pw3)" = 1 ] && has pw3 "not JSON" err
ok $? "a patchwork answer that is not JSON: clear error"

before=$(wc -l <"$lore_log")
run outside series parse "${A[@]}" "$LORE/private/x/"
after=$(wc -l <"$lore_log")
[ "$(rc outside)" = 1 ] && has outside "refused: not in the URL allowlist" err \
	&& [ "$before" = "$after" ]
ok $? "a URL outside the allowlist: refused, no request made"

run noallow series parse "$LORE/lkml/x@y/"
[ "$(rc noallow)" = 1 ] && has noallow "no URL allowlist" err
ok $? "no allowlist: every URL refused"

run prefix series parse --allow "https://lore.kernel.org" \
	"https://lore.kernel.org.evil.example/lkml/x/"
[ "$(rc prefix)" = 1 ] && has prefix "not in the URL allowlist" err
ok $? "an allowlist prefix matches only at a boundary"

run plain series parse --allow "http://example.org/" "http://example.org/x/"
[ "$(rc plain)" = 1 ] && has plain "plain http:// is only allowed on loopback" err
ok $? "plain http:// to a non-loopback host is refused"

run file_url series parse --allow "file:///" "file:///etc/passwd"
[ "$(rc file_url)" = 1 ] && has file_url "only https:// URLs" err
ok $? "file:// URLs are refused"

done_testing
