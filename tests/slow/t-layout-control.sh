#!/bin/bash
# t-layout-control.sh - the layout control through kregressd: a
# significant change is measured again on base and patched rebuilt with
# every function and loop aligned to 64 bytes, and the comparison says
# whether it stayed.
#
# config.example.json with paths, ports and the token changed, x86_64
# only, layout control of every run (stats.layout_control "always": the
# shipped "real-time" makes none of instruction time, which
# t-defaults-e2e.sh checks) and a budget of 8 boots a side.  The plan is
# the shipped TCG plan's huge-page fault line alone, so that the two runs
# cost seconds a boot, not the whole plan's 13 s.  The patch clears each
# subpage of a huge page twice (a real cost of what the patch does): it
# is a regression as built, and the control confirms it.  The aligned
# kernels are real builds in a slot of their own (KCFLAGS in their
# configuration key, and -O2, without which GCC ignores the alignment):
# mm/memory.c's functions start on 64-byte boundaries in the aligned
# base's System.map, not all of them in the as-built one's; their run is
# a run of its own; the result is on the comparison, in `kregress
# results` and in the report.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/shipped-config.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
set -u
KR=$KREGRESS_BUILD/kregress
daemon_vm_setup kregress-layout$$- layout-token-0123456789abcdef
tree=$(linux_tree) || skip_all "no linux-source-6.1 tree or tarball"
base=$(git -C "$tree" rev-parse HEAD)

plan 14

# The shipped TCG plan's header and its THP fault run, nothing else.
awk '/^kregress-plan/ { on = 1 } on { print } /^timeout/ { on = 0 }
	/^thp always$/ && !done { getline r
		if (r ~ /^run thp-fault/) { print; print r; done = 1 } }' \
	"$KREGRESS_SRC/workloads/plans/default-tcg.plan" >"$tmp/thp.plan"
grep -q '^run thp-fault --size-mb 32' "$tmp/thp.plan" &&
	grep -q '^clock instructions$' "$tmp/thp.plan"
ok $? "the plan: the shipped TCG plan's huge-page fault run ($(grep -c . "$tmp/thp.plan") lines)"

shipped_config "http://127.0.0.1:9/new.atom" "$tree" <<PYCFG
c["stats"]["max_boots_per_side"] = 8
c["stats"]["layout_control"] = "always"
for k in ("arches", "plans"):
    c[k] = {"x86_64": c[k]["x86_64"]}
c["plans"]["x86_64"]["tcg"] = "$tmp/thp.plan"
c["hosts"] = [h for h in c["hosts"] if h["arch"] == "x86_64"]
PYCFG
is "$(shipped_config_changed)" "api.listen api.tokens[0].value arches.arm64 cache_dir database hosts[1] lists[0].feed_url mail.outbox_dir plans.arm64 plans.x86_64.kvm plans.x86_64.tcg state_dir stats.layout_control stats.max_boots_per_side trees[0].path url_allowlist" \
	"paths, ports, the token, x86_64 only, the plan, the budget and the layout control differ from the shipped configuration"

# Each 4 KiB subpage of a huge page cleared twice.
c=$(git -C "$tree" show "$base:mm/memory.c" |
	sed '/^static void clear_subpage(/,/^}/ s/^\tclear_user_highpage(page + idx, addr);$/&\n\tclear_user_highpage(page + idx, addr);/' |
	GIT_AUTHOR_DATE=2026-11-01T00:00:00Z GIT_COMMITTER_DATE=2026-11-01T00:00:00Z \
	tree_commit "$tree" "$base" "mm: clear each subpage of a huge page twice" mm/memory.c)
git -C "$tree" format-patch -1 --stdout --base="$base" "$c" \
	>"$tmp/double-clear.mbox"
test "$(grep -c '^+	clear_user_highpage(page + idx, addr);$' "$tmp/double-clear.mbox")" = 1
ok $? "the patch: clear_subpage() clears twice"

cd "$KREGRESS_SRC" && daemon_start
ok $? "kregressd started"
"$KR" submit --server "$SRV" "$tmp/double-clear.mbox" >"$tmp/out" 2>&1
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "${id:-0}" 3600)
is "$st" done "the series went through the control to its report"
echo "# $(sql "SELECT status_reason FROM series WHERE id = ${id:-0}")"

metric="workload = 'thp-fault' AND metric = 'pass'"
row=$(sql "SELECT verdict || '|' || ifnull(layout, '-') || '|' ||
	ifnull(layout_verdict, '-') FROM comparison WHERE series_id = ${id:-0}
	AND $metric")
is "$row" "regression|confirmed|regression" \
	"thp-fault's pass: a regression as built, confirmed aligned"
sql "SELECT printf('#   as built %+.1f%% [%+.1f%%, %+.1f%%], aligned %+.1f%% [%+.1f%%, %+.1f%%]',
	change_pct, ci_low_pct, ci_high_pct, layout_change_pct,
	layout_ci_low_pct, layout_ci_high_pct) FROM comparison
	WHERE series_id = ${id:-0} AND $metric"
is "$(sql "SELECT layout_ci_low_pct > 3 AND abs(layout_change_pct -
	change_pct) < 0.2 * abs(change_pct) FROM comparison
	WHERE series_id = ${id:-0} AND $metric")" 1 \
	"the aligned change is the same size, its interval beyond +3%"
is "$(sql "SELECT count(*) FROM comparison WHERE series_id = ${id:-0} AND
	layout IS NULL AND verdict IN ('regression', 'improvement',
	'likely-regression', 'likely-improvement')")" 0 \
	"every significant change got an answer"

# The aligned kernels: builds and a run of their own.
is "$(sql "SELECT group_concat(x, ', ') FROM (SELECT sb.layout || ' ' ||
	sb.side || ' ' || b.status AS x FROM series_build sb JOIN build b ON
	b.id = sb.build_id WHERE sb.series_id = ${id:-0} ORDER BY sb.layout
	DESC, sb.side)")" "as-built base ok, as-built patched ok, aligned base ok, aligned patched ok" \
	"base and patched built as built and aligned"
is "$(sql "SELECT count(DISTINCT b.config_hash) FROM series_build sb JOIN
	build b ON b.id = sb.build_id WHERE sb.series_id = ${id:-0}")" 2 \
	"the aligned builds have a configuration key of their own"
# map LAYOUT: the System.map of the series' base build of that layout
map() {
	sql "SELECT b.image_path FROM series_build sb JOIN build b ON b.id =
		sb.build_id WHERE sb.series_id = ${id:-0} AND sb.side = 'base'
		AND sb.layout = '$1'" | sed 's|/[^/]*$|/System.map|'
}
# unaligned FILE: how many of mm/memory.c's text symbols (a sample:
# the ones the huge-page fault runs) start off a 64-byte boundary
unaligned() {
	awk '$2 ~ /^[tT]$/ && $3 ~ /^(clear_huge_page|clear_subpage|do_huge_pmd_anonymous_page|handle_mm_fault|__handle_mm_fault|do_anonymous_page|copy_user_huge_page|process_huge_page)$/ {
		n++; if (substr($1, length($1) - 1) !~ /^[048c]0$/) off++ }
		END { print n + 0, off + 0 }' "$1"
}
a=$(unaligned "$(map aligned)")
u=$(unaligned "$(map as-built)")
case "$a|$u" in
[1-9]*" 0|"[1-9]*" "[1-9]*) r=0 ;;
*) r=1 ;;
esac
ok $r "aligned: every sampled function on a 64-byte boundary ($a: found, off); as built not ($u)"
is "$(sql "SELECT layout || ' ' || status FROM run WHERE series_id = ${id:-0}
	ORDER BY id" | tr '\n' ' ')" "as-built decided aligned decided " \
	"the aligned kernels booted in a run of their own"

"$KR" results --server "$SRV" "$id" >"$tmp/results" 2>&1
grep -q "layout control (aligned run [0-9]*): confirmed: aligned regression" \
	"$tmp/results" && grep -q "aligned kernels (layout control): run" \
	"$tmp/results"
ok $? "kregress results shows the aligned run and the confirmation"
sed -n '/^ *\* thp-fault\/pass .* regression /,+2p' "$tmp/results" |
	sed 's/^/#   /'
m=$(sql "SELECT path FROM notification WHERE series_id = ${id:-0} AND
	role = 'public'")
body=$(tr '\n' ' ' <"${m:-/dev/null}" | tr -s ' ')
case $body in
*"Layout control (base and patched rebuilt with every function and loop aligned to 64 bytes"*"thp-fault/pass"*": confirmed: aligned regression +"*) r=0 ;;
*) r=1 ;;
esac
ok $r "the report says the control confirmed it"
