#!/bin/bash
# t-daemon-hosts.sh - hosts that fail, and adaptive rounds, through the
# real kregressd on the shipped defaults.
#
# kregressd runs on config.example.json with only paths, ports, the token
# and the boot budget changed, plus two x86_64 hosts that fail:
#
#   down    qemu+tcp://127.0.0.1:1/system: nothing answers; left out
#           before the run's first boot
#   broken  test:///default: libvirt's test driver answers and gives its
#           capabilities (a fixed tcg host needs no probe boot) but
#           cannot create the domain, like a host whose hypervisor is
#           broken; its boots fail, and after three host failures in a
#           row the runner leaves it out
#
# One comment-only series, made with git format-patch on the imported
# tree, gets its verdict from the healthy host; both failing hosts end
# unhealthy in GET /api/v1/hosts with their reason, and no boot ran on
# `broken` once it was left out.
#
# The budget is 6 boots a side: with the shipped min_samples of 5 and
# the runner's two pairs a round, the looks after rounds 1 and 2 cannot
# decide anything (fewer than 5 boots a side), and the third is at the
# budget.  The run, which loses a slot to `broken`, takes the rounds the
# runner's rule gives for the boots it had, checked against that rule
# (runner_round(), runner_budget() in daemon/runner.c) from the stored
# rows.  The failing hosts are x86_64's, so only x86_64 is configured:
# an arm64 run would add minutes and nothing the rule does not cover.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/shipped-config.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
set -u
PY=/usr/bin/python3
KR=$KREGRESS_BUILD/kregress
daemon_vm_setup kregress-hosts$$- hosts-token-0123456789abcdef
tree=$(linux_tree) || skip_all "no linux-source-6.1 tarball to import"
base=$(git -C "$tree" rev-parse HEAD)

plan 17

# The comment-only patch of t-defaults-e2e.sh, the same commit (so its
# builds are shared through the cache), under a Message-ID of its own.
c=$( (git -C "$tree" show "$base:mm/mremap.c" |
	sed '0,/^#include/s//\/* mremap(2): move, grow or shrink a mapping. *\/\n&/') |
	GIT_AUTHOR_DATE=2026-11-01T00:00:00Z \
	GIT_COMMITTER_DATE=2026-11-01T00:00:00Z \
	tree_commit "$tree" "$base" "mm/mremap: say what the file is for" \
		mm/mremap.c) &&
git -C "$tree" format-patch -1 --stdout --base="$base" "$c" |
	sed "s/^Subject: .*/&\nMessage-ID: <hosts-comment@example.org>/" \
	>"$tmp/comment.mbox"
grep -q '^+/\* mremap(2)' "$tmp/comment.mbox"
ok $? "a comment-only series made with git format-patch on the 6.1 tree"

# config.example.json with paths, ports, the token and the boot budget
# changed (the watched feed on a loopback port where nothing listens, so
# the test queues only its own series), x86_64 only, and two failing
# hosts added.
chmod 755 "$tmp"
shipped_config http://127.0.0.1:1/linux-mm/new.atom "$tree" <<'PYCFG'
c["stats"]["max_boots_per_side"] = 6
for k in ("arches", "plans"):
    c[k] = {"x86_64": c[k]["x86_64"]}
c["hosts"] = [h for h in c["hosts"] if h["arch"] == "x86_64"] + [
    {"name": "down", "uri": "qemu+tcp://127.0.0.1:1/system",
     "arch": "x86_64", "accel": "tcg", "capacity": 1},
    {"name": "broken", "uri": "test:///default", "arch": "x86_64",
     "accel": "tcg", "capacity": 1},
]
PYCFG
(cd "$KREGRESS_SRC" && "$KREGRESS_BUILD/kregressd" -n -c "$tmp/config.json") \
	>"$tmp/out" 2>&1
ok $? "the configuration passes kregressd -n ($(cat "$tmp/out"))"
changed=$(shipped_config_changed)
is "$changed" "api.listen api.tokens[0].value arches.arm64 cache_dir database hosts[1].arch hosts[1].name hosts[1].uri hosts[2] lists[0].feed_url mail.outbox_dir plans.arm64 plans.x86_64.kvm plans.x86_64.tcg state_dir stats.max_boots_per_side trees[0].path url_allowlist" \
	"only paths, ports, the token, the boot budget, x86_64 alone and two failing hosts differ from the shipped configuration"

# The daemon runs where `make run` runs it: in the source tree.
cd "$KREGRESS_SRC" && daemon_start
ok $? "kregressd started on the shipped defaults and two failing hosts"
"$KR" submit --server "$SRV" "$tmp/comment.mbox" >"$tmp/out" 2>&1
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
test -n "$id"
ok $? "the series is submitted ($(cat "$tmp/out"))"
id=${id:-0}
st=$(wait_status "$id" 3600)
is "$st|$(sql "SELECT ifnull(status_reason, '') FROM series WHERE id = $id")" \
	"done|" "the series went through run, analyze and report"
echo "# x86_64: $(sql "SELECT 'run ' || id || ' ' || status || ' after ' ||
	rounds || ' rounds, ' || accel || ', ' || clock FROM run
	WHERE series_id = $id")"

# 1. The failing hosts, as a user sees them.
curl -sf "$SRV/api/v1/hosts" >"$tmp/hosts.json"
ok $? "GET /api/v1/hosts answers"
hosts() {	# NAME: healthy|health_reason of host NAME in the API's answer
	$PY -c 'import json, sys
h = [h for h in json.load(open(sys.argv[1]))["items"]
     if h["name"] == sys.argv[2]]
print("%s|%s" % (h[0]["healthy"], h[0]["health_reason"] or "") if h else "")' \
		"$tmp/hosts.json" "$1"
}
is "$(hosts local)" "1|" "the healthy x86_64 host stays healthy"
is "$(hosts down)" "0|libvirt cannot be reached" \
	"the host that does not answer: unhealthy, 'libvirt cannot be reached'"

# Every boot the series made on `broken` failed with libvirt's own
# error, three in a row, and none started on it after the third.  (Were
# the x86_64 run KVM, the tcg host would not be in it: never a mix.)
is "$(sql "SELECT count(*) FROM boot b JOIN host h ON h.id = b.host_id
	WHERE b.series_id = $id AND h.name = 'down'")" 0 \
	"no boot went to the host that does not answer"
if [ "$(sql "SELECT accel FROM run WHERE series_id = $id AND
	arch = 'x86_64'")" = tcg ]; then
	is "$(hosts broken)" "0|3 boot failures of the host in a row" \
		"the host whose boots fail: unhealthy, '3 boot failures of the host in a row'"
	is "$(sql "SELECT group_concat(b.status, ' ') FROM boot b JOIN host h
		ON h.id = b.host_id WHERE b.series_id = $id AND
		h.name = 'broken' AND
		b.status_reason LIKE 'error: test:///default: create %'")" \
		"error error error" \
		"three boots on the broken host, each failed creating its domain"
	left=$(sql "SELECT max(b.id) FROM boot b JOIN host h ON
		h.id = b.host_id WHERE b.series_id = $id AND h.name = 'broken'")
	is "$(sql "SELECT group_concat(DISTINCT h.name) FROM boot b JOIN host h
		ON h.id = b.host_id WHERE b.run_id = (SELECT run_id FROM boot
		WHERE id = ${left:-0}) AND b.id > ${left:-0}")" local \
		"once left out it got no boot: the run's later boots all went to the healthy host"
	sql "SELECT '# broken: ' || status_reason FROM boot WHERE id = ${left:-0}"
else
	skip "the x86_64 run is KVM: the tcg host 'broken' is not in it" 3
fi

# The verdict comes from the healthy host alone.
is "$(sql "SELECT group_concat(DISTINCT h.name) || '|' || count(*) FROM
	comparison c JOIN host h ON h.id = c.host_id WHERE c.series_id = $id
	AND c.arch = 'x86_64'")" \
	"local|$(sql "SELECT count(*) FROM comparison WHERE series_id = $id
	AND arch = 'x86_64'")" \
	"every x86_64 comparison is of the healthy host's boots"
kind=$(sql "SELECT kind || ' ' || status FROM notification WHERE
	series_id = $id AND role = 'public'")
case $kind in
"no-change written" | "inconclusive written") r=0 ;;
*) r=1 ;;
esac
ok $r "its report is in the outbox ($kind)"

# 2. Adaptive rounds.  The run, with the slot `broken` lost: each round's
# slots are runner_round() of the boots a side done before it (two
# pairs, at most the budget), the looks before 5 a side go on, and the
# run ends at the budget or decided, the comparisons made on every
# complete boot.
sql -separator ' ' "SELECT r.id, r.status, r.rounds, r.max_per_side,
	b.round, b.seq, b.side, b.status, (SELECT n_base || ' ' || n_new
	FROM comparison WHERE run_id = r.id LIMIT 1) FROM run r JOIN boot b
	ON b.run_id = r.id WHERE r.series_id = $id ORDER BY r.id, b.id" \
	>"$tmp/boots"
$PY - "$tmp/boots" "$tmp/config.json" <<'PYROUNDS'
import json, sys
rows = [l.split() for l in open(sys.argv[1])]
min_samples = json.load(open(sys.argv[2]))["stats"]["min_samples"]
pairs = 2	# runner_round()'s pairs a round: the daemon sets none
bad = []
for run in sorted({r[0] for r in rows}):
    b = [r for r in rows if r[0] == run]
    status, rounds, budget = b[0][1], int(b[0][2]), int(b[0][3])
    n_base, n_new = int(b[0][8]), int(b[0][9])
    ok = {"base": 0, "patched": 0}
    for rnd in range(1, rounds + 1):
        done = min(ok.values())
        want = min(pairs, budget - done)
        if rnd > 1 and done >= budget:
            bad.append("run %s: round %d after the budget" % (run, rnd))
        slots = {r[5] for r in b if int(r[4]) == rnd}
        if len(slots) != 2 * want:
            bad.append("run %s: round %d has %d slots, not 2 x %d" %
                       (run, rnd, len(slots), want))
        for r in b:
            if int(r[4]) == rnd and r[7] == "ok":
                ok[r[6]] += 1
    done = min(ok.values())
    if status not in ("decided", "budget") or \
            (status == "budget" and done != budget):
        bad.append("run %s: %s with %d a side" % (run, status, done))
    if done < min_samples:
        bad.append("run %s: stopped at %d a side" % (run, done))
    if (n_base, n_new) != (ok["base"], ok["patched"]):
        bad.append("run %s: compared %d/%d, booted %d/%d" %
                   (run, n_base, n_new, ok["base"], ok["patched"]))
    print("# run %s: %s after %d rounds, %d/%d boots" %
          (run, status, rounds, ok["base"], ok["patched"]))
for x in bad:
    print("# " + x)
sys.exit(1 if bad else 0)
PYROUNDS
ok $? "each run's rounds are the runner's rule on its stored boots"

daemon_stop TERM
is $? 0 "SIGTERM: the daemon exits cleanly"
if [ "$tap_failed" -gt 0 ]; then
	echo "# daemon log (tail):"
	tail -60 "$daemon_log" | sed 's/^/#   /'
fi
done_testing
