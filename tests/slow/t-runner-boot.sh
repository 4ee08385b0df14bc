#!/bin/bash
# t-runner-boot.sh - real libvirt boots under TCG: a clean boot with result
# lines, a kernel panic (init=/nonexistent), a guest that hangs (destroyed
# at the timeout), and no domain left behind by any of them.  (How soon a
# panic ends a boot is tests/bench/runner-overhead.py's to print.)
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_for x86_64 "$tmp/initrd" || bail_out "no initrd"
plan 14

domains() {	# the test's running domains
	virsh -c qemu:///system list --name | grep "^$KREGRESS_VM_PREFIX"
}

# 1. A clean boot prints the guest's lines and ends by itself.
timeout 120 "$KREGRESS" boot --kernel "$kernel" --initrd "$tmp/initrd" \
	--arch x86_64 --accel tcg --timeout 60 --log "$tmp/ok.log" \
	>"$tmp/ok.out" 2>"$tmp/ok.err"
ok $? "clean boot exits 0"
grep -q '^boot: ok$' "$tmp/ok.out"
ok $? "status ok"
test "$(grep -c '^KREGRESS-TEST [0-9] [0-9]*$' "$tmp/ok.out")" = 5
ok $? "five result lines printed"
grep -q 'Run /init as init process' "$tmp/ok.log"
ok $? "console log has the kernel's messages"
grep -q '^first_sample_s: ' "$tmp/ok.out"
ok $? "time to the guest's last line measured"

# 2. A kernel that cannot find init panics: a failed boot with the reason.
# (With an initramfs the kernel runs rdinit=, so both are pointed away.)
timeout 120 "$KREGRESS" boot --kernel "$kernel" --initrd "$tmp/initrd" \
	--arch x86_64 --accel tcg --timeout 60 --cmdline "rdinit=/nonexistent init=/nonexistent" \
	--log "$tmp/panic.log" >"$tmp/panic.out" 2>"$tmp/panic.err"
rc=$?
left=$(domains)
test $rc = 1
ok $? "panic: exit status 1 (got $rc)"
grep -q '^boot: panic: Kernel panic - not syncing: ' "$tmp/panic.out"
ok $? "panic: the reason is the panic line"
# The guest outlives its panic by a second (panic=1), so nothing it
# printed is lost with the domain: the log ends with the reboot notice.
tail -n 1 "$tmp/panic.log" | grep -q '^Rebooting in 1 seconds'
ok $? "panic: the log holds what the kernel printed to its last line"
test -z "$left"
ok $? "panic: its domain is gone when the boot returns${left:+ ($left)}"

# 3. A guest that never ends is destroyed at the deadline.
timeout 120 "$KREGRESS" boot --kernel "$kernel" --initrd "$tmp/initrd" \
	--arch x86_64 --accel tcg --timeout 30 --cmdline krtest=hang \
	--log "$tmp/hang.log" >"$tmp/hang.out" 2>"$tmp/hang.err"
rc=$?
left=$(domains)
test $rc = 1
ok $? "hang: exit status 1 (got $rc)"
grep -q '^boot: timeout: no end after 30 s: destroyed' "$tmp/hang.out"
ok $? "hang: reported as a timeout"
grep -q 'KREGRESS-TEST start mode=hang' "$tmp/hang.log"
ok $? "hang: the guest had reached its init"
test -z "$left"
ok $? "hang: destroyed, nothing left when the boot returns${left:+ ($left)}"

test -z "$(domains)"
ok $? "no domain left behind"
done_testing
