# linux-tree.sh - the imported 6.1 tree the slow tests use.
#
# KREGRESS_LINUX_TREE names an existing git tree of Debian's linux-source;
# by default /var/cache/kregress/trees/linux-6.1, imported on first use by
# `kregress tree import`, as `make run` imports the service's tree (the
# same tarball gives the same commit, so every slow test and a service
# share the base builds of the cache).  Test commits are made with
# plumbing on a private index, so the tree's branches and working files
# are never touched.

linux_tree() {
	local tree=${KREGRESS_LINUX_TREE:-/var/cache/kregress/trees/linux-6.1}
	local tarball=/usr/src/linux-source-6.1.tar.xz

	if [ ! -d "$tree/.git" ]; then
		[ -r "$tarball" ] || return 1
		mkdir -p "$(dirname "$tree")" || return 1
		"$KREGRESS_BUILD/kregress" tree import --tarball "$tarball" \
			"$tree" >&2 || return 1
	fi
	chmod 755 "$(dirname "$tree")"
	echo "$tree"
}

# tree_commit TREE BASE MESSAGE PATH < CONTENT: a commit on top of BASE with
# PATH replaced by stdin; prints its id.
tree_commit() {
	local tree=$1 base=$2 msg=$3 path=$4 idx blob t
	idx=$(mktemp)
	rm -f "$idx"
	blob=$(git -C "$tree" hash-object -w --stdin) || return 1
	GIT_INDEX_FILE=$idx git -C "$tree" read-tree "$base" &&
	GIT_INDEX_FILE=$idx git -C "$tree" update-index \
		--cacheinfo "100644,$blob,$path" &&
	t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree) || return 1
	rm -f "$idx"
	GIT_AUTHOR_NAME=kregress GIT_AUTHOR_EMAIL=kregress@localhost \
	GIT_COMMITTER_NAME=kregress GIT_COMMITTER_EMAIL=kregress@localhost \
		git -C "$tree" commit-tree "$t" -p "$base" -m "$msg"
}
