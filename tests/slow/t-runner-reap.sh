#!/bin/bash
# t-runner-reap.sh - kill -9 of a process in the middle of a boot: nothing
# is left running (libvirt's autodestroy ends the guest when the process's
# connection drops, before any reaper), and the boot then runs again
# cleanly.  Also: a leftover kregress domain
# that its creator did not autodestroy is destroyed by "kregress host reap",
# and domains without the prefix are never touched.
#
# Without the daemon (the store branch is not merged into runner yet), the
# "process" is `kregress boot` and the "next start" is `kregress host reap`
# followed by the boot again.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_for x86_64 "$tmp/initrd" || bail_out "no initrd"
plan 7

count() {
	virsh -c qemu:///system list --name | grep -c "^$1"
}
no_domain() {
	[ "$(count "$KREGRESS_VM_PREFIX")" = 0 ]
}

# 1. kill -9 while the guest runs (a hanging guest: it would run for 300 s).
"$KREGRESS" boot --kernel "$kernel" --initrd "$tmp/initrd" --arch x86_64 \
	--accel tcg --timeout 300 --cmdline krtest=hang \
	--log "$tmp/killed.log" >"$tmp/killed.out" 2>&1 &
pid=$!
wait_for 60 grep -q 'KREGRESS-TEST start' "$tmp/killed.log" 2>/dev/null
test "$(count "$KREGRESS_VM_PREFIX")" = 1
ok $? "the domain runs (guest reached init)"
kill -9 $pid
wait $pid 2>/dev/null
# Nothing else runs under this test's prefix: only libvirtd can end it.
wait_for 60 no_domain
ok $? "libvirt's autodestroy ends the guest of the killed process by itself"
timeout 60 "$KREGRESS" host reap >"$tmp/reap.out" 2>&1 &&
	grep -q '^reaped: 0$' "$tmp/reap.out"
ok $? "host reap at the next start finds nothing left to destroy"
timeout 120 "$KREGRESS" boot --kernel "$kernel" --initrd "$tmp/initrd" \
	--arch x86_64 --accel tcg --timeout 60 --log "$tmp/again.log" \
	>"$tmp/again.out" 2>&1
ok $? "the boot runs again and ends cleanly"

# 2. A leftover domain that nothing autodestroys (as after a libvirtd
# restart): created with virsh, named with our prefix; plus a bystander.
mk_domain() {	# name
	cat >"$tmp/$1.xml" <<XML
<domain type='qemu'><name>$1</name><memory unit='MiB'>64</memory>
<os><type arch='x86_64' machine='pc'>hvm</type><kernel>$kernel</kernel>
<initrd>$tmp/initrd</initrd><cmdline>console=ttyS0 krtest=hang</cmdline></os>
<on_poweroff>destroy</on_poweroff><on_reboot>destroy</on_reboot>
<devices><serial type='pty'/><memballoon model='none'/></devices></domain>
XML
	virsh -c qemu:///system create "$tmp/$1.xml" >/dev/null
}
bystander=other-t$$
mk_domain "${KREGRESS_VM_PREFIX}leftover" &&
	mk_domain "$bystander"
ok $? "a leftover and a bystander domain run"
timeout 60 "$KREGRESS" host reap >"$tmp/reap2.out" 2>&1 &&
	grep -q '^reaped: 1$' "$tmp/reap2.out" &&
	test "$(count "$KREGRESS_VM_PREFIX")" = 0
ok $? "the leftover is reaped"
test "$(count "$bystander")" = 1
ok $? "the bystander is left alone"
virsh -c qemu:///system destroy "$bystander" >/dev/null 2>&1
done_testing
