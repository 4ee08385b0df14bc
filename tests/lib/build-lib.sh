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
