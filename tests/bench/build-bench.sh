#!/bin/bash
# build-bench.sh - what kregress's build pipeline costs over plain make.
#
# Per arch (BENCH_ARCHES, default "x86_64 arm64"), with a fresh cache
# directory and no ccache on either side:
#   cold build through kregress (checkout + sandboxed configure + make)
#   plain "make -j2" of the same effective .config in a fresh O= dir
#   one-file incremental rebuild through kregress, as a fraction of cold
#   the repeated request (artefact cache hit)
# Prints measured figures only; the targets (overhead <= 1.05, incremental
# <= 5 %, cache hit <= 1 s) are for the reader to compare.
set -u
. "$KREGRESS_SRC/tests/lib/build-lib.sh" >/dev/null
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"

tmp=$(mktemp -d ${BENCH_TMP:-/var/tmp}/kregress-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export KREGRESS_CACHE=$tmp/cache
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
jobs=${BENCH_JOBS:-2}
tree=$(linux_tree) || { echo "build-bench: no 6.1 tree; skipped"; exit 0; }
base=$(git -C "$tree" rev-parse HEAD)

now() { date +%s.%N; }
field() {
	/usr/bin/python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
kb() {	# out arch rev [opts]
	local out=$1 arch=$2 rev=$3
	shift 3
	"$KREGRESS_BUILD/kregress" build --tree "$tree" --rev "$rev" \
		--arch "$arch" --no-ccache -j "$jobs" --json "$@" \
		> "$out" 2> "$out.err"
}
ratio() { echo "scale=3; $1 / $2" | bc; }

echo "build-bench: tree $tree, make -j$jobs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
for arch in ${BENCH_ARCHES:-x86_64 arm64}; do
	case $arch in
	x86_64) karch=x86_64 cross= target=bzImage ;;
	arm64) karch=arm64 cross=aarch64-linux-gnu- target=Image ;;
	esac
	t0=$(now)
	kb "$tmp/cold-$arch.json" $arch "$base" ||
		{ echo "build-bench: $arch: cold build failed"; continue; }
	kr_wall=$(echo "$(now) - $t0" | bc)
	kr_make=$(field "$tmp/cold-$arch.json" make_s)
	kr_cfg=$(field "$tmp/cold-$arch.json" configure_s)
	kr_co=$(field "$tmp/cold-$arch.json" checkout_s)
	kr_cpu=$(field "$tmp/cold-$arch.json" cpu_s)
	dir=$(field "$tmp/cold-$arch.json" dir)

	o=$tmp/plain-$arch
	mkdir -p "$o"
	cp "$dir/config" "$o/.config"
	make -s -C "$tree" O="$o" ARCH=$karch CROSS_COMPILE=$cross \
		olddefconfig > /dev/null
	TIMEFORMAT='%R %U %S'
	pt=$( { time make -s -C "$tree" O="$o" ARCH=$karch \
		CROSS_COMPILE=$cross -j"$jobs" $target > /dev/null 2>&1 ; } \
		2>&1 | tail -1)
	read -r p_wall p_user p_sys <<< "$pt"
	p_cpu=$(echo "$p_user + $p_sys" | bc)

	patched=$( (git -C "$tree" show "$base:mm/memory.c"
		    echo "int kregress_bench_$(date +%s%N);") |
		  tree_commit "$tree" "$base" "bench: touch mm/memory.c" \
			mm/memory.c)
	t0=$(now)
	kb "$tmp/inc-$arch.json" $arch "$patched"
	inc=$(echo "$(now) - $t0" | bc)
	t0=$(now)
	kb "$tmp/hit-$arch.json" $arch "$base"
	hit=$(echo "$(now) - $t0" | bc)

	echo "$arch: kregress cold ${kr_wall} s (checkout ${kr_co} s," \
		"configure ${kr_cfg} s, make ${kr_make} s; cpu ${kr_cpu} s)"
	echo "$arch: plain make cold ${p_wall} s (cpu ${p_cpu} s)"
	echo "$arch: overhead wall total $(ratio "$kr_wall" "$p_wall")," \
		"configure+make $(ratio "($kr_make + $kr_cfg)" "$p_wall")," \
		"make only $(ratio "$kr_make" "$p_wall")," \
		"cpu $(ratio "$kr_cpu" "$p_cpu")"
	echo "$arch: incremental one-file rebuild ${inc} s" \
		"($(field "$tmp/inc-$arch.json" compiled) objects) =" \
		"$(ratio "$inc * 100" "$kr_wall") % of cold"
	echo "$arch: cache hit ${hit} s" \
		"(cached: $(field "$tmp/hit-$arch.json" cached))"
	rm -rf "$o"
done
