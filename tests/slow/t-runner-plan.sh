#!/bin/bash
# t-runner-plan.sh - the workloads' guest /init runs a short plan under
# TCG; `kregress boot --plan` prints the samples parsed by the result
# protocol (console.c), for x86_64 and, when the cross toolchain and its
# kernel are there, arm64.
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
cat >"$tmp/plan" <<'PLAN'
kregress-plan 1
timeout 60
thp always
run thp-fault --size-mb 8 --iterations 3 --warmup 1
run memset-order --size-mb 4 --iterations 3 --warmup 1
PLAN
arches="x86_64"
[ -x "$KREGRESS_BUILD/workloads/aarch64/init" ] &&
	[ "${KREGRESS_SKIP_ARM64:-}" != 1 ] && arches="$arches arm64"
echo "1..$((5 * $(echo $arches | wc -w)))"
for arch in $arches; do
	kernel=$(kernel_for $arch) || { echo "Bail out! no $arch kernel"; exit 1; }
	initrd_workloads $arch "$tmp/wl-$arch.cpio.gz" ||
		{ echo "Bail out! no $arch workloads"; exit 1; }
	timeout 300 "$KREGRESS" boot --kernel "$kernel" --arch $arch \
		--initrd "$tmp/wl-$arch.cpio.gz" --plan "$tmp/plan" \
		--accel tcg --timeout 240 --log "$tmp/$arch.log" \
		>"$tmp/$arch.out" 2>"$tmp/$arch.err"
	ok $? "$arch: boot with a plan exits 0"
	grep -q '^boot: ok$' "$tmp/$arch.out"
	ok $? "$arch: boot ok"
	grep -q '^results: complete ' "$tmp/$arch.out"
	ok $? "$arch: result protocol complete"
	test "$(grep -c '^sample: {"type":"sample","workload":"memset-order"' \
		"$tmp/$arch.out")" -ge 3
	ok $? "$arch: memset-order samples printed"
	grep -q '^sample: {"type":"sample","workload":"thp-fault"' "$tmp/$arch.out"
	ok $? "$arch: thp-fault samples printed"
	grep '_s: ' "$tmp/$arch.out" | sed "s/^/# $arch /"
done
exit $((failed > 0))
