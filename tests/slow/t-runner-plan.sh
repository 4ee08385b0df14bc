#!/bin/bash
# t-runner-plan.sh - the workloads' guest /init runs a short plan under
# TCG; `kregress boot --plan` prints the samples parsed by the result
# protocol (console.c), for x86_64 and, when the cross toolchain and its
# kernel are there, arm64.  The samples must be real measurements: every
# one above 0 and below the plan's 60 s (a *_cpu sample of ~1.8e19 ns was
# an unchecked clock read), and the guest must keep time with a real
# clocksource (x86 without ACPI fell back to jiffies and read 0 ns).
# The kernels are the ones the product builds (the shipped fragments), and
# the plan sets up zram swap as the shipped plans do: zero-swap's page-outs
# must reach swap (its /proc/vmstat pswpout info).  The kernel command
# line has a word the kernel passes on to /init as an argument (nokaslr),
# which must not be taken for a plan.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
cat >"$tmp/plan" <<'PLAN'
kregress-plan 1
timeout 60
swap zram 16
thp always
run thp-fault --size-mb 8 --iterations 3 --warmup 1
run memset-order --size-mb 4 --iterations 3 --warmup 1
thp never
run zero-swap --size-mb 4 --iterations 2 --warmup 0
PLAN
checks=9	# per arch
plan $((2 * checks))
arches="x86_64"
if [ "${KREGRESS_SKIP_ARM64:-}" = 1 ]; then
	skip_arm64="KREGRESS_SKIP_ARM64=1"
elif [ ! -x "$KREGRESS_BUILD/workloads/aarch64/init" ]; then
	skip_arm64="no aarch64 workloads built (gcc-aarch64-linux-gnu?)"
else
	skip_arm64=
	arches="$arches arm64"
fi
[ -z "$skip_arm64" ] || skip "arm64: $skip_arm64" $checks
for arch in $arches; do
	kernel=$(kernel_for $arch) || bail_out "no $arch kernel"
	initrd_workloads $arch "$tmp/wl-$arch.cpio.gz" ||
		bail_out "no $arch workloads"
	timeout 300 "$KREGRESS" boot --kernel "$kernel" --arch $arch \
		--initrd "$tmp/wl-$arch.cpio.gz" --plan "$tmp/plan" \
		--accel tcg --timeout 240 --log "$tmp/$arch.log" \
		--cmdline nokaslr >"$tmp/$arch.out" 2>"$tmp/$arch.err"
	ok $? "$arch: boot with a plan exits 0"
	grep -Eq '"cmdline":".* nokaslr",' "$tmp/$arch.log"
	ok $? "$arch: with nokaslr on the command line, /init's argument"
	grep -q '^boot: ok$' "$tmp/$arch.out"
	ok $? "$arch: boot ok"
	grep -q '^results: complete ' "$tmp/$arch.out"
	ok $? "$arch: result protocol complete"
	test "$(grep -c '^sample: {"type":"sample","workload":"memset-order"' \
		"$tmp/$arch.out")" -ge 3
	ok $? "$arch: memset-order samples printed"
	grep -q '^sample: {"type":"sample","workload":"thp-fault"' "$tmp/$arch.out"
	ok $? "$arch: thp-fault samples printed"
	sed -n 's/^sample: //p' "$tmp/$arch.out" | /usr/bin/python3 -c '
import json, sys
bad = [r for r in map(json.loads, sys.stdin)
       if not 0 < r["value"] < 60e9]
for r in bad[:5]:
    print("# bad sample: %s %s" % (r["metric"], r["value"]))
sys.exit(1 if bad else 0)'
	ok $? "$arch: every sample (the *_cpu ones too) is above 0 and below 60 s"
	sed -n 's/^sample: //p' "$tmp/$arch.out" | /usr/bin/python3 -c '
import json, sys
recs = [r for r in map(json.loads, sys.stdin) if r["workload"] == "zero-swap"]
m = sorted({r["metric"] for r in recs})
assert m == ["pageout_data", "pageout_zero", "swapin_data", "swapin_zero"], m
for r in recs:
    if r["metric"].startswith("pageout_"):
        assert r["info"]["pswpout"] > 0, r
        assert r["info"]["present_after_pageout"] <= 512, r'
	ok $? "$arch: zero-swap in a guest with zram swap: page-outs reach swap"
	! grep -q '"clocksource":"[a-z-]*jiffies"' "$tmp/$arch.log"
	ok $? "$arch: the guest keeps time with a real clocksource"
	grep '_s: ' "$tmp/$arch.out" | sed "s/^/# $arch /"
done
done_testing
