# build-lib.sh - shared by the build tests (sourced after tap.sh): a
# deterministic git commit, and the build user and sandbox they need.

git_commit() {	# message; deterministic author and date
	GIT_AUTHOR_NAME=kregress GIT_AUTHOR_EMAIL=kregress@localhost \
	GIT_COMMITTER_NAME=kregress GIT_COMMITTER_EMAIL=kregress@localhost \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit -q -a -m "$1"
}

# The sandbox drops to the build user when run as root (make setup-builders
# creates it); as another user the build runs as that user.
build_user_setup() {
	command -v bwrap >/dev/null || skip_all "bubblewrap is not installed"
	if [ "$(id -u)" = 0 ] && ! getent passwd kregress-build >/dev/null
	then
		make -s -C "$KREGRESS_SRC" setup-builders >/dev/null ||
			skip_all "cannot create the build user"
	fi
	# the build user must be able to read the test's files
	chmod 755 "$tmp"
	# unprivileged user namespaces may be disabled (sysctl, AppArmor)
	local probe="bwrap --unshare-all --ro-bind / / true"
	if [ "$(id -u)" = 0 ]; then
		probe="setpriv --reuid=kregress-build --regid=kregress-build \
			--clear-groups $probe"
	fi
	$probe 2>/dev/null ||
		skip_all "bubblewrap cannot create namespaces here"
}

# build_cache_private: the builds of this test get a cache of their own,
# $tmp/cache (KREGRESS_CACHE), so that no test depends on what another
# left in a slot (its worktree, object directory, lock, resume note and
# object counts: state one build leaves for the next).  What is found by
# content is shared with every test, from $KREGRESS_CACHE as it was set
# (default /var/cache/kregress): builds/ (by commit and configuration
# key), ccache/ and initramfs/ are links to it; a miss there only costs
# time.  At exit the slots' worktrees leave the tree's worktree list.
build_cache_private() {
	local shared=${KREGRESS_CACHE:-/var/cache/kregress} d
	[ "$shared" != "$tmp/cache" ] || return 0
	mkdir -p "$tmp/cache" || return 1
	for d in builds ccache initramfs; do
		mkdir -p "$shared/$d" && ln -sfn "$shared/$d" "$tmp/cache/$d" ||
			return 1
	done
	export KREGRESS_CACHE=$tmp/cache
	at_exit build_cache_release
}
build_cache_release() {
	local wt gitdir
	for wt in "$tmp"/cache/slots/*/*/src; do
		[ -f "$wt/.git" ] || continue
		gitdir=$(sed -n 's/^gitdir: //p' "$wt/.git")
		gitdir=${gitdir%/}
		rm -rf "$wt"
		case $gitdir in */.git/worktrees/kregress-*) ;; *) continue ;; esac
		rm -rf "$gitdir"
	done
}
