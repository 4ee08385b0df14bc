#!/bin/bash
# t-runner-probe.sh - `kregress host probe` on the local libvirt: it must
# come back within its bound with a working accel (on the development
# machine nested KVM cannot boot Linux, so TCG), and say what happened to
# the KVM attempt.  Also: the probe on a URI nobody answers fails fast.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_for x86_64 "$tmp/initrd" || bail_out "no initrd"
plan 7

start=$(date +%s)
timeout 150 "$KREGRESS" host probe qemu:///system --kernel "$kernel" \
	--initrd "$tmp/initrd" --kvm-timeout 20 --tcg-timeout 60 \
	>"$tmp/probe.out" 2>"$tmp/probe.err"
rc=$?
took=$(($(date +%s) - start))
sed 's/^/# /' "$tmp/probe.out"
ok $rc "probe exits 0"
grep -Eq '^accel: (kvm|tcg)$' "$tmp/probe.out"
ok $? "an accel that boots was found"
grep -q '^arch: x86_64$' "$tmp/probe.out" &&
	grep -Eq '^memory_mib: [1-9][0-9]*$' "$tmp/probe.out" &&
	grep -Eq '^cpus: [1-9]' "$tmp/probe.out" &&
	grep -Eq '^cpu_model: .+' "$tmp/probe.out"
ok $? "arch, CPU model, CPUs and memory recorded"
if grep -q '^accel: tcg$' "$tmp/probe.out"; then
	grep -Eq '^kvm: (not offered|error|timeout|stopped|panic|oops|hang)' \
		"$tmp/probe.out"
	ok $? "TCG chosen: the KVM attempt's outcome is given"
else
	ok 0 "KVM boots on this host"
fi
test $took -le 90
ok $? "probe bounded: ${took}s (KVM 20 s + TCG 60 s at most)"

start=$(date +%s)
timeout 60 "$KREGRESS" host probe qemu+tcp://127.0.0.1:1/system \
	--kernel "$kernel" --initrd "$tmp/initrd" >"$tmp/dead.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
test $rc = 1
ok $? "a host that does not answer: exit 1 (got $rc)"
test $took -lt 30
ok $? "... quickly (${took}s)"
done_testing
