#!/bin/bash
# t-daemon-run.sh - the whole pipeline in the real kregressd, on the real
# 6.1 tree, real kernel builds for x86_64 and arm64, and real boots under
# libvirt/QEMU (TCG here): a harmless one-file mm patch is fetched,
# applied, built, booted in A/B rounds, its samples stored and analysed.
# The daemon is killed with SIGKILL while a guest is running: the
# interrupted run and boot are kept and marked, the run stage starts
# again, and a domain left over from the dead daemon is destroyed when the
# next one starts.  Its report (2 boots a side decide nothing:
# inconclusive) is written to the outbox.  A patch that makes the kernel
# panic at boot ends boot-failed with the panic in the reason, and in
# its report.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
set -u
KR=$KREGRESS_BUILD/kregress
daemon_vm_setup kregress-t$$- run-token-0123456789abcdef
tree=$(linux_tree) || skip_all "no linux-source-6.1 tree or tarball"
base=$(git -C "$tree" rev-parse HEAD)

plan 31

domains() {	# the test's running domains, one per line
	virsh -c qemu:///system list --name 2>/dev/null |
		grep "^$KREGRESS_VM_PREFIX"
}
# mbox MSGID SUBJECT PATH < CONTENT: a git format-patch mail of a commit
# on the base that replaces PATH.
mbox() {
	local c
	c=$(GIT_AUTHOR_DATE=2026-11-01T00:00:00Z \
	    GIT_COMMITTER_DATE=2026-11-01T00:00:00Z \
	    tree_commit "$tree" "$base" "$2" "$3") || return 1
	git -C "$tree" format-patch -1 --stdout "$c" |
		sed "s/^Subject: .*/&\nMessage-ID: <$1@example.org>/"
}

# A short plan: the daemon's default TCG plan takes minutes per boot.
cat >"$tmp/short.plan" <<'PLAN'
kregress-plan 1
timeout 60
thp always
run thp-fault --size-mb 8 --iterations 3 --warmup 1
run page-zero-check --checks 5000 --iterations 3 --warmup 1
PLAN
chmod 755 "$tmp"
cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$KREGRESS_TOKEN" } ]
	},
	"trees": [ { "name": "linux-6.1", "path": "$tree",
		     "branch": "master" } ],
	"arches": {
		"x86_64": { "base_config": "tinyconfig", "make_jobs": 2 },
		"arm64": { "base_config": "tinyconfig", "make_jobs": 2,
			   "cross_compile": "aarch64-linux-gnu-" }
	},
	"hosts": [
		{ "name": "local", "uri": "qemu:///system", "arch": "x86_64",
		  "accel": "auto", "capacity": 1 },
		{ "name": "local-arm64", "uri": "qemu:///system",
		  "arch": "arm64", "accel": "tcg", "capacity": 1 }
	],
	"plans": {
		"x86_64": { "kvm": "$tmp/short.plan", "tcg": "$tmp/short.plan" },
		"arm64": { "kvm": "$tmp/short.plan", "tcg": "$tmp/short.plan" }
	},
	"stats": { "threshold_pct": 3, "alpha": 0.05, "min_samples": 2,
		   "max_boots_per_side": 2, "fdr_method": "bh" },
	"limits": { "boot_timeout_s": 90, "workers": 1 }
}
CFG

(git -C "$tree" show "$base:mm/memory.c"
 echo "/* kregress: a harmless change */") |
	mbox daemon-run-good "mm: a harmless comment" mm/memory.c \
	>"$tmp/good.mbox"
git -C "$tree" show "$base:init/main.c" |
	sed '/^static int __ref kernel_init(void \*unused)$/,/^\tint ret;$/ s/^\tint ret;$/&\n\n\tpanic("kregress test: this patch panics at boot");/' |
	mbox daemon-run-panic "init: panic at boot" init/main.c \
	>"$tmp/panic.mbox"
grep -q 'kregress test: this patch panics' "$tmp/panic.mbox"
ok $? "two series made with git format-patch on the 6.1 tree"

daemon_start
ok $? "kregressd started"
"$KR" submit --server "$SRV" "$tmp/good.mbox" >"$tmp/out" 2>&1
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
test -n "$id"
ok $? "the harmless series is submitted"

# boot_running ID: waits until a boot of series ID runs in a guest (builds
# cold: minutes; cached: seconds; the host probe, then boots) or the
# series ends; sets $st to the series' status.
boot_running() {
	local i b
	for ((i = 0; i < 3000 * 5; i++)); do
		st=$(sql "SELECT status FROM series WHERE id = $1")
		case $st in *failed* | does-not-apply | done) return 1 ;; esac
		b=$(sql "SELECT count(*) FROM boot WHERE series_id = $1
			 AND status = 'running'")
		[ "$b" = 1 ] && [ -n "$(domains)" ] && return 0
		daemon_gone && return 1
		sleep 0.2
	done
	return 1
}
boot_running "$id"
dom=$(domains)
test -n "$dom"
ok $? "a boot of the series is running ($dom; series $st)"
daemon_stop 9
# libvirtd destroys the killed daemon's guest when its connection drops
# (START_AUTODESTROY), or the guest ends by itself; the start-up reaper is
# for what outlives both (a remote host, a libvirtd restart).  A paused
# domain with the daemon's prefix stands for such a leftover.
cat >"$tmp/leftover.xml" <<XML
<domain type='qemu'>
  <name>${KREGRESS_VM_PREFIX}leftover</name>
  <memory unit='MiB'>32</memory>
  <os><type arch='x86_64'>hvm</type></os>
</domain>
XML
virsh -c qemu:///system create "$tmp/leftover.xml" --paused >/dev/null
ok $? "a leftover domain of the dead daemon is there"

daemon_start
ok $? "kregressd restarted"
grep -Eq "destroyed [0-9]+ domains? left by an earlier daemon" \
	"$tmp/daemon.log"
ok $? "at start-up the leftover domain is destroyed"
test -z "$(domains | grep -x -e "$dom" -e "${KREGRESS_VM_PREFIX}leftover")"
ok $? "neither the leftover nor the killed boot's guest is left"
st=$(wait_status "$id" 1200)
is "$st|$(sql "SELECT ifnull(status_reason, '') FROM series WHERE id = $id")" \
	"done|" "the series went through run, analyze and report"
is "$(sql "SELECT kind || ' ' || transport || ' ' || status FROM notification
	WHERE series_id = $id")" "inconclusive outbox written" \
	"its report: inconclusive (2 boots a side), written to the outbox"
# Per arch in order of id: either arch may have been booting at the kill,
# and after the restart either may run first.
killed=$(sql "SELECT group_concat(arch) FROM run WHERE series_id = $id AND
	status = 'interrupted'")
case $killed in
x86_64) want="arm64:budget x86_64:interrupted x86_64:budget" ;;
*) want="arm64:interrupted arm64:budget x86_64:budget" ;;
esac
is "$(sql "SELECT group_concat(arch || ':' || status, ' ') FROM
	(SELECT arch, status FROM run WHERE series_id = $id ORDER BY arch, id)")" \
	"$want" "runs: the interrupted one kept, then one per arch"
is "$(sql "SELECT count(*) || ':' || min(status_reason) FROM boot
	WHERE series_id = $id AND status = 'interrupted'")" \
	"1:the daemon stopped during the boot" \
	"the boot the daemon was killed in is marked interrupted"
is "$(sql "SELECT attempts || ':' || leases_lost FROM job WHERE
	series_id = $id AND kind = 'run' AND arch = '${killed:-none}'")" 1:1 \
	"the ${killed:-killed} run job ran again, the attempt the kill cost not counted"
for arch in x86_64 arm64; do
	r=$(sql "SELECT max(id) FROM run WHERE series_id = $id AND
		 arch = '$arch'")
	is "$(sql "SELECT group_concat(side || ':' || n, ' ') FROM
		(SELECT side, count(*) n FROM boot WHERE run_id = $r AND
		 status = 'ok' GROUP BY side ORDER BY side)")" \
		"base:2 patched:2" "$arch: two complete boots per side"
	cnt=$(sql "SELECT count(*) FROM sample s JOIN boot b ON b.id = s.boot_id
		 WHERE b.run_id = $r AND s.workload = 'thp-fault'")
	test "$cnt" -ge 12
	ok $? "$arch: raw thp-fault samples stored ($cnt)"
	is "$(sql "SELECT count(DISTINCT workload) FROM comparison
		WHERE run_id = $r")" 2 \
		"$arch: both workloads compared by the analyze stage"
done
# The selection rule, whichever way this machine's KVM goes: a run boots
# with KVM if any healthy host of its arch has it, else with TCG, and a
# KVM run never boots on a host without it.
is "$(sql "SELECT healthy FROM host WHERE name = 'local'")|$(sql "SELECT
	group_concat(r.arch || ':' || r.accel, ' ') FROM run r
	WHERE r.series_id = $id ORDER BY r.arch")" \
	"1|$(sql "SELECT group_concat(r.arch || ':' || CASE WHEN EXISTS (SELECT 1
	FROM host h WHERE h.arch = r.arch AND h.healthy AND h.accel = 'kvm')
	THEN 'kvm' ELSE 'tcg' END, ' ') FROM run r WHERE r.series_id = $id
	ORDER BY r.arch")" \
	"the probed host is healthy; each run's accel: KVM if a healthy host of its arch has it, else TCG ($(sql "SELECT group_concat(name || '=' || accel, ' ') FROM host"))"
is "$(sql "SELECT count(*) FROM boot b JOIN run r ON r.id = b.run_id JOIN
	host h ON h.id = b.host_id WHERE b.series_id = $id AND
	r.accel = 'kvm' AND h.accel != 'kvm'")" 0 \
	"no KVM run booted on a host without KVM"
"$KR" results --server "$SRV" "$id" >"$tmp/results" 2>&1
grep -q "thp-fault" "$tmp/results"
ok $? "kregress results shows the comparisons"
sed 's/^/# /' "$tmp/results" | head -20

# An auto host is probed again when its probe is over an hour old: the
# restarted daemon probed it before its first boot; set that back.
probed=$(sql "SELECT probed_at - 3601 FROM host WHERE name = 'local'")
sql "UPDATE host SET probed_at = $probed WHERE name = 'local'"
"$KR" submit --server "$SRV" "$tmp/panic.mbox" >"$tmp/out" 2>&1
id2=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
st=$(wait_status "$id2" 1200)
reason=$(sql "SELECT status_reason FROM series WHERE id = ${id2:-0}")
test "$st" = boot-failed &&
	echo "$reason" | grep -Eq "^run: (x86_64|arm64): the patched kernel did not boot .*kregress test: this patch panics at boot"
ok $? "a patch that panics at boot: boot-failed ($reason)"
# A boot that is not a panic says what it was instead (before panic=1
# an immediate reboot could take the panic line down with the domain).
is "$(sql "SELECT group_concat(DISTINCT status || CASE status WHEN 'panic'
	THEN '' ELSE ' (' || coalesce(status_reason, '') || ')' END) FROM boot
	WHERE series_id = ${id2:-0} AND side = 'patched'")" panic \
	"its patched boots are recorded as panics"
is "$(sql "SELECT max(n) FROM (SELECT count(*) n FROM boot WHERE
	series_id = ${id2:-0} AND side = 'patched' GROUP BY run_id, seq)")" 2 \
	"a failed boot is retried once, not more"
test "$(sql "SELECT probed_at FROM host WHERE name = 'local'")" -gt \
	"${probed:-0}"
ok $? "a probe over an hour old was done again before the next run's boots"
wait_sql 60 "SELECT status FROM notification WHERE series_id = ${id2:-0}
	AND kind = 'boot-failed'" written
eml=$(sql "SELECT path FROM notification WHERE series_id = ${id2:-0}")
grep -q '^Subject: \[kregress boot-failed\] Re: \[PATCH\] init: panic at boot$' "$eml" &&
	grep -q 'Kernel panic - not syncing: kregress test: this patch' "$eml"
ok $? "its report: boot-failed with the panic line ($eml)"

daemon_stop TERM
is $? 0 "SIGTERM: the daemon exits cleanly"

# SIGTERM during a run: the boot under way finishes, then the daemon
# exits.  The harmless patch again (its kernels are cached).
sed 's/daemon-run-good@/daemon-run-term@/' "$tmp/good.mbox" >"$tmp/term.mbox"
daemon_start
"$KR" submit --server "$SRV" "$tmp/term.mbox" >"$tmp/out" 2>&1
id3=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
boot_running "${id3:-0}"
bid=$(sql "SELECT id FROM boot WHERE series_id = ${id3:-0} AND
	status = 'running'")
daemon_term 300
is $? 0 "SIGTERM during a boot: the daemon exits 0 (series ${id3:-?} $st)"
is "$(sql "SELECT status FROM boot WHERE id = ${bid:-0}")" ok \
	"the boot under way finished first"
test -z "$(domains)"
ok $? "no guest is left"
if [ "$tap_failed" -gt 0 ]; then
	echo "# daemon log (tail):"
	tail -40 "$tmp/daemon.log" | sed 's/^/#   /'
fi
done_testing
