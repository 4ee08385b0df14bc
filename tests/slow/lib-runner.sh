# lib-runner.sh - shared set-up of the runner's slow tests (sourced after
# tap.sh).
#
# Gives each test: a domain-name prefix of its own (so parallel test runs
# on one libvirtd never reap each other's domains, and whatever is left
# under it is reaped at exit), the development kernel for an arch
# (tests/fixtures/devkernel.sh, built once into a cache outside the
# clone), an initramfs holding the test init (tests/fixtures/testinit.c)
# built statically for that arch, and a TCP relay to libvirtd.
set -u
: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
KREGRESS=$KREGRESS_BUILD/kregress
# QEMU runs as libvirt-qemu: it must be able to reach kernels and initrds.
chmod 755 "$tmp"
export KREGRESS_VM_PREFIX=kregress-t$$-
at_exit '"$KREGRESS" host reap >/dev/null 2>&1'

need_libvirt() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for qemu:///system"
	timeout 20 virsh -c qemu:///system version >/dev/null 2>&1 ||
		skip_all "libvirtd is not running (make check starts it)"
}

# kernel_for ARCH: path of the dev kernel (built on first use), or the
# kernel named by $KREGRESS_TEST_KERNEL_<ARCH> (e.g. one from kregress build).
kernel_for() {
	local var=KREGRESS_TEST_KERNEL_$1
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
		return 0
	fi
	timeout 3600 "$KREGRESS_SRC/tests/fixtures/devkernel.sh" "$1"
}

# relay_start: libvirtd's socket on a loopback TCP port the kernel picks
# (tests/fixtures/tcp2unix.py), for qemu+tcp://127.0.0.1:$relay_port/system;
# killed at exit.
relay_pid=
relay_port=
relay_start() {
	/usr/bin/python3 "$KREGRESS_SRC/tests/fixtures/tcp2unix.py" \
		/var/run/libvirt/libvirt-sock "$tmp/relay.port" &
	relay_pid=$!
	wait_for 30 test -s "$tmp/relay.port" || return 1
	relay_port=$(cat "$tmp/relay.port")
}
at_exit '[ -z "$relay_pid" ] || kill "$relay_pid"'

# initrd_for ARCH OUT: an initramfs with the test init as /init.
initrd_for() {
	local arch=$1 out=$2 cc=gcc d
	[ "$arch" = arm64 ] && cc=aarch64-linux-gnu-gcc
	d=$tmp/initrd-$arch
	mkdir -p "$d/dev"
	$cc -static -O2 -o "$d/init" "$KREGRESS_SRC/tests/fixtures/testinit.c" ||
		return 1
	[ -e "$d/dev/console" ] || mknod "$d/dev/console" c 5 1 || return 1
	(cd "$d" && printf '%s\n' . dev dev/console init |
		cpio --quiet -o -H newc -R 0:0) | gzip -1 >"$out"
}

# initrd_workloads ARCH OUT: the workloads' /init and programs
# ($KREGRESS_BUILD/workloads/<arch>/) as an initramfs packed by
# kregress initramfs.
initrd_workloads() {
	local wdir=$KREGRESS_BUILD/workloads/x86_64
	[ "$1" = arm64 ] && wdir=$KREGRESS_BUILD/workloads/aarch64
	[ -x "$wdir/init" ] || return 1
	"$KREGRESS_BUILD/kregress" initramfs --gzip --workloads "$wdir" \
		--out "$2" >/dev/null
}
