#!/bin/bash
# build-bench.sh - what kregress's build pipeline costs over plain make.
#
# Per arch (BENCH_ARCHES, default "x86_64 arm64"), one after the other,
# with a fresh kregress cache directory and a fresh O= directory, so both
# sides compile every kernel object:
#   kregress: `kregress build --no-ccache` of the tree's HEAD: checkout
#     into the slot's worktree, sandboxed configure, sandboxed make;
#   plain: the same configure steps by hand in O= (make tinyconfig, the
#     same fragments appended the same way, make olddefconfig), then
#     `make -jN IMAGE`, same PATH, LC_ALL, CC and -j as the sandbox;
#   then a one-file incremental rebuild through kregress (fraction of the
#     cold build) and the repeated request (artefact cache hit).
# Neither side uses ccache: an empty ccache only adds hashing and copying
# to a cold build, and a warm one would not be cold; fairness first.
#
# CPU time is user+sys of the whole process tree.  Plain: bash's `time`
# of the configure and make commands (make waits for every compiler, so
# their times are included).  kregress: `time` of the kregress process
# (checkout, log parsing, bwrap) plus the cpu_s it reports, which the
# sandboxed shell measured with `times` (bwrap's pid 1 is not waited for
# by the outer bwrap, so the compilers never reach kregress's rusage).
# The load average is sampled every 10 s during each side.  Prints
# measured figures only; the targets (overhead <= 1.05, incremental <= 5 %,
# cache hit <= 1 s) are for the reader to compare.  It exits 1 when a
# kregress build failed or the two sides' .config differ.
#
# Smoke mode (KREGRESS_BENCH_SMOKE=1) compiles nothing: x86_64 only, the
# kregress side is the base build the slow tests made (the shared
# builds/, linked into the fresh cache), the plain side only
# configures, and the two .config files are compared; the cold
# compiles and the incremental rebuild are left out.
set -u
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"

tmp=$(mktemp -d ${BENCH_TMP:-/var/tmp}/kregress-bench.XXXXXX)
sampler=
trap '[ -n "$sampler" ] && kill $sampler; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
smoke=${KREGRESS_BENCH_SMOKE:-}
if [ -n "$smoke" ]; then
	BENCH_ARCHES=${BENCH_ARCHES:-x86_64}
	mkdir -p "$tmp/cache"
	ln -s "${KREGRESS_CACHE:-/var/cache/kregress}/builds" "$tmp/cache/builds"
fi
export KREGRESS_CACHE=$tmp/cache
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
jobs=${BENCH_JOBS:-2}
tree=$(linux_tree) ||
	{ echo "build-bench: no 6.1 tree; skipped"; exit $((${#smoke} > 0)); }
status=0
base=$(git -C "$tree" rev-parse HEAD)
# what the sandbox's environment has (sandbox_setup() in build.c)
SBENV="env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LC_ALL=C"
TIMEFORMAT='%R %U %S'

now() { date +%s.%N; }
field() {
	/usr/bin/python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
ratio() { echo "scale=3; $1 / $2" | bc; }
sum() { echo "$*" | tr ' ' '+' | bc; }

# load_start NAME / load_stop NAME: the 1-minute load average every 10 s
# in between, summed up in $tmp/load-NAME.txt
load_start() {
	: > "$tmp/load-$1"
	( while :; do cut -d' ' -f1 /proc/loadavg; sleep 10; done ) \
		>> "$tmp/load-$1" &
	sampler=$!
}
load_stop() {
	kill $sampler
	wait $sampler 2>/dev/null
	sampler=
	awk '{ s += $1; if ($1 > m) m = $1; n++ }
	     END { printf "load mean %.2f max %.2f (%d samples)", s / n, m, n }' \
		"$tmp/load-$1" > "$tmp/load-$1.txt"
}

# kb OUT ARCH REV: a kregress build; "wall user sys" of it in OUT.time
kb() {
	local out=$1 arch=$2 rev=$3
	{ time "$KREGRESS_BUILD/kregress" build --tree "$tree" --rev "$rev" \
		--arch "$arch" --no-ccache -j "$jobs" --json \
		> "$out" 2> "$out.err" ; } 2> "$out.time"
}

# The fragment text exactly as build.c's gather_fragments() makes it.
fragments() {
	local f
	for f in common-mm.config "$1.config"; do
		echo "# kregress: $f"
		cat "$KREGRESS_CONFIG_DIR/$f"
		[ -z "$(tail -c1 "$KREGRESS_CONFIG_DIR/$f")" ] || echo
	done
}

echo "build-bench: tree $tree at ${base:0:12}, make -j$jobs, no ccache," \
	"$(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
for arch in ${BENCH_ARCHES:-x86_64 arm64}; do
	case $arch in
	x86_64) karch=x86_64 cross= target=bzImage
		image=arch/x86/boot/bzImage ;;
	arm64) karch=arm64 cross=aarch64-linux-gnu- target=Image
		image=arch/arm64/boot/Image ;;
	esac

	# --- kregress, cold ---
	load_start kr-$arch
	kb "$tmp/cold-$arch.json" $arch "$base" ||
		{ load_stop kr-$arch
		  echo "build-bench: $arch: cold build failed:" \
		       "$(tail -3 "$tmp/cold-$arch.json.err")"; status=1
		  continue; }
	load_stop kr-$arch
	kr_load=$(cat "$tmp/load-kr-$arch.txt")
	read -r kr_wall kr_user kr_sys < "$tmp/cold-$arch.json.time"
	kr_make=$(printf %.1f "$(field "$tmp/cold-$arch.json" make_s)")
	kr_cfg=$(printf %.1f "$(field "$tmp/cold-$arch.json" configure_s)")
	kr_co=$(printf %.1f "$(field "$tmp/cold-$arch.json" checkout_s)")
	kr_sb=$(field "$tmp/cold-$arch.json" cpu_s)
	kr_self=$(printf %.1f "$(field "$tmp/cold-$arch.json" self_cpu_s)")
	kr_cocpu=$(printf %.1f \
		"$(field "$tmp/cold-$arch.json" checkout_cpu_s)")
	kr_cpu=$(sum "$kr_user" "$kr_sys" "$kr_sb")
	kr_n=$(field "$tmp/cold-$arch.json" compiled)
	dir=$(field "$tmp/cold-$arch.json" dir)

	# --- plain make, cold, same configure steps ---
	o=$tmp/plain-$arch
	mkdir -p "$o"
	fragments $arch > "$o/kregress-fragment.config"
	mk="$SBENV make -C $tree O=$o ARCH=$karch CROSS_COMPILE=$cross \
CC=${cross}gcc"
	load_start plain-$arch
	{ time { $mk -s tinyconfig &&
		 cat "$o/kregress-fragment.config" >> "$o/.config" &&
		 $mk -s olddefconfig ; } > "$o.cfg.log" 2>&1 ; } \
		2> "$o.cfg.time"
	cmp -s "$dir/config" "$o/.config" || status=1
	if [ -n "$smoke" ]; then
		load_stop plain-$arch
		read -r p_cwall _ < "$o.cfg.time"
		echo "$arch: smoke: kregress build ${kr_wall} s (cached:" \
			"$(field "$tmp/cold-$arch.json" cached)), plain" \
			"configure ${p_cwall} s, same .config: $( ((status)) &&
			echo NO || echo yes)"
		rm -rf "$o"
		continue
	fi
	{ time $mk -j"$jobs" $target > "$o.log" 2>&1 ; } 2> "$o.make.time"
	load_stop plain-$arch
	p_load=$(cat "$tmp/load-plain-$arch.txt")
	read -r p_cwall p_cuser p_csys < "$o.cfg.time"
	read -r p_mwall p_muser p_msys < "$o.make.time"
	p_wall=$(sum "$p_cwall" "$p_mwall")
	p_cpu=$(sum "$p_cuser" "$p_csys" "$p_muser" "$p_msys")
	p_n=$(grep -c '^  CC ' "$o.log")
	if cmp -s "$dir/config" "$o/.config"; then same=yes; else same=NO; fi
	test -s "$o/$image" && p_ok=yes || p_ok=NO

	# --- incremental, cache hit ---
	patched=$( (git -C "$tree" show "$base:mm/memory.c"
		    echo "int kregress_bench_$(date +%s%N);") |
		  tree_commit "$tree" "$base" "bench: touch mm/memory.c" \
			mm/memory.c)
	kb "$tmp/inc-$arch.json" $arch "$patched"
	read -r inc _ < "$tmp/inc-$arch.json.time"
	kb "$tmp/hit-$arch.json" $arch "$base"
	read -r hit _ < "$tmp/hit-$arch.json.time"

	echo "$arch: kregress cold: wall ${kr_wall} s (checkout ${kr_co} s," \
		"configure ${kr_cfg} s, make ${kr_make} s), cpu ${kr_cpu} s" \
		"(kregress process ${kr_user} user + ${kr_sys} sys, its build" \
		"thread ${kr_self} s of which checkout ${kr_cocpu} s," \
		"sandboxed ${kr_sb} s), ${kr_n} objects; ${kr_load}"
	echo "$arch: plain cold: wall ${p_wall} s (configure ${p_cwall} s," \
		"make ${p_mwall} s), cpu ${p_cpu} s (configure" \
		"$(sum "$p_cuser" "$p_csys") s), ${p_n} objects, image" \
		"${p_ok}, same .config as kregress: ${same}; ${p_load}"
	echo "$arch: ratio kregress/plain: cpu $(ratio "$kr_cpu" "$p_cpu")," \
		"wall $(ratio "$kr_wall" "$p_wall")," \
		"wall without checkout $(ratio "($kr_wall - $kr_co)" "$p_wall")"
	echo "$arch: incremental one-file rebuild ${inc} s" \
		"($(field "$tmp/inc-$arch.json" compiled) objects) =" \
		"$(ratio "$inc * 100" "$kr_wall") % of cold"
	echo "$arch: cache hit ${hit} s" \
		"(cached: $(field "$tmp/hit-$arch.json" cached))"
	rm -rf "$o" "$KREGRESS_CACHE"
done
exit $status
