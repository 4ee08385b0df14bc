#!/bin/bash
# t-build-cancel.sh - the daemon's build stage when kregressd stops in the
# middle of a build, and when the base commit itself does not build.
#
# The configured tree's Makefile imitates kbuild (as in t-pipeline-e2e.sh:
# build.c, bubblewrap and the build rows are real, no kernel is compiled).
# While the file $F/slow exists, its image rule compiles a third object
# and then sleeps for minutes.  The story:
#   1. a series is submitted; its base build hangs in that sleep;
#   2. SIGTERM: the daemon exits within seconds, no build process is
#      left, the build row says "interrupted", the build job is queued
#      again (not counted as an attempt), nothing went into the artefact
#      cache and the slot's "last cold build" count was not written;
#   3. the slow file goes, the daemon starts again and completes the
#      series' builds; the base build continued the interrupted one in
#      the same object directory: reported cold, with the objects of both
#      attempts counted once;
#   4. a series on a base commit that does not build ends "failed" with
#      the base commit and the first error line, and its patched build is
#      never tried;
#   5. `kregress build` stops the same way on SIGTERM (exit 143) and the
#      next run completes the build;
#   6. and on Ctrl-C at its terminal (tests/fixtures/ctrl-c.py), exit 130.
set -u
B=${KREGRESS_BUILD:?}
S=${KREGRESS_SRC:?}
. "$S/tests/lib/tap.sh"
. "$S/tests/lib/daemon.sh"
. "$S/tests/lib/build-lib.sh"
PY=/usr/bin/python3
# the sandbox has its own /tmp: the switch for the slow build lives here
F=$(mktemp -d /var/tmp/t-build-cancel.XXXXXX)
at_exit 'rm -rf "$F"'
TOKEN=cancel-token-0123456789abcdef
cli=
at_exit '[ -z "$cli" ] || { kill -9 "$cli"; wait "$cli"; }'
chmod 755 "$F"	# the build user reads the switch (and $tmp's tree)
build_user_setup
export KREGRESS_CACHE=$tmp/cache
export KREGRESS_CONFIG_DIR=$S/builders/configs
# the sleep of the slow build, recognisable in the process list
SLEEP="sleep 3$$"

git_() {
	git -c user.name=Dev -c user.email=dev@example.org \
		-c init.defaultBranch=master "$@"
}

# Processes of this test's builds: the slow sleep, and bwrap or anything
# else whose command line names this test's cache.
build_procs() {
	pgrep -f -- "$SLEEP|$tmp/cache" | grep -v "^$$\$"
}

# wait_sleep: until the slow build sleeps (up to 60 s)
wait_sleep() {
	wait_for 60 pgrep -f -- "$SLEEP" >/dev/null
}

# term PID: SIGTERM and wait, at most 60 s (the slow build sleeps for
# hours, so an exit within that bound did not wait for it; how long a
# stop takes is tests/bench/stop-bench.sh's to print); sets st, the exit
# status (124: it did not stop)
term() {
	kill -TERM "$1"
	wait_pid 60 "$1"
	st=$?
}

# no_build_procs: nothing of this test's builds runs any more
no_build_procs() {
	left=$(build_procs)
	[ -z "$left" ]
}

# --- a small kernel-like tree ----------------------------------------------
tree=$tmp/linux
mkdir -p "$tree/mm"
for i in $(seq 1 40); do echo "/* memory.c line $i */"; done \
	>"$tree/mm/memory.c"
printf 'obj-y := memory.o\n' >"$tree/mm/Makefile"
printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$tree/Makefile"
cat >>"$tree/Makefile" <<MK
SHELL := /bin/bash
O := \$(KBUILD_OUTPUT)
tinyconfig:
	echo 'CONFIG_64BIT=y' > \$(O)/.config
olddefconfig:
	sort -u \$(O)/.config > \$(O)/.config.new
	mv \$(O)/.config.new \$(O)/.config
bzImage Image:
	@echo '  CC      mm/memory.o'
	@echo '  CC      init/main.o'
	@! test -e $F/slow || { echo '  CC      mm/slow.o'; $SLEEP; }
	@! grep -q BROKEN mm/memory.c || { echo 'mm/memory.c:30:1: error: expected ; before }'; exit 2; }
	mkdir -p \$(O)/arch/x86/boot \$(O)/arch/arm64/boot
	echo kernel > \$(O)/arch/x86/boot/bzImage
	echo kernel > \$(O)/arch/arm64/boot/Image
	echo elf > \$(O)/vmlinux
	echo 'ffffffff81000000 T _text' > \$(O)/System.map
MK
git_ -C "$tree" init -q && git_ -C "$tree" add -A &&
	git_ -C "$tree" commit -q -m "Linux 6.1-ish"
ok $? "a small git tree whose Makefile imitates kbuild"
base=$(git -C "$tree" rev-parse HEAD)
# a commit in the tree (not on its branch) that does not build
git_ -C "$tree" checkout -q -b broken-base
sed -i '30s|.*|BROKEN|' "$tree/mm/memory.c"
git_ -C "$tree" commit -q -a -m "mm: a base that does not build"
badbase=$(git -C "$tree" rev-parse HEAD)
git_ -C "$tree" checkout -q master

work=$tmp/work
git_ clone -q --no-single-branch "$tree" "$work"
# good: one patch on the tree's commit
git_ -C "$work" checkout -q -b good master
sed -i '10s|.*|/* memory.c line 10, faster */|' "$work/mm/memory.c"
git_ -C "$work" commit -q -a -m "mm: make line 10 faster" \
	-m "Signed-off-by: Dev <dev@example.org>"
git_ -C "$work" format-patch -q --thread --base=master --stdout \
	master..good >"$tmp/good.mbox"
# on the broken base: the patch itself is harmless
git_ -C "$work" checkout -q -b onbad origin/broken-base
sed -i '12s|.*|/* memory.c line 12, tidied */|' "$work/mm/memory.c"
git_ -C "$work" commit -q -a -m "mm: tidy line 12" \
	-m "Signed-off-by: Dev <dev@example.org>"
git_ -C "$work" format-patch -q --thread --base="$badbase" --stdout \
	"$badbase..onbad" >"$tmp/onbad.mbox"
grep -q "^base-commit: $badbase" "$tmp/onbad.mbox"
ok $? "series: one on the branch, one on a base that does not build"

cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ]
	},
	"trees": [ { "name": "small", "path": "$tree", "branch": "master" } ],
	"arches": { "x86_64": { "base_config": "tinyconfig" } },
	"hosts": []
}
CFG
export KREGRESS_TOKEN=$TOKEN
daemon_start
ok $? "kregressd started"

# --- 1. a build that hangs --------------------------------------------------
touch "$F/slow"
"$B/kregress" submit --server "$SRV" "$tmp/good.mbox" >"$tmp/out" 2>&1
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
test -n "$id"
ok $? "submit a series"
wait_sleep
ok $? "its base build is running (the fake make sleeps)"
bid=$(sql "SELECT build_id FROM series_build WHERE series_id = $id AND
	side = 'base'")
test "$(sql "SELECT status FROM build WHERE id = ${bid:-0}")" = building
ok $? "the base build row says building"
slot=$(ls -d "$tmp"/cache/slots/*/x86_64-* 2>/dev/null | head -1)

# --- 2. SIGTERM while it runs -------------------------------------------------
term "$daemon_pid"
daemon_pid=
test "$st" = 0
ok $? "SIGTERM during the build: the daemon exits 0 (got $st)"
wait_for 10 no_build_procs
ok $? "no build process is left${left:+: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")}"
test "$(sql "SELECT status || '|' || status_reason FROM build
	WHERE id = $bid")" = \
	"interrupted|stopped with the daemon; built again when it starts"
ok $? "the build row says interrupted, not failed"
test "$(sql "SELECT state || ':' || attempts FROM job WHERE series_id = $id
	AND kind = 'build'")" = "queued:0"
ok $? "the build job is queued again, no attempt counted"
test "$(sql "SELECT status FROM series WHERE id = $id")" = building
ok $? "the series is still building, no failure recorded"
grep -q "build: series $id: x86_64 base ${base:0:12}: stopped after" \
	"$tmp/daemon.log"
ok $? "the daemon logs the stopped build"
! test -e "$tmp/cache/builds/$base/"*/result.json
ok $? "nothing went into the artefact cache"
test -n "$slot" && ! test -e "$slot/cold-compiled" &&
	test "$(head -1 "$slot/resume")" = "$base 1 3" &&
	test -s "$slot/obj/.config"
ok $? "the slot keeps obj/ and remembers a cold attempt of 3 objects, no cold count"

# --- 3. the next start builds it ----------------------------------------------
rm -f "$F/slow"
daemon_start
ok $? "kregressd started again"
st=$(wait_status "$id" 60)
test "$st|$(sql "SELECT status_reason FROM series WHERE id = $id")" = \
	"failed|run: x86_64: no host of this arch is configured"
ok $? "the builds complete; run stops: no host configured ($st)"
# (the failed run queues a report job, which finds nothing to tell)
for _ in $(seq 100); do
	jobs=$(sql "SELECT kind || ':' || state FROM job WHERE series_id = $id
		ORDER BY id" | tr '\n' ' ')
	[ "$jobs" = "fetch:done apply:done build:done run:failed report:done " ] &&
		break
	sleep 0.1
done
test "$jobs" = "fetch:done apply:done build:done run:failed report:done "
ok $? "jobs: the same build job ran to done"
test "$(sql "SELECT sb.side || ':' || b.status || ':' || b.cold || ':' ||
	b.objects_compiled FROM series_build sb JOIN build b ON
	b.id = sb.build_id WHERE sb.series_id = $id ORDER BY sb.side" |
	tr '\n' ' ')" = "base:ok:1:3 patched:ok:0:2 "
ok $? "base: ok, cold, 3 objects over both attempts; patched: incremental"
test "$(cat "$slot/cold-compiled" 2>/dev/null)" = 3 &&
	! test -e "$slot/resume"
ok $? "the slot's cold count is the whole build's, the resume note is gone"
test -s "$tmp/cache/builds/$base/x86_64-$(basename "$slot" | sed 's/^x86_64-//')/result.json"
ok $? "the base build is in the artefact cache now"

# --- 4. a base that does not build ---------------------------------------------
"$B/kregress" submit --server "$SRV" "$tmp/onbad.mbox" >"$tmp/out" 2>&1
id2=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "$id2" 60)
test "$(sql "SELECT base_used FROM series WHERE id = $id2")" = "$badbase"
ok $? "the series is applied on its base-commit"
reason=$(sql "SELECT status_reason FROM series WHERE id = $id2")
test "$st|$reason" = \
	"failed|build: x86_64: base ${badbase:0:12} does not build: mm/memory.c: error: expected ; before }"
ok $? "failed, naming the base commit and the first error line: $reason"
test "$(sql "SELECT sb.side || ':' || b.commit_id || ':' || b.status FROM
	series_build sb JOIN build b ON b.id = sb.build_id
	WHERE sb.series_id = $id2")" = "base:$badbase:failed"
ok $? "one build for it: the base, failed"
head=$(sql "SELECT applied_commit FROM patch WHERE series_id = $id2 AND
	idx = 1")
test -n "$head" && test "$(sql "SELECT count(*) FROM build WHERE
	commit_id = '$head'")" = 0 && ! test -e "$tmp/cache/builds/$head"
ok $? "the patched commit was never built"
test "$(sql "SELECT kind || ':' || state FROM job WHERE series_id = $id2
	AND kind IN ('build', 'run')")" = "build:failed"
ok $? "its build job failed for good (no retry), no run queued"
"$B/kregress" status --server "$SRV" "$id2" >"$tmp/onbad.txt"
grep -q "^  build:       x86_64 base ${badbase:0:12} failed" "$tmp/onbad.txt"
ok $? "kregress status shows the failed base build"

daemon_stop TERM
ok $? "SIGTERM when idle: exit 0"

# --- 5. kregress build, stopped by SIGTERM ---------------------------------------
touch "$F/slow"
kb=("$B/kregress" build --tree "$tree" --rev master --arch arm64
	--cache "$tmp/cli-cache")
"${kb[@]}" >"$tmp/cli.out" 2>&1 &
cli=$!
wait_sleep
ok $? "kregress build of the slow tree is running"
term "$cli"
cli=
test "$st" = 143
ok $? "kregress build: SIGTERM stops it, exit 143 (got $st)"
wait_for 10 no_build_procs && grep -q "^build: interrupted arm64" "$tmp/cli.out" &&
	grep -q "^reason: stopped on request" "$tmp/cli.out"
ok $? "it says interrupted; no build process is left"
rm -f "$F/slow"
timeout 60 "${kb[@]}" --json >"$tmp/cli.json" 2>"$tmp/cli.err"
test "$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["status"], d["cold"], d["compiled"])' "$tmp/cli.json")" = "ok True 3"
ok $? "the next run completes it: ok, cold, 3 objects over both attempts"

# --- 6. kregress build on a terminal, stopped by Ctrl-C ----------------------
touch "$F/slow"
$PY "$S/tests/fixtures/ctrl-c.py" "$SLEEP" "$tmp/ctrl-c.out" \
	"$B/kregress" build --tree "$tree" --rev master --arch x86_64 \
	--cache "$tmp/cli-cache" 2>"$tmp/ctrl-c.err"
st=$?
test "$st" = 130
ok $? "kregress build: Ctrl-C on its terminal stops it, exit 130 (got $st)" ||
	sed 's/^/# /' "$tmp/ctrl-c.err" "$tmp/ctrl-c.out"
wait_for 10 no_build_procs && grep -q "build: interrupted x86_64" "$tmp/ctrl-c.out" &&
	grep -q "^reason: stopped on request" "$tmp/ctrl-c.out"
ok $? "it says interrupted; no build process is left"
rm -f "$F/slow"

if [ $tap_failed != 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$tmp/daemon.log"
fi
done_testing
