#!/bin/bash
# t-runner-probe.sh - `kregress host probe` on the local libvirt: it must
# come back with a working accel chosen by the rule (KVM when its boot
# worked, else TCG: on the development machine nested KVM cannot boot
# Linux), and say what happened to the KVM attempt.  Also: the probe on a
# URI nobody answers fails, saying why.  (How long a probe takes is
# tests/bench/runner-overhead.py's to print.)
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_for x86_64 "$tmp/initrd" || bail_out "no initrd"
plan 7

timeout 150 "$KREGRESS" host probe qemu:///system --kernel "$kernel" \
	--initrd "$tmp/initrd" --kvm-timeout 20 --tcg-timeout 60 \
	>"$tmp/probe.out" 2>"$tmp/probe.err"
rc=$?
sed 's/^/# /' "$tmp/probe.out"
ok $rc "probe exits 0"
grep -Eq '^accel: (kvm|tcg)$' "$tmp/probe.out"
ok $? "an accel that boots was found"
grep -q '^arch: x86_64$' "$tmp/probe.out" &&
	grep -Eq '^memory_mib: [1-9][0-9]*$' "$tmp/probe.out" &&
	grep -Eq '^cpus: [1-9]' "$tmp/probe.out" &&
	grep -Eq '^cpu_model: .+' "$tmp/probe.out"
ok $? "arch, CPU model, CPUs and memory recorded"
# The rule, whichever way this host goes: KVM when its boot reached a
# clean end, else TCG when that boot did, and the KVM attempt's outcome
# is given either way.
kvm=$(sed -n 's/^kvm: \([a-z-]*\).*/\1/p' "$tmp/probe.out")
tcg=$(sed -n 's/^tcg: \([a-z-]*\).*/\1/p' "$tmp/probe.out")
accel=$(sed -n 's/^accel: //p' "$tmp/probe.out")
case $kvm/$tcg/$accel in
ok//kvm | [a-z]*/ok/tcg) r=0 ;;
*) r=1 ;;
esac
ok $r "KVM if its boot worked, else TCG: kvm '$kvm', tcg '$tcg', accel $accel"
grep -Eq '^kvm: (ok|not offered|error|timeout|stopped|panic|oops|hang)' \
	"$tmp/probe.out"
ok $? "the KVM attempt's outcome is given"

timeout 60 "$KREGRESS" host probe qemu+tcp://127.0.0.1:1/system \
	--kernel "$kernel" --initrd "$tmp/initrd" >"$tmp/dead.out" 2>&1
rc=$?
test $rc = 1
ok $? "a host that does not answer: exit 1, before the test's 60 s guard (got $rc)"
grep -q . "$tmp/dead.out"
ok $? "... and says why ($(head -1 "$tmp/dead.out"))"
done_testing
