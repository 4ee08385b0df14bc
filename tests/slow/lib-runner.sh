# lib-runner.sh - shared set-up of the runner's slow tests (sourced after
# tap.sh).
#
# Gives each test: a domain-name prefix of its own (so parallel test runs
# on one libvirtd never reap each other's domains, and whatever is left
# under it is reaped at exit), the kernel the product builds for an arch
# (the shipped builder fragments, through `kregress build`, cached outside
# the clone), an initramfs holding the test init (tests/fixtures/testinit.c,
# a fast stand-in that can also hang on purpose) built statically for that
# arch, or one of the workloads' own /init and programs, and a TCP relay
# to libvirtd.
set -u
: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"
KREGRESS=$KREGRESS_BUILD/kregress
build_cache_private || bail_out "no build cache of its own"
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
# QEMU runs as libvirt-qemu: it must be able to reach kernels and initrds.
chmod 755 "$tmp"
export KREGRESS_VM_PREFIX=kregress-t$$-
at_exit '"$KREGRESS" host reap >/dev/null 2>&1'

need_libvirt() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for qemu:///system"
	timeout 20 virsh -c qemu:///system version >/dev/null 2>&1 ||
		skip_all "libvirtd is not running (make check starts it)"
	build_user_setup	# the kernels are built as the product builds
}

# kernel_for ARCH: the path of the kernel the product builds for ARCH
# (`kregress build` of the imported 6.1 tree's HEAD with the shipped
# builder fragments, cached in KREGRESS_CACHE: t-build.sh and the daemon
# tests build the same one), or the kernel named by
# $KREGRESS_TEST_KERNEL_<ARCH>.
kernel_for() {
	local var=KREGRESS_TEST_KERNEL_$1 tree
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
		return 0
	fi
	tree=$(linux_tree) || return 1
	timeout 3600 "$KREGRESS" build --tree "$tree" --rev HEAD --arch "$1" \
		--json >"$tmp/kernel-$1.json" 2>"$tmp/kernel-$1.err" ||
		{ tail -5 "$tmp/kernel-$1.err" >&2; return 1; }
	/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["image"])' "$tmp/kernel-$1.json"
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
