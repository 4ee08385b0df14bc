#!/bin/bash
# t-systemd.sh - the packaging files of systemd/ install and parse: the
# unit passes systemd-analyze verify, sysusers.d creates the kregress user
# in the libvirt group, tmpfiles.d creates the state and cache directories
# owned by it; all inside a temporary root, never on the machine itself.
set -u
src=${KREGRESS_SRC:?}
. "$src/tests/lib/tap.sh"

make -s -C "$src" install-systemd DESTDIR="$tmp/dest" PREFIX=/usr \
	>"$tmp/make.log" 2>&1
ok $? "make install-systemd"
unit=$tmp/dest/lib/systemd/system/kregressd.service
for f in "$unit" "$tmp/dest/usr/lib/tmpfiles.d/kregress.conf" \
	 "$tmp/dest/usr/lib/sysusers.d/kregress.conf" \
	 "$tmp/dest/etc/default/kregressd"; do
	ok $([ -s "$f" ]; echo $?) "installed ${f#$tmp/dest}"
done
grep -q '^ExecStart=/usr/sbin/kregressd -c ${KREGRESS_CONFIG}' "$unit"
ok $? "unit runs the installed kregressd"
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
	 PrivateTmp=yes StateDirectory=kregress ReadWritePaths=-/run/libvirt \
	 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK" \
	 'ExecReload=/bin/kill -HUP $MAINPID' Type=simple; do
	grep -qxF "$k" "$unit"
	ok $? "unit has $k"
done

if command -v systemd-analyze >/dev/null; then
	# The binary is not installed in this root: ignore only that.
	out=$(systemd-analyze verify "$unit" 2>&1 | grep -v "is not executable")
	ok $([ -z "$out" ]; echo $?) "systemd-analyze verify: ${out:-clean}"
else
	skip "systemd-analyze not installed"
fi

if command -v systemd-sysusers >/dev/null &&
   command -v systemd-tmpfiles >/dev/null; then
	mkdir -p "$tmp/root/etc"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$tmp/root/etc/passwd"
	printf 'root:x:0:\nlibvirt:x:106:\n' >"$tmp/root/etc/group"
	systemd-sysusers --root="$tmp/root" \
		"$tmp/dest/usr/lib/sysusers.d/kregress.conf" 2>/dev/null
	ok $? "sysusers.d applies"
	grep -q '^kregress:x:[0-9]*:[0-9]*:kregress daemon:/var/lib/kregress:' \
		"$tmp/root/etc/passwd"
	ok $? "user kregress created"
	grep -q '^libvirt:x:106:kregress$' "$tmp/root/etc/group"
	ok $? "kregress is in the libvirt group"
	systemd-tmpfiles --root="$tmp/root" --create \
		"$tmp/dest/usr/lib/tmpfiles.d/kregress.conf" 2>/dev/null
	ok $? "tmpfiles.d applies"
	uid=$(awk -F: '$1 == "kregress" { print $3 }' "$tmp/root/etc/passwd")
	for d in var/lib/kregress var/lib/kregress/outbox \
		 var/cache/kregress/ccache; do
		[ "$(stat -c '%a %u' "$tmp/root/$d" 2>/dev/null)" = "750 $uid" ]
		ok $? "/$d is 0750 kregress"
	done
else
	skip "systemd-sysusers/systemd-tmpfiles missing" 7
fi
done_testing
