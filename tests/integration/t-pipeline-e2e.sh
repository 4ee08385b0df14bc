#!/bin/bash
# t-pipeline-e2e.sh - the real kregressd runs the real fetch and apply
# stages: a small git tree with kernel-like files is the configured tree,
# series made by `git format-patch` (in a clone, so that the tree does not
# have their commits) are submitted with `kregress submit` as an mbox and
# as a URL to the fake lore server; the daemon fetches, applies, builds
# the base and the patched commit (the tree's Makefile imitates kbuild, as
# in t-build-sandbox.sh: no kernel is compiled, but build.c, the sandbox,
# the build rows and the progress are real) and stops at run, which
# needs a libvirt host (the configuration has none; the slow test
# t-daemon-run.sh boots real kernels).  A series that does not apply
# ends does-not-apply with its patch, file and hunk; one that breaks
# the (fake) build ends build-failed with the compiler's error line.
# Then a reload (SIGHUP) adds a watched list: the watcher finds a series in the fake
# lore feed and queues it by itself, and it is applied on the list's tree.
set -u
B=${KREGRESS_BUILD:?}
S=${KREGRESS_SRC:?}
. "$S/tests/lib/tap.sh"
. "$S/tests/lib/daemon.sh"
. "$S/tests/lib/build-lib.sh"
PY=/usr/bin/python3
TOKEN=e2e-token-0123456789abcdef
build_user_setup	# the build user, who reads the tree in $tmp
export KREGRESS_CACHE=$tmp/cache
export KREGRESS_CONFIG_DIR=$S/builders/configs

# json FILE EXPR: evaluates a Python expression on the JSON document d.
json() {
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

git_() {
	git -c user.name=Dev -c user.email=dev@example.org \
		-c init.defaultBranch=master "$@"
}

# --- a small kernel-like tree --------------------------------------------
tree=$tmp/linux
mkdir -p "$tree/mm" "$tree/net/core"
for i in $(seq 1 40); do echo "/* memory.c line $i */"; done \
	>"$tree/mm/memory.c"
printf 'obj-y := memory.o\nobj-y += mremap.o\n' >"$tree/mm/Makefile"
echo a >"$tree/net/core/dev.c"
# the Makefile imitates kbuild (t-build-sandbox.sh); "BROKEN" in
# mm/memory.c makes the compile fail
printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$tree/Makefile"
cat >>"$tree/Makefile" <<'MK'
SHELL := /bin/bash
O := $(KBUILD_OUTPUT)
tinyconfig:
	echo 'CONFIG_64BIT=y' > $(O)/.config
olddefconfig:
	sort -u $(O)/.config > $(O)/.config.new
	mv $(O)/.config.new $(O)/.config
bzImage Image:
	@echo '  CC      mm/memory.o'
	@echo '  CC      init/main.o'
	@! grep -q faster mm/memory.c || sleep 4
	@! grep -q BROKEN mm/memory.c || { echo 'mm/memory.c:30:1: error: expected ; before }'; exit 2; }
	mkdir -p $(O)/arch/x86/boot $(O)/arch/arm64/boot
	echo kernel > $(O)/arch/x86/boot/bzImage
	echo kernel > $(O)/arch/arm64/boot/Image
	echo elf > $(O)/vmlinux
	echo 'ffffffff81000000 T _text' > $(O)/System.map
MK
git_ -C "$tree" init -q && git_ -C "$tree" add -A &&
	git_ -C "$tree" commit -q -m "Linux 6.1-ish"
ok $? "a small git tree"
base=$(git -C "$tree" rev-parse HEAD)

# Series are made in a clone: the tree never sees their commits.
work=$tmp/work
git_ clone -q "$tree" "$work"
edit() {	# edit FILE LINE TEXT: replace one line
	sed -i "$2s|.*|$3|" "$work/$1"
}
commit() {
	GIT_AUTHOR_DATE="2024-06-0$1T10:00:00+02:00" \
	GIT_COMMITTER_DATE="2024-06-0$1T10:00:00+02:00" \
		git_ -C "$work" commit -q -a -m "$2" -m "Body of $2." \
		-m "Signed-off-by: Dev <dev@example.org>"
}
# good: two patches on the tree's commit
git_ -C "$work" checkout -q -b good master
edit mm/memory.c 10 "/* memory.c line 10, faster */"
commit 1 "mm: make line 10 faster"
edit mm/Makefile 2 "obj-y += mremap.o pagewalk.o"
commit 2 "mm: build pagewalk"
git_ -C "$work" format-patch -q --cover-letter --thread --base=master \
	--stdout master..good >"$tmp/good.mbox"
# bad: made on a commit the tree lacks; patch 2's context is not there
git_ -C "$work" checkout -q -b bad master
edit mm/memory.c 20 "/* memory.c line 20 elsewhere */"
commit 3 "mm: a change that is not upstream"
edit mm/Makefile 1 "obj-y := memory.o util.o"
commit 4 "mm: build util"
edit mm/memory.c 21 "/* memory.c line 21, changed */"
commit 5 "mm: change line 21"
git_ -C "$work" format-patch -q --cover-letter --thread \
	--base="$(git -C "$work" rev-parse bad~2)" --stdout bad~2..bad \
	>"$tmp/bad.mbox"
# broken: applies, but the patched kernel does not build
git_ -C "$work" checkout -q -b broken master
edit mm/memory.c 30 "BROKEN"
commit 7 "mm: break the build"
git_ -C "$work" format-patch -q --thread --base=master --stdout \
	master..broken >"$tmp/broken.mbox"
# url: one patch, served by the fake lore server as a thread
git_ -C "$work" checkout -q -b url master
edit Makefile 2 "PATCHLEVEL = 2"
commit 6 "Makefile: bump the patch level"
mkdir -p "$tmp/lore"
git_ -C "$work" format-patch -q --thread --stdout master..url \
	>"$tmp/lore/thread-v1-v2.mbox"
grep -c '^Subject: \[PATCH' "$tmp/good.mbox" "$tmp/bad.mbox" \
	"$tmp/lore/thread-v1-v2.mbox" | tr '\n' ' ' | grep -q \
	'good.mbox:3 .*bad.mbox:3 .*thread-v1-v2.mbox:1'
ok $? "format-patch series: good (2 + cover), bad (2 + cover), url (1)"

# The feed the watcher reads: one net-next patch (the fake server answers
# /lkml/net-*/t.mbox.gz with a one-patch thread changing net/core/dev.c).
cat >"$tmp/feed.atom" <<'ATOM'
<?xml version="1.0" encoding="us-ascii"?>
<feed xmlns="http://www.w3.org/2005/Atom"
 xmlns:thr="http://purl.org/syndication/thread/1.0"><title>netdev</title
><link rel="alternate" href="@@BASE@@/lkml/"/><id>mailto:netdev@example.org</id
><updated>2024-06-01T00:00:00Z</updated><entry><author><name>Net Dev</name
><email>net@example.org</email></author
><title>[PATCH net-next] net: tweak</title
><updated>2024-06-01T00:00:00Z</updated
><link href="@@BASE@@/lkml/net-1@example.org/"/><id>urn:uuid:1</id
></entry></feed>
ATOM

lore_start --root "$tmp/lore" --feed "$tmp/feed.atom" ||
	bail_out "the fake lore server did not start"

config() {	# config LISTS TREE_LISTS [REFRESH]: the daemon's configuration
	local refresh=
	[ $# -gt 2 ] && refresh=", \"refresh\": $3"
	cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ]
	},
	"url_allowlist": [ "$LORE/" ],
	"trees": [ { "name": "small", "path": "$tree", "branch": "master",
		     "lists": $2$refresh } ],
	"arches": { "x86_64": { "base_config": "tinyconfig" } },
	"hosts": [],
	"lists": $1
}
CFG
}
config '[]' '[]'
daemon_start
ok $? "kregressd started"
export KREGRESS_TOKEN=$TOKEN

# --- an mbox that applies --------------------------------------------------
"$B/kregress" submit --server "$SRV" "$tmp/good.mbox" >"$tmp/out" 2>&1
ok $? "submit the good series"
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
# its patched build sleeps 4 s after compiling: progress shows meanwhile
wait_sql 30 "SELECT b.status || ':' || b.objects_compiled FROM build b
	JOIN series_build sb ON sb.build_id = b.id
	WHERE sb.series_id = $id AND sb.side = 'patched'" building:2
ok $? "progress: the running patched build shows its compiled objects"
"$B/kregress" status --server "$SRV" "$id" >"$tmp/progress.txt"
grep -q "^  build:       x86_64 patched .* building, 2 objects" \
	"$tmp/progress.txt"
ok $? "kregress status shows the build in progress"
st=$(wait_status "$id" 60)
ok $? "the good series reached a final status ($st)"
test "$st|$(sql "SELECT status_reason FROM series WHERE id = $id")" = \
	"failed|run: x86_64: no host of this arch is configured"
ok $? "it went past fetch, apply and build; run needs a host (none configured)"
# The failed run queues a report job, which finds nothing to tell.
wait_sql 10 "SELECT group_concat(kind || ':' || state, ' ') FROM
	(SELECT kind, state FROM job WHERE series_id = $id ORDER BY id)" \
	"fetch:done apply:done build:done run:failed report:done"
ok $? "jobs: fetch, apply, build done, run failed, then the report"
"$B/kregress" status --server "$SRV" --json "$id" >"$tmp/good.json"
ok $? "kregress status ID --json"
head=$(json "$tmp/good.json" 'd["patches"][-1]["applied_commit"]')
test "$(json "$tmp/good.json" '[(p["idx"], p["applied_commit"] is not None, p["apply_method"]) for p in d["patches"]]')" = \
	"[(0, False, None), (1, True, 'libgit2'), (2, True, 'libgit2')]"
ok $? "each patch has its applied commit and method; the cover has none"
test "$(git -C "$tree" rev-parse "$head^{tree}")" = \
	"$(git -C "$work" rev-parse "good^{tree}")"
ok $? "the patched commit is in the tree and has the series' tree"
test "$(git -C "$tree" log --format=%s "$base..$head" | tr '\n' '|')" = \
	"mm: build pagewalk|mm: make line 10 faster|"
ok $? "one commit per patch, on the base"
test "$(json "$tmp/good.json" '"%s %s %s" % (d["tree"], d["base_used"], d["base_source"])')" = \
	"small $base base-commit"
ok $? "base: the series' base-commit, on tree small"
json "$tmp/good.json" 'd["base_reason"]' | grep -q "tree small: the first configured"
ok $? "the base reason says how the tree was chosen"
test "$(json "$tmp/good.json" '[(b["arch"], b["side"], b["commit_id"], b["status"], b["objects_compiled"], b["warnings"], b["new_warnings"] if b["side"] == "patched" else None, b["image_path"] is not None) for b in d["builds"]]')" = \
	"[('x86_64', 'base', '$base', 'ok', 2, 0, None, True), ('x86_64', 'patched', '$head', 'ok', 2, 0, 0, True)]"
ok $? "builds: base then patched, x86_64, ok, objects counted, images"
test -s "$(json "$tmp/good.json" 'd["builds"][1]["log_path"]')"
ok $? "the patched build's log is kept"
grep -q "build: series $id: x86_64 patched .*: ok" "$tmp/daemon.log"
ok $? "the daemon logs the build"
"$B/kregress" status --server "$SRV" "$id" >"$tmp/good.txt"
grep -q "^  build:       x86_64 patched ${head:0:12} ok, 2 objects" "$tmp/good.txt"
ok $? "kregress status ID shows the builds"
"$B/kregress" watch --server "$SRV" "$id" >"$tmp/watch.txt" 2>&1
grep -q "; build: x86_64 base ${base:0:12} ok, 2 objects" "$tmp/watch.txt"
ok $? "kregress watch ID shows the builds"
grep -q "^  base:        $base (base-commit: " "$tmp/good.txt" &&
	grep -q "^        commit $head (libgit2)" "$tmp/good.txt"
ok $? "kregress status ID shows the base and the patched commits"

# --- an mbox that does not apply -------------------------------------------
"$B/kregress" submit --server "$SRV" "$tmp/bad.mbox" >"$tmp/out" 2>&1
id2=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "$id2" 60)
test "$st" = does-not-apply
ok $? "the bad series: does-not-apply ($st)"
reason=$(sql "SELECT status_reason FROM series WHERE id = $id2")
case $reason in
"apply: patch 2/2 (mm/memory.c, @@ -18,7 +18,7 @@"*"): "*) r=0 ;;
*) r=1 ;;
esac
ok $r "reason names patch, file and hunk: $reason"
test "$(sql "SELECT apply_failed_patch || '|' || apply_failed_file || '|' ||
	base_source || '|' || base_used FROM series WHERE id = $id2")" = \
	"2|mm/memory.c|branch|$base"
ok $? "failure columns stored; base fell back to the branch"
test "$(sql "SELECT count(*) FROM job WHERE series_id = $id2 AND
	kind = 'build'")" = 0
ok $? "no build queued for it"
test "$(sql "SELECT idx || ':' || (applied_commit IS NOT NULL) FROM patch
	WHERE series_id = $id2 ORDER BY idx" | tr '\n' ' ')" = "0:0 1:1 2:0 "
ok $? "patch 1 applied before patch 2 failed"
"$B/kregress" status --server "$SRV" "$id2" >"$tmp/bad.txt"
grep -q "^  not applied: patch 2/2 mm/memory.c @@ -18,7 +18,7 @@" "$tmp/bad.txt"
ok $? "kregress status shows the failing patch"

# --- a series that breaks the build ----------------------------------------
"$B/kregress" submit --server "$SRV" "$tmp/broken.mbox" >"$tmp/out" 2>&1
id4=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "$id4" 60)
test "$st|$(sql "SELECT status_reason FROM series WHERE id = $id4")" = \
	"build-failed|build: x86_64: mm/memory.c: error: expected ; before }"
ok $? "a patch that breaks the build: build-failed with the error line ($st)"
test "$(sql "SELECT sb.side || ':' || b.status || ':' || b.cached FROM
	series_build sb JOIN build b ON b.id = sb.build_id
	WHERE sb.series_id = $id4 ORDER BY sb.side" | tr '\n' ' ')" = \
	"base:ok:1 patched:failed:0 "
ok $? "its base build came from the cache; the patched build failed"
test "$(sql "SELECT count(*) FROM job WHERE series_id = $id4 AND
	kind = 'run'")" = 0
ok $? "no run queued for it"

# --- a URL to the fake lore server -------------------------------------------
"$B/kregress" submit --server "$SRV" "$LORE/lkml/url-1@example.org/" \
	>"$tmp/out" 2>&1
id3=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "$id3" 60)
test "$st|$(sql "SELECT status_reason FROM series WHERE id = $id3")" = \
	"failed|run: x86_64: no host of this arch is configured"
ok $? "a URL submission is fetched and applied ($st)"
grep -qx "/lkml/url-1@example.org/t.mbox.gz" "$lore_log"
ok $? "the thread was fetched from the fake lore server"
c=$(sql "SELECT applied_commit FROM patch WHERE series_id = $id3 AND idx = 1")
test -n "$c" && test "$(git -C "$tree" rev-parse "$c^{tree}")" = \
	"$(git -C "$work" rev-parse "url^{tree}")"
ok $? "its patched commit has the expected tree"

# --- the watcher and the tree refresher, started by a reload ---------------
git_ clone -q "$tree" "$tmp/upstream"
echo "/* new upstream file */" >"$tmp/upstream/mm/new.c"
git_ -C "$tmp/upstream" add mm/new.c
git_ -C "$tmp/upstream" commit -q -m "mm: upstream moves on"
up=$(git -C "$tmp/upstream" rev-parse HEAD)
config "[ { \"name\": \"netdev\", \"feed_url\": \"$LORE/lkml/new.atom\",
	  \"poll_interval_s\": 60 } ]" '[ "netdev" ]' \
	"{ \"remote\": \"$tmp/upstream\", \"interval_s\": 3600 }"
watched() {	# sets w, the id of the netdev series, if there is one
	w=$(sql "SELECT id FROM series WHERE list = 'netdev'")
	[ -n "$w" ]
}
kill -HUP "$daemon_pid"
wait_for 30 watched
ok $? "after SIGHUP the watcher queued the feed's series by itself"
grep -q "list watcher started for 1 list" "$tmp/daemon.log"
ok $? "the daemon logs the watcher's start"
refreshed() {
	[ "$(git -C "$tree" rev-parse -q --verify \
		refs/remotes/kregress/master)" = "$up" ]
}
wait_for 30 refreshed &&
	grep -q "refresh: tree small: fetched $tmp/upstream master" "$tmp/daemon.log"
ok $? "the tree refresher fetched the remote into refs/remotes/kregress/master"
st=$(wait_status "$w" 60)
test "$st|$(sql "SELECT status_reason FROM series WHERE id = $w")" = \
	"failed|run: x86_64: no host of this arch is configured"
ok $? "the watched series is fetched and applied ($st)"
sql "SELECT base_reason FROM series WHERE id = $w" |
	grep -q "tree small: it lists netdev"
ok $? "its tree was chosen by its list"
c=$(sql "SELECT applied_commit FROM patch WHERE series_id = $w AND idx = 1")
test -n "$c" && test "$(git -C "$tree" show "$c:net/core/dev.c")" = b
ok $? "its patched commit changes net/core/dev.c"
test "$(sql "SELECT count(*) FROM series WHERE list = 'netdev'")" = 1
ok $? "queued once"

# --- stopping ----------------------------------------------------------------
daemon_stop TERM
ok $? "SIGTERM: exit 0 with the watcher running"
grep -q "kregressd: stopped" "$tmp/daemon.log"
ok $? "stopped cleanly"

if [ $tap_failed != 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$tmp/daemon.log"
fi
done_testing
