#!/bin/bash
# Real kernel builds of the imported 6.1 tree through "kregress build":
# x86_64 and arm64 base builds, the artefact cache, a one-file patch that
# must recompile exactly its object, a patch that breaks the build, and
# patches whose Makefile reaches for the network or writes outside, which
# the sandbox blocks.  ccache (in the cache directory) makes reruns fast.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"
. "$KREGRESS_SRC/tests/lib/linux-tree.sh"

build_cache_private || bail_out "no build cache of its own"
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
build_user_setup
command -v aarch64-linux-gnu-gcc >/dev/null ||
	skip_all "gcc-aarch64-linux-gnu is not installed"
tree=$(linux_tree) || skip_all "no linux-source-6.1 tree or tarball"
base=$(git -C "$tree" rev-parse HEAD)
nonce=$(date +%s%N)

plan 29

kb() {	# arch rev [options]: runs a build, result JSON in $tmp/$arch.json
	local arch=$1 rev=$2
	shift 2
	"$KREGRESS_BUILD/kregress" build --tree "$tree" --rev "$rev" \
		--arch "$arch" --json "$@" > "$tmp/$arch.json" 2> "$tmp/$arch.err"
}
field() {	# arch jq-like key of the last result
	/usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
v = r[sys.argv[2]]
print("\n".join(v) if isinstance(v, list) else v)' "$tmp/$1.json" "$2"
}
# Objects kbuild rebuilds at every link, whatever changed.
link_time='^(init/version(-timestamp)?\.o|\.tmp_vmlinux.*|arch/x86/boot/.*|arch/arm64/kernel/vdso/.*)$'

for arch in x86_64 arm64; do
	start=$(date +%s)
	kb $arch "$base"
	is $? 0 "$arch: base build of the 6.1 tree succeeds"
	echo "# $arch: base build $(($(date +%s) - start)) s," \
		"$(field $arch compiled) objects, cold $(field $arch cold)," \
		"cached $(field $arch cached)"
	img=$(field $arch image)
	[ -s "$img" ]; ok $? "$arch: image $(basename "$img") written"
	cfg=$(dirname "$img")/config
	grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' "$cfg" &&
		grep -q '^CONFIG_ZSWAP=y' "$cfg" &&
		grep -q '^CONFIG_ZRAM=y' "$cfg" &&
		grep -q '^CONFIG_HUGETLBFS=y' "$cfg"
	ok $? "$arch: effective config has THP, zswap, zram, hugetlbfs"
	field $arch dropped | sed "s/^/# $arch dropped: /"

	start=$(date +%s%N)
	kb $arch "$base"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	is "$(field $arch cached)" True "$arch: second request is a cache hit"
	[ $ms -lt 1000 ]; ok $? "$arch: cache hit in $ms ms (< 1000)"

	# The base came from the shared cache without touching the slot,
	# which is this test's own and empty: first build the base's tree
	# in it (ccache makes that cheap) with an uncached commit.
	sync=$(git -C "$tree" show "$base:mm/memory.c" |
	       tree_commit "$tree" "$base" "test: the base's tree ($nonce)" \
			mm/memory.c)
	kb $arch "$sync"
	ok $? "$arch: the slot is brought to the base's tree"
	rm -rf "$KREGRESS_CACHE/builds/$sync"

	# one-file patch: only mm/memory.o is recompiled
	patched=$( (git -C "$tree" show "$base:mm/memory.c"
		    echo "int kregress_test_$nonce;") |
		  tree_commit "$tree" "$base" "test: touch mm/memory.c" \
			mm/memory.c)
	start=$(date +%s)
	kb $arch "$patched" --base "$base"
	is $? 0 "$arch: one-file patch builds"
	echo "# $arch: incremental build $(($(date +%s) - start)) s"
	is "$(field $arch cold)" False "$arch: in the kept object directory"
	rebuilt=$(field $arch objects | grep -Ev "$link_time" | tr '\n' ' ')
	is "$rebuilt" "mm/memory.o " "$arch: only mm/memory.o recompiled"
	is "$(field $arch new_warnings)" 0 "$arch: no new warnings"
done

arch=x86_64
# a patch that breaks the build
broken=$( (git -C "$tree" show "$base:mm/memory.c"
	   echo "int kregress_broken_$nonce(void) { return }") |
	 tree_commit "$tree" "$base" "test: break mm/memory.c" mm/memory.c)
kb $arch "$broken"
is $? 1 "a broken patch fails its build"
field $arch error_lines | grep '^mm/memory.c: error: ' >/dev/null
ok $? "its first error line names mm/memory.c"
field $arch error_lines 2>/dev/null | head -3 | sed 's/^/# /'

# Makefile rules that reach for the network / write outside
mk_patch() {	# recipe
	(git -C "$tree" show "$base:mm/Makefile"
	 printf '\n$(obj)/memory.o: $(obj)/kregress-evil\n'
	 printf '$(obj)/kregress-evil: FORCE\n\t%s\n' "$1"
	 printf '# %s\n' "$nonce") |
	tree_commit "$tree" "$base" "test: evil mm/Makefile" mm/Makefile
}
evil=$(mk_patch "bash -c 'exec 3<>/dev/tcp/192.0.2.1/80'")
kb $arch "$evil"
is $? 1 "a Makefile reaching for the network fails its build"
field $arch reason | grep -q 'tried to reach the network'
ok $? "reason: $(field $arch reason)"

evil=$(mk_patch 'echo pwned > $(srctree)/mm/kregress-escaped')
kb $arch "$evil"
is $? 1 "a Makefile writing into the source tree fails its build"
field $arch reason | grep -q 'tried to write outside'
ok $? "reason: $(field $arch reason)"
! ls "$KREGRESS_CACHE"/slots/*/*/src/mm/kregress-escaped >/dev/null 2>&1
ok $? "nothing was written"

evil=$(mk_patch "echo pwned > /var/tmp/kregress-escaped-$nonce")
kb $arch "$evil"
is $? 1 "a Makefile writing to /var/tmp fails its build"
[ ! -e "/var/tmp/kregress-escaped-$nonce" ]
ok $? "nothing was written to /var/tmp"
done_testing
