#!/bin/bash
# libvirt-start.sh - start virtlogd and libvirtd where no service manager
# does (containers, sandboxes, CI machines), for `make run` and `make check`
# (tests/services.sh).  Does nothing when qemu:///system and virtlogd both
# answer (libvirtd answers without virtlogd, but every domain it then
# creates fails on virtlogd's socket; a killed virtlogd leaves the socket
# file behind, so the probe connects to it; under systemd both are socket-
# activated and answer before their daemons run).
# Prints "NAME PID" for each daemon it started, so that the caller can stop
# exactly those (tests/services.sh does); exits 1 when libvirtd does not
# answer within 60 s.
#
# libvirtd runs in the foreground under `tini -s` (a child subreaper).
# libvirtd daemonizes QEMU, so a QEMU process's parent is the nearest
# subreaper, or PID 1 when there is none; and when libvirtd ends a domain it
# waits until the QEMU process is gone, which a zombie is not until its
# parent reaps it.  Some machines' PID 1 reaps orphans late (the firecracker
# init of our CI machines takes ~1.8 s for any orphan), and every boot then
# waited for it.  tini reaps at once.  On a host where systemd runs libvirtd
# (libvirtd.service / libvirtd.socket) this script is not used and not
# needed: systemd reaps promptly.  Without tini it falls back to libvirtd -d.
set -u
uri=qemu:///system
log=/var/log/libvirt

answers() {
	timeout 10 virsh -c $uri uri >/dev/null 2>&1
}

virtlogd_answers() {
	timeout 10 virt-admin -c virtlogd:///system srv-list >/dev/null 2>&1
}

# Without udev nobody gives /dev/kvm to the kvm group, and libvirt then
# re-probes QEMU on every domain it creates (about a minute each).
if [ -c /dev/kvm ] && getent group kvm >/dev/null; then
	chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
fi

answers && virtlogd_answers && exit 0
command -v libvirtd >/dev/null ||
	{ echo "libvirt-start: libvirtd is not installed" >&2; exit 1; }

if ! virtlogd_answers; then
	pkill -x virtlogd	# one that lost its socket
	virtlogd -d </dev/null >/dev/null ||
		{ echo "libvirt-start: virtlogd failed" >&2; exit 1; }
	echo "virtlogd $(cat /run/virtlogd.pid)"
fi

pid=
if ! pgrep -x libvirtd >/dev/null; then
	mkdir -p $log
	if command -v tini >/dev/null; then
		# Log where libvirtd -d would; stderr only gets start-up noise.
		# tini passes SIGTERM on to libvirtd and exits with it.
		LIBVIRT_LOG_OUTPUTS=${LIBVIRT_LOG_OUTPUTS:-3:file:$log/libvirtd.log} \
			setsid tini -s -- libvirtd </dev/null \
			>>$log/libvirtd-stderr.log 2>&1 &
		pid=$!
	else
		echo "libvirt-start: no tini, libvirtd -d (teardown waits" \
			"for PID 1 to reap QEMU)" >&2
		libvirtd -d </dev/null >/dev/null ||
			{ echo "libvirt-start: libvirtd failed" >&2; exit 1; }
		pid=$(cat /run/libvirtd.pid)
	fi
	echo "libvirtd $pid"
fi

for _ in $(seq 60); do
	answers && exit 0
	sleep 1
done
echo "libvirt-start: libvirtd does not answer on $uri" >&2
exit 1
