#!/bin/bash
# t-defaults-e2e.sh - the product on its shipped defaults, end to end.
#
# kregressd runs on config.example.json with only paths, ports, the token
# and a smaller boot budget changed: the shipped plans, the shipped
# builder fragments, two hosts on the local libvirt (x86_64 auto, arm64
# tcg), two workers, the linux-mm list watched.  A lore-like server on
# loopback (tests/fixtures/fake-lore.py --threads) serves threads made
# with git format-patch from the tree `kregress tree import` made of
# Debian's linux-source, as `make run` does.  Five series:
#
#   the bundled example (tests/fixtures/examples), dropping `select
#     HAVE_MOVE_PUD` on x86 and on arm64, submitted by URL
#                               -> regression on mremap's 1 GiB move, both
#                                  arches, with its change and interval
#   a comment-only change under mm/, found by the list watcher in the
#     list's Atom feed          -> no regression, improvement or likely-*
#                                  on any metric
#   the arm64 patch of seed 000 -> does-not-apply, naming file and hunk
#   a patch that panics at boot -> boot-failed with the panic line
#   a patch that breaks the build -> build-failed with the first error
#
# All share one base build per arch.  Each ends with its report in the
# outbox (the shipped mail policy): the regression's subject, thread and
# table are checked, and every other kind's subject.  The test also checks
# that the built kernels have every option the shipped plans need, and
# that no two boots ever shared a host beyond its capacity of one.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/shipped-config.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
set -u
PY=/usr/bin/python3
KR=$KREGRESS_BUILD/kregress
daemon_vm_setup kregress-e2e$$- e2e-token-0123456789abcdef
tree=$(linux_tree) || skip_all "no linux-source-6.1 tarball to import"
base=$(git -C "$tree" rev-parse HEAD)

plan 50

# series_of MSGID: the id of the series of the thread with that Message-ID
series_of() {
	sql "SELECT id FROM series WHERE msgid = '$1' ORDER BY id DESC LIMIT 1"
}
final() {	# final ID: its status once final, else empty
	case $(sql "SELECT status FROM series WHERE id = ${1:-0}") in
	done | *failed | does-not-apply | incomplete) return 0 ;;
	esac
	return 1
}
# mbox MSGID SUBJECT PATH < CONTENT: git format-patch of a commit on the
# base that replaces PATH.
mbox() {
	local c
	c=$(GIT_AUTHOR_DATE=2026-11-01T00:00:00Z \
	    GIT_COMMITTER_DATE=2026-11-01T00:00:00Z \
	    tree_commit "$tree" "$base" "$2" "$3") || return 1
	git -C "$tree" format-patch -1 --stdout --base="$base" "$c" |
		sed "s/^Subject: .*/&\nMessage-ID: <$1@example.org>/"
}

# The threads the lore-like server serves.
mkdir -p "$tmp/threads"
ex=$KREGRESS_SRC/tests/fixtures/examples/move-pud-revert.mbox
cp "$ex" "$tmp/threads/"
pud_msgid=$(sed -n 's/^Message-I[dD]: <\(cover\.[^>]*\)>$/\1/p' "$ex")
(git -C "$tree" show "$base:mm/mremap.c" |
	sed '0,/^#include/s//\/* mremap(2): move, grow or shrink a mapping. *\/\n&/') |
	mbox e2e-comment "mm/mremap: say what the file is for" mm/mremap.c \
	>"$tmp/threads/e2e-comment.mbox"
git -C "$tree" show "$base:init/main.c" |
	sed '/^static int __ref kernel_init(void \*unused)$/,/^\tint ret;$/ s/^\tint ret;$/&\n\n\tpanic("kregress test: this patch panics at boot");/' |
	mbox e2e-panic "init: panic at boot" init/main.c \
	>"$tmp/threads/e2e-panic.mbox"
(git -C "$tree" show "$base:mm/memory.c"
 echo "int kregress_broken(void) { return 0 }") |
	mbox e2e-broken "mm: a patch that does not build" mm/memory.c \
	>"$tmp/broken.mbox"
test -n "$pud_msgid" && grep -q '^+/\* mremap(2)' "$tmp/threads/e2e-comment.mbox" &&
	grep -q 'this patch panics' "$tmp/threads/e2e-panic.mbox"
ok $? "series made with git format-patch on the imported 6.1 tree"

lore_start --root "$tmp" --threads "$tmp/threads" --list linux-mm
ok $? "a lore-like server serves them on loopback"

# config.example.json with paths, ports, the token and the boot budget
# changed; nothing else.
shipped_config "$LORE/linux-mm/new.atom" "$tree" <<'PYCFG'
c["stats"]["max_boots_per_side"] = 8
PYCFG
(cd "$KREGRESS_SRC" && "$KREGRESS_BUILD/kregressd" -n -c "$tmp/config.json") \
	>"$tmp/out" 2>&1
ok $? "the configuration passes kregressd -n ($(cat "$tmp/out"))"
changed=$(shipped_config_changed)
is "$changed" "api.listen api.tokens[0].value cache_dir database lists[0].feed_url mail.outbox_dir plans.arm64.kvm plans.arm64.tcg plans.x86_64.kvm plans.x86_64.tcg state_dir stats.max_boots_per_side trees[0].path url_allowlist" \
	"only paths, ports, the token and the boot budget differ from the shipped configuration"

# The daemon runs where `make run` runs it: in the source tree.
cd "$KREGRESS_SRC" && daemon_start
ok $? "kregressd started on the shipped defaults"

"$KR" submit --server "$SRV" "$LORE/linux-mm/$pud_msgid/" >"$tmp/out" 2>&1
pud=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
"$KR" submit --server "$SRV" "$KREGRESS_SRC"/tests/fixtures/mail/seeds/000_*.txt \
	>"$tmp/out" 2>&1
seed=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
"$KR" submit --server "$SRV" "$LORE/linux-mm/e2e-panic@example.org/" \
	>"$tmp/out" 2>&1
panic=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
"$KR" submit --server "$SRV" - <"$tmp/broken.mbox" >"$tmp/out" 2>&1
broken=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
test -n "$pud" && test -n "$seed" && test -n "$panic" && test -n "$broken"
ok $? "four series submitted: by URL, by file and on stdin"

# The comment-only series comes in through the list watcher.
for ((i = 0; i < 600; i++)); do
	comment=$(series_of e2e-comment@example.org)
	[ -n "$comment" ] && break
	sleep 0.2
done
test -n "$comment"
ok $? "the list watcher found the comment-only series in the feed"

for ((i = 0; i < 3600 * 5; i++)); do
	final "$pud" && final "$seed" && final "$panic" && final "$broken" &&
		final "$comment" && break
	daemon_gone && break
	sleep 0.2
done
for s in "$pud" "$seed" "$panic" "$broken" "$comment"; do
	echo "# series $s: $(sql "SELECT status || ': ' || ifnull(status_reason, '')
		FROM series WHERE id = ${s:-0}")"
done

# 1. The bundled example: a regression of the 1 GiB move on both arches.
is "$(sql "SELECT status || '|' || ifnull(status_reason, '') FROM series WHERE id = $pud")" \
	"done|" "the HAVE_MOVE_PUD revert went through run, analyze and report"
for arch in x86_64 arm64; do
	is "$(sql "SELECT verdict || ' ' || is_primary FROM comparison
		WHERE series_id = $pud AND arch = '$arch' AND
		workload = 'mremap' AND metric = 'move_pud'")" "regression 1" \
		"$arch: mremap/move_pud is a regression (a primary metric)"
	r=$(sql "SELECT change_pct > 100 AND ci_low_pct > 3 FROM comparison
		WHERE series_id = $pud AND arch = '$arch' AND
		metric = 'move_pud'")
	is "$r" 1 "$arch: more than doubled, the whole interval above +3% ($(sql "SELECT printf('%+.0f%% [%+.0f%%, %+.0f%%]', change_pct, ci_low_pct, ci_high_pct) FROM comparison WHERE series_id = $pud AND arch = '$arch' AND metric = 'move_pud'"))"
	is "$(sql "SELECT accel || ' ' || clock FROM run WHERE series_id = $pud
		AND arch = '$arch' ORDER BY id DESC LIMIT 1")" \
		"tcg instructions" \
		"$arch: booted under TCG with the shipped plan's instruction time"
done
# The shipped stats.layout_control (real-time) makes no layout control
# of instruction time, and says why on the metric; the series passes
# the control's stages without building.
is "$(sql "SELECT count(*) || ' ' || count(layout) || ' ' ||
	min(layout_reason LIKE 'instruction time counts instructions%')
	FROM comparison WHERE series_id = $pud AND metric = 'move_pud'")" 	"2 0 1" "no layout control of the instruction-time regression, and why"
is "$(sql "SELECT count(*) FROM series_build WHERE series_id = $pud AND
	layout = 'aligned'") $(sql "SELECT group_concat(state, ',') FROM
	(SELECT DISTINCT state FROM job WHERE series_id = $pud AND kind LIKE
	'layout-%')")" "0 done" 	"the layout control's stages ran and built nothing"
"$KR" results --server "$SRV" "$pud" >"$tmp/results" 2>&1
grep -q "mremap/move_pud .* regression" "$tmp/results"
ok $? "kregress results shows the regression"
grep -q "no layout control: instruction time counts" "$tmp/results"
ok $? "and why it had no layout control"
sed 's/^/#   /' "$tmp/results" | grep -e 'run ' -e move_pud
"$KR" status --json --server "$SRV" "$pud" >"$tmp/status.json" 2>&1
$PY -c 'import json, sys
s = json.load(open(sys.argv[1]))
c = [c for c in s["comparisons"] if c["metric"] == "move_pud"]
assert len(c) == 2 and all(x["is_primary"] == 1 for x in c)
assert {r["clock"] for r in s["runs"]} == {"instructions"}
assert sorted(j["arch"] for j in s["jobs"] if j["kind"] == "run") == ["arm64", "x86_64"]' \
	"$tmp/status.json"
ok $? "the API gives the comparisons, the runs' clock and a run job per arch"

# 2. A comment-only change: no false alarm.
is "$(sql "SELECT list FROM series WHERE id = $comment")" linux-mm \
	"the comment-only series is filed under its list"
is "$(sql "SELECT status || '|' || ifnull(status_reason, '') FROM series WHERE id = $comment")" \
	"done|" "it went through run, analyze and report"
is "$(sql "SELECT count(*) FROM comparison WHERE series_id = $comment AND
	(verdict IN ('regression', 'improvement') OR verdict LIKE 'likely-%')")" \
	0 "no regression, improvement or likely-* on any metric"
# The runner's stop and the stored verdicts come from the same rule: a
# run is decided exactly when every primary metric is decisive.
is "$(sql "SELECT group_concat(r.arch || ':' || r.status || ':' ||
	((SELECT count(*) FROM comparison c WHERE c.run_id = r.id AND
	  c.is_primary AND c.verdict NOT IN ('regression', 'improvement',
	  'minor', 'no-change')) = 0), ' ') FROM run r WHERE r.series_id IN
	($comment, $pud) AND r.status IN ('decided', 'budget')")" \
	"$(sql "SELECT group_concat(arch || ':' || status || ':' ||
	(status = 'decided'), ' ') FROM run WHERE series_id IN ($comment,
	$pud) AND status IN ('decided', 'budget')")" \
	"a run stopped as decided exactly when its primary metrics are decisive"
test "$(sql "SELECT count(*) FROM run r WHERE r.series_id IN ($comment,
	$pud) AND r.status = 'decided' AND (SELECT count(*) FROM boot b
	WHERE b.run_id = r.id AND b.status = 'ok') < 16")" -ge 1
ok $? "adaptive rounds stopped a run before its budget of 8 boots a side"
echo "# boots per side: $(sql "SELECT group_concat(arch || ' ' || side || ' ' || n, ', ')
	FROM (SELECT r.arch, b.side, count(*) n FROM boot b JOIN run r ON
	r.id = b.run_id WHERE r.series_id IN ($comment, $pud) AND
	b.status = 'ok' GROUP BY r.series_id, r.arch, b.side)")"

# 3. Seed 000's arm64 patch does not apply to 6.1.
st=$(sql "SELECT status || '|' || status_reason FROM series WHERE id = $seed")
case $st in
"does-not-apply|"*arch/arm64/include/asm/page.h*"@@ -35,6 +35,9 @@"*) r=0 ;;
*) r=1 ;;
esac
ok $r "seed 000: does-not-apply, naming the file and hunk ($st)"

# 4. A patch that panics at boot.
st=$(sql "SELECT status || '|' || status_reason FROM series WHERE id = $panic")
case $st in
"boot-failed|run: "*"the patched kernel did not boot"*"Kernel panic - not syncing: kregress test: this patch panics at boot"*) r=0 ;;
*) r=1 ;;
esac
ok $r "a patch that panics: boot-failed with the panic line"
is "$(sql "SELECT group_concat(DISTINCT status) FROM boot WHERE series_id =
	$panic AND side = 'patched' AND status != 'running'")" panic \
	"its patched boots are recorded as panics, on either arch"
is "$(sql "SELECT count(*) FROM comparison WHERE series_id = $panic")" 0 \
	"and no performance verdict"

# 5. A patch that breaks the build.
st=$(sql "SELECT status || '|' || status_reason FROM series WHERE id = $broken")
case $st in
"build-failed|build: "*": mm/memory.c:"*"error: expected "*) r=0 ;;
*) r=1 ;;
esac
ok $r "a patch that does not build: build-failed with the first error ($st)"

# 6. The reports, in the outbox (the shipped policy sends nothing).
# eml ID KIND: the outbox file of series ID's report of KIND, once written
eml() {
	wait_sql 60 "SELECT status FROM notification WHERE series_id = ${1:-0}
		AND kind = '$2'" written >/dev/null 2>&1 || return 1
	sql "SELECT path FROM notification WHERE series_id = ${1:-0} AND
		kind = '$2'"
}
# hdr FILE NAME: a header of a message, unfolded
hdr() { $PY - "$1" "$2" <<'PYEOF'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                   policy=email.policy.default)
print(m[sys.argv[2]] or "")
PYEOF
}
# The mail calls it a regression only once Holm's correction over the
# run's primary metrics confirms it, and the runner boots on until it can
# (8 boots a side for 13 primary metrics): a regression report.
kind=$(sql "SELECT kind FROM notification WHERE series_id = $pud AND
	role = 'public'")
m=$(eml "$pud" "$kind")
ok $? "the regression's report is in the outbox ($kind: $m)"
is "$kind" regression "it is a regression report: the run went on until Holm could confirm it"
is "$(hdr "$m" Subject)" \
	"[kregress $kind] Re: [PATCH 0/2] mm/mremap: drop PUD-level moves (a kregress example)" \
	"its subject: the kind, then Re: and the cover letter's subject"
is "$(hdr "$m" In-Reply-To) $(hdr "$m" References)" \
	"<$pud_msgid> <$pud_msgid>" "in the thread: In-Reply-To and References the cover letter"
fmt_row() {	# the numbers a report prints for arch $1's move_pud
	sql "SELECT printf('%+.1f%%  [%+.1f%%, %+.1f%%]', change_pct,
		ci_low_pct, ci_high_pct) FROM comparison WHERE series_id = $pud
		AND arch = '$1' AND metric = 'move_pud'"
}
r=0
for arch in x86_64 arm64; do
	# the run's title, then the table's move_pud row and its numbers
	awk -v a="$arch on host" -v want="$(fmt_row "$arch")" '
		index($0, a) == 1 { inrun = 1 }
		inrun && /^  mremap\/move_pud .* regression$/ { row = 1 }
		row && index($0, want) { found = 1; exit }
		END { exit !found }' "$m" || r=1
done
ok $r "its table: move_pud a regression on both arches, with the stored change and interval"
body=$(sed -n '/^$/,$p' "$m" | tr '\n' ' ' | tr -s ' ')
case $kind:$body in
regression:" Regression: mremap/move_pud +"*"% on "*", host "*) r=0 ;;
*) r=1 ;;
esac
ok $r "its lead names move_pud, its change and what it is"
case $body in
*"Layout control "*" x86_64: no control: instruction time counts instructions"*" arm64: no control: instruction time"*) r=0 ;;
*) r=1 ;;
esac
ok $r "it says why there was no layout control, once per arch"
is "$(awk '{ if (length($0) > w) w = length($0) } END { print w <= 78 }' "$m")" 1 \
	"no line of it over 78 columns"
sed 's/^/#   /' "$m" | sed -n '1,/^#   Environment/p'
# No false alarm: no-change when every primary metric is decided, else
# inconclusive (a run that spent its budget undecided).
open=$(sql "SELECT count(*) FROM comparison WHERE series_id = $comment AND
	is_primary AND verdict IN ('inconclusive', 'insufficient-data')")
want=$([ "$open" = 0 ] && echo no-change || echo inconclusive)
m=$(eml "$comment" "$want")
ok $? "the comment-only series: a $want report ($open primary metrics undecided)"
for s in "$seed does-not-apply" "$panic boot-failed" "$broken build-failed"; do
	set -- $s
	m=$(eml "$1" "$2")
	case $(hdr "$m" Subject) in
	"[kregress $2] Re: "*) r=0 ;; *) r=1 ;;
	esac
	ok $r "series $1: a $2 report ($(hdr "$m" Subject))"
done

# The product's own pieces, as built.
is "$(sql "SELECT count(DISTINCT b.id) FROM build b JOIN series_build sb ON
	sb.build_id = b.id WHERE sb.side = 'base' AND b.commit_id = '$base'")" 2 \
	"one base build per arch, shared by every series"
for arch in x86_64 arm64; do
	img=$(sql "SELECT b.image_path FROM build b JOIN series_build sb ON
		sb.build_id = b.id WHERE sb.series_id = $pud AND sb.side = 'base'
		AND b.arch = '$arch'")
	"$KR" plan check --config "$(dirname "$img")/config" \
		"$KREGRESS_SRC"/workloads/plans/*.plan >"$tmp/out" 2>&1
	ok $? "$arch: the built .config has every option the shipped plans need"
	sed 's/^/#   /' "$tmp/out"
done
# Capacity 1 per host: a host's boots never overlap (started_at is in
# seconds, so allow one second).
overlaps=$(sql "SELECT count(*) FROM boot a JOIN boot b ON a.host_id =
	b.host_id AND a.id < b.id AND a.started_at IS NOT NULL AND
	b.started_at IS NOT NULL AND b.started_at * 1000 + 1000 <
	a.started_at * 1000 + a.duration_ms AND a.started_at * 1000 + 1000 <
	b.started_at * 1000 + b.duration_ms")
is "$overlaps" 0 "no two boots shared a host of capacity 1 ($(sql "SELECT count(*) FROM boot") boots)"
# Zero-swap in a guest with swap (the host running the tests has none):
# every complete boot gave its four metrics, its guest set up the
# shipped plan's zram swap, and each page-out really went to swap.
is "$(sql "SELECT count(*) FROM boot b WHERE b.status = 'ok' AND
	(SELECT count(DISTINCT s.metric) FROM sample s WHERE s.boot_id = b.id
	 AND s.workload = 'zero-swap') = 4")" \
	"$(sql "SELECT count(*) FROM boot WHERE status = 'ok'")" \
	"zero-swap: its four metrics from every complete boot ($(sql "SELECT count(*) FROM boot WHERE status = 'ok'") boots)"
sql "SELECT console_path FROM boot WHERE status = 'ok'" >"$tmp/ok-logs"
$PY - "$tmp/ok-logs" <<'PYSWAP'
import json, re, sys
bad = []
pageouts = 0
for path in open(sys.argv[1]).read().split():
    recs = [json.loads(m.group(1)) for m in
            re.finditer(r"^KREGRESS 1 \S+ \d+ (\{.*\}) [0-9a-f]{8}\r?$",
                        open(path, errors="replace").read(), re.M)]
    env = [r for r in recs if r.get("type") == "env"]
    if not env or not env[0].get("swap", "").startswith("zram "):
        bad.append("%s: env swap %r" % (path, env and env[0].get("swap")))
    for r in recs:
        if r.get("workload") != "zero-swap" or \
                not r.get("metric", "").startswith("pageout_"):
            continue
        pageouts += 1
        info = r.get("info", {})
        pages = r["params"]["size-mb"] * 256
        if not info.get("pswpout", 0) > 0 or \
                info.get("present_after_pageout", pages) > pages // 2:
            bad.append("%s: %s %s" % (path, r["metric"], info))
for b in bad[:5]:
    print("# " + b)
sys.exit(1 if bad or not pageouts else 0)
PYSWAP
ok $? "zero-swap: each guest swapped to zram, each page-out counted in /proc/vmstat pswpout"
is "$(sql "SELECT count(*) FROM series WHERE msgid = 'e2e-comment@example.org'")" 1 \
	"the watcher queued the series once"
is "$(sql "SELECT count(*) FROM boot WHERE console_path IS NOT NULL AND
	console_path LIKE '$tmp/state/runs/%'")" "$(sql "SELECT count(*) FROM boot")" \
	"every boot's console log is kept under STATE_DIR/runs/"

daemon_stop TERM
is $? 0 "SIGTERM: the daemon exits cleanly"
if [ "$tap_failed" -gt 0 ]; then
	echo "# daemon log (tail):"
	tail -60 "$daemon_log" | sed 's/^/#   /'
fi
done_testing
