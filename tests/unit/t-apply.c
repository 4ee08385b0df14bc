/*
 * t-apply.c - apply.c and tree.c on small synthetic repositories.
 *
 * Fixtures are made with git(1) in a temporary directory: a change is
 * committed, its diff taken with "git diff --binary", and the test checks
 * that applying that diff to the parent yields exactly the tree of the
 * commit (same tree id), that failures name the patch, file and hunk, and
 * that unsafe diffs are rejected.  The real 6.1 kernel tree is exercised by
 * tests/slow/t-apply.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "log.h"
#include "strbuf.h"
#include "tap.h"
#include "tree.h"

static char dir[] = "/tmp/t-apply-XXXXXX";
static char repo[256];

/* Runs a shell command in dir; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	int r;

	strbuf_addf(&cmd, "cd %s && (", dir);
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	strbuf_addstr(&cmd, ") >/dev/null 2>&1");
	r = system(cmd.buf);
	strbuf_release(&cmd);
	return WEXITSTATUS(r);
}

/* Output of a shell command in dir, trailing newline removed. */
static char *out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *out(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT, o = STRBUF_INIT;
	char buf[4096];
	va_list ap;
	size_t n;
	FILE *p;

	strbuf_addf(&cmd, "cd %s && ", dir);
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	p = popen(cmd.buf, "r");
	while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&o, buf, n);
	if (p)
		pclose(p);
	while (o.len && o.buf[o.len - 1] == '\n')
		o.buf[--o.len] = 0;
	strbuf_release(&cmd);
	return strbuf_detach(&o, NULL);
}

#define GIT "git -C repo -c user.name=T -c user.email=t@example.org "

static void patch_init(struct apply_patch *p, const char *diff,
		       const char *msg)
{
	memset(p, 0, sizeof(*p));
	p->author_name = "Jane Doe";
	p->author_email = "jane@example.org";
	p->time = 1700000000;
	p->tz_min = 330;
	p->message = msg;
	p->diff = diff;
	p->diff_len = strlen(diff);
}

/*
 * Applies the diff between rev^ and rev to rev^ and checks the result's
 * tree equals rev's tree.
 */
static void check_roundtrip(struct apply_repo *r, const char *rev,
			    const char *what)
{
	char *diff = out("git -C repo diff --binary %s^ %s", rev, rev);
	char *base = out("git -C repo rev-parse %s^", rev);
	char *want = out("git -C repo rev-parse %s^{tree}", rev);
	char got[41] = "";
	struct apply_patch p;
	struct apply_result res;

	patch_init(&p, diff, "roundtrip\n");
	if (apply_series(r, base, &p, 1, NULL, &res) == 0 &&
	    res.status == APPLY_OK)
		apply_tree_of(r, res.commits[0].oid, got);
	else
		diag("%s: %s", what, res.reason ? res.reason : "error");
	is_str(got, want, "%s: same tree as the original commit", what);
	apply_result_release(&res);
	free(diff);
	free(base);
	free(want);
}

static void test_base(struct apply_repo *r)
{
	struct apply_base b;
	char *head = out("git -C repo rev-parse HEAD");
	char *first = out("git -C repo rev-list --max-parents=0 HEAD");

	ok(!apply_base_resolve(r, first, "master", &b) &&
	   b.source == APPLY_BASE_SERIES && !strcmp(b.oid, first),
	   "base-commit present in the tree is used");
	diag("%s", b.reason);
	ok(!apply_base_resolve(r, "0123456789abcdef0123456789abcdef01234567",
			       "master", &b) &&
	   b.source == APPLY_BASE_BRANCH && !strcmp(b.oid, head) &&
	   strstr(b.reason, "not in the tree"),
	   "unknown base-commit falls back to the branch, says why");
	ok(!apply_base_resolve(r, "HEAD~1; rm -rf /", "master", &b) &&
	   b.source == APPLY_BASE_BRANCH && strstr(b.reason, "malformed"),
	   "a malformed base-commit is not used as a revision");
	ok(!apply_base_resolve(r, NULL, "master", &b) &&
	   b.source == APPLY_BASE_BRANCH && strstr(b.reason, "no base-commit"),
	   "no base-commit: the branch");
	log_set_level(-1);
	ok(apply_base_resolve(r, NULL, "nosuchbranch", &b) < 0,
	   "unknown branch is an error");
	log_set_level(LOG_LEVEL_INFO);
	free(head);
	free(first);
}

static void test_series(struct apply_repo *r)
{
	char *base = out("git -C repo rev-parse HEAD");
	char *d1, *d2, *d3, *author, *msg;
	struct apply_patch p[3];
	struct apply_result res;
	char tree[41];

	/* Three commits on a side branch, then their diffs. */
	sh(GIT "checkout -q -b side && "
	   "sed -i s/line3/LINE3/ repo/a.txt && " GIT "commit -qam one && "
	   "sed -i s/line10/LINE10/ repo/a.txt && " GIT "commit -qam two && "
	   "echo new >> repo/b.txt && " GIT "commit -qam three && "
	   GIT "checkout -q master");
	d1 = out("git -C repo diff side~3 side~2");
	d2 = out("git -C repo diff side~2 side~1");
	d3 = out("git -C repo diff side~1 side");
	patch_init(&p[0], d1, "mm: one\n\nBody.\n\nSigned-off-by: J <j@x>\n");
	patch_init(&p[1], d2, "mm: two\n");
	patch_init(&p[2], d3, "mm: three\n");
	p[2].tz_min = -420;
	ok(!apply_series(r, base, p, 3, NULL, &res) &&
	   res.status == APPLY_OK && res.n_commits == 3,
	   "3-patch series applies");
	apply_tree_of(r, res.commits[2].oid, tree);
	author = out("git -C repo rev-parse side^{tree}");
	is_str(tree, author, "series yields the tree of the original commits");
	free(author);
	author = out("git -C repo log -1 --format='%%an <%%ae> %%ad' "
		     "--date=raw %s~2", res.commits[2].oid);
	is_str(author, "Jane Doe <jane@example.org> 1700000000 +0530",
	       "author, date and time zone from the mail");
	free(author);
	author = out("git -C repo log -1 --format=%%ad --date=raw %s",
		     res.commits[2].oid);
	is_str(author, "1700000000 -0700", "negative time zone kept");
	free(author);
	msg = out("git -C repo log -1 --format=%%B %s~2", res.commits[2].oid);
	is_str(msg, "mm: one\n\nBody.\n\nSigned-off-by: J <j@x>",
	       "message kept");
	free(msg);
	is_str(apply_method_str(res.commits[0].method), "libgit2",
	       "applied by libgit2");
	msg = out("git -C repo rev-parse refs/kregress/applied/%s",
		  res.commits[2].oid);
	is_str(msg, res.commits[2].oid, "a ref keeps the commits reachable");
	free(msg);
	/* Same input, same commits: the committer date is the author's. */
	{
		struct apply_result again;
		char first[41];

		snprintf(first, sizeof(first), "%s", res.commits[2].oid);
		apply_series(r, base, p, 3, NULL, &again);
		is_str(again.commits[2].oid, first, "deterministic commits");
		apply_result_release(&again);
	}
	apply_result_release(&res);

	/* Patch 2 conflicts: master changed line10 differently. */
	sh("sed -i s/line10/other10/ repo/a.txt && " GIT "commit -qam c");
	free(base);
	base = out("git -C repo rev-parse HEAD");
	ok(!apply_series(r, base, p, 3, NULL, &res) &&
	   res.status == APPLY_FAILED, "conflicting series does not apply");
	is_int(res.failed_patch, 2, "patch 2 is the one that fails");
	is_int(res.n_commits, 1, "patch 1 was committed before it");
	is_str(res.failed_file, "a.txt", "the failing file is named");
	ok(res.failed_hunk && !strncmp(res.failed_hunk, "@@ -7,7 +7,7 @@", 15),
	   "the failing hunk is named");
	ok(res.reason && strstr(res.reason, "did not apply") &&
	   strstr(res.reason, "git apply -3"),
	   "reason has libgit2's and the fallback's complaint");
	is_str(res.base, base, "the base tried is reported");
	diag("reason: %s; hunk: %s", res.reason, res.failed_hunk);
	apply_result_release(&res);
	sh(GIT "reset -q --hard HEAD~1");
	free(base);
	base = out("git -C repo rev-parse HEAD");

	/* Offset: master gained lines on top; libgit2 fails, git apply -3
	 * finds the hunk further down. */
	sh("printf 'x\\ny\\nz\\n' > repo/top && cat repo/top repo/a.txt > "
	   "repo/n && mv repo/n repo/a.txt && " GIT "commit -qam shift");
	{
		char *shifted = out("git -C repo rev-parse HEAD");
		struct apply_opts o = { .no_fallback = 1 };

		ok(!apply_series(r, shifted, &p[1], 1, &o, &res) &&
		   res.status == APPLY_FAILED,
		   "libgit2 alone has no offset search");
		apply_result_release(&res);
		ok(!apply_series(r, shifted, &p[1], 1, NULL, &res) &&
		   res.status == APPLY_OK &&
		   res.commits[0].method == APPLY_METHOD_GIT_APPLY3,
		   "the git apply -3 fallback applies it, method recorded");
		if (res.status == APPLY_OK) {
			msg = out("git -C repo show %s:a.txt | sed -n 13p",
				  res.commits[0].oid);
			is_str(msg, "LINE10", "at the shifted line");
			free(msg);
		}
		apply_result_release(&res);
		free(shifted);
	}
	sh(GIT "reset -q --hard HEAD~1");

	/* CRLF: the same diff with every line ending in CRLF. */
	{
		struct strbuf crlf = STRBUF_INIT;
		struct apply_patch c;
		const char *s;

		for (s = d1; *s; s++) {
			if (*s == '\n')
				strbuf_addch(&crlf, '\r');
			strbuf_addch(&crlf, *s);
		}
		strbuf_addstr(&crlf, "\r\n");
		patch_init(&c, crlf.buf, "crlf\n");
		ok(!apply_series(r, base, &c, 1, NULL, &res) &&
		   res.status == APPLY_OK &&
		   res.commits[0].method == APPLY_METHOD_LIBGIT2,
		   "a CRLF diff applies");
		if (res.status == APPLY_OK) {
			msg = out("git -C repo show %s:a.txt | grep -c $'\\r'",
				  res.commits[0].oid);
			is_str(msg, "0", "without CRs in the result");
			free(msg);
		}
		apply_result_release(&res);
		strbuf_release(&crlf);
	}

	/* Bad input is a result. */
	{
		struct apply_patch bad;

		patch_init(&bad, d1, "anonymous\n");
		bad.author_name = "";
		apply_series(r, base, &bad, 1, NULL, &res);
		msg = res.status == APPLY_OK ? out("git -C repo log -1 "
			"--format=%%an %s", res.commits[0].oid) : NULL;
		is_str(msg, "jane@example.org", "no display name: the address");
		free(msg);
		apply_result_release(&res);
		patch_init(&bad, "not a diff at all\n", "x\n");
		apply_series(r, base, &bad, 1, NULL, &res);
		ok(res.status == APPLY_FAILED && res.failed_patch == 1,
		   "a patch without a diff fails: %s", res.reason);
		apply_result_release(&res);
		patch_init(&bad, "diff --git a/a.txt b/a.txt\n--- a/a.txt\n"
			   "+++ b/a.txt\n@@ -1,3 +1,3 @@\n-nosuch\n+x\n",
			   "x\n");
		apply_series(r, base, &bad, 1, NULL, &res);
		ok(res.status == APPLY_FAILED,
		   "a truncated hunk fails: %s", res.reason);
		is_str(res.failed_file, "a.txt", "the truncated hunk's file");
		is_str(res.failed_hunk, "@@ -1,3 +1,3 @@", "and the hunk");
		apply_result_release(&res);
		patch_init(&bad, "diff --git a/b.txt b/b.txt\nnew file mode "
			   "100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n"
			   "+x\n", "x\n");
		apply_series(r, base, &bad, 1, &(struct apply_opts){
			     .no_fallback = 1 }, &res);
		ok(res.status == APPLY_FAILED && res.reason &&
		   strstr(res.reason, "b.txt: already exists"),
		   "creating an existing file fails: %s", res.reason);
		apply_result_release(&res);
		patch_init(&bad, d1, "x\n");
		bad.diff_len = APPLY_MAX_DIFF + 1;
		ok(!apply_series(r, base, &bad, 1, NULL, &res) &&
		   res.status == APPLY_REJECTED,
		   "an oversized diff is rejected");
		apply_result_release(&res);
		ok(!apply_series(r, base, &bad, 0, NULL, &res) &&
		   res.status == APPLY_FAILED, "an empty series fails");
		apply_result_release(&res);
		log_set_level(-1);
		ok(apply_series(r, "deadbeef", p, 1, NULL, &res) < 0,
		   "an unknown base is an error");
		log_set_level(LOG_LEVEL_INFO);
		apply_result_release(&res);
	}
	free(d1);
	free(d2);
	free(d3);
	free(base);
}

static void test_kinds(struct apply_repo *r)
{
	/* New, deleted, renamed, mode change, binary: one commit each. */
	sh("echo hello > repo/new.c && " GIT "add new.c && "
	   GIT "commit -qm new");
	check_roundtrip(r, "HEAD", "new file");
	sh(GIT "rm -q b.txt && " GIT "commit -qm del");
	check_roundtrip(r, "HEAD", "deleted file");
	sh(GIT "mv new.c renamed.c && " GIT "commit -qm ren");
	check_roundtrip(r, "HEAD", "renamed file");
	sh("chmod +x repo/renamed.c && " GIT "commit -qam mode");
	check_roundtrip(r, "HEAD", "mode change");
	{
		/* A mode change last: the mail's signature may cling to it. */
		char *d = out("git -C repo diff HEAD^ HEAD");
		char *b = out("git -C repo rev-parse HEAD^");
		char *want = out("git -C repo rev-parse HEAD^{tree}");
		struct strbuf sig = STRBUF_INIT;
		struct apply_patch mp;
		struct apply_result res;
		char got[41] = "";

		strbuf_addf(&sig, "%s\n-- \n2.39.5\n\n", d);
		patch_init(&mp, sig.buf, "mode\n");
		if (!apply_series(r, b, &mp, 1, NULL, &res) &&
		    res.status == APPLY_OK)
			apply_tree_of(r, res.commits[0].oid, got);
		is_str(got, want, "mode change followed by a signature");
		apply_result_release(&res);
		strbuf_release(&sig);
		free(d);
		free(b);
		free(want);
	}
	sh("head -c 3000 /dev/urandom > repo/blob.bin && " GIT "add blob.bin"
	   " && " GIT "commit -qm bin");
	check_roundtrip(r, "HEAD", "new binary file");
	sh("head -c 100 /dev/urandom >> repo/blob.bin && " GIT "commit -qam "
	   "bin2");
	check_roundtrip(r, "HEAD", "binary delta");
	sh("head -c 50 /dev/urandom >> repo/blob.bin && chmod -x "
	   "repo/renamed.c && " GIT "commit -qam bin-then-mode");
	check_roundtrip(r, "HEAD", "binary change, then a mode change");
	sh(GIT "mv renamed.c sub/dir/moved.c 2>/dev/null || (mkdir -p "
	   "repo/sub/dir && " GIT "mv renamed.c sub/dir/moved.c) && echo "
	   "more >> repo/sub/dir/moved.c && " GIT "commit -qam renmod");
	check_roundtrip(r, "HEAD", "rename with changes into a new dir");
	sh("ln -s a.txt repo/alink && " GIT "add alink && "
	   GIT "commit -qm link");
	check_roundtrip(r, "HEAD", "new symlink");
}

static void reject(struct apply_repo *r, const char *base, const char *diff,
		   const char *what, const char *why)
{
	struct apply_patch p;
	struct apply_result res;

	int e;

	patch_init(&p, diff, "evil\n");
	e = apply_series(r, base, &p, 1, NULL, &res);
	ok(!e && res.status == APPLY_REJECTED && res.reason &&
	   strstr(res.reason, why), "%s rejected: %s", what,
	   res.reason ? res.reason : "(none)");
	apply_result_release(&res);
}

static void test_security(struct apply_repo *r)
{
	char *base = out("git -C repo rev-parse HEAD");
	struct strbuf why = STRBUF_INIT;
	const char *hunk = "@@ -0,0 +1 @@\n+pwned\n";
	char diff[512];

	snprintf(diff, sizeof(diff), "diff --git a/../x b/../x\nnew file mode "
		 "100644\n--- /dev/null\n+++ b/../x\n%s", hunk);
	reject(r, base, diff, "../ in diff --git", "'..' component");
	snprintf(diff, sizeof(diff), "--- /dev/null\n+++ b/a/../../x\n%s",
		 hunk);
	reject(r, base, diff, "../ in +++", "'..'");
	snprintf(diff, sizeof(diff), "--- /dev/null\n+++ /etc/x\n%s", hunk);
	reject(r, base, diff, "absolute path", "absolute path");
	snprintf(diff, sizeof(diff), "diff --git a/a.txt b/a.txt\nrename from "
		 "a.txt\nrename to /tmp/x\n");
	reject(r, base, diff, "absolute rename target", "absolute path");
	ok(apply_check_paths("diff --git a/x b/y\nrename from ../x\nrename "
			     "to y\n", 45, &why) < 0 && strstr(why.buf, ".."),
	   "../ rename source rejected by the text check: %s", why.buf);
	strbuf_reset(&why);
	ok(apply_check_paths("diff --git a/x b/y\ncopy from x\ncopy to "
			     "a/../../y\n", 47, &why) < 0,
	   "../ copy target rejected by the text check: %s", why.buf);
	strbuf_reset(&why);
	snprintf(diff, sizeof(diff), "diff --git a/.git/config b/.git/config\n"
		 "--- a/.git/config\n+++ b/.git/config\n%s", hunk);
	reject(r, base, diff, "write into .git", ".git");
	/* alink -> a.txt is a symlink in the tree (test_kinds). */
	snprintf(diff, sizeof(diff), "diff --git a/alink/x b/alink/x\nnew file "
		 "mode 100644\n--- /dev/null\n+++ b/alink/x\n%s", hunk);
	reject(r, base, diff, "write through a symlink", "symbolic link");
	snprintf(diff, sizeof(diff), "diff --git a/l b/l\nnew file mode 120000"
		 "\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n"
		 "\\ No newline "
		 "at end of file\ndiff --git a/l/passwd b/l/passwd\nnew file "
		 "mode 100644\n--- /dev/null\n+++ b/l/passwd\n%s", hunk);
	reject(r, base, diff, "symlink created and written through",
	       "symbolic link");
	/* What the scanner (diff.c) did not take is not applied, nor let by */
	snprintf(diff, sizeof(diff), "diff --git a/n1 b/n1\nnew file mode "
		 "100644\n--- /dev/null\n+++ b/n1\n%sthanks\n"
		 "diff --git a/../x b/../x\nnew file mode 100644\n"
		 "--- /dev/null\n+++ b/../x\n%s", hunk, hunk);
	reject(r, base, diff, "a header after text after the diff",
	       "text after the end of the diff: 'thanks'");
	{
		static const char nul[] = "diff --git a/n2 b/n2\nnew file "
			"mode 100644\n--- /dev/null\n+++ b/n2\n@@ -0,0 +1 @@\n"
			"+a\0b\n";
		struct apply_patch p;
		struct apply_result res;
		int e;

		patch_init(&p, nul, "nul\n");
		p.diff_len = sizeof(nul) - 1;
		e = apply_series(r, base, &p, 1, NULL, &res);
		ok(!e && res.status == APPLY_REJECTED && res.reason &&
		   strstr(res.reason, "NUL byte at line 6"),
		   "a NUL byte in a hunk rejected: %s",
		   res.reason ? res.reason : "(none)");
		apply_result_release(&res);
	}
	/* libgit2 drops the trailing space the headers have: it would
	 * write a path that was never checked. */
	snprintf(diff, sizeof(diff), "diff --git a/a.txt b/.git \n"
		 "similarity index 100%%\nrename from a.txt\n"
		 "rename to .git \n");
	reject(r, base, diff, "a rename libgit2 reads differently",
	       "libgit2 reads the path '.git' that no header");
	/* A removed line reading "-- x" is content, not a header. */
	ok(!apply_check_paths("--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- /etc/x\n"
			      " y\n", 43, &why),
	   "hunk content that looks like a header is not checked as one");
	ok(apply_check_paths("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
			     "--- a/../f\n", 44, &why) < 0,
	   "a header after the hunk is checked again");
	strbuf_release(&why);
	free(base);
}

static long long mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static void test_worktree(void)
{
	struct tree_worktree *wt = NULL;
	char wtpath[300], f_a[400], f_b[400], head[41];
	char *base, *patched;
	long long a0, b0;
	size_t n = 99;

	sh(GIT "checkout -q -b wtest && echo changed >> repo/a.txt && "
	   GIT "commit -qam wt && " GIT "checkout -q master");
	base = out("git -C repo rev-parse wtest~1");
	patched = out("git -C repo rev-parse wtest");
	snprintf(wtpath, sizeof(wtpath), "%s/wt-x86_64", dir);
	ok(!tree_worktree_open(repo, wtpath, base, &wt), "worktree created");
	if (!wt)
		return;
	snprintf(f_a, sizeof(f_a), "%s/a.txt", wtpath);
	snprintf(f_b, sizeof(f_b), "%s/sub/dir/moved.c", wtpath);
	ok(!access(f_b, F_OK), "worktree is checked out");
	sh("touch -d '2020-01-01' wt-x86_64/a.txt wt-x86_64/sub/dir/moved.c "
	   "&& echo obj > wt-x86_64/a.o");
	a0 = mtime_ns(f_a);
	b0 = mtime_ns(f_b);
	ok(!tree_worktree_switch(wt, patched, &n), "switch to patched");
	is_int(n, 1, "one path differs");
	ok(mtime_ns(f_b) == b0, "unchanged file keeps its mtime");
	ok(mtime_ns(f_a) != a0, "changed file is rewritten");
	free(patched);
	patched = out("tail -1 wt-x86_64/a.txt");
	is_str(patched, "changed", "with the patched content");
	tree_worktree_head(wt, head);
	ok(!strncmp(head, base, 0) && strcmp(head, base), "HEAD moved");
	ok(!tree_worktree_switch(wt, base, &n) && n == 1, "switch back");
	ok(mtime_ns(f_b) == b0, "unchanged file still keeps its mtime");
	ok(sh("test -f wt-x86_64/a.o") == 0, "untracked build output survives");
	/* Structural changes: a new dir, a deletion, a file becoming a dir,
	 * a dir becoming a file; the checkout must equal the commit. */
	sh(GIT "checkout -q -b wt2 && mkdir -p repo/nd/deep && echo n > "
	   "repo/nd/deep/n.c && " GIT "rm -q blob.bin && " GIT "rm -q "
	   "alink && mkdir repo/alink && echo x > repo/alink/x && "
	   GIT "rm -rq sub && echo f > repo/sub && " GIT "add -A && "
	   GIT "commit -qm structure && " GIT "checkout -q master");
	{
		char *st, *rev = out("git -C repo rev-parse wt2");


		int e = tree_worktree_switch(wt, rev, &n);

		ok(!e && n == 7, "switch across structural changes: %zu "
		   "paths (nd/deep/n.c, blob.bin, alink, alink/x, "
		   "sub/dir/moved.c, sub, top)", n);
		st = out("git -C wt-x86_64 status --porcelain "
			 "--untracked-files=no; git -C wt-x86_64 diff HEAD "
			 "--stat; cat wt-x86_64/sub wt-x86_64/alink/x "
			 "wt-x86_64/nd/deep/n.c; test -e wt-x86_64/blob.bin || "
			 "echo gone");
		is_str(st, "f\nx\nn\ngone", "worktree equals the commit");
		free(st);
		ok(!tree_worktree_switch(wt, base, &n), "and back");
		st = out("git -C wt-x86_64 status --porcelain "
			 "--untracked-files=no; test -d wt-x86_64/nd || echo "
			 "nd-gone; test -L wt-x86_64/alink && echo link; "
			 "test -f wt-x86_64/blob.bin && echo blob; "
			 "cat wt-x86_64/sub/dir/moved.c | head -1");
		is_str(st, "nd-gone\nlink\nblob\nhello",
		       "back to the base exactly");
		free(st);
		free(rev);
	}
	tree_worktree_free(wt);
	wt = NULL;
	ok(!tree_worktree_open(repo, wtpath, base, &wt),
	   "existing worktree reopened");
	tree_worktree_head(wt, head);
	is_str(head, base, "at the commit it was left at");
	tree_worktree_free(wt);
	free(base);
	free(patched);
}

static void test_import(void)
{
	char tarball[300], dst[300];
	char *s;
	int already = -1;

	sh("mkdir -p src/linux-source-9.9/sub && cd src/linux-source-9.9 && "
	   "printf '.*\\n*.o\\ntags\\n/vmlinux\\n\\n#\\n"
	   "# Debian packaging: ignore "
	   "everything\\n#\\n/*\\n!/debian/\\n' > .gitignore && echo k > "
	   "Makefile && echo c > sub/x.c && echo d > .mailmap && "
	   "mkdir sub/tags && echo t > sub/tags/t.c && cd .. && "
	   "tar -cJf ../linux-source-9.9.tar.xz linux-source-9.9");
	snprintf(tarball, sizeof(tarball), "%s/linux-source-9.9.tar.xz", dir);
	snprintf(dst, sizeof(dst), "%s/linux-9.9", dir);
	ok(!tree_import(tarball, dst, &already) && already == 0,
	   "tarball imported");
	s = out("git -C linux-9.9 ls-files | sort | tr '\\n' ' '");
	is_str(s, ".gitignore .mailmap Makefile sub/tags/t.c sub/x.c ",
	       "every file committed, dot files and ignored ones too");
	free(s);
	s = out("git -C linux-9.9 show HEAD:.gitignore | tr '\\n' ' '");
	is_str(s, ".* *.o tags /vmlinux ", "Debian's ignore-all block dropped");
	free(s);
	s = out("git -C linux-9.9 status --porcelain | wc -l");
	is_str(s, "0", "the imported directory is clean");
	free(s);
	s = out("git -C linux-9.9 rev-parse HEAD");
	ok(!tree_import(tarball, dst, &already) && already == 1,
	   "second import is a no-op");
	free(s);
	log_set_level(-1);
	ok(tree_import(tarball, repo, &already) < 0,
	   "a repository that is not an import is refused");
	ok(tree_import("/nonexistent.tar.xz", dst, &already) < 0,
	   "a missing tarball is an error");
	log_set_level(LOG_LEVEL_INFO);

	/* Refresh from a remote: the import as the remote of repo. */
	ok(!tree_fetch(repo, dst, "master"), "fetch from a remote");
	s = out("git -C repo rev-parse refs/remotes/kregress/master");
	{
		char *want = out("git -C linux-9.9 rev-parse HEAD");

		is_str(s, want, "remote branch fetched");
		free(want);
	}
	free(s);
}

/* A fixture of tests/fixtures/diff/, read whole. */
static char *diff_fixture(const char *name)
{
	const char *src = getenv("KREGRESS_SRC");
	struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;

	strbuf_addf(&path, "%s/tests/fixtures/diff/%s", src ? src : ".", name);
	if (strbuf_read_file(&sb, path.buf, 1 << 20) < 0)
		diag("cannot read %s", path.buf);
	strbuf_release(&path);
	return strbuf_detach(&sb, NULL);
}

/* Applies fixture name on base with libgit2 alone; the tree, or "". */
static char *apply_fixture(struct apply_repo *r, const char *base,
			   const char *name, struct apply_result *res)
{
	struct apply_opts o = { .no_fallback = 1 };
	char *diff = diff_fixture(name);
	char got[41] = "";
	struct apply_patch p;

	patch_init(&p, diff, "form\n");
	if (!apply_series(r, base, &p, 1, &o, res) && res->status == APPLY_OK)
		apply_tree_of(r, res->commits[0].oid, got);
	else if (res->reason)
		diag("%s: %s", name, res->reason);
	free(diff);
	return strdup(got);
}

/* Applies fixture name on base and checks the tree is want. */
static void check_form(struct apply_repo *r, const char *base,
		       const char *name, const char *want, const char *what)
{
	struct apply_result res;
	char *got = apply_fixture(r, base, name, &res);

	is_str(got, want, "%s: %s", name, what);
	free(got);
	apply_result_release(&res);
}

/*
 * Issue 16: the forms of tests/fixtures/diff/make-fixtures.sh, applied to
 * the base that script starts from, give the tree of the same change made
 * by hand (its forms_edit); pure renames and copies too; wrong counts and
 * binary changes without data fail naming their file.
 */
static void test_forms(void)
{
	static const char *const forms[] = {
		"forms-no-prefix.diff", "forms-mnemonic.diff",
		"forms-quilt.diff", "forms-quilt-p0.diff", "forms-diff-r.diff",
	};
	struct apply_repo *r = NULL;
	struct apply_result res;
	char *base, *want, *got, path[300];
	size_t i;

#define FG "git -C forms -c user.name=T -c user.email=t@example.org "
	sh("git init -q -b master forms && cd forms && seq 1 40 > a.c && "
	   "printf 'one\\ntwo\\nthree\\n' > b.txt && "
	   "printf 'keep me\\n' > gone.txt && seq 100 160 > big.c && "
	   "cd .. && " FG "add . && " FG "commit -qm base && cd forms && "
	   "sed -i 's/^5$/five/; s/^30$/thirty/' a.c && "
	   "sed -i 's/^150$/x/' big.c && rm b.txt && "
	   "printf 'int new;\\n' > new.c && cd .. && " FG "add -A && "
	   FG "commit -qm forms && " FG "checkout -q -b pure HEAD^ && "
	   FG "mv big.c renamed.c && " FG "commit -qm rename && "
	   "cp forms/a.c forms/copied.c && " FG "add . && "
	   FG "commit -qm copy");
	snprintf(path, sizeof(path), "%s/forms", dir);
	if (!ok(!apply_repo_open(path, &r), "the forms repository"))
		return;
	base = out(FG "rev-parse master^");
	want = out(FG "rev-parse master^{tree}");
	for (i = 0; i < sizeof(forms) / sizeof(*forms); i++)
		check_form(r, base, forms[i], want, "applies at its strip "
			   "level: the tree of the change made by hand");
	free(want);
	free(base);
	want = out(FG "rev-parse pure^{tree}");
	base = out(FG "rev-parse pure^");
	check_form(r, base, "copy-pure.diff", want, "a copy without hunks");
	free(base);
	free(want);
	base = out(FG "rev-parse pure~2");
	want = out(FG "rev-parse pure~1^{tree}");
	check_form(r, base, "rename-pure.diff", want, "a rename without hunks");
	check_form(r, base, "no-prefix-rename.diff", want,
		   "a --no-prefix rename without hunks");
	free(base);
	base = out(FG "rev-parse master^");
	got = apply_fixture(r, base, "hunk-count-short.diff", &res);
	ok(res.status == APPLY_FAILED && res.failed_file && res.failed_hunk &&
	   !strcmp(res.failed_file, "a.c") &&
	   !strcmp(res.failed_hunk, "@@ -2,8 +2,8 @@") &&
	   strstr(res.reason, "hunk line counts do not match"),
	   "a hunk with wrong counts does not apply, naming file and hunk: "
	   "%s %s: %s", res.failed_file ? res.failed_file : "-",
	   res.failed_hunk ? res.failed_hunk : "-",
	   res.reason ? res.reason : "-");
	free(got);
	apply_result_release(&res);
	got = apply_fixture(r, base, "binary-differ.diff", &res);
	ok(res.status == APPLY_FAILED && res.failed_file &&
	   !strcmp(res.failed_file, "blob.bin") &&
	   strstr(res.reason, "without its data"),
	   "\"Binary files differ\" does not apply, and says why: %s",
	   res.reason ? res.reason : "-");
	free(got);
	apply_result_release(&res);
	free(base);
	free(want);
	apply_repo_free(r);
#undef FG
}

int main(void)
{
	struct apply_repo *r = NULL;

	if (!mkdtemp(dir))
		return 1;
	snprintf(repo, sizeof(repo), "%s/repo", dir);
	sh("git init -q -b master repo && seq -f line%%g 1 30 > repo/a.txt && "
	   "echo b > repo/b.txt && " GIT "add . && " GIT "commit -qm init && "
	   "echo more >> repo/b.txt && " GIT "commit -qam second");
	if (!ok(!apply_repo_open(repo, &r), "repository opened"))
		return done_testing();
	test_base(r);
	test_series(r);
	test_kinds(r);
	test_security(r);
	apply_repo_free(r);
	test_forms();
	test_worktree();
	test_import();
	sh("cd / && rm -rf %s", dir);
	return done_testing();
}
