#!/bin/bash
# t-build-resume.sh - a real kernel build stopped with Ctrl-C (SIGINT) and
# resumed: the imported 6.1 tree, the shipped builder fragments, through
# `kregress build`.
#
# The build gets an object directory of its own, cold: one extra
# fragment holding only a comment (with this run's nonce) gives it a
# config key, and so a slot, of its own, while the effective .config is
# the shipped one's (its hash is checked).  Once objects exist, SIGINT:
# exit 130, the build interrupted, no build process left.  The next
# `kregress build` of the same commit continues in that directory: every
# object compiled before the stop (kbuild's .cmd record of it written
# whole; the at most two in flight are compiled again) keeps its file
# (same mtime, make did not compile it again), make's log of the second
# attempt names none of them, both attempts together compiled what one
# cold build of the shipped configuration compiles (but for the objects
# in flight at the stop), and the image boots.  A failure prints each
# object compiled again with its record as the stop left it.
#
# The compiler cache is the shared one, so a warm cache makes the test
# quick; a cold one makes it a full kernel build, and it passes the same.
# The slot and the artefact are removed at exit.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
build_user_setup
tree=$(linux_tree) || skip_all "no linux-source-6.1 tree or tarball"
base=$(git -C "$tree" rev-parse HEAD)
PY=/usr/bin/python3
nonce=$$-$(date +%s%N)
arch=x86_64

plan 12

frag=$tmp/resume-test.config
echo "# t-build-resume.sh $nonce: no option, a slot of its own" >"$frag"
kb=("$KREGRESS" build --tree "$tree" --rev "$base" --arch $arch
	--config-fragment "$frag" --json)
field() {	# FILE KEY: a field of a build result
	$PY -c 'import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print("\n".join(v) if isinstance(v, list) else v)' "$1" "$2"
}
# slot_dir: the slot whose fragment is this run's (once configured)
slot=
slot_dir() {
	local f
	f=$(grep -l -F "$nonce" "$KREGRESS_CACHE"/slots/*/$arch-*/cfg/kregress-fragment.config \
		2>/dev/null | head -1)
	[ -n "$f" ] || return 1
	slot=${f%/cfg/*}
}
at_exit '[ -z "$slot" ] || { rm -rf "$slot" "$KREGRESS_CACHE/builds/'"$base"'/'"$arch"'-${slot##*-}"; git -C "$tree" worktree prune; }'
# objects_at_least N: the slot's obj/ holds N compiled objects
objects_at_least() {
	[ -n "$slot" ] || slot_dir || return 1
	[ "$(find "$slot/obj" -name '*.o' 2>/dev/null | head -"$1" | wc -l)" = "$1" ]
}
build_procs() {	# the processes of this run's build
	pgrep -f -- "$frag|${slot:-$frag}"
}

# What one cold build of the shipped configuration compiles (the cache
# has it when any slow test built the base; else this builds it).
timeout 3600 "$KREGRESS" build --tree "$tree" --rev "$base" --arch $arch \
	--json >"$tmp/shipped.json" 2>"$tmp/shipped.err"
ok $? "the shipped configuration's build of the base ($(field "$tmp/shipped.json" compiled) objects)"

# A background job of a script ignores SIGINT; a terminal's does not.
env --default-signal=INT "${kb[@]}" >"$tmp/first.json" 2>"$tmp/first.err" &
pid=$!
at_exit 'kill -9 '"$pid"' 2>/dev/null'
wait_for 1800 objects_at_least 100
ok $? "a cold build of its own is under way, objects in its obj/ ($slot)"
kill -INT "$pid"
wait_pid 120 "$pid"
is $? 130 "SIGINT: kregress build exits 130"
is "$(field "$tmp/first.json" status) $(field "$tmp/first.json" reason)" \
	"interrupted stopped on request" "the build says interrupted, stopped on request"
wait_for 30 eval '! build_procs >/dev/null'
ok $? "no build process is left"
# The objects compiled before the stop: an object's record, .NAME.o.cmd,
# is written after its compiler ends, by fixdep (`fixdep ... >
# .NAME.o.cmd`, its dependency list ending with the line `$(deps_PATH):`)
# or by printf for a command without dependencies (`cmd_PATH := ...`).
# An object without a whole record was in flight (its compiler done, the
# rest of the recipe stopped) and is compiled again, as kbuild does for
# an object whose recorded command is missing.
record() {	# OBJECT [DIR]: its .cmd in DIR (default: the slot's obj/)
	echo "${2:-$slot/obj}/$(dirname "$1")/.$(basename "$1").cmd"
}
whole() {	# RECORD: written to its end (a line ends it; deps complete)
	[ -s "$1" ] && [ -z "$(tail -c 1 "$1")" ] || return 1
	! grep -q 'deps_' "$1" || grep -qx '\$(deps_.*):' "$1"
}
find "$slot/obj" -name '*.o' -printf '%P %T@\n' | sort >"$tmp/present"
while read -r o t; do
	whole "$(record "$o")" && echo "$o $t"
done <"$tmp/present" >"$tmp/before"
# kept for the diagnosis of a failure below
mkdir -p "$tmp/records"
(cd "$slot/obj" && find . -name '.*.o.cmd' -exec cp --parents -t "$tmp/records" {} +)
flight=$(($(wc -l <"$tmp/present") - $(wc -l <"$tmp/before")))
[ "$flight" -le 2 ]
ok $? "at most one object per make job (-j2) was in flight at the stop ($flight: $(comm -23 "$tmp/present" "$tmp/before" | cut -d' ' -f1 | tr '\n' ' '))"
echo "# $(wc -l <"$tmp/before") objects compiled before the stop, $(field "$tmp/first.json" compiled) counted"

timeout 3600 "${kb[@]}" >"$tmp/second.json" 2>"$tmp/second.err"
ok $? "the next kregress build of the commit completes"
is "$(field "$tmp/second.json" status) $(field "$tmp/second.json" cold) $(field "$tmp/second.json" config_hash)" \
	"ok True $(field "$tmp/shipped.json" config_hash)" \
	"ok, accounted as one cold build, the shipped configuration's .config"
find "$slot/obj" -name '*.o' -printf '%P %T@\n' | sort >"$tmp/after"
# Objects kbuild rebuilds at every link, whatever changed (t-build.sh).
link_time='^(init/version(-timestamp)?\.o|\.tmp_vmlinux.*|arch/x86/boot/.*) '
grep -Ev "$link_time" "$tmp/before" | comm -23 - "$tmp/after" >"$tmp/lost"
is "$(head -5 "$tmp/lost")" "" \
	"every object compiled before the stop is still there, not compiled again (same mtime)"
log=$(dirname "$(field "$tmp/second.json" image)")/build.log
# What a failure needs to be understood: each such object's record as
# the stop left it, and what the second attempt did with it.
while read -r o t; do
	r=$(record "$o" "$tmp/records")
	echo "# $o: at the stop $(stat -c %s "$r" 2>/dev/null || echo no) bytes of record, ending $(tail -c 120 "$r" 2>/dev/null | tr '\n' '|'); now $(grep "^$o " "$tmp/after" || echo absent); the second log: $(grep -F "$o" "$log" | head -3 | tr '\n' '|')"
done <"$tmp/lost" >&2
sed -n 's/^  CC      //p' "$log" | sort >"$tmp/again"
is "$(sed 's/ .*//' "$tmp/before" | grep -Ev "${link_time% }" |
	comm -12 - "$tmp/again" | head -5)" "" \
	"make's log of the second attempt compiles none of them"
echo "# the second attempt compiled $(wc -l <"$tmp/again") objects"
# The objects make was compiling at the stop (at most one per job of
# kregress build's default -j2) may count in either attempt, or in both;
# every other object counts once.
both=$(field "$tmp/second.json" compiled)
cold=$(field "$tmp/shipped.json" compiled)
d=$((both - cold))
[ "${d#-}" -le 2 ]
ok $? "both attempts compiled what one cold build does, but for the objects in flight at the stop ($both, $cold)"

img=$(field "$tmp/second.json" image)
if timeout 20 virsh -c qemu:///system version >/dev/null 2>&1 &&
	initrd_for $arch "$tmp/initrd"; then
	timeout 300 "$KREGRESS" boot --kernel "$img" --initrd "$tmp/initrd" \
		--arch $arch --accel tcg --timeout 120 --log "$tmp/boot.log" \
		>"$tmp/boot.out" 2>&1
	grep -q '^boot: ok$' "$tmp/boot.out"
	ok $? "the resumed build's kernel boots ($(file -b "$img" | cut -c1-60))"
else
	skip "libvirtd is not running: no boot of the image"
fi
done_testing
