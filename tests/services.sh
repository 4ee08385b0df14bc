#!/bin/bash
# services.sh RUNNER TEST... - start the services the full suite needs, run
# the tests under prove, stop the services again, and exit with prove's
# status.  Services already running are used as they are and left running.
set -u
runner=$1
shift

started=()
start_service() {	# name command...
	local name=$1
	shift
	if pgrep -x "$name" >/dev/null; then
		return 0
	fi
	"$@" || { echo "services: $name: failed to start" >&2; return 1; }
	started+=("$name")
}

stop_services() {
	local name
	for name in "${started[@]}"; do
		pkill -x "$name"
	done
}
trap stop_services EXIT

# Without udev nobody gives /dev/kvm to the kvm group, and libvirt then
# re-probes QEMU on every domain it creates (about a minute each).
if [ -c /dev/kvm ] && getent group kvm >/dev/null; then
	chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
fi

if command -v libvirtd >/dev/null; then
	start_service virtlogd virtlogd -d || exit 1
	start_service libvirtd libvirtd -d || exit 1
fi

prove --exec "$runner" "$@"
