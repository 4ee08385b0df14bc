#!/bin/bash
# t-apply-cli.sh - kregress apply on a small repository, with real
# git format-patch output: cover letter, base-commit, a review reply whose
# trailer lands in the commit, the JSON form, a CRLF copy, a conflict.
set -u
. "$KREGRESS_SRC/tests/lib/tap.sh"

kregress=$KREGRESS_BUILD/kregress

export GIT_AUTHOR_NAME="Jöhn Dœ" GIT_AUTHOR_EMAIL=john@example.org
export GIT_COMMITTER_NAME="Jöhn Dœ" GIT_COMMITTER_EMAIL=john@example.org
r=$tmp/repo
git init -q -b master "$r"
seq -f 'line %g' 1 40 >"$r/a.c"
git -C "$r" add a.c
GIT_AUTHOR_DATE="1600000000 +0000" git -C "$r" commit -qm init
git -C "$r" checkout -qb topic
sed -i 's/^line 5$/five/' "$r/a.c"
GIT_AUTHOR_DATE="1700000000 +0530" git -C "$r" commit -qam "mm: five

Why five.

Signed-off-by: Jöhn Dœ <john@example.org>"
sed -i 's/^line 30$/thirty/' "$r/a.c"
GIT_AUTHOR_DATE="1700000100 -0700" git -C "$r" commit -qam "mm: thirty"
git -C "$r" format-patch -q --cover-letter --base=master --thread \
	-o "$tmp/p" master
git -C "$r" checkout -q master
msgid=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$tmp"/p/0001-*.patch)
{
	cat "$tmp"/p/*.patch
	printf 'From reviewer Mon Sep 17 00:00:00 2001\n'
	printf 'From: Rita Reviewer <rita@example.org>\n'
	printf 'Subject: Re: [PATCH 1/2] mm: five\n'
	printf 'Date: Wed, 15 Nov 2023 10:00:00 +0000\n'
	printf 'Message-ID: <review1@example.org>\n'
	printf 'In-Reply-To: <%s>\nReferences: <%s>\n\n' "$msgid" "$msgid"
	printf 'Looks right.\n\nReviewed-by: Rita Reviewer <rita@example.org>\n'
} >"$tmp/series.mbox"

out=$("$kregress" apply --tree "$r" "$tmp/series.mbox")
ok $? "series applies"
like "$out" "base: $(git -C "$r" rev-parse master) (base-commit:" \
	"base from the series' base-commit"
c2=$(awk '$1 == "2/2" { print $2 }' <<<"$out")
is "$(git -C "$r" rev-parse "$c2^{tree}")" \
	"$(git -C "$r" rev-parse 'topic^{tree}')" "same tree as the branch"
is "$(git -C "$r" log -1 --format='%an|%ad|%s' --date=raw "$c2~1")" \
	"Jöhn Dœ|1700000000 +0530|mm: five" "author, date, zone, subject"
is "$(git -C "$r" log -1 --format=%ad --date=raw "$c2")" "1700000100 -0700" \
	"second patch keeps its own zone"
is "$(git -C "$r" log -1 --format=%B "$c2~1")" "mm: five

Why five.

Signed-off-by: Jöhn Dœ <john@example.org>
Reviewed-by: Rita Reviewer <rita@example.org>" "message up to ---, trailers kept, reviewer's trailer appended"
like "$(git -C "$r" for-each-ref refs/kregress/)" "$c2" "a ref keeps it"

json=$("$kregress" apply --tree "$r" --json "$tmp/series.mbox")
is "$(/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin);
print(d["status"], d["base_source"], [c["method"] for c in d["commits"]],
d["commits"][1]["commit"])' <<<"$json")" \
	"applied base-commit ['libgit2', 'libgit2'] $c2" \
	"--json: status, base source, methods, deterministic commit ids"

sed 's/$/\r/' "$tmp/series.mbox" >"$tmp/crlf.mbox"
out=$("$kregress" apply --tree "$r" "$tmp/crlf.mbox")
ok $? "CRLF copy applies"
is "$(awk '$1 == "2/2" { print $2 }' <<<"$out")" "$c2" "to the same commits"

# No base-commit: the branch, and why.
grep -v '^base-commit:' "$tmp/series.mbox" >"$tmp/nobase.mbox"
out=$("$kregress" apply --tree "$r" --branch master "$tmp/nobase.mbox")
like "$out" "(branch: the series names no base-commit; using branch 'master')" \
	"no base-commit: the configured branch, with the reason"

# A base where patch 2's context changed.
sed -i 's/^line 31$/other/' "$r/a.c"
git -C "$r" commit -qam other
out=$("$kregress" apply --tree "$r" --base HEAD --no-fallback \
	"$tmp/series.mbox")
ok $(( $? == 1 ? 0 : 1 )) "exit 1 when it does not apply"
like "$out" 'does-not-apply: patch 2/2 "mm: thirty"' "names the patch"
like "$out" "file:   a.c" "names the file"
like "$out" "hunk:   @@ -27,7 +27,7 @@" "names the hunk"
like "$out" "base:   $(git -C "$r" rev-parse HEAD) (explicit" "names the base"

# A build worktree: created, then switched rewriting one file only.
out=$("$kregress" tree worktree --tree "$r" --rev master "$tmp/wt")
ok $? "worktree created: $out"
touch -d 2020-01-01 "$tmp/wt/a.c"
out=$("$kregress" tree worktree --tree "$r" --rev "$c2" "$tmp/wt")
like "$out" "at $c2, 1 path rewritten" "worktree switched to the series"
is "$(sed -n 30p "$tmp/wt/a.c")" "thirty" "with the patched content"
is "$(stat -c %Y "$tmp/wt/a.c" | cut -c1-3)" "$(date +%s | cut -c1-3)" \
	"the changed file got a new mtime"

# Refresh a tree from a remote (here: a local one).
git clone -q --bare "$r" "$tmp/mirror.git"
git -C "$r" commit -q --allow-empty -m upstream-moved
out=$("$kregress" tree fetch --tree "$tmp/mirror.git" --branch master "$r")
ok $? "tree fetch: $out"
is "$(git -C "$tmp/mirror.git" rev-parse refs/remotes/kregress/master)" \
	"$(git -C "$r" rev-parse master)" "the new upstream commit arrived"
git -C "$tmp/mirror.git" remote add up "$r"
git -C "$r" commit -q --allow-empty -m upstream-moved-again
out=$("$kregress" tree fetch --tree "$tmp/mirror.git" up)
ok $? "tree fetch from a configured remote by name"
is "$(git -C "$tmp/mirror.git" rev-parse refs/remotes/kregress/master)" \
	"$(git -C "$r" rev-parse master)" "its branch arrived"
out=$("$kregress" tree fetch --tree "$tmp/mirror.git" "$tmp/nosuch" 2>&1)
ok $(( $? == 1 ? 0 : 1 )) "fetch from a missing remote fails: $out"

# A tarball imported into a directory whose parents do not exist yet, as
# "make run" does into a fresh /var/lib/kregress.
mkdir -p "$tmp/src/linux-source-9.9/mm"
echo "obj-y := memory.o" >"$tmp/src/linux-source-9.9/mm/Makefile"
printf '/*\n!/debian/\n' >"$tmp/src/linux-source-9.9/.gitignore"
tar -cJf "$tmp/linux-source-9.9.tar.xz" -C "$tmp/src" linux-source-9.9
"$kregress" tree import --tarball "$tmp/linux-source-9.9.tar.xz" \
	"$tmp/fresh/state/trees/linux" >/dev/null 2>&1
ok $? "tree import creates the missing parent directories"
is "$(git -C "$tmp/fresh/state/trees/linux" ls-files mm)" "mm/Makefile" \
	"and commits the tarball's files"

# Bad input.
out=$("$kregress" apply --tree "$r" "$tmp/p/0000-cover-letter.patch" 2>&1)
ok $(( $? == 1 ? 0 : 1 )) "an mbox without patches fails"
like "$out" "nothing applied" "and says so"
out=$("$kregress" apply --tree "$tmp/nosuch" "$tmp/series.mbox" 2>&1)
ok $(( $? == 1 ? 0 : 1 )) "a missing tree fails: $out"
"$kregress" apply "$tmp/series.mbox" 2>/dev/null
is $? 2 "missing --tree is a usage error"

done_testing
