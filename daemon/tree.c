/*
 * tree.c - kernel trees on disk, with libgit2 (see tree.h).
 *
 * Import.  Debian's linux-source tarball is extracted with tar(1) next to
 * the target directory, its top-level .gitignore loses the Debian rule
 * "/\*" that ignores the whole top level, and every file is committed with
 * git(1) ("git add -f": a tarball's files are all source, including the
 * dot files the kernel's own ".*" rule would skip; see commit_all() for
 * why not libgit2 here).  The
 * directory is renamed into place only when the commit exists, so an
 * interrupted import leaves no half tree behind; the commit message
 * carries a "Kregress-Import:" trailer that makes a second import a no-op.
 *
 * Worktrees.  A build worktree is a linked git worktree.  Switching it
 * between base and patched commits must not touch unchanged files, or make
 * would rebuild the kernel from scratch: the paths that differ are taken
 * from a tree-to-tree diff of the two commits (no scan of the 78,000 files
 * on disk) and only those are checked out, with FORCE.  Untracked build
 * output is never removed.  A tracked file modified by hand outside that
 * path list is not repaired; builds do not modify tracked files.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "alloc.h"
#include "fs.h"
#include "log.h"
#include "sha256.h"
#include "strbuf.h"
#include "tree.h"

static pthread_once_t git_once = PTHREAD_ONCE_INIT;

static void git_init_once(void)
{
	git_libgit2_init();
}

void tree_git_init(void)
{
	pthread_once(&git_once, git_init_once);
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static int run(const char *const *argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return error("tree", "fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return error("tree", "%s failed (status %d)", argv[0],
			     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* The Kregress-Import: trailer value of HEAD, if dir is a repository. */
static int imported_name(const char *dir, struct strbuf *name)
{
	git_repository *repo = NULL;
	git_object *head = NULL;
	const char *msg, *t;
	int ret = -1;

	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		goto out;
	if (git_revparse_single(&head, repo, "HEAD^{commit}") < 0)
		goto out;
	msg = git_commit_message((git_commit *)head);
	t = msg ? strstr(msg, "\nKregress-Import: ") : NULL;
	if (!t)
		goto out;
	t += strlen("\nKregress-Import: ");
	strbuf_add(name, t, strcspn(t, "\n"));
	ret = 0;
out:
	git_object_free(head);
	git_repository_free(repo);
	git_error_clear();
	return ret;
}

/*
 * Drops Debian's "ignore the whole top level" block from .gitignore: the
 * rules "/\*" and "!/debian/" and the comment lines just above them.
 */
static int drop_debian_ignore(const char *dir)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, path = STRBUF_INIT;
	size_t off = 0, comment = (size_t)-1;
	int ret = -1, dropped = 0;
	FILE *f;

	strbuf_addf(&path, "%s/.gitignore", dir);
	if (access(path.buf, F_OK)) {
		ret = 0;	/* nothing to drop */
		goto out;
	}
	if (strbuf_read_file(&in, path.buf, 1 << 20) < 0)
		goto out;
	while (off < in.len) {
		const char *l = in.buf + off, *nl = memchr(l, '\n',
							   in.len - off);
		size_t n = nl ? (size_t)(nl - l) : in.len - off;

		off += n + (nl ? 1 : 0);
		if (l[0] == '#') {
			/* Hold comments until we know what follows them. */
			if (comment == (size_t)-1)
				comment = out.len;
			strbuf_add(&out, l, n);
			strbuf_addch(&out, '\n');
			continue;
		}
		if ((n == 2 && !memcmp(l, "/*", 2)) ||
		    (n == 9 && !memcmp(l, "!/debian/", 9))) {
			if (comment != (size_t)-1 && !dropped &&
			    strstr(out.buf + comment, "Debian")) {
				out.len = comment;
				out.buf[out.len] = 0;
			}
			dropped++;
			comment = (size_t)-1;
			continue;
		}
		comment = (size_t)-1;
		strbuf_add(&out, l, n);
		strbuf_addch(&out, '\n');
	}
	/* Drop the blank line left before the removed block. */
	while (dropped && out.len >= 2 && out.buf[out.len - 1] == '\n' &&
	       out.buf[out.len - 2] == '\n')
		out.buf[--out.len] = 0;
	f = fopen(path.buf, "w");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len) {
		error("tree", "%s: %s", path.buf, strerror(errno));
		if (f)
			fclose(f);
		goto out;
	}
	if (fclose(f)) {
		error("tree", "%s: %s", path.buf, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&path);
	return ret;
}

/*
 * Commits every file under dir with git(1): measured on the 6.1 tarball,
 * "git add -f -A" needs 27 s of CPU where libgit2's git_index_add_all
 * needed more than 46 s, and libgit2 1.5.1 then failed with "invalid
 * path" on directories the kernel's own .gitignore ignores (FORCE does
 * not reach into them).  -f: dot files are source too.
 */
static int commit_all(const char *dir, const char *name, long long when)
{
	struct strbuf msg = STRBUF_INIT, date = STRBUF_INIT;
	struct strbuf adate = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&msg, "Import %s\n\nKregress-Import: %s\n", name, name);
	strbuf_addf(&date, "GIT_COMMITTER_DATE=%lld +0000", when);
	strbuf_addf(&adate, "GIT_AUTHOR_DATE=%lld +0000", when);
	{
		const char *init[] = { "git", "init", "-q", "-b", "master",
				       dir, NULL };
		const char *add[] = { "git", "-C", dir, "add", "-f", "-A",
				      NULL };
		/* The identity goes in the environment, which wins over a
		 * caller's GIT_AUTHOR_* (and config): the same tarball gives
		 * the same commit on every machine. */
		const char *commit[] = { "env", date.buf, adate.buf,
					 "GIT_AUTHOR_NAME=kregress import",
					 "GIT_AUTHOR_EMAIL=kregress@invalid",
					 "GIT_COMMITTER_NAME=kregress import",
					 "GIT_COMMITTER_EMAIL=kregress@invalid",
					 "git", "-C", dir,
					 "-c", "commit.gpgsign=false",
					 "-c", "core.hooksPath=/dev/null",
					 "commit", "-q", "--no-verify",
					 "-m", msg.buf, NULL };

		if (run(init) < 0 || run(add) < 0 || run(commit) < 0)
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&msg);
	strbuf_release(&date);
	strbuf_release(&adate);
	return ret;
}

int tree_import(const char *tarball, const char *dir, int *already)
{
	struct strbuf tmp = STRBUF_INIT, have = STRBUF_INIT, why = STRBUF_INIT;
	char *tcopy = xstrdup(tarball);
	const char *name = basename(tcopy);
	struct stat st;
	int ret = -1;

	*already = 0;
	tree_git_init();
	if (stat(tarball, &st) < 0) {
		error("tree", "%s: %s", tarball, strerror(errno));
		goto out;
	}
	if (!access(dir, F_OK)) {
		if (imported_name(dir, &have) < 0) {
			error("tree", "%s exists and is not a kregress import",
			      dir);
			goto out;
		}
		if (strcmp(have.buf, name)) {
			error("tree", "%s holds an import of %s, not %s", dir,
			      have.buf, name);
			goto out;
		}
		*already = 1;
		ret = 0;
		goto out;
	}
	strbuf_addf(&tmp, "%s.kregress-import", dir);
	if (fs_mkdir_parent(tmp.buf, 0755, &why) < 0) {
		error("tree", "%s", why.buf);
		goto out;
	}
	if (!access(tmp.buf, F_OK)) {
		/* Left by an interrupted import: ours by its name. */
		const char *rm[] = { "rm", "-rf", "--one-file-system", "--",
				     tmp.buf, NULL };

		log_info("tree", "%s: removing an interrupted import",
			 tmp.buf);
		if (run(rm) < 0)
			goto out;
	}
	if (mkdir(tmp.buf, 0755) < 0) {
		error("tree", "%s: %s", tmp.buf, strerror(errno));
		goto out;
	}
	{
		const char *tar[] = { "tar", "-xf", tarball, "-C", tmp.buf,
				      "--strip-components=1",
				      "--no-same-owner", NULL };

		if (run(tar) < 0)
			goto out;
	}
	if (drop_debian_ignore(tmp.buf) < 0)
		goto out;
	if (commit_all(tmp.buf, name, st.st_mtime) < 0)
		goto out;
	if (rename(tmp.buf, dir) < 0) {
		error("tree", "rename %s to %s: %s", tmp.buf, dir,
		      strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&tmp);
	strbuf_release(&have);
	strbuf_release(&why);
	free(tcopy);
	return ret;
}

int tree_fetch(const char *repo_path, const char *remote_name,
	       const char *branch)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_config *cfg = NULL;
	git_remote_create_options ro;
	git_fetch_options fo;
	const char *url = NULL;
	struct strbuf spec = STRBUF_INIT, key = STRBUF_INIT;
	char *specp;
	git_strarray specs = { &specp, 1 };
	int ret = -1;

	tree_git_init();
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	if (git_repository_open_ext(&repo, repo_path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		error("tree", "%s: %s", repo_path, git_msg());
		goto out;
	}
	/*
	 * A configured remote's URL, else remote_name is the URL.  The remote
	 * is made without url.*.insteadOf rewriting: libgit2 1.5.1 leaks a
	 * pcre2 block per remote in that lookup (fixed upstream, PR #6382),
	 * and a daemon fetching on a schedule must not grow.
	 */
	strbuf_addf(&key, "remote.%s.url", remote_name);
	if (git_repository_config_snapshot(&cfg, repo) < 0) {
		error("tree", "%s: config: %s", repo_path, git_msg());
		goto out;
	}
	if (git_config_get_string(&url, cfg, key.buf) < 0) {
		url = remote_name;
		git_error_clear();
	}
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		   GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, url, &ro) < 0) {
		error("tree", "%s: remote %s: %s", repo_path, remote_name,
		      git_msg());
		goto out;
	}
	strbuf_addf(&spec, "+refs/heads/%s:refs/remotes/kregress/%s",
		    branch, branch);
	specp = spec.buf;
	if (git_remote_fetch(remote, &specs, &fo, "kregress fetch") < 0) {
		error("tree", "%s: fetch %s %s: %s", repo_path, remote_name,
		      branch, git_msg());
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&spec);
	strbuf_release(&key);
	git_remote_free(remote);
	git_config_free(cfg);
	git_repository_free(repo);
	return ret;
}

struct tree_worktree {
	git_repository *repo;	/* the worktree's repository */
	char *path;
};

static int peel_commit(git_repository *repo, const char *rev,
		       git_commit **out)
{
	git_object *obj = NULL;
	int e;

	e = git_revparse_single(&obj, repo, rev);
	if (!e)
		e = git_object_peel((git_object **)out, obj,
				    GIT_OBJECT_COMMIT);
	git_object_free(obj);
	return e;
}

int tree_resolve(const char *repo_path, const char *rev, char out[41])
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int ret = -1;

	if (!*rev || strlen(rev) > 256)
		return error("tree", "%.64s: not a revision", rev);
	tree_git_init();
	if (git_repository_open_ext(&repo, repo_path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    peel_commit(repo, rev, &commit) < 0) {
		error("tree", "%s: %s: no such commit: %s", repo_path, rev,
		      git_msg());
		goto out;
	}
	git_oid_tostr(out, 41, git_commit_id(commit));
	ret = 0;
out:
	git_commit_free(commit);
	git_repository_free(repo);
	return ret;
}

/* An opened worktree is usable if HEAD names a commit and it has an index. */
static int worktree_usable(git_repository *repo)
{
	git_commit *head = NULL;
	git_index *idx = NULL;
	int ok;

	ok = !peel_commit(repo, "HEAD", &head) &&
	     !git_repository_index(&idx, repo) &&
	     git_index_entrycount(idx) > 0;
	git_commit_free(head);
	git_index_free(idx);
	return ok;
}

/*
 * 1 if dir looks like an interrupted worktree creation, which may be
 * removed: empty, or its .git is a file pointing to a git directory.
 * Anything else (a user's directory, a full repository) is never removed.
 */
static int worktree_leftover(const char *dir)
{
	struct strbuf gitfile = STRBUF_INIT;
	char buf[8] = "";
	struct stat st;
	FILE *f;
	int ret = 0;

	if (rmdir(dir) == 0)
		return 1;
	strbuf_addf(&gitfile, "%s/.git", dir);
	if (!lstat(gitfile.buf, &st) && S_ISREG(st.st_mode)) {
		f = fopen(gitfile.buf, "r");
		if (f) {
			ret = fread(buf, 1, 7, f) == 7 &&
			      !memcmp(buf, "gitdir:", 7);
			fclose(f);
		}
	}
	strbuf_release(&gitfile);
	return ret;
}

int tree_worktree_open(const char *repo_path, const char *wt_path,
		       const char *rev, struct tree_worktree **out)
{
	struct tree_worktree *wt = NULL;
	git_repository *main = NULL;
	git_worktree *gw = NULL;
	git_commit *commit = NULL;
	git_reference *ref = NULL;
	git_worktree_add_options wo;
	struct strbuf name = STRBUF_INIT, refname = STRBUF_INIT;
	char *pcopy = xstrdup(wt_path);
	char hash[SHA256_HEX_LEN + 1];
	const char *c;
	int ret = -1;

	*out = NULL;
	tree_git_init();
	wt = xcalloc(1, sizeof(*wt));
	wt->path = xstrdup(wt_path);
	if (!access(wt_path, F_OK)) {
		if (git_repository_open_ext(&wt->repo, wt_path,
					    GIT_REPOSITORY_OPEN_NO_SEARCH,
					    NULL) == 0 &&
		    worktree_usable(wt->repo)) {
			ret = 0;
			goto out;
		}
		git_repository_free(wt->repo);
		wt->repo = NULL;
		if (!worktree_leftover(wt_path)) {
			error("tree", "%s: not a worktree: %s", wt_path,
			      git_msg());
			goto out;
		}
		/*
		 * An interrupted creation (no metadata, no index, no HEAD):
		 * start it again rather than fail every later open.
		 */
		log_warn("tree", "%s: unusable worktree, creating it again",
			 wt_path);
		if (fs_rm_rf(wt_path))
			goto out;
	}
	/*
	 * Worktree names are path components: keep [A-Za-z0-9._-] of the
	 * last component, plus a hash of the whole path so that worktrees
	 * with the same last component (build slots' src/) do not collide.
	 */
	strbuf_addstr(&name, "kregress-");
	for (c = basename(pcopy); *c; c++)
		strbuf_addch(&name, strchr("abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789._-", *c) ? *c : '_');
	sha256_hex(wt_path, strlen(wt_path), hash);
	strbuf_addf(&name, "-%.12s", hash);
	strbuf_addf(&refname, "refs/heads/%s", name.buf);
	if (git_repository_open_ext(&main, repo_path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    peel_commit(main, rev, &commit) < 0) {
		error("tree", "%s: %s: %s", repo_path, rev, git_msg());
		goto out;
	}
	/* a worktree directory removed by hand leaves a stale entry */
	if (!git_worktree_lookup(&gw, main, name.buf)) {
		git_worktree_prune_options po;

		git_worktree_prune_options_init(&po,
			GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
		po.flags = GIT_WORKTREE_PRUNE_VALID |
			   GIT_WORKTREE_PRUNE_LOCKED;
		if (git_worktree_prune(gw, &po) < 0) {
			error("tree", "%s: pruning worktree %s: %s",
			      repo_path, name.buf, git_msg());
			goto out;
		}
		git_worktree_free(gw);
		gw = NULL;
	}
	if (git_reference_create(&ref, main, refname.buf,
				 git_commit_id(commit), 1,
				 "kregress worktree") < 0) {
		error("tree", "%s: %s: %s", repo_path, rev, git_msg());
		goto out;
	}
	git_worktree_add_options_init(&wo, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	wo.ref = ref;
	wo.checkout_options.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_worktree_add(&gw, main, name.buf, wt_path, &wo) < 0 ||
	    git_repository_open_from_worktree(&wt->repo, gw) < 0) {
		error("tree", "%s: cannot add worktree %s: %s", repo_path,
		      wt_path, git_msg());
		goto out;
	}
	/*
	 * Detach: the branch only anchored the creation, and goes, so that
	 * a tree of the user's own collects no kregress branches.
	 */
	if (git_repository_set_head_detached(wt->repo,
					     git_commit_id(commit)) < 0 ||
	    git_reference_delete(ref) < 0) {
		error("tree", "%s: %s", wt_path, git_msg());
		goto out;
	}
	ret = 0;
out:
	if (ret < 0) {
		tree_worktree_free(wt);
		wt = NULL;
	}
	*out = wt;
	strbuf_release(&name);
	strbuf_release(&refname);
	free(pcopy);
	git_reference_free(ref);
	git_commit_free(commit);
	git_worktree_free(gw);
	git_repository_free(main);
	return ret;
}

void tree_worktree_free(struct tree_worktree *wt)
{
	if (!wt)
		return;
	git_repository_free(wt->repo);
	free(wt->path);
	free(wt);
}

int tree_worktree_head(struct tree_worktree *wt, char out[41])
{
	git_commit *head = NULL;

	if (peel_commit(wt->repo, "HEAD", &head) < 0)
		return error("tree", "%s: no HEAD: %s", wt->path, git_msg());
	git_oid_tostr(out, 41, git_commit_id(head));
	git_commit_free(head);
	return 0;
}

/*
 * The paths that differ between two trees.  git_diff_tree_to_tree() walks
 * all 78,000 entries of a kernel (0.3-0.5 s here); this walk descends only
 * into subtrees whose ids differ, so a one-file change costs a handful of
 * tree lookups.
 */
struct pathlist {
	char **v;
	size_t n, alloc;
};

static void pathlist_add(struct pathlist *pl, const char *prefix,
			 const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	ALLOC_GROW(pl->v, pl->n + 2, pl->alloc);
	strbuf_addf(&sb, "%s%s", prefix, name);
	pl->v[pl->n++] = strbuf_detach(&sb, NULL);
}

static void pathlist_release(struct pathlist *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		free(pl->v[i]);
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

struct walk_ctx {
	struct pathlist *pl;
	const char *prefix;
};

static int walk_blob(const char *root, const git_tree_entry *e, void *data)
{
	struct walk_ctx *w = data;
	struct strbuf sb = STRBUF_INIT;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		strbuf_addf(&sb, "%s%s", w->prefix, root);
		pathlist_add(w->pl, sb.buf, git_tree_entry_name(e));
	}
	strbuf_release(&sb);
	return 0;
}

/* Every non-tree path under entry e (a tree or not) of repo. */
static int add_entry(git_repository *repo, const git_tree_entry *e,
		     const char *prefix, struct pathlist *pl)
{
	struct strbuf sub = STRBUF_INIT;
	struct walk_ctx w = { pl, NULL };
	git_tree *t = NULL;
	int ret;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		pathlist_add(pl, prefix, git_tree_entry_name(e));
		return 0;
	}
	strbuf_addf(&sub, "%s%s/", prefix, git_tree_entry_name(e));
	w.prefix = sub.buf;
	ret = git_tree_lookup(&t, repo, git_tree_entry_id(e));
	if (!ret)
		ret = git_tree_walk(t, GIT_TREEWALK_PRE, walk_blob, &w);
	git_tree_free(t);
	strbuf_release(&sub);
	return ret;
}

static int diff_paths(git_repository *repo, git_tree *a, git_tree *b,
		      const char *prefix, struct pathlist *pl)
{
	size_t i, na = git_tree_entrycount(a), nb = git_tree_entrycount(b);
	int ret = 0;

	for (i = 0; i < na && !ret; i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(a, i);
		const git_tree_entry *eb = git_tree_entry_byname(b,
					git_tree_entry_name(ea));
		int ta = git_tree_entry_type(ea) == GIT_OBJECT_TREE;

		if (eb && !git_oid_cmp(git_tree_entry_id(ea),
				       git_tree_entry_id(eb)) &&
		    git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
			continue;
		if (eb && ta && git_tree_entry_type(eb) == GIT_OBJECT_TREE) {
			struct strbuf sub = STRBUF_INIT;
			git_tree *sa = NULL, *sb = NULL;

			strbuf_addf(&sub, "%s%s/", prefix,
				    git_tree_entry_name(ea));
			ret = git_tree_lookup(&sa, repo, git_tree_entry_id(ea));
			if (!ret)
				ret = git_tree_lookup(&sb, repo,
						      git_tree_entry_id(eb));
			if (!ret)
				ret = diff_paths(repo, sa, sb, sub.buf, pl);
			git_tree_free(sa);
			git_tree_free(sb);
			strbuf_release(&sub);
			continue;
		}
		ret = add_entry(repo, ea, prefix, pl);
		if (!ret && eb && (ta || git_tree_entry_type(eb) ==
				   GIT_OBJECT_TREE))
			ret = add_entry(repo, eb, prefix, pl);
	}
	for (i = 0; i < nb && !ret; i++) {
		const git_tree_entry *eb = git_tree_entry_byindex(b, i);

		if (!git_tree_entry_byname(a, git_tree_entry_name(eb)))
			ret = add_entry(repo, eb, prefix, pl);
	}
	return ret;
}

int tree_worktree_switch(struct tree_worktree *wt, const char *rev,
			 size_t *n_changed)
{
	git_commit *from = NULL, *to = NULL;
	git_tree *from_tree = NULL, *to_tree = NULL;
	git_checkout_options co;
	struct pathlist pl = { NULL, 0, 0 };
	int ret = -1;

	if (peel_commit(wt->repo, "HEAD", &from) < 0 ||
	    peel_commit(wt->repo, rev, &to) < 0 ||
	    git_commit_tree(&from_tree, from) < 0 ||
	    git_commit_tree(&to_tree, to) < 0 ||
	    diff_paths(wt->repo, from_tree, to_tree, "", &pl) < 0) {
		error("tree", "%s: switch to %s: %s", wt->path, rev,
		      git_msg());
		goto out;
	}
	if (pl.n) {
		git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
		co.checkout_strategy = GIT_CHECKOUT_FORCE |
				       GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		co.paths.strings = pl.v;
		co.paths.count = pl.n;
		if (git_checkout_tree(wt->repo, (git_object *)to_tree,
				      &co) < 0) {
			error("tree", "%s: checkout %s: %s", wt->path, rev,
			      git_msg());
			goto out;
		}
	}
	if (git_repository_set_head_detached(wt->repo, git_commit_id(to)) < 0) {
		error("tree", "%s: set HEAD: %s", wt->path, git_msg());
		goto out;
	}
	if (n_changed)
		*n_changed = pl.n;
	ret = 0;
out:
	pathlist_release(&pl);
	git_tree_free(from_tree);
	git_tree_free(to_tree);
	git_commit_free(from);
	git_commit_free(to);
	return ret;
}
