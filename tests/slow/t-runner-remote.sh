#!/bin/bash
# t-runner-remote.sh - a host reached through libvirt's remote driver over
# TCP (qemu+tcp://127.0.0.1:PORT/system, relayed on loopback to the local
# libvirtd by tests/fixtures/tcp2unix.py): the kernel and initramfs travel
# as storage-volume uploads, the console comes back over the stream.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_for x86_64 "$tmp/initrd" || bail_out "no initrd"
plan 7

relay_start || bail_out "the TCP relay to libvirtd did not start"
port=$relay_port
uri="qemu+tcp://127.0.0.1:$port/system"

timeout 60 virsh -c "$uri" version >/dev/null 2>&1
ok $? "the remote URI answers"

# The volume this kernel's upload must make, by its content: every x86
# bzImage has the same CRC32, so a name by size and CRC would let another
# kernel of that size stand in for it.  A leftover of an earlier run is
# removed, so that the check below sees this boot's upload.
size=$(stat -c %s "$kernel")
vol=kregress-kernel-$size-$(sha256sum "$kernel" | cut -c1-16)
virsh -c "$uri" vol-delete "$vol" --pool kregress >/dev/null 2>&1

timeout 180 "$KREGRESS" boot --host "$uri" --kernel "$kernel" \
	--initrd "$tmp/initrd" --arch x86_64 --accel tcg --timeout 60 \
	--log "$tmp/remote.log" >"$tmp/remote.out" 2>"$tmp/remote.err"
ok $? "boot on the remote host exits 0"
grep -q '^boot: ok$' "$tmp/remote.out"
ok $? "status ok"
test "$(grep -c '^KREGRESS-TEST [0-9] [0-9]*$' "$tmp/remote.out")" = 5
ok $? "the console came back through the stream"

# The domain booted from uploaded volumes, not from our paths.
virsh -c "$uri" vol-list kregress 2>/dev/null | grep -q "^ $vol "
ok $? "the kernel is a volume of the kregress pool, named by its SHA-256 ($vol)"
vpath=$(virsh -c "$uri" vol-list kregress |
	awk -v v="$vol" '$1 == v {print $2; exit}')
# The "remote" host is this machine, so the upload can be checked.
test -n "$vpath" && cmp -s "$vpath" "$kernel"
ok $? "the volume holds exactly the kernel that was uploaded"

# A second boot finds the volumes there and does not upload again.
# An upload would write the file: its time, set to 2001, would change.
before=$(virsh -c "$uri" vol-list kregress | grep -c kregress-)
touch -d @1000000000 "$vpath"
mtime=$(stat -c %Y.%y "$vpath")
timeout 180 "$KREGRESS" boot --host "$uri" --kernel "$kernel" \
	--initrd "$tmp/initrd" --arch x86_64 --accel tcg --timeout 60 \
	--log "$tmp/remote2.log" >"$tmp/remote2.out" 2>&1 &&
	test "$(virsh -c "$uri" vol-list kregress | grep -c kregress-)" = "$before" &&
	test "$(stat -c %Y.%y "$vpath")" = "$mtime"
ok $? "a second boot reuses the volumes (not written again)"
done_testing
