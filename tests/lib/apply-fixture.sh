#!/bin/bash
# apply-fixture.sh - shared helpers of the apply tests and benchmark.
#
#   apply-fixture.sh tree            import the 6.1 tree into the cache
#                                    (once) and print its path
#   apply-fixture.sh series REPO N   make N commits on top of REPO's
#                                    HEAD, each changing one file of mm/,
#                                    without a working tree; print the
#                                    last commit id
#
# Commits are made with fixed dates, so the same call yields the same ids:
# repeated runs add no objects to the cached tree.
set -e

cache=${KREGRESS_TREE_CACHE:-/var/cache/kregress/trees}
tarball=${KREGRESS_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
export GIT_AUTHOR_NAME="kregress fixture" GIT_AUTHOR_EMAIL=fixture@invalid
export GIT_COMMITTER_NAME="kregress fixture" GIT_COMMITTER_EMAIL=fixture@invalid
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"

case "$1" in
tree)
	mkdir -p "$cache"
	"$KREGRESS_BUILD/kregress" tree import --tarball "$tarball" \
		"$cache/linux-6.1" >&2
	echo "$cache/linux-6.1"
	;;
series)
	repo=$2 n=$3
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	export GIT_INDEX_FILE=$tmp/index
	head=$(git -C "$repo" rev-parse HEAD)
	git -C "$repo" read-tree "$head"
	i=0
	for f in $(git -C "$repo" ls-tree --name-only "$head" mm/ |
		   grep '\.c$' | head -n "$n"); do
		i=$((i + 1))
		git -C "$repo" show "$head:$f" |
			sed "12a/* kregress fixture change $i */" > "$tmp/f"
		blob=$(git -C "$repo" hash-object -w "$tmp/f")
		git -C "$repo" update-index --cacheinfo "100644,$blob,$f"
		tree=$(git -C "$repo" write-tree)
		head=$(git -C "$repo" commit-tree "$tree" -p "$head" \
			-m "mm: fixture change $i in $f")
	done
	git -C "$repo" update-ref "refs/kregress/fixture/series-$n" "$head"
	echo "$head"
	;;
*)
	echo "usage: $0 tree | series REPO N" >&2
	exit 2
	;;
esac
