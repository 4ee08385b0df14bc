#!/bin/bash
# t-apply.sh - kregress apply on the real 6.1 tree from Debian's package.
#
# The tree is imported once into $KREGRESS_TREE_CACHE (default
# /var/cache/kregress/trees/linux-6.1) and reused; the test commits its
# fixtures there with fixed dates (same ids on every run, nothing grows)
# and compares with git am in a sparse, shared clone under a temporary
# directory.
set -u

. "$KREGRESS_SRC/tests/lib/tap.sh"

kregress=$KREGRESS_BUILD/kregress
fixture=$KREGRESS_SRC/tests/lib/apply-fixture.sh

export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL=author@example.org
export GIT_COMMITTER_NAME="Test Author" GIT_COMMITTER_EMAIL=author@example.org
export GIT_AUTHOR_DATE="1700000000 +0100" GIT_COMMITTER_DATE="1700000000 +0100"

# commit_from BASE MSG CMD...: a commit on top of BASE whose tree is BASE's
# after CMD ran against a temporary index ($idx) and file area ($w).
commit_from() {
	local base=$1 msg=$2
	shift 2
	export GIT_INDEX_FILE=$tmp/index
	git -C "$tree" read-tree "$base"
	"$@" || return 1
	local t
	t=$(git -C "$tree" write-tree)
	unset GIT_INDEX_FILE
	git -C "$tree" commit-tree "$t" -p "$base" -m "$msg"
}

# put PATH MODE < content: add a file to the temporary index.
put() {
	local blob
	blob=$(git -C "$tree" hash-object -w --stdin)
	git -C "$tree" update-index --add --cacheinfo "$2,$blob,$1"
}

# git am in a sparse shared clone checked out at BASE; prints its tree.
am_tree() {	# am_tree BASE MBOX PATHS...
	local base=$1 mbox=$2
	shift 2
	rm -rf "$tmp/am"
	git clone -q --shared --no-checkout "$tree" "$tmp/am" &&
	git -C "$tmp/am" sparse-checkout set --no-cone "$@" &&
	git -C "$tmp/am" checkout -q --detach "$base" &&
	git -C "$tmp/am" am -q "$mbox" >/dev/null 2>&1 &&
	git -C "$tmp/am" rev-parse 'HEAD^{tree}'
}

# The tree, imported once.
tree=$("$fixture" tree 2>"$tmp/import.log")
ok $? "6.1 tree imported into the cache ($(cat "$tmp/import.log"))"
again=$("$kregress" tree import --tarball \
	"${KREGRESS_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" "$tree")
like "$again" "already imported" "a second import is a no-op"
files=$(git -C "$tree" ls-files | wc -l)
ok $(( files > 78000 ? 0 : 1 )) "every file of the tarball committed ($files)"
like "$(git -C "$tree" show HEAD:.gitignore | tail -3)" "/rust-project.json" \
	"Debian's ignore-everything rule is gone from .gitignore"
ok $(git -C "$tree" show HEAD:.gitignore | grep -qx '/\*'; echo $((!$?))) \
	"no '/*' rule left"
base=$(git -C "$tree" rev-parse HEAD)

# 1. A real change: drop "select HAVE_MOVE_PUD" from arch/x86/Kconfig.
grep -q 'select HAVE_MOVE_PUD' <(git -C "$tree" show HEAD:arch/x86/Kconfig)
ok $? "6.1's arch/x86/Kconfig selects HAVE_MOVE_PUD"
drop_pud() {
	git -C "$tree" show "$base:arch/x86/Kconfig" |
		grep -v 'select HAVE_MOVE_PUD' | put arch/x86/Kconfig 100644
}
c1=$(commit_from "$base" "x86: do not select HAVE_MOVE_PUD

Measure what the PUD-level mremap fast path buys.

Signed-off-by: Test Author <author@example.org>" drop_pud)
git -C "$tree" format-patch -q --stdout --base="$base" -1 "$c1" \
	>"$tmp/pud.mbox"
out=$("$kregress" apply --tree "$tree" "$tmp/pud.mbox")
ok $? "the HAVE_MOVE_PUD patch applies"
like "$out" "base-commit: the series' base-commit $base is in the tree" \
	"base chosen from the series' base-commit, with the reason"
ours=$(awk '$1 == "1/1" { print $2 }' <<<"$out")
want=$(am_tree "$base" "$tmp/pud.mbox" /arch/x86/Kconfig)
is "$(git -C "$tree" rev-parse "$ours^{tree}")" "$want" \
	"same tree as git am"
is "$(git -C "$tree" log -1 --format='%an <%ae> %ad|%s' --date=raw "$ours")" \
	"Test Author <author@example.org> 1700000000 +0100|x86: do not select HAVE_MOVE_PUD" \
	"author, date, zone and subject from the mail"
like "$(git -C "$tree" log -1 --format=%B "$ours")" \
	"Signed-off-by: Test Author <author@example.org>" "trailers kept"

# 2. The arm64 patch of seed 000 (made against 5.11) against 6.1.
seed=$(ls "$KREGRESS_SRC"/tests/fixtures/mail/seeds/000_*.txt | head -1)
out=$("$kregress" apply --tree "$tree" --base "$base" "$seed")
ok $(( $? == 1 ? 0 : 1 )) "seed 000 does not apply to 6.1 (exit 1)"
like "$out" "does-not-apply: patch 1/1 \"mm: Optimizing hugepage zeroing in arm64\"" \
	"the failing patch is named"
like "$out" "file:   arch/arm64/" "the failing file is named"
like "$out" "hunk:   @@ -" "the failing hunk is named"
like "$out" "git apply -3: error: patch failed: arch/arm64/" \
	"the fallback failed too, with its reason"
like "$out" "base:   $base" "the base tried is named"
like "$out" "tree:   $tree" "the tree tried is named"
echo "$out" | sed 's/^/# /'

# 3. Three patches; on a base that changed what patch 2 touches.
edit() {	# edit FILE SED-SCRIPT
	git -C "$tree" show "$(git -C "$tree" write-tree):$1" | sed "$2" |
		put "$1" 100644
}
p1=$(commit_from "$base" "mm: one" edit mm/Kconfig '5a# kregress one')
p2=$(commit_from "$p1" "mm: two" edit mm/Makefile '3s/$/ # two/')
p3=$(commit_from "$p2" "mm: three" edit mm/Kconfig '9a# kregress three')
git -C "$tree" format-patch -q --stdout "$base..$p3" >"$tmp/three.mbox"
other=$(commit_from "$base" "mm: other" edit mm/Makefile '3s/$/ # other/')
out=$("$kregress" apply --tree "$tree" --base "$base" "$tmp/three.mbox")
ok $? "3-patch series applies on its own base"
out=$("$kregress" apply --tree "$tree" --base "$other" "$tmp/three.mbox")
ok $(( $? == 1 ? 0 : 1 )) "3-patch series does not apply on a changed base"
like "$out" "does-not-apply: patch 2/3 \"mm: two\"" "patch 2 is named"
like "$out" "file:   mm/Makefile" "with its file"
like "$out" "hunk:   @@ -1," "and its hunk"
like "$out" "patches 1-1 applied before it" "patch 1 applied"

# 4. New, deleted, renamed files, a mode change and a binary change, in a
#    CRLF mail too.
kinds() {
	printf 'new file\n' | put mm/kregress-new.c 100644
	git -C "$tree" update-index --force-remove mm/Kconfig.debug
	git -C "$tree" show "$base:mm/cma.h" | put mm/cma-renamed.h 100644
	git -C "$tree" update-index --force-remove mm/cma.h
	git -C "$tree" show "$base:scripts/checkpatch.pl" |
		put scripts/checkpatch.pl 100644
	{ git -C "$tree" show "$base:Documentation/images/logo.gif"
	  printf '\0\1\2kregress'; } | put Documentation/images/logo.gif 100644
}
c4=$(commit_from "$base" "treewide: kinds of change" kinds)
git -C "$tree" format-patch -q --stdout -M --binary -1 "$c4" >"$tmp/kinds.mbox"
stat=$(git -C "$tree" diff-tree -r -M --summary "$c4^" "$c4" | tr '\n' ' ')
like "$stat" "rename mm/{cma.h => cma-renamed.h}" "fixture has a rename"
like "$stat" "mode change 100755 => 100644 scripts/checkpatch.pl" \
	"fixture has a mode change"
out=$("$kregress" apply --tree "$tree" --base "$base" "$tmp/kinds.mbox")
ok $? "new, deleted, renamed, mode and binary changes apply"
ours=$(awk '$1 == "1/1" { print $2 }' <<<"$out")
is "$(git -C "$tree" rev-parse "$ours^{tree}" 2>&1)" \
	"$(git -C "$tree" rev-parse "$c4^{tree}")" "same tree as the original"
sed 's/$/\r/' "$tmp/kinds.mbox" >"$tmp/crlf.mbox"
out=$("$kregress" apply --tree "$tree" --base "$base" "$tmp/crlf.mbox")
ok $? "the same series as a CRLF mail applies"
ours=$(awk '$1 == "1/1" { print $2 }' <<<"$out")
is "$(git -C "$tree" rev-parse "$ours^{tree}" 2>&1)" \
	"$(git -C "$tree" rev-parse "$c4^{tree}")" "to the same tree"

# 5. Unsafe diffs are rejected.
evil() {	# evil NAME DIFF
	printf 'From: Evil <evil@example.org>\nSubject: [PATCH] evil %s\n' "$1"
	printf 'Date: Tue, 14 Nov 2023 22:13:20 +0000\nMessage-Id: <%s@x>\n\n' "$1"
	printf 'Evil.\n---\n%s' "$2"
}
hunk='@@ -0,0 +1 @@
+pwned
'
evil dotdot "diff --git a/../../etc/x b/../../etc/x
new file mode 100644
--- /dev/null
+++ b/../../etc/x
$hunk" >"$tmp/dotdot.mbox"
evil abs "--- /dev/null
+++ /etc/kregress-pwned
$hunk" >"$tmp/abs.mbox"
evil link "diff --git a/scripts/dtc/include-prefixes/arm64/x.dts b/scripts/dtc/include-prefixes/arm64/x.dts
new file mode 100644
--- /dev/null
+++ b/scripts/dtc/include-prefixes/arm64/x.dts
$hunk" >"$tmp/link.mbox"
for e in dotdot:"'..' component" abs:"absolute path" \
	 link:"beyond the symbolic link 'scripts/dtc/include-prefixes/arm64'"; do
	name=${e%%:*} why=${e#*:}
	out=$("$kregress" apply --tree "$tree" --base "$base" "$tmp/$name.mbox")
	ok $(( $? == 1 ? 0 : 1 )) "$name diff is not applied"
	like "$out" "rejected: patch 1/1" "$name diff is rejected"
	like "$out" "$why" "$name diff: the reason says why"
done
ok $([ ! -e /etc/kregress-pwned ] && [ ! -e "$tree/../../etc/x" ]; echo $?) \
	"nothing was written outside the tree"

done_testing
