#!/bin/bash
# kregress build against a fake kernel tree whose Makefile imitates
# kbuild's targets: the cache, the sandbox's refusals and the limits,
# without compiling a kernel.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/build-lib.sh"

export KREGRESS_CACHE=$tmp/cache
export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
build_user_setup

mkdir -p "$tmp/tree"
cd "$tmp/tree"
cat > Makefile <<'MK'
SHELL := /bin/bash
O := $(KBUILD_OUTPUT)
tinyconfig:
	echo 'CONFIG_64BIT=y' > $(O)/.config
olddefconfig:
	grep -v '^CONFIG_ZRAM=' $(O)/.config | sort -u > $(O)/.config.new
	mv $(O)/.config.new $(O)/.config
bzImage Image:
	@echo '  CC      mm/memory.o'
	@echo '  CC      init/main.o'
	@echo "$$PWD/mm/memory.c:10:5: warning: unused variable 'x' [-Wunused-variable]"
	@echo "KCFLAGS=[$$KCFLAGS]"
	@[ ! -e evil-net ] || bash -c 'exec 3<>/dev/tcp/192.0.2.1/80'
	@[ ! -e evil-write ] || echo pwned > $(CURDIR)/mm/escaped
	@[ ! -e evil-write2 ] || echo pwned > /var/tmp/kregress-escaped
	@[ ! -e evil-loop ] || while :; do echo spam spam spam spam spam; done
	@[ ! -e evil-sleep ] || sleep 600
	@[ ! -e evil-mem ] || python3 -c 'import mmap; mmap.mmap(-1, 5 << 30)'
	@[ ! -e evil-disk ] || { head -c 16M /dev/zero > $(O)/big; sleep 600; }
	@[ ! -e evil-fsize ] || dd if=/dev/zero of=$(O)/big bs=1 count=1 seek=3G status=none
	@[ ! -e limits ] || echo "limits: nproc $$(ulimit -u) fsize $$(ulimit -f) as $$(ulimit -v)"
	@[ ! -e broken ] || { echo 'mm/memory.c:3:1: error: expected ; before }'; exit 2; }
	@[ ! -e hold ] || case "$(O)" in */cache-second/*) \
		while [ ! -e "$$(cat hold)" ]; do sleep 0.1; done ;; esac
	mkdir -p $(O)/arch/x86/boot $(O)/arch/arm64/boot
	echo kernel > $(O)/arch/x86/boot/bzImage
	echo kernel > $(O)/arch/arm64/boot/Image
	echo elf > $(O)/vmlinux
	echo 'ffffffff81000000 T _text' > $(O)/System.map
MK
mkdir mm && echo 'int x;' > mm/memory.c
# the escape target is this test's own, so that no other run's leftover
# (nor this one's) fails another
escaped=/var/tmp/kregress-escaped-${tmp##*/}
sed -i "s|/var/tmp/kregress-escaped|$escaped|" Makefile
git init -q . && git add -A && git_commit base
git tag base

plan 39

kb() { ${KB_WRAP:-} "$KREGRESS_BUILD/kregress" build --tree "$tmp/tree" "$@"; }

# a shared ccache made by root before any build (as a test library or
# an administrator would): the build user must still write in it
mkdir -p "$KREGRESS_CACHE/ccache"
kb --rev base --arch x86_64 --out "$tmp/out" > "$tmp/r1" 2>&1
is $? 0 "fake base build succeeds"
is "$(stat -c %U "$KREGRESS_CACHE/ccache")" kregress-build \
	"a ccache directory made by root before is the build user's"
grep -q '^build: ok x86_64' "$tmp/r1"; ok $? "reported ok"
[ -s "$tmp/out/bzImage" ] && [ -s "$tmp/out/config" ] && \
	[ -s "$tmp/out/System.map" ] && [ -s "$tmp/out/build.log" ]
ok $? "--out has image, config, System.map, log"
grep -q '^dropped: CONFIG_ZRAM=y (now: not set)' "$tmp/r1"
ok $? "the option olddefconfig dropped is reported"
grep -q 'compiled: 2 objects (cold); warnings: 1' "$tmp/r1"
ok $? "objects and warnings counted"

kb --rev base --arch x86_64 > "$tmp/r2" 2>&1
is $? 0 "second request succeeds"
grep -q '(cached)' "$tmp/r2"; ok $? "second request is a cache hit"
is "$(grep '^image: ' "$tmp/r2")" "$(grep '^image: ' "$tmp/r1")" \
	"the cache hit gives the first build's image"

# A cache reached through another path than the one it was written
# through (moved; or the shared builds of tests/lib/build-lib.sh)
mv "$tmp/cache" "$tmp/cache-moved"
kb --rev base --arch x86_64 --cache "$tmp/cache-moved" > "$tmp/r2m" 2>&1
grep -q '(cached)' "$tmp/r2m" &&
	grep -q "^image: $tmp/cache-moved/builds/.*/bzImage\$" "$tmp/r2m"
ok $? "a moved cache still hits, and gives the image where it is now"
mv "$tmp/cache-moved" "$tmp/cache"

# The layout control's kernel: KCFLAGS reach make, under a configuration
# key of their own; the plain build's key and cache entry are untouched.
key() { sed -n 's/^build: .* config \([0-9a-f]*\).*/\1/p' "$1"; }
kb --rev base --arch x86_64 --aligned --out "$tmp/out-aligned" \
	> "$tmp/r2a" 2>&1
grep -q '^KCFLAGS=\[-O2 -falign-functions=64 -falign-loops=64\]$' \
	"$tmp/out-aligned/build.log" &&
	grep -q '^KCFLAGS=\[\]$' "$tmp/out/build.log" && ! grep -q '(cached)' "$tmp/r2a"
ok $? "--aligned: make gets the aligned KCFLAGS, in a build of its own"
[ -n "$(key "$tmp/r2a")" ] && [ "$(key "$tmp/r2a")" != "$(key "$tmp/r1")" ] &&
	kb --rev base --arch x86_64 > "$tmp/r2c" 2>&1 && grep -q '(cached)' "$tmp/r2c" &&
	[ "$(key "$tmp/r2c")" = "$(key "$tmp/r1")" ]
ok $? "its configuration key differs; the plain build's stays and still hits ($(key "$tmp/r1") / $(key "$tmp/r2a"))"

cp -r "$KREGRESS_CONFIG_DIR" "$tmp/configs-elsewhere"
kb --rev base --arch x86_64 --config-dir "$tmp/configs-elsewhere" \
	> "$tmp/r2b" 2>&1
grep -q '(cached)' "$tmp/r2b"
ok $? "the same fragments installed elsewhere are the same configuration"

kb --rev base --arch arm64 > "$tmp/r3" 2>&1
is $? 0 "arm64 build of the same commit is separate"
grep -q '^image: .*/Image$' "$tmp/r3"; ok $? "arm64 image is Image"

# a patch that adds a warning: new versus the base build
echo "int y;" >> mm/memory.c
sed -i "s/unused variable 'x'/unused variable 'y'/" Makefile
git_commit warn
kb --rev HEAD --base base --arch x86_64 > "$tmp/r4" 2>&1
grep -q "^new warning: mm/memory.c: warning: unused variable 'y'" "$tmp/r4"
ok $? "the new warning is listed against the base build"
grep -q '(new: 1)' "$tmp/r4"; ok $? "one new warning"

evil() {	# file expect-status description
	git checkout -q base
	touch "$1" && git add "$1" && git_commit "$1"
	kb --rev HEAD --arch x86_64 $4 > "$tmp/$1.out" 2>&1
	is $? "$2" "$3: build fails"
}

evil broken 1 "a compile error"
grep -q "^error: mm/memory.c: error: expected ; before }" "$tmp/broken.out"
ok $? "its error line is reported"

evil evil-net 1 "network access"
grep -q '^reason: make: the build tried to reach the network' \
	"$tmp/evil-net.out"
ok $? "reason: network blocked"

evil evil-write 1 "a write into the source tree"
grep -q "reason: make: the build tried to write outside" \
	"$tmp/evil-write.out" && ! ls "$KREGRESS_CACHE"/slots/*/*/src/mm/escaped \
	>/dev/null 2>&1
ok $? "nothing was written outside"

evil evil-write2 1 "a write to /var/tmp"
grep -q 'reason: make: the build tried to write outside' \
	"$tmp/evil-write2.out" && [ ! -e "$escaped" ]
ok $? "reason: write outside blocked"

evil evil-sleep 1 "a hanging build" "--timeout 3"
grep -q 'reason: make: timed out after 3 s' "$tmp/evil-sleep.out"
ok $? "reason: timeout"
evil evil-loop 1 "a build that floods its log" "--log-limit 100000"
grep -q 'reason: make: output exceeded the 100000 byte log limit' \
	"$tmp/evil-loop.out"
ok $? "reason: log limit"

# The limits on memory, file size and (for the build user) processes.
evil evil-mem 1 "a build that maps 5 GiB (over the 4 GiB limit)" --json
d=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["dir"])' "$tmp/evil-mem.out")
grep -q 'Cannot allocate memory' "$d/build.log"
ok $? "its log: the mapping was refused"
evil evil-fsize 1 "a build that writes a 3 GiB file (over the 2 GiB limit)"
grep -q '^reason: make: .*File size limit exceeded' "$tmp/evil-fsize.out"
ok $? "reason: file size limit"
evil evil-disk 1 "a build that writes 16 MiB into its output directory" \
	"--disk-limit 8 --timeout 120"
grep -q '^reason: make: the output directory exceeded its 8 MiB limit' \
	"$tmp/evil-disk.out"
ok $? "it is stopped at the cap, lowered by --disk-limit, and the reason names it"
git checkout -q base
touch limits && git add limits && git_commit limits
kb --rev HEAD --arch x86_64 > "$tmp/limits.out" 2>&1
is $? 0 "a build that prints its limits succeeds"
if [ "$(id -u)" = 0 ]; then
	grep -h '^limits: ' "$(dirname "$(sed -n 's/^image: //p' \
		"$tmp/limits.out")")/build.log" >"$tmp/limits"
	is "$(cat "$tmp/limits")" \
		"limits: nproc 4096 fsize $((2 << 20)) as $((4 << 20))" \
		"the build user's limits: 4096 processes, 2 GiB files, 4 GiB memory"
else
	skip "not root: the build runs as this user, its process count unlimited"
fi

# Two caches that share builds/ (a cache linked into another, as
# tests/lib/build-lib.sh links the tests' caches) build one commit at
# once: the second to finish keeps the first's build in place, files and
# all, since whoever stored it may be reading it.  The second cache's
# make waits, after its cache lookup missed, until the first has stored.
held=/var/tmp/kregress-hold-${tmp##*/}
at_exit 'rm -f "$held"'
git checkout -q base
echo "$held" >hold && git add hold && git_commit hold
mkdir -p "$tmp/cache-second" &&
	ln -s "$KREGRESS_CACHE/builds" "$tmp/cache-second/builds"
commit=$(git rev-parse HEAD)
timeout 120 "$KREGRESS_BUILD/kregress" build --tree "$tmp/tree" --rev HEAD \
	--arch x86_64 --cache "$tmp/cache-second" >"$tmp/second.out" 2>&1 &
second=$!
for ((i = 0; i < 600; i++)); do
	compgen -G "$KREGRESS_CACHE/builds/$commit/.tmp-x86_64-*" >/dev/null &&
		break
	sleep 0.1
done
kb --rev HEAD --arch x86_64 >"$tmp/first.out" 2>&1 &&
	first=$(sed -n 's/^image: //p' "$tmp/first.out") &&
	inode=$(stat -c %i "$first")
touch "$held"
wait $second
is "$?|$(grep -c '^build: ok x86_64' "$tmp/second.out")" "0|1" \
	"a build finishing second, of what a cache sharing builds/ stored meanwhile, succeeds"
is "$(stat -c %i "${first:-/nonexistent}" 2>&1)" "${inode:-none}" \
	"... and the first build's image stays in place, not replaced"
done_testing
