# linux-tree.sh - the imported 6.1 tree the slow build tests use.
#
# KREGRESS_LINUX_TREE names an existing git tree of Debian's linux-source;
# by default /var/cache/kregress/linux-6.1, imported here from
# /usr/src/linux-source-6.1.tar.xz on first use (the apply module's
# "kregress tree import" does the same; this keeps the test standalone).
# Test commits are made with plumbing on a private index, so the tree's
# branches and working files are never touched.

linux_tree() {
	local tree=${KREGRESS_LINUX_TREE:-/var/cache/kregress/linux-6.1}
	local tarball=/usr/src/linux-source-6.1.tar.xz

	if [ ! -d "$tree/.git" ]; then
		[ -r "$tarball" ] || return 1
		mkdir -p "$(dirname "$tree")" || return 1
		(
			flock 9
			[ -d "$tree/.git" ] && exit 0
			rm -rf "$tree.tmp" && mkdir "$tree.tmp" &&
			tar -xJf "$tarball" -C "$tree.tmp" \
				--strip-components=1 &&
			cd "$tree.tmp" &&
			# Debian's .gitignore ignores the whole top level
			sed -i '/^\/\*$/d; /^!\/debian\/$/d' .gitignore &&
			git init -q && git add -A &&
			GIT_AUTHOR_NAME=kregress \
			GIT_AUTHOR_EMAIL=kregress@localhost \
			GIT_COMMITTER_NAME=kregress \
			GIT_COMMITTER_EMAIL=kregress@localhost \
			GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
			GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
				git commit -q -m "linux-source-6.1" &&
			git config gc.auto 0 &&
			cd / && mv "$tree.tmp" "$tree"
		) 9> "$tree.lock" || return 1
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
