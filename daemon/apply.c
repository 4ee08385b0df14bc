/*
 * apply.c - apply a patch series to a kernel tree with libgit2.
 *
 * Each patch is parsed with git_diff_from_buffer() and applied in memory
 * with git_apply_to_tree() to a tree holding only the paths it names (see
 * touched_tree()), the result folded into the tree of the previous commit
 * with git_tree_create_updated(), and committed with the mail's author and
 * date.  No working tree and no full index is touched, so a 20-patch
 * series applies in well under a second on a 78,000-file kernel, and
 * several series can be applied to one repository at once.
 *
 * libgit2 applies hunks only at the exact line the hunk header names: it
 * has neither git's offset search nor fuzz.  Patches posted to lists are
 * routinely made against a slightly different tree, so when libgit2
 * refuses a patch we retry it with git(1): "git apply --cached -3" on a
 * temporary index (again no working tree), which searches offsets and
 * falls back to a three-way merge when the blobs named in the patch's
 * "index" lines are known.  Which method applied each patch is recorded.
 * The libgit2 failure (file and hunk) is what is reported when both fail:
 * it is the more precise one.
 *
 * Safety: patches are untrusted.  The diff is scanned by diff.c, the same
 * scanner that cut it out of the mail, and only the bytes it took reach
 * libgit2 and git apply: each file's header and its hunks (or binary
 * data), nothing between them.  libgit2 reads only "diff --git a/ b/"
 * diffs, so a file in any other form (quilt, diff -u, --no-prefix, other
 * prefixes) gets a canonical header written from the scanner's paths in
 * the tree and strip level, with its extended header lines as they were:
 * the patch applies at the strip level its names say.  Before anything
 * is applied, every path that goes to libgit2 must be relative and free
 * of "..", "." and ".git" components and of control characters, no path
 * may lead through a symbolic link (one in the base tree or one the same
 * patch creates), and every path libgit2 reads must be one of them.  A
 * NUL byte, a broken header or text after the diff (but a signature)
 * makes the patch unsafe too.  Such a patch is APPLY_REJECTED.  A hunk
 * whose counts are wrong, or a binary change without its data, does not
 * apply (APPLY_FAILED, with the file and hunk).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "alloc.h"
#include "apply.h"
#include "diff.h"
#include "log.h"

struct apply_repo {
	git_repository *repo;
	char *path;
};

const char *apply_status_str(enum apply_status s)
{
	switch (s) {
	case APPLY_OK:
		return "applied";
	case APPLY_FAILED:
		return "does-not-apply";
	case APPLY_REJECTED:
		return "rejected";
	}
	return "unknown";
}

const char *apply_method_str(enum apply_method m)
{
	switch (m) {
	case APPLY_METHOD_LIBGIT2:
		return "libgit2";
	case APPLY_METHOD_GIT_APPLY3:
		return "git-apply-3way";
	}
	return "unknown";
}

const char *apply_base_source_str(enum apply_base_source s)
{
	switch (s) {
	case APPLY_BASE_EXPLICIT:
		return "explicit";
	case APPLY_BASE_SERIES:
		return "base-commit";
	case APPLY_BASE_BRANCH:
		return "branch";
	}
	return "unknown";
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

int apply_repo_open(const char *path, struct apply_repo **out)
{
	struct apply_repo *r;

	*out = NULL;
	git_libgit2_init();
	r = xcalloc(1, sizeof(*r));
	if (git_repository_open_ext(&r->repo, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		error("apply", "%s: cannot open repository: %s", path,
		      git_msg());
		free(r);
		git_libgit2_shutdown();
		return -1;
	}
	r->path = xstrdup(path);
	*out = r;
	return 0;
}

void apply_repo_free(struct apply_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

static int resolve_commit(git_repository *repo, const char *rev,
			  git_oid *oid)
{
	git_object *obj = NULL, *commit = NULL;
	int ret = -1;

	if (git_revparse_single(&obj, repo, rev) < 0)
		goto out;
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0)
		goto out;
	git_oid_cpy(oid, git_object_id(commit));
	ret = 0;
out:
	git_object_free(commit);
	git_object_free(obj);
	return ret;
}

int apply_base_explicit(struct apply_repo *r, const char *rev,
			struct apply_base *out)
{
	git_oid oid;

	if (resolve_commit(r->repo, rev, &oid) < 0)
		return error("apply", "%s: no commit '%s': %s", r->path, rev,
			     git_msg());
	git_oid_tostr(out->oid, sizeof(out->oid), &oid);
	out->source = APPLY_BASE_EXPLICIT;
	snprintf(out->reason, sizeof(out->reason), "given as '%s'", rev);
	return 0;
}

/* A base-commit: value is a full or abbreviated hex id, nothing else. */
static int is_hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return n >= 7 && n <= 40 && !s[n];
}

int apply_base_resolve(struct apply_repo *r, const char *base_commit,
		       const char *branch, struct apply_base *out)
{
	git_oid oid;

	if (base_commit && *base_commit) {
		if (is_hex_id(base_commit) &&
		    !resolve_commit(r->repo, base_commit, &oid)) {
			git_oid_tostr(out->oid, sizeof(out->oid), &oid);
			out->source = APPLY_BASE_SERIES;
			snprintf(out->reason, sizeof(out->reason),
				 "the series' base-commit %.40s is in the tree",
				 base_commit);
			return 0;
		}
	}
	if (!branch || resolve_commit(r->repo, branch, &oid) < 0)
		return error("apply", "%s: cannot resolve branch '%s': %s",
			     r->path, branch ? branch : "(none)", git_msg());
	git_oid_tostr(out->oid, sizeof(out->oid), &oid);
	out->source = APPLY_BASE_BRANCH;
	if (base_commit && *base_commit)
		snprintf(out->reason, sizeof(out->reason),
			 "base-commit %.40s%s is not in the tree; using "
			 "branch '%.64s'", base_commit,
			 is_hex_id(base_commit) ? "" : " (malformed)", branch);
	else
		snprintf(out->reason, sizeof(out->reason),
			 "the series names no base-commit; using branch "
			 "'%.64s'", branch);
	return 0;
}

int apply_tree_of(struct apply_repo *r, const char *rev, char out[41])
{
	git_object *obj = NULL, *tree = NULL;
	int ret = -1;

	if (git_revparse_single(&obj, r->repo, rev) < 0 ||
	    git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0) {
		error("apply", "%s: no tree for '%s': %s", r->path, rev,
		      git_msg());
		goto out;
	}
	git_oid_tostr(out, 41, git_object_id(tree));
	ret = 0;
out:
	git_object_free(tree);
	git_object_free(obj);
	return ret;
}

void apply_result_init(struct apply_result *res)
{
	memset(res, 0, sizeof(*res));
}

void apply_result_release(struct apply_result *res)
{
	free(res->commits);
	free(res->failed_file);
	free(res->failed_hunk);
	free(res->reason);
	apply_result_init(res);
}

/*
 * Checks on the diff, all on what the scanner (diff.c) found: it says
 * which lines are headers (a removed line reading "--- /etc/x" is
 * content) and where the diff ends, and only the bytes it took are given
 * to libgit2 and git apply.  So the paths checked here are the paths
 * applied.
 */

/* Checks one path as it appears after the a/ or b/ prefix is removed. */
static int check_path(const char *p, size_t n, struct strbuf *why)
{
	size_t i = 0;

	if (!n)
		return strbuf_addstr(why, "empty path"), -1;
	if (p[0] == '/') {
		strbuf_addf(why, "absolute path '%.*s'", (int)n, p);
		return -1;
	}
	if (memchr(p, '\\', n)) {
		strbuf_addf(why, "path with a backslash '%.*s'", (int)n, p);
		return -1;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) {
			strbuf_addf(why, "path with a control character "
				    "'%.*s'", (int)strnlen(p, n), p);
			return -1;
		}
	i = 0;
	while (i < n) {
		const char *c = p + i;
		size_t k = 0;

		while (i + k < n && c[k] != '/')
			k++;
		if (!k || (k == 1 && c[0] == '.') ||
		    (k == 2 && c[0] == '.' && c[1] == '.')) {
			strbuf_addf(why, "path with '%.*s' component '%.*s'",
				    (int)k, c, (int)n, p);
			return -1;
		}
		if (k == 4 && !strncasecmp(c, ".git", 4)) {
			strbuf_addf(why, "path into .git '%.*s'", (int)n, p);
			return -1;
		}
		i += k + 1;
	}
	return 0;
}

/* The most paths one file of a diff names (see file_paths()). */
#define FILE_PATHS 10

static int prefixed(struct diff_path p, char c)
{
	return p.p && p.n > 2 && p.p[0] == c && p.p[1] == '/';
}

/*
 * Is f's header handed on as it is?  Only a "diff --git a/X b/Y" file
 * whose names all have git's own prefixes; every other gets a canonical
 * header (canonical_header()).
 */
static int header_as_is(const struct diff_file *f)
{
	return f->git && f->strip == 1 && prefixed(f->git_old, 'a') &&
	       prefixed(f->git_new, 'b') &&
	       (!f->old.p || diff_path_is_null(f->old) ||
		prefixed(f->old, 'a')) &&
	       (!f->new.p || diff_path_is_null(f->new) ||
		prefixed(f->new, 'b'));
}

/*
 * The paths of file f that reach libgit2, as the tree knows them: its
 * paths in the tree and rename/copy values, and, for a header handed on
 * as it is, the names of its "diff --git" and "--- "/"+++ " lines
 * without their prefix; "/dev/null" left out.  new_side[i] says whether
 * out[i] is a path the patch writes.  Returns how many.
 */
static size_t file_paths(const struct diff_file *f,
			 struct diff_path out[FILE_PATHS],
			 int new_side[FILE_PATHS])
{
	const struct diff_path in[FILE_PATHS] = {
		f->old_path, f->new_path, f->rename_from, f->rename_to,
		f->copy_from, f->copy_to, f->git_old, f->git_new, f->old,
		f->new,
	};
	size_t i, n = 0, last = header_as_is(f) ? FILE_PATHS : 6;

	for (i = 0; i < last; i++) {
		struct diff_path p = in[i];

		if (!p.p || diff_path_is_null(p))
			continue;
		if (i >= 6)
			p = diff_path_strip1(p);
		new_side[n] = i % 2;
		out[n++] = p;
	}
	return n;
}

/* The line of buf holding off, cut to 60 characters, for a reason. */
static void add_line(struct strbuf *why, const char *buf, size_t len,
		     size_t off)
{
	const char *nl;
	size_t n;

	while (off > 0 && buf[off - 1] != '\n')
		off--;
	nl = memchr(buf + off, '\n', len - off);
	n = nl ? (size_t)(nl - buf - off) : len - off;

	strbuf_addf(why, "'%.*s'", (int)(n > 60 ? 60 : n), buf + off);
}

/* The first line of buf[off..end) that is not blank, or end. */
static size_t skip_blank(const char *buf, size_t off, size_t end)
{
	while (off < end) {
		const char *l = buf + off, *nl = memchr(l, '\n', end - off);
		size_t n = nl ? (size_t)(nl - l) : end - off, i;

		for (i = 0; i < n; i++)
			if (l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
				return off;
		off += n + 1;
	}
	return end;
}

/* Is the line at buf[off..len) a mail signature's "-- " (or "--")? */
static int is_signature(const char *buf, size_t len, size_t off)
{
	const char *l = buf + off, *nl = memchr(l, '\n', len - off);
	size_t n = nl ? (size_t)(nl - l) : len - off;

	return (n == 3 && !memcmp(l, "-- ", 3)) ||
	       (n == 2 && !memcmp(l, "--", 2));
}

/*
 * Everything but wrong hunk counts (a truncated hunk too) that makes d
 * unsafe to hand on: an unsafe path, a scanner error, text outside the
 * diff (blank lines may come before it; blank lines, then a mail
 * signature and anything after it, may follow it).  0 or -1 with why.
 */
static int check_diff(const char *buf, size_t len, const struct diff *d,
		      struct strbuf *why)
{
	size_t i, k, n, off;

	for (i = 0; i < d->nr_files; i++) {
		struct diff_path paths[FILE_PATHS];
		int new_side[FILE_PATHS];

		n = file_paths(&d->files[i], paths, new_side);
		for (k = 0; k < n; k++)
			if (check_path(paths[k].p, paths[k].n, why) < 0)
				return -1;
	}
	if (d->error != DIFF_OK && d->error != DIFF_ERR_TRUNCATED &&
	    d->error != DIFF_ERR_HUNK_COUNT) {
		strbuf_addf(why, "%s at line %zu of the diff: ",
			    diff_error_str(d->error), d->error_line);
		add_line(why, buf, len, d->error_off);
		return -1;
	}
	off = skip_blank(buf, 0, d->start);
	if (off < d->start) {
		strbuf_addstr(why, "text before the diff: ");
		add_line(why, buf, len, off);
		return -1;
	}
	off = skip_blank(buf, d->end, len);
	if (off < len && !is_signature(buf, len, off)) {
		strbuf_addstr(why, "text after the end of the diff: ");
		add_line(why, buf, len, off);
		return -1;
	}
	return 0;
}

int apply_check_paths(const char *diff, size_t len, struct strbuf *why)
{
	struct diff d;
	int ret;

	diff_scan(diff, len, &d);
	ret = check_diff(diff, len, &d, why);
	diff_release(&d);
	return ret;
}

/* Copies a diff path into sb, NUL-terminated, for libgit2. */
static const char *path_str(struct strbuf *sb, struct diff_path p)
{
	strbuf_reset(sb);
	strbuf_add(sb, p.p, p.n);
	return sb->buf;
}

/*
 * Refuses a diff naming a path that leads through a symbolic link: one in
 * the tree being patched, or one the same diff creates (a new file or a
 * mode change to 120000).
 */
static int check_symlinks(git_tree *tree, const struct diff *d,
			  struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT, link = STRBUF_INIT;
	struct diff_path paths[FILE_PATHS], other[FILE_PATHS];
	int new_side[FILE_PATHS], other_new[FILE_PATHS];
	size_t i, j, k, m, n, no;
	int ret = 0;

	for (i = 0; i < d->nr_files && !ret; i++) {
		n = file_paths(&d->files[i], paths, new_side);
		for (k = 0; k < n && !ret; k++) {
			char *slash;

			path_str(&path, paths[k]);
			for (slash = strchr(path.buf, '/'); slash && !ret;
			     slash = strchr(slash + 1, '/')) {
				git_tree_entry *e = NULL;

				*slash = 0;
				if (!git_tree_entry_bypath(&e, tree, path.buf) &&
				    git_tree_entry_filemode(e) ==
				    GIT_FILEMODE_LINK) {
					*slash = '/';
					strbuf_addf(why, "'%s' is beyond the "
						    "symbolic link '%.*s'",
						    path.buf,
						    (int)(slash - path.buf),
						    path.buf);
					ret = -1;
				}
				git_tree_entry_free(e);
				*slash = '/';
			}
		}
		if (ret || d->files[i].new_mode != GIT_FILEMODE_LINK)
			continue;
		for (k = 0; k < n && !ret; k++) {
			if (!new_side[k])
				continue;
			path_str(&link, paths[k]);
			for (j = 0; j < d->nr_files && !ret; j++) {
				no = file_paths(&d->files[j], other, other_new);
				for (m = 0; m < no && !ret; m++) {
					if (other[m].n <= link.len ||
					    memcmp(other[m].p, link.buf,
						   link.len) ||
					    other[m].p[link.len] != '/')
						continue;
					strbuf_addf(why, "'%.*s' is beyond the "
						    "symbolic link '%s' the "
						    "patch creates",
						    (int)other[m].n,
						    other[m].p, link.buf);
					ret = -1;
				}
			}
		}
	}
	git_error_clear();
	strbuf_release(&path);
	strbuf_release(&link);
	return ret;
}

/*
 * Every path libgit2 read from the diff must be one the scanner found
 * (and check_diff() checked): the two parsers must not disagree on what
 * a patch touches.
 */
static int check_deltas(git_diff *diff, const struct diff *d,
			struct strbuf *why)
{
	size_t i, j, k, n, nd = git_diff_num_deltas(diff);

	for (i = 0; i < nd; i++) {
		const git_diff_delta *delta = git_diff_get_delta(diff, i);
		const char *sides[2] = { delta->old_file.path,
					 delta->new_file.path };
		int s, found;

		for (s = 0; s < 2; s++) {
			size_t len;

			if (!sides[s] || !strcmp(sides[s], "/dev/null"))
				continue;
			len = strlen(sides[s]);
			found = 0;
			for (j = 0; j < d->nr_files && !found; j++) {
				struct diff_path paths[FILE_PATHS];
				int new_side[FILE_PATHS];

				n = file_paths(&d->files[j], paths, new_side);
				for (k = 0; k < n && !found; k++)
					found = paths[k].n == len &&
						!memcmp(paths[k].p, sides[s],
							len);
			}
			if (!found) {
				strbuf_addf(why, "libgit2 reads the path '%s' "
					    "that no header of the diff names",
					    sides[s]);
				return -1;
			}
		}
	}
	return 0;
}

/* What libgit2 was doing when it failed, from the apply callbacks. */
struct progress {
	char file[512];
	char hunk[256];
};

static int on_delta(const git_diff_delta *d, void *payload)
{
	struct progress *pr = payload;
	const char *path = d->new_file.path ? d->new_file.path :
			   d->old_file.path;

	snprintf(pr->file, sizeof(pr->file), "%s", path ? path : "");
	pr->hunk[0] = 0;
	return 0;
}

static int on_hunk(const git_diff_hunk *h, void *payload)
{
	struct progress *pr = payload;
	size_t n = h->header_len;

	while (n && (h->header[n - 1] == '\n' || h->header[n - 1] == '\r'))
		n--;
	snprintf(pr->hunk, sizeof(pr->hunk), "%.*s", (int)n, h->header);
	return 0;
}

/* Runs git with argv (NULL-terminated) and an extra environment variable;
 * the first line of its stderr goes to err.  Returns its exit status. */
static int run_git(const char *const *argv, const char *env,
		   struct strbuf *err)
{
	int fds[2], status;
	pid_t pid;
	char buf[1024];
	ssize_t n;

	if (pipe(fds) < 0)
		return error("apply", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return error("apply", "fork: %s", strerror(errno));
	}
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(fds[1], 2);
		close(fds[0]);
		if (env)
			putenv((char *)env);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		if (err->len < 4096)
			strbuf_add(err, buf, n);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * The telling line of git apply's stderr ("patch failed: FILE:LINE",
 * "with conflicts", ...), cut at its newline in place; else the first.
 */
static const char *git_complaint(char *err)
{
	static const char *const telling[] = {
		"patch failed", "with conflicts", "corrupt patch",
		"does not exist", "already exists", "does not apply",
	};
	char *line = err, *pick = NULL, *nl;
	size_t i;

	for (; *line && !pick; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		for (i = 0; i < sizeof(telling) / sizeof(*telling); i++) {
			char *hit = strstr(line, telling[i]);

			if (hit && (!nl || hit < nl)) {
				pick = line;
				break;
			}
		}
	}
	if (!pick)
		pick = err;
	nl = strchr(pick, '\n');
	if (nl)
		*nl = 0;
	return pick;
}

/*
 * The fallback: git apply --cached -3 on a temporary index holding tree.
 * Returns 0 with *out set when the patch applied, 1 when it does not apply
 * (first line of git's complaint in why), -1 on errors (logged).
 */
static int fallback_apply(struct apply_repo *r, const git_oid *tree,
			  const struct strbuf *diff, git_oid *out,
			  struct strbuf *why)
{
	char dir[] = "/tmp/kregress-apply-XXXXXX";
	char treehex[41], patchf[64], indexf[64], env[128];
	const char *gitdir = git_repository_path(r->repo);
	struct strbuf err = STRBUF_INIT;
	int fd, ret = -1, st;

	if (!mkdtemp(dir))
		return error("apply", "mkdtemp: %s", strerror(errno));
	snprintf(patchf, sizeof(patchf), "%s/patch", dir);
	snprintf(indexf, sizeof(indexf), "%s/index", dir);
	snprintf(env, sizeof(env), "GIT_INDEX_FILE=%s", indexf);
	git_oid_tostr(treehex, sizeof(treehex), tree);
	fd = open(patchf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, diff->buf, diff->len) != (ssize_t)diff->len) {
		error("apply", "%s: %s", patchf, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	{
		const char *rt[] = { "git", "--git-dir", gitdir, "read-tree",
				     treehex, NULL };

		if (run_git(rt, env, &err)) {
			error("apply", "git read-tree: %s", err.buf);
			goto out;
		}
	}
	{
		const char *ap[] = { "git", "--git-dir", gitdir, "apply",
				     "--cached", "--3way",
				     "--whitespace=nowarn", patchf, NULL };

		strbuf_reset(&err);
		st = run_git(ap, env, &err);
		if (st) {
			strbuf_addstr(why, git_complaint(err.buf));
			ret = 1;
			goto out;
		}
	}
	{
		git_index *idx = NULL;

		if (git_index_open(&idx, indexf) < 0 ||
		    git_index_write_tree_to(out, idx, r->repo) < 0) {
			strbuf_addf(why, "git apply -3 left conflicts: %s",
				    git_msg());
			git_index_free(idx);
			ret = 1;
			goto out;
		}
		git_index_free(idx);
		ret = 0;
	}
out:
	strbuf_release(&err);
	unlink(patchf);
	unlink(indexf);
	rmdir(dir);
	return ret;
}

/*
 * git_apply_to_tree() loads the whole preimage tree into an index and
 * writes every entry back: 0.4-0.7 s per patch on a 78,000-file kernel.
 * Application only ever reads the paths the diff names, so it is given a
 * tree holding just those (touched_tree), and its result is folded back
 * into the full tree with git_tree_create_updated() (merge_back), which
 * rewrites only the subtrees on the way to a changed path.
 */
static int has_path(const char *const *paths, size_t n, const char *p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], p))
			return 1;
	return 0;
}

/*
 * The paths of full the diff reads or overwrites, as a tree of their own.
 * Returns 0, 1 when the diff adds a file that exists (why filled), -1 on
 * errors (logged).
 */
static int touched_tree(git_repository *repo, git_tree *full, git_diff *diff,
			git_tree **out, struct strbuf *why)
{
	size_t i, n = 0, nd = git_diff_num_deltas(diff);
	const char **paths = xcalloc(2 * nd + 1, sizeof(*paths));
	git_tree_update *up = xcalloc(2 * nd + 1, sizeof(*up));
	git_treebuilder *tb = NULL;
	git_tree *empty = NULL;
	git_oid oid;
	size_t nu = 0;
	int ret = -1;

	for (i = 0; i < nd; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status != GIT_DELTA_ADDED &&
		    !has_path(paths, n, d->old_file.path))
			paths[n++] = d->old_file.path;
		if (!has_path(paths, n, d->new_file.path))
			paths[n++] = d->new_file.path;
	}
	for (i = 0; i < n; i++) {
		git_tree_entry *e = NULL;

		if (git_tree_entry_bypath(&e, full, paths[i]) < 0)
			continue;
		if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
			up[nu].action = GIT_TREE_UPDATE_UPSERT;
			git_oid_cpy(&up[nu].id, git_tree_entry_id(e));
			up[nu].filemode = git_tree_entry_filemode(e);
			up[nu].path = paths[i];
			nu++;
		}
		git_tree_entry_free(e);
	}
	for (i = 0; i < nd; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		size_t k;

		if (d->status != GIT_DELTA_ADDED)
			continue;
		for (k = 0; k < nu; k++)
			if (!strcmp(up[k].path, d->new_file.path)) {
				strbuf_addf(why, "%s: already exists in the "
					    "tree", d->new_file.path);
				ret = 1;
				goto out;
			}
	}
	git_error_clear();
	if (git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_write(&oid, tb) < 0 ||
	    git_tree_lookup(&empty, repo, &oid) < 0 ||
	    git_tree_create_updated(&oid, repo, empty, nu, up) < 0 ||
	    git_tree_lookup(out, repo, &oid) < 0) {
		error("apply", "cannot build the preimage tree: %s",
		      git_msg());
		goto out;
	}
	ret = 0;
out:
	git_tree_free(empty);
	git_treebuilder_free(tb);
	free(paths);
	free(up);
	return ret;
}

/*
 * full + (what application made of mini) -> *out.  Paths of mini missing
 * from the result were deleted or renamed away.  Returns 0, or the libgit2
 * error (a path conflict such as a file replaced by a directory).
 */
static int merge_back(git_repository *repo, git_tree *full, git_tree *mini,
		      git_index *result, git_oid *out)
{
	size_t i, n = git_index_entrycount(result), nm, nu = 0;
	git_tree_update *up;
	int e;
	git_index *old = NULL;

	/* mini is flat only at the top; walk it through an index. */
	if ((e = git_index_new(&old)) < 0 ||
	    (e = git_index_read_tree(old, mini)) < 0) {
		git_index_free(old);
		return e;
	}
	nm = git_index_entrycount(old);
	up = xcalloc(n + nm + 1, sizeof(*up));
	for (i = 0; i < n; i++) {
		const git_index_entry *ie = git_index_get_byindex(result, i);

		up[nu].action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&up[nu].id, &ie->id);
		up[nu].filemode = ie->mode;
		up[nu].path = ie->path;
		nu++;
	}
	for (i = 0; i < nm; i++) {
		const git_index_entry *ie = git_index_get_byindex(old, i);

		if (git_index_get_bypath(result, ie->path, 0))
			continue;
		up[nu].action = GIT_TREE_UPDATE_REMOVE;
		up[nu].path = ie->path;
		nu++;
	}
	e = git_tree_create_updated(out, repo, full, nu, up);
	free(up);
	git_index_free(old);
	return e;
}

/* A diff whose every line ends in CRLF came through a CRLF mail: git am
 * strips the CRs (mailsplit without --keep-cr), and so do we. */
static void crlf_to_lf(const char *s, size_t n, struct strbuf *out)
{
	size_t i, lines = 0, crlf = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '\n') {
			lines++;
			crlf += i > 0 && s[i - 1] == '\r';
		}
	if (!lines || crlf != lines) {
		strbuf_add(out, s, n);
		return;
	}
	for (i = 0; i < n; i++)
		if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
			strbuf_addch(out, s[i]);
}

static void set_failure(struct apply_result *res, enum apply_status st,
			size_t idx, const char *file, const char *hunk,
			const char *reason)
{
	res->status = st;
	res->failed_patch = idx;
	res->failed_file = file && *file ? xstrdup(file) : NULL;
	res->failed_hunk = hunk && *hunk ? xstrdup(hunk) : NULL;
	res->reason = xstrdup(reason);
}

/* A path after a prefix; git ends one holding a space with a tab. */
static void add_path(struct strbuf *sb, const char *prefix,
		     struct diff_path p, int pair)
{
	if (!p.p) {
		strbuf_addstr(sb, "/dev/null");
		return;
	}
	strbuf_addf(sb, "%s%.*s", prefix, (int)p.n, p.p);
	if (pair && memchr(p.p, ' ', p.n))
		strbuf_addch(sb, '\t');
}

/*
 * A "diff --git a/X b/Y" header for file f of buf, from its paths in the
 * tree (checked before): its extended header lines as they were (or the
 * creation or deletion a traditional file says), then, when it has
 * hunks, the "--- "/"+++ " pair.
 */
static void canonical_header(const struct diff_file *f, const char *buf,
			     struct strbuf *out)
{
	struct diff_path o = f->old_path.p ? f->old_path : f->new_path;
	struct diff_path n = f->new_path.p ? f->new_path : f->old_path;

	strbuf_addstr(out, "diff --git ");
	add_path(out, "a/", o, 0);
	strbuf_addch(out, ' ');
	add_path(out, "b/", n, 0);
	strbuf_addch(out, '\n');
	if (f->git)
		strbuf_add(out, buf + f->ext_start, f->ext_end - f->ext_start);
	else if (f->new_file)
		strbuf_addstr(out, "new file mode 100644\n");
	else if (f->deleted_file)
		strbuf_addstr(out, "deleted file mode 100644\n");
	if (!f->nr_hunks)
		return;
	strbuf_addstr(out, "--- ");
	add_path(out, "a/", f->old_path, 1);
	strbuf_addstr(out, "\n+++ ");
	add_path(out, "b/", f->new_path, 1);
	strbuf_addch(out, '\n');
}

/*
 * What libgit2 and git apply get of d: per file its header (as it is, or
 * canonical_header()), then its hunks or binary data, each piece exactly
 * the scanner's bytes.  libgit2's parser wants every line terminated,
 * and a binary patch's last base85 block ended by an empty line, which
 * mail handling (trailing blank lines trimmed) may have eaten.
 */
static void diff_pieces(const struct diff *d, const char *buf,
			struct strbuf *patch)
{
	size_t i, k;

	for (i = 0; i < d->nr_files; i++) {
		const struct diff_file *f = &d->files[i];

		if (header_as_is(f))
			strbuf_add(patch, buf + f->start, f->body - f->start);
		else
			canonical_header(f, buf, patch);
		if (f->binary)
			strbuf_add(patch, buf + f->body, f->end - f->body);
		for (k = 0; k < f->nr_hunks; k++) {
			const struct diff_hunk *h = &d->hunks[f->first_hunk + k];

			strbuf_add(patch, buf + h->start, h->end - h->start);
		}
		if (patch->len && patch->buf[patch->len - 1] != '\n')
			strbuf_addch(patch, '\n');
		if (f->binary == DIFF_BINARY_PATCH && !f->binary_ended)
			strbuf_addch(patch, '\n');
	}
}

/*
 * The diff of p as libgit2 and git apply get it: crlf_to_lf() into text,
 * scanned into d, checked (check_diff()), and its pieces (diff_pieces())
 * copied to patch.  Returns 0, or 1 when the diff is too large, absent,
 * unsafe, has wrong hunk counts or a binary change without data (res
 * filled).
 */
static int diff_prepare(const struct apply_patch *p, size_t idx,
			struct strbuf *text, struct diff *d,
			struct strbuf *patch, struct apply_result *res)
{
	struct strbuf why = STRBUF_INIT, file = STRBUF_INIT;
	struct strbuf hunk = STRBUF_INIT;
	struct diff_path where, hline;
	size_t i;
	int ret = 1;

	if (p->diff_len > APPLY_MAX_DIFF) {
		strbuf_addf(&why, "diff of %zu bytes exceeds the %u byte cap",
			    p->diff_len, APPLY_MAX_DIFF);
		set_failure(res, APPLY_REJECTED, idx, NULL, NULL, why.buf);
		goto out;
	}
	crlf_to_lf(p->diff, p->diff_len, text);
	if (diff_scan(text->buf, text->len, d) < 0) {
		set_failure(res, APPLY_FAILED, idx, NULL, NULL,
			    "the patch contains no diff");
		goto out;
	}
	if (check_diff(text->buf, text->len, d, &why) < 0) {
		set_failure(res, APPLY_REJECTED, idx, NULL, NULL, why.buf);
		goto out;
	}
	if (d->error == DIFF_ERR_TRUNCATED || d->error == DIFF_ERR_HUNK_COUNT) {
		diff_error_where(d, text->buf, &where, &hline);
		if (where.p)
			strbuf_add(&file, where.p, where.n);
		if (hline.p)
			strbuf_add(&hunk, hline.p, hline.n);
		strbuf_addf(&why, "malformed diff: %s at line %zu",
			    diff_error_str(d->error), d->error_line);
		set_failure(res, APPLY_FAILED, idx, file.buf, hunk.buf,
			    why.buf);
		goto out;
	}
	for (i = 0; i < d->nr_files; i++) {
		struct diff_path path = diff_file_path(&d->files[i]);

		if (d->files[i].binary != DIFF_BINARY_DIFFER)
			continue;
		strbuf_add(&file, path.p, path.n);
		set_failure(res, APPLY_FAILED, idx, file.buf, NULL,
			    "a binary change without its data (\"Binary "
			    "files ... differ\"): git format-patch or git "
			    "diff --binary sends it");
		goto out;
	}
	diff_pieces(d, text->buf, patch);
	ret = 0;
out:
	strbuf_release(&why);
	strbuf_release(&file);
	strbuf_release(&hunk);
	return ret;
}

/*
 * Applies one patch to the tree of parent.  Returns 0 with *tree_out set,
 * 1 when it does not apply or is unsafe (res filled), -1 on errors.
 */
static int apply_one(struct apply_repo *r, git_commit *parent,
		     const struct apply_patch *p, size_t idx,
		     const struct apply_opts *opts, git_oid *tree_out,
		     enum apply_method *method, struct apply_result *res)
{
	git_apply_options ao;
	struct progress pr = { "", "" };
	struct strbuf why = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf patch = STRBUF_INIT;
	struct diff d = { 0 };
	git_diff *diff = NULL;
	git_tree *tree = NULL, *mini = NULL;
	git_index *index = NULL;
	int ret = -1, e;

	git_apply_options_init(&ao, GIT_APPLY_OPTIONS_VERSION);
	if (diff_prepare(p, idx, &text, &d, &patch, res)) {
		ret = 1;
		goto out;
	}
	if (git_commit_tree(&tree, parent) < 0) {
		error("apply", "%s: cannot read tree: %s", r->path, git_msg());
		goto out;
	}
	if (check_symlinks(tree, &d, &why) < 0) {
		set_failure(res, APPLY_REJECTED, idx, NULL, NULL, why.buf);
		ret = 1;
		goto out;
	}
	if (git_diff_from_buffer(&diff, patch.buf, patch.len) < 0) {
		strbuf_addf(&why, "malformed diff: %s", git_msg());
		set_failure(res, APPLY_FAILED, idx, NULL, NULL, why.buf);
		ret = 1;
		goto out;
	}
	if (!git_diff_num_deltas(diff)) {
		set_failure(res, APPLY_FAILED, idx, NULL, NULL,
			    "the patch contains no diff");
		ret = 1;
		goto out;
	}
	if (check_deltas(diff, &d, &why) < 0) {
		set_failure(res, APPLY_REJECTED, idx, NULL, NULL, why.buf);
		ret = 1;
		goto out;
	}
	e = touched_tree(r->repo, tree, diff, &mini, &why);
	if (e < 0)
		goto out;
	if (e > 0) {
		set_failure(res, APPLY_FAILED, idx, NULL, NULL, why.buf);
		ret = 1;
		goto out;
	}
	ao.delta_cb = on_delta;
	ao.hunk_cb = on_hunk;
	ao.payload = &pr;
	e = git_apply_to_tree(&index, r->repo, mini, diff, &ao);
	if (!e) {
		e = merge_back(r->repo, tree, mini, index, tree_out);
		if (!e) {
			*method = APPLY_METHOD_LIBGIT2;
			ret = 0;
			goto out;
		}
	}
	strbuf_addstr(&why, git_msg());
	if (e == GIT_ENOTFOUND || e == GIT_EAPPLYFAIL) {
		/* libgit2 says "file not found" without the name. */
		if (!git_error_last() || !strstr(why.buf, pr.file)) {
			strbuf_reset(&why);
			strbuf_addf(&why, "%s: %s", pr.file, git_msg());
		}
	}
	if (!opts->no_fallback) {
		struct strbuf fwhy = STRBUF_INIT;
		int f = fallback_apply(r, git_tree_id(tree), &patch, tree_out,
				       &fwhy);

		if (f == 0) {
			*method = APPLY_METHOD_GIT_APPLY3;
			strbuf_release(&fwhy);
			ret = 0;
			goto out;
		}
		if (f > 0)
			strbuf_addf(&why, "; git apply -3: %s", fwhy.buf);
		strbuf_release(&fwhy);
		if (f < 0)
			goto out;
	}
	set_failure(res, APPLY_FAILED, idx, pr.file, pr.hunk, why.buf);
	ret = 1;
out:
	git_index_free(index);
	git_diff_free(diff);
	git_tree_free(mini);
	git_tree_free(tree);
	diff_release(&d);
	strbuf_release(&why);
	strbuf_release(&text);
	strbuf_release(&patch);
	return ret;
}

/* As git am: a mail without a display name is authored by its address. */
static const char *author_name(const struct apply_patch *p)
{
	if (p->author_name && *p->author_name)
		return p->author_name;
	if (p->author_email && *p->author_email)
		return p->author_email;
	return "unknown";
}

int apply_series(struct apply_repo *r, const char *base,
		 const struct apply_patch *patches, size_t n,
		 const struct apply_opts *opts, struct apply_result *res)
{
	static const struct apply_opts defaults;
	git_commit *parent = NULL;
	git_oid oid;
	size_t i;
	int ret = -1;

	if (!opts)
		opts = &defaults;
	apply_result_init(res);
	if (git_oid_fromstrp(&oid, base) < 0 ||
	    git_commit_lookup(&parent, r->repo, &oid) < 0)
		return error("apply", "%s: base %s is not a commit: %s",
			     r->path, base, git_msg());
	snprintf(res->base, sizeof(res->base), "%s", base);
	if (n > APPLY_MAX_PATCHES) {
		char why[128];

		snprintf(why, sizeof(why), "%zu patches exceed the cap of %d",
			 n, APPLY_MAX_PATCHES);
		set_failure(res, APPLY_REJECTED, 0, NULL, NULL, why);
		ret = 0;
		goto out;
	}
	res->commits = xcalloc(n ? n : 1, sizeof(*res->commits));
	for (i = 0; i < n; i++) {
		const struct apply_patch *p = &patches[i];
		git_signature *author = NULL, *committer = NULL;
		git_tree *tree = NULL;
		git_oid tree_oid, commit_oid;
		enum apply_method method = APPLY_METHOD_LIBGIT2;
		const git_commit *parents[1] = { parent };
		int e;

		e = apply_one(r, parent, p, i + 1, opts, &tree_oid, &method,
			      res);
		if (e < 0)
			goto out;
		if (e > 0)
			break;
		if (!p->message || strlen(p->message) > APPLY_MAX_MESSAGE) {
			set_failure(res, APPLY_REJECTED, i + 1, NULL, NULL,
				    "commit message missing or too long");
			break;
		}
		if (git_signature_new(&author, author_name(p),
				      p->author_email ? p->author_email : "",
				      p->time, p->tz_min) < 0 ||
		    git_signature_new(&committer, opts->committer_name ?
				      opts->committer_name : "kregress",
				      opts->committer_email ?
				      opts->committer_email :
				      "kregress@invalid",
				      p->time, p->tz_min) < 0) {
			char why[300];

			snprintf(why, sizeof(why), "bad author: %s",
				 git_msg());
			git_signature_free(author);
			set_failure(res, APPLY_FAILED, i + 1, NULL, NULL, why);
			break;
		}
		e = git_tree_lookup(&tree, r->repo, &tree_oid);
		if (!e)
			e = git_commit_create(&commit_oid, r->repo, NULL,
					      author, committer, NULL,
					      p->message, tree, 1, parents);
		git_signature_free(author);
		git_signature_free(committer);
		git_tree_free(tree);
		if (e < 0) {
			error("apply", "%s: cannot commit patch %zu: %s",
			      r->path, i + 1, git_msg());
			goto out;
		}
		git_commit_free(parent);
		parent = NULL;
		if (git_commit_lookup(&parent, r->repo, &commit_oid) < 0) {
			error("apply", "%s: lost commit: %s", r->path,
			      git_msg());
			goto out;
		}
		git_oid_tostr(res->commits[i].oid, 41, &commit_oid);
		res->commits[i].method = method;
		res->n_commits = i + 1;
	}
	if (res->n_commits == n && n) {
		git_reference *ref = NULL;
		char name[128];

		res->status = APPLY_OK;
		if (!opts->ref)
			snprintf(name, sizeof(name),
				 "refs/kregress/applied/%s",
				 res->commits[n - 1].oid);
		if (git_reference_create(&ref, r->repo, opts->ref ? opts->ref :
					 name, git_commit_id(parent), 1,
					 "kregress apply") < 0) {
			error("apply", "%s: cannot update ref: %s", r->path,
			      git_msg());
			goto out;
		}
		git_reference_free(ref);
	} else if (!n) {
		set_failure(res, APPLY_FAILED, 0, NULL, NULL,
			    "the series has no patches");
	}
	ret = 0;
out:
	git_commit_free(parent);
	return ret;
}
