#!/bin/bash
# t-init.sh - the guest /init, run as an ordinary process ("hosted" mode)
# in a private mount namespace: it mounts proc/sys/devtmpfs when asked,
# takes its plan and nonce from a kernel command line (a file bind-mounted
# over /proc/cmdline), writes the THP mode into a stand-in sysfs, frames
# real and misbehaving workloads, and ends every run with END.  The framed
# output is verified here with an independent CRC-32 (Python's zlib).
# A real boot (PID 1, power-off) is the runner's slow test.
set -u
. "$KREGRESS_SRC/tests/lib/tap.sh"
B=$KREGRESS_BUILD
W=$B/workloads/$(uname -m)
PY=/usr/bin/python3

if [ "$(id -u)" != 0 ] || ! unshare -m --fork true 2>/dev/null; then
	skip_all "needs root and unshare -m"
fi

# Workloads that misbehave, next to a real one.
mkdir -p "$tmp/bin" "$tmp/sys/kernel/mm/transparent_hugepage"
cp "$W/page-zero-check" "$tmp/bin/"
printf '#!/bin/sh\necho "not json"\n' >"$tmp/bin/junk"
printf '#!/bin/sh\nexec sleep 30\n' >"$tmp/bin/hang"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$tmp/bin/crash"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/silent"
printf '#!/bin/sh\necho "{\\"type\\":\\"sample\\"" ; exit 5\n' >"$tmp/bin/half"
chmod +x "$tmp/bin"/*
echo madvise >"$tmp/sys/kernel/mm/transparent_hugepage/enabled"

# The plan comes from the (fake) kernel command line, as in a guest.
cat >"$tmp/cmdline" <<'CMD'
console=ttyS0 kregress.nonce=t1-n0nce kregress.plan="kregress-plan 1;thp never;timeout 2;run page-zero-check --checks 100 --iterations 2 --warmup 0;run junk;run hang;run crash;run silent;run half;run nonexist" quiet
CMD

verify() {	# verify OUTPUT NONCE EXPECTATIONS-PYTHON
	$PY - "$1" "$2" "$3" <<'PYEOF'
import json, re, sys, zlib
out, nonce, expect = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
recs, end = [], None
for line in out.splitlines():
	if not line.startswith("KREGRESS 1 " + nonce + " "):
		continue
	body, crc = line.rsplit(" ", 1)
	assert re.fullmatch("[0-9a-f]{8}", crc), line
	assert zlib.crc32(body.encode()) == int(crc, 16), "bad CRC: " + line
	seq, rest = body.split(" ", 4)[3:]
	if seq == "END":
		end = int(rest)
		continue
	assert int(seq) == len(recs), "sequence gap at " + seq
	recs.append(json.loads(rest))
assert end == len(recs), ("END", end, len(recs))
assert recs[0]["type"] == "env", recs[0]
exec(expect)
PYEOF
}

run_ns() {	# runs init in a private mount namespace, cmdline bind-mounted
	KREGRESS_BIN_DIR="$tmp/bin" KREGRESS_INIT_SYSFS="$tmp/sys" \
	unshare -m --fork bash -c '
		mount --bind "$1" /proc/cmdline || exit 99
		shift
		"$@"' - "$tmp/cmdline" "$@"
}

run_ns "$W/init" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "init exits 1 in hosted mode when a run failed" test $rc = 1
check "framed output verifies (CRC by zlib, seq, END)" verify "$tmp/out" t1-n0nce '
fails = {r["workload"]: r["reason"] for r in recs if r["type"] == "failure"}
assert "not a framable JSON" in fails["junk"], fails
assert fails["hang"] == "timeout after 2 s", fails
assert fails["crash"] == "killed by signal 11", fails
assert fails["silent"] == "no output", fails
assert "no workload binary" in fails["nonexist"], fails
assert "exit status 5" in fails["half"] or "framable" in fails["half"], fails
s = [r for r in recs if r["type"] == "sample"]
assert len(s) == 4 and all(r["workload"] == "page-zero-check" for r in s)
assert recs[0]["mode"] == "hosted" and recs[0]["runs"] == 7, recs[0]
assert "kregress.nonce=t1-n0nce" in recs[0]["cmdline"], recs[0]
'
check "THP mode written into the (stand-in) sysfs" \
	grep -qx never "$tmp/sys/kernel/mm/transparent_hugepage/enabled"
cp "$W/init" "$tmp/bin/"
printf 'kregress-plan 1\nrun page-zero-check --checks 10 --iterations 1\nrun junk\nrun crash\n' \
	>"$tmp/bad-workloads.plan"
check "the console parser agrees: failed, first failure as reason" bash -c "
	'$B/kregress' bench --native --workloads '$tmp/bin' \
		'$tmp/bad-workloads.plan' >'$tmp/table' 2>'$tmp/err'
	test \$? = 1 || exit 1
	grep -q 'run failed: junk: output line is not a framable' '$tmp/err' &&
	grep -q word_check '$tmp/table'"

# KREGRESS_INIT_MOUNT=1 mounts proc, sysfs and devtmpfs.  In the private
# namespace /sys and /dev are unmounted first (a second sysfs or devtmpfs
# mount on the same point is refused with EBUSY, which init ignores).
printf 'kregress-plan 1\nrun silent\n' >"$tmp/mini.plan"
mounts() {
	KREGRESS_NONCE=m KREGRESS_BIN_DIR="$tmp/bin" KREGRESS_INIT_MOUNT=1 \
	unshare -m --fork bash -c '
		umount -l /sys && umount -l /dev || exit 99
		procs=$(grep -c " /proc proc " /proc/self/mounts)
		"$1" "$2" >/dev/null 2>&1
		grep -q " /sys sysfs " /proc/self/mounts || exit 1
		grep -q " /dev devtmpfs " /proc/self/mounts || exit 2
		test "$(grep -c " /proc proc " /proc/self/mounts)" = \
			$((procs + 1)) || exit 3' - "$W/init" "$tmp/mini.plan"
}
check "KREGRESS_INIT_MOUNT=1: proc, sysfs and devtmpfs mounted" mounts
check "the host's /sys and /dev are still mounted" bash -c \
	"grep -q ' /sys sysfs ' /proc/self/mounts && test -e /dev/null"

# Plan errors, a plan file argument, and a missing nonce.
printf 'kregress-plan 1\nthp sideways\nrun silent\n' >"$tmp/bad.plan"
KREGRESS_NONCE=bad1 "$W/init" "$tmp/bad.plan" >"$tmp/out" 2>/dev/null
rc=$?
check "bad plan: exit 1" test $rc = 1
check "bad plan: env, failure with the line, END" verify "$tmp/out" bad1 '
assert len(recs) == 2 and recs[1]["type"] == "failure", recs
assert recs[1]["reason"].startswith("plan: line 2: thp:"), recs[1]
'
KREGRESS_NONCE=nf "$W/init" "$tmp/none.plan" >"$tmp/out" 2>/dev/null
check "missing plan file: failure record" verify "$tmp/out" nf '
assert "cannot open plan" in recs[1]["reason"], recs
'
env -u KREGRESS_NONCE "$W/init" "$tmp/mini.plan" >"$tmp/out" 2>/dev/null
rc=$?
check "no nonce: exit 1 and nothing framed" bash -c \
	"test $rc = 1 && ! grep -q 'KREGRESS 1 [A-Za-z0-9_-]* 0 ' '$tmp/out'"
KREGRESS_NONCE='bad nonce!' "$W/init" "$tmp/mini.plan" >"$tmp/out" 2>/dev/null
check "invalid nonce refused" test $? = 1

# Guest mode: init as PID 1 of a new PID namespace.  There reboot(2)
# cannot power the host off; the kernel ends the namespace instead, killing
# its init with SIGINT for RB_POWER_OFF (unshare then exits 128 + 2).
# The plan comes from $KREGRESS_PLAN: a word on the command line of PID 1
# is one the kernel passed on (nokaslr here), never a plan file.
# After END it waits for the host to end it, until its console (stdin,
# here /dev/null) reads end-of-file.  THP
# goes to the stand-in sysfs (KREGRESS_INIT_SYSFS is honoured in both
# modes) and the plan sets no swap, so the host is not touched.
printf 'kregress-plan 1\nthp always\nrun page-zero-check --checks 10 --iterations 1 --warmup 0\n' \
	>"$tmp/pid1.plan"
KREGRESS_NONCE=pid1 KREGRESS_BIN_DIR="$W" KREGRESS_INIT_SYSFS="$tmp/sys" \
	KREGRESS_PLAN="$tmp/pid1.plan" unshare -p -m --fork --mount-proc \
	"$W/init" nokaslr \
	</dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
check "PID 1: powers off at the end (namespace ended by SIGINT, rc 130)" \
	test $rc = 130
check "PID 1: guest mode, complete output before the power-off (argv ignored)" \
	verify "$tmp/out" pid1 '
assert recs[0]["mode"] == "guest", recs[0]
assert [r["metric"] for r in recs[1:]] == ["word_check", "byte_check"], recs
'
check "PID 1: THP mode applied" \
	grep -qx always "$tmp/sys/kernel/mm/transparent_hugepage/enabled"
# While its console is open it waits after END (the host ends the guest
# once it has read everything): here a pipe whose writer stays 2 s.
t0=$(date +%s%N)
(sleep 2) | KREGRESS_NONCE=pid1 KREGRESS_BIN_DIR="$W" \
	KREGRESS_INIT_SYSFS="$tmp/sys" KREGRESS_PLAN="$tmp/pid1.plan" \
	unshare -p -m --fork --mount-proc "$W/init" >"$tmp/out2" 2>/dev/null
rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
check "PID 1: waits after END while its console is open (${ms} ms, rc $rc)" \
	bash -c "test $rc = 130 && test $ms -ge 1900 &&
		grep -q '^KREGRESS 1 pid1 END ' '$tmp/out2'"

# A workload's stderr is copied by init (the console's only writer).
printf '#!/bin/sh\necho "diag line" >&2\necho "{\\"type\\":\\"sample\\",\\"value\\":1}"\n' \
	>"$tmp/bin/noisy"
chmod +x "$tmp/bin/noisy"
printf 'kregress-plan 1\nrun noisy\n' >"$tmp/noisy.plan"
KREGRESS_NONCE=nz KREGRESS_BIN_DIR="$tmp/bin" "$W/init" "$tmp/noisy.plan" \
	>"$tmp/out" 2>"$tmp/err"
check "workload stderr goes through init's stderr, never into records" \
	bash -c "grep -qx 'diag line' '$tmp/err' && ! grep -q diag '$tmp/out'"
check "its stdout record framed" verify "$tmp/out" nz '
assert len(recs) == 2 and recs[1]["value"] == 1, recs
'

# Workloads run without address-space randomization, and the env record
# says so (ADDR_NO_RANDOMIZE is 0x0040000 in /proc/self/personality).
printf '#!/bin/sh\necho "{\\"type\\":\\"sample\\",\\"value\\":$((0x$(cat /proc/self/personality) & 0x40000))}"\n' \
	>"$tmp/bin/persona"
chmod +x "$tmp/bin/persona"
printf 'kregress-plan 1\nrun persona\n' >"$tmp/persona.plan"
KREGRESS_NONCE=ps KREGRESS_BIN_DIR="$tmp/bin" "$W/init" "$tmp/persona.plan" \
	>"$tmp/out" 2>"$tmp/err"
check "workloads run with ADDR_NO_RANDOMIZE; the env record says aslr off" \
	verify "$tmp/out" ps '
assert recs[0]["aslr"] == "off", recs[0]
assert recs[1]["value"] == 0x40000, recs
'

# Hosted mode never touches the host's THP setting.
thp_before=$(cat /sys/kernel/mm/transparent_hugepage/enabled)
printf 'kregress-plan 1\nthp never\nrun silent\n' >"$tmp/thp.plan"
KREGRESS_NONCE=h KREGRESS_BIN_DIR="$tmp/bin" "$W/init" "$tmp/thp.plan" \
	>/dev/null 2>&1
check "hosted mode leaves the host's THP alone" \
	test "$thp_before" = "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
done_testing
