#!/bin/bash
# t-install.sh - `make install` into a temporary root (DESTDIR, the default
# PREFIX): the programs, the workloads of every arch built, the plans, the
# builder fragments, the dashboard and the example configuration land
# where the programs look for them, and the installed programs run on the
# installed files.  Nothing is installed on the machine itself.
set -u
src=${KREGRESS_SRC:?}
B=${KREGRESS_BUILD:?}
. "$src/tests/lib/tap.sh"

# make install builds what is out of date without the flags the build was
# made with (SANITIZE=...): install only a build that is complete.
make -s -C "$src" -q programs BUILD="$B" ||
	skip_all "the build in $B is not up to date (run make first)"

dest=$tmp/dest
datadir=/usr/local/share/kregress
make -s -C "$src" install BUILD="$B" DESTDIR="$dest" >"$tmp/make.log" 2>&1
ok $? "make install" || sed 's/^/# /' "$tmp/make.log"
kr=$dest/usr/local/bin/kregress
krd=$dest/usr/local/sbin/kregressd
[ -x "$kr" ] && [ -x "$krd" ]
ok $? "kregress in bin/, kregressd in sbin/"
for p in kregress kregressd; do
	strings -a "$B/$p" | grep -qxF "$datadir"
	ok $? "$p looks for its data in $datadir"
done

# Every arch the build made: the same /init and programs.
arches=
for d in "$B"/workloads/*/; do
	a=$(basename "$d")
	arches="$arches $a"
	same=1
	for f in "$d"*; do
		cmp -s "$f" "$dest$datadir/workloads/$a/$(basename "$f")" &&
			[ -x "$dest$datadir/workloads/$a/$(basename "$f")" ] ||
			same=0
	done
	[ -x "$dest$datadir/workloads/$a/init" ] && [ $same = 1 ]
	ok $? "workloads/$a: /init and every program installed"
done
[ -n "$arches" ]
ok $? "the build made workloads to install:$arches"

for p in "$src"/workloads/plans/*.plan; do
	f=$dest$datadir/plans/$(basename "$p")
	"$kr" plan check "$f" >"$tmp/plan.out" 2>&1
	ok $? "installed plans/$(basename "$p") loads"
done
same=1
for c in "$src"/builders/configs/*.config; do
	cmp -s "$c" "$dest$datadir/configs/$(basename "$c")" || same=0
done
ok $((1 - same)) "every builder fragment installed in configs/"
[ -s "$dest$datadir/web/index.html" ]
ok $? "the dashboard installed in web/"
# The example configuration names the installed plans: as if the root
# were $dest, it passes kregressd's check.
sed "s|\"$datadir/|\"$dest$datadir/|g" "$dest$datadir/config.example.json" \
	>"$tmp/config.json"
"$krd" -n -c "$tmp/config.json" >"$tmp/check.out" 2>&1
ok $? "installed kregressd accepts the installed config.example.json" ||
	sed 's/^/# /' "$tmp/check.out"

# The installed workloads run (natively, on this machine's arch) and pack
# into a guest image.
arch=$(uname -m)
cat >"$tmp/small.plan" <<'PLAN'
kregress-plan 1
timeout 120
run memset-order --size-mb 2 --iterations 1 --warmup 0
PLAN
"$kr" bench --native --workloads "$dest$datadir/workloads/$arch" \
	"$tmp/small.plan" --json >"$tmp/bench.out" 2>&1 &&
	grep -q '"workload": *"memset-order"' "$tmp/bench.out"
ok $? "the installed $arch workloads run a plan natively" ||
	tail -3 "$tmp/bench.out" | sed 's/^/# /'
"$kr" initramfs --gzip --workloads "$dest$datadir/workloads/$arch" \
	--plan "$dest$datadir/plans/default-tcg.plan" --out "$tmp/guest.cpio.gz" \
	>"$tmp/initramfs.out" 2>&1 &&
	zcat "$tmp/guest.cpio.gz" | cpio --quiet -t | grep -qx init
ok $? "the installed workloads and plan pack into a guest image with /init"
done_testing
