#!/bin/bash
# services.sh RUNNER TEST... [--jobs N TEST...] - start the services the
# full suite needs, run the tests under prove, stop the services again,
# and exit 1 if a test failed.  The tests before --jobs run one at a
# time, in order; those after it run N at a time, once all the others
# have run.  Services already running are used as they are and left
# running; the ones started here are stopped by their PIDs.
set -u
runner=$1
shift
serial=() parallel=() jobs=	# jobs: N once --jobs N was read
while [ $# -gt 0 ]; do
	if [ "$1" = --jobs ]; then
		jobs=$2
		shift 2
	elif [ -z "$jobs" ]; then
		serial+=("$1")
		shift
	else
		parallel+=("$1")
		shift
	fi
done
src=$(cd "$(dirname "$0")/.." && pwd)

started=()	# "NAME PID", in the order they were started
stop_services() {
	local i name pid
	for ((i = ${#started[@]} - 1; i >= 0; i--)); do
		read -r name pid <<<"${started[i]}"
		kill "$pid" 2>/dev/null || continue
		# Wait (bounded) so that nothing outlives `make check`.
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null &&
			echo "services: $name ($pid) still running" >&2
	done
}
trap stop_services EXIT

# libvirtd (under a subreaper, see the script) and virtlogd.
if command -v libvirtd >/dev/null; then
	out=$("$src/systemd/libvirt-start.sh")
	rc=$?
	[ -n "$out" ] && mapfile -t started <<<"$out"
	[ $rc -eq 0 ] || { echo "services: libvirtd failed to start" >&2; exit 1; }
fi

# --timer: each test's wall time in the log, to see what a cold run costs.
rc=0
if [ ${#serial[@]} -gt 0 ]; then
	prove --timer --exec "$runner" "${serial[@]}" || rc=1
fi
if [ ${#parallel[@]} -gt 0 ]; then
	prove --timer --jobs "$jobs" --exec "$runner" "${parallel[@]}" || rc=1
fi
exit $rc
