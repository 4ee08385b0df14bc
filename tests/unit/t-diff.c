/*
 * t-diff.c - the unified-diff scanner (diff.c), rule by rule: on the diffs
 * of tests/fixtures/diff/ (git diff and git format-patch output, made by
 * its make-fixtures.sh) and of tests/fixtures/mail/, then on crafted text
 * for what git does not write (broken headers, truncated hunks, NULs).
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "strbuf.h"
#include "tap.h"

static char src_dir[4096];

/* Reads tests/fixtures/<name> into sb; 0 or -1. */
static int fixture(const char *name, struct strbuf *sb)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "%s/tests/fixtures/%s", src_dir, name);
	strbuf_reset(sb);
	ret = strbuf_read_file(sb, path.buf, 1 << 20);
	if (ret < 0)
		diag("cannot read %s", path.buf);
	strbuf_release(&path);
	return ret < 0 ? -1 : 0;
}

/* Does path p say exactly s? */
static int path_is(struct diff_path p, const char *s)
{
	if (!s)
		return !p.p;
	if (!p.p || p.n != strlen(s) || memcmp(p.p, s, p.n)) {
		diag("path '%.*s', want '%s'", p.p ? (int)p.n : 6,
		     p.p ? p.p : "(none)", s);
		return 0;
	}
	return 1;
}

/* The line of buf at off, to compare. */
static char *line_at(const char *buf, size_t len, size_t off)
{
	const char *nl;

	if (off >= len)
		return strdup("(end)");
	nl = memchr(buf + off, '\n', len - off);
	return strndup(buf + off, nl ? (size_t)(nl - buf - off) : len - off);
}

/* Scans a crafted literal (NULs allowed: len is given). */
static int scan(const char *buf, size_t len, struct diff *d)
{
	return diff_scan(buf, len, d);
}
#define SCAN(lit, d) scan(lit, sizeof(lit) - 1, d)

/* Scans a fixture that is one whole diff; checks start, end, no error. */
static int scan_whole(const char *name, struct strbuf *sb, struct diff *d)
{
	int good;

	if (fixture(name, sb) < 0) {
		memset(d, 0, sizeof(*d));
		return ok(0, "%s: read", name);
	}
	good = !diff_scan(sb->buf, sb->len, d) && d->start == 0 &&
	       d->end == sb->len && d->error == DIFF_OK;
	if (!ok(good, "%s: one diff from the first byte to the last", name))
		diag("start %zu end %zu of %zu, error %s at line %zu",
		     d->start, d->end, sb->len, diff_error_str(d->error),
		     d->error_line);
	return good;
}

static void test_modify(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct diff d;

	if (scan_whole("diff/modify-two-hunks.diff", &sb, &d)) {
		const struct diff_file *f = &d.files[0];
		const struct diff_hunk *h = d.hunks;

		is_int(d.nr_files, 1, "one file");
		ok(f->git && path_is(f->git_old, "a/a.c") &&
		   path_is(f->git_new, "b/a.c"), "diff --git names, prefixed");
		ok(path_is(f->old, "a/a.c") && path_is(f->new, "b/a.c"),
		   "---/+++ names");
		ok(!f->new_file && !f->deleted_file && !f->old_mode &&
		   f->similarity == -1 && f->binary == DIFF_BINARY_NONE,
		   "no extended header but index");
		is_int(f->nr_hunks, 2, "two hunks");
		ok(h[0].old_start == 2 && h[0].old_count == 7 &&
		   h[0].new_start == 2 && h[0].new_count == 7 &&
		   h[1].old_start == 27 && h[1].new_count == 7,
		   "hunk header numbers");
		ok(!strncmp(sb.buf + h[0].start, "@@ -2,7 +2,7 @@\n", 16) &&
		   h[0].body == h[0].start + 16 && h[0].end == h[1].start &&
		   h[1].end == sb.len, "exact byte range of each hunk body");
	}
	diff_release(&d);
	strbuf_release(&sb);
}

static void test_git_headers(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct diff d;
	const struct diff_file *f;

	if (scan_whole("diff/new-file.diff", &sb, &d)) {
		f = &d.files[0];
		ok(f->new_file && f->new_mode == 0100644 && !f->old_mode,
		   "new file mode 100644");
		ok(diff_path_is_null(f->old) && path_is(f->new, "b/new.txt"),
		   "--- /dev/null");
		ok(d.hunks[0].old_count == 0 && d.hunks[0].new_count == 1,
		   "@@ -0,0 +1 @@: 0 old lines, 1 new");
	}
	diff_release(&d);
	if (scan_whole("diff/delete.diff", &sb, &d)) {
		f = &d.files[0];
		ok(f->deleted_file && f->old_mode == 0100644 &&
		   diff_path_is_null(f->new), "deleted file mode, +++ /dev/null");
	}
	diff_release(&d);
	if (scan_whole("diff/rename-with-change.diff", &sb, &d)) {
		f = &d.files[0];
		ok(path_is(f->rename_from, "big.c") &&
		   path_is(f->rename_to, "moved.c") &&
		   path_is(f->git_new, "b/moved.c"), "rename from/to");
		is_int(f->similarity, 98, "similarity index 98%%");
		is_int(f->nr_hunks, 1, "and its hunk");
	}
	diff_release(&d);
	if (scan_whole("diff/copy.diff", &sb, &d)) {
		f = &d.files[0];
		ok(path_is(f->copy_from, "a.c") && path_is(f->copy_to,
		   "copied.c") && f->similarity == 95, "copy from/to, 95%%");
	}
	diff_release(&d);
	if (scan_whole("diff/mode-change.diff", &sb, &d)) {
		f = &d.files[0];
		ok(f->old_mode == 0100644 && f->new_mode == 0100755 &&
		   !f->nr_hunks && !f->old.p, "old/new mode, nothing else");
	}
	diff_release(&d);
	if (scan_whole("diff/empty-new-file.diff", &sb, &d))
		ok(d.files[0].new_file && !d.files[0].nr_hunks &&
		   !d.files[0].new.p, "an empty new file: header only");
	diff_release(&d);
	if (scan_whole("diff/new-symlink.diff", &sb, &d))
		ok(d.files[0].new_mode == 0120000 && d.hunks[0].end == sb.len,
		   "new symlink: mode 120000, the \\ marker ends its hunk");
	diff_release(&d);
	if (scan_whole("diff/quoted-path.diff", &sb, &d)) {
		f = &d.files[0];
		ok(path_is(f->git_old, "a/tab\\tname.txt") &&
		   path_is(f->git_new, "b/tab\\tname.txt") &&
		   path_is(f->new, "b/tab\\tname.txt"),
		   "quoted names: quotes removed, escapes kept");
	}
	diff_release(&d);
	strbuf_release(&sb);
}

static void test_markers_and_binary(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct diff d;

	if (scan_whole("diff/no-newline-at-end.diff", &sb, &d))
		ok(d.nr_hunks == 1 && d.hunks[0].old_count == 3 &&
		   d.hunks[0].new_count == 1 && d.hunks[0].end == sb.len,
		   "\\ No newline marker after the last line is the hunk's");
	diff_release(&d);
	if (scan_whole("diff/binary-new.diff", &sb, &d))
		ok(d.files[0].binary == DIFF_BINARY_PATCH &&
		   d.files[0].binary_ended && !d.nr_hunks,
		   "GIT binary patch, literal blocks, ended");
	diff_release(&d);
	if (scan_whole("diff/binary-delta.diff", &sb, &d))
		ok(d.files[0].binary == DIFF_BINARY_PATCH &&
		   d.files[0].binary_ended, "GIT binary patch, delta blocks");
	diff_release(&d);
	if (scan_whole("diff/binary-differ.diff", &sb, &d))
		ok(d.files[0].binary == DIFF_BINARY_DIFFER,
		   "Binary files ... differ");
	diff_release(&d);
	/* the mail trimmed the last block's empty line */
	if (!fixture("diff/binary-new.diff", &sb)) {
		sb.len -= 1;
		ok(!diff_scan(sb.buf, sb.len, &d) && d.end == sb.len &&
		   !d.files[0].binary_ended && d.error == DIFF_OK,
		   "a last binary block without its empty line");
		diff_release(&d);
	}
	strbuf_release(&sb);
}

static void test_many_files(void)
{
	static const char *const names[] = {
		"b/a.c", "b/b.txt", "b/blob.bin", "b/copied.c", "b/empty.txt",
		"b/gone.txt", "b/link", "b/moved.c", "b/new.txt",
		"b/tab\\tname.txt",
	};
	struct strbuf sb = STRBUF_INIT;
	struct diff d;
	size_t i, hunks = 0;
	int good = 1;

	if (scan_whole("diff/all-kinds.diff", &sb, &d)) {
		is_int(d.nr_files, 10, "ten files of every kind in one diff");
		for (i = 0; i < d.nr_files && i < 10; i++) {
			good &= path_is(d.files[i].git_new, names[i]);
			good &= d.files[i].first_hunk == hunks;
			good &= !i || d.files[i].start == d.files[i - 1].end;
			hunks += d.files[i].nr_hunks;
		}
		ok(good && hunks == d.nr_hunks, "in order, back to back, with "
		   "their hunks");
	}
	diff_release(&d);
	scan_whole("mail/v2-1.diff", &sb, &d);
	diff_release(&d);
	scan_whole("mail/v2-3.diff", &sb, &d);
	diff_release(&d);
	strbuf_release(&sb);
}

static void test_extent(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct diff d;
	char *l;

	/* format-patch: the diffstat before, the signature after */
	if (!fixture("diff/format-patch.mbox", &sb)) {
		ok(!diff_scan(sb.buf, sb.len, &d), "a mail holds a diff");
		l = line_at(sb.buf, sb.len, d.start);
		is_str(l, "diff --git a/a.c b/a.c", "it starts at diff --git, "
		       "after the diffstat");
		free(l);
		l = line_at(sb.buf, sb.len, d.end);
		is_str(l, "-- ", "it ends before the signature");
		free(l);
		diff_release(&d);
	}
	if (scan_whole("diff/plain-diff-u.diff", &sb, &d)) {
		const struct diff_file *f = &d.files[0];
		struct diff_path p = diff_path_strip1(f->new);

		ok(!f->git && path_is(f->old, "linux.orig/a.c") &&
		   path_is(f->new, "linux/a.c"), "diff -u: ---/+++ only");
		ok(path_is(p, "a.c"), "its -p1 name");
	}
	diff_release(&d);
	{
		static const char none[] = "Just words.\n--- not\n+++ a\n";
		static const char pair[] = "--- a/x\n+++ b/x\n";
		static const char open[] = "--- a/x\n+++ b/x\n@@ -1 +1\n-a\n+b\n";

		ok(SCAN(none, &d) < 0 && d.start == d.end &&
		   d.end == sizeof(none) - 1, "no diff in plain text");
		diff_release(&d);
		ok(SCAN(pair, &d) < 0, "a ---/+++ pair without a hunk is none");
		diff_release(&d);
		ok(SCAN(open, &d) < 0, "nor with a hunk header that does not "
		   "parse");
		diff_release(&d);
	}
	{
		static const char sig[] =
			"diff --git a/f b/f\nold mode 100644\nnew mode 100755\n"
			"-- \n2.39.5\n";
		static const char after[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nthanks\n"
			"--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n";

		ok(!SCAN(sig, &d) && d.end == (size_t)(strstr(sig, "-- ") - sig),
		   "a hunk-less file then a signature: the diff ends there");
		diff_release(&d);
		ok(!SCAN(after, &d) && d.nr_files == 1 &&
		   d.end == (size_t)(strstr(after, "thanks") - after),
		   "the diff ends at the first line that is not diff");
		diff_release(&d);
	}
	strbuf_release(&sb);
}

static void test_hunks(void)
{
	struct diff d;

	{
		static const char nine[] =
			"--- a/f\n+++ b/f\n@@ -123456789 +123456789 @@\n-a\n+b\n";
		static const char ten[] =
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
			"@@ -1234567890 +1 @@\n-a\n+b\n";

		ok(!SCAN(nine, &d) && d.hunks[0].old_start == 123456789 &&
		   d.error == DIFF_OK, "nine digits are a number");
		diff_release(&d);
		ok(!SCAN(ten, &d) && d.error == DIFF_ERR_HUNK_HEADER &&
		   d.end == (size_t)(strstr(ten, "@@") - ten) &&
		   d.error_off == d.end && d.error_line == 4,
		   "ten are a malformed header; the diff ends before it");
		diff_release(&d);
	}
	{
		static const char *const bad[] = {
			"@@ -1 +1\n", "@@ -1 +1 @\n", "@@ --1 +1 @@\n",
			"@@ -1, +1 @@\n", "@@ -1 1 @@\n", "@@ -a +1 @@\n",
			"@@ -1  +1 @@\n",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "diff --git a/f b/f\n%s-a\n+b\n",
				    bad[i]);
			ok(!diff_scan(sb.buf, sb.len, &d) &&
			   d.error == DIFF_ERR_HUNK_HEADER && !d.nr_hunks,
			   "malformed: %.*s", (int)strlen(bad[i]) - 1, bad[i]);
			diff_release(&d);
			strbuf_release(&sb);
		}
	}
	{
		static const char sect[] =
			"--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@ int main(void)\n"
			" a\n+b\n\n";
		static const char lookalike[] =
			"--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- /etc/x\n y\n";

		ok(!SCAN(sect, &d) && d.end == sizeof(sect) - 1 &&
		   d.hunks[0].new_count == 3,
		   "section text after @@; an empty line is context");
		diff_release(&d);
		ok(!SCAN(lookalike, &d) && d.nr_files == 1 &&
		   d.end == sizeof(lookalike) - 1,
		   "a removed line reading --- /etc/x is content");
		diff_release(&d);
	}
	{
		static const char trunc[] =
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n"
			" a\n-b\n+c\nnot diff\n";
		static const char over[] =
			"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n+b\n c\n";
		static const char eof[] =
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n";

		ok(!SCAN(trunc, &d) && d.error == DIFF_ERR_TRUNCATED &&
		   d.end == (size_t)(strstr(trunc, "not") - trunc) &&
		   d.error_line == 8 && d.hunks[0].end == d.end,
		   "a hunk short of its lines is truncated where they stop");
		diff_release(&d);
		ok(!SCAN(over, &d) && d.error == DIFF_ERR_TRUNCATED &&
		   d.end == (size_t)(strstr(over, " c") - over),
		   "a context line past the old count does not fit");
		diff_release(&d);
		ok(!SCAN(eof, &d) && d.error == DIFF_ERR_TRUNCATED &&
		   d.end == sizeof(eof) - 1, "a hunk cut by the end of input");
		diff_release(&d);
	}
	{
		static const char first[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline\n-a\n+b\n";
		static const char nospace[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\No newline\n+b\n";
		static const char twice[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\\ x\n\\ y\n";

		ok(!SCAN(first, &d) && d.error == DIFF_ERR_TRUNCATED,
		   "a \\ marker only after a line");
		diff_release(&d);
		ok(!SCAN(nospace, &d) && d.error == DIFF_ERR_TRUNCATED,
		   "a \\ marker is \"\\ \"");
		diff_release(&d);
		ok(!SCAN(twice, &d) && d.end == sizeof(twice) - 5,
		   "one marker per line");
		diff_release(&d);
	}
}

static void test_errors(void)
{
	struct diff d;

	{
		static const char nul[] =
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
			"-a\n+b\0c\n";
		static const char outside[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n\0\n";

		ok(!SCAN(nul, &d) && d.error == DIFF_ERR_NUL &&
		   d.error_off == (size_t)(strchr(nul, '\0') - nul) &&
		   d.error_line == 6 &&
		   d.end == sizeof(nul) - 1,
		   "a NUL in a hunk: an error, the diff is still all of it");
		diff_release(&d);
		ok(!SCAN(outside, &d) && d.error == DIFF_OK,
		   "a NUL after the diff is not its concern");
		diff_release(&d);
	}
	{
		static const char unsplit[] =
			"diff --git f g\n--- f\n+++ g\n@@ -1 +1 @@\n-a\n+b\n";
		static const char mode[] =
			"diff --git a/f b/f\nnew file mode 10x644\n";
		static const char sim[] =
			"diff --git a/f b/g\nsimilarity index 101%\n"
			"rename from f\nrename to g\n";
		static const char nodata[] =
			"diff --git a/f b/f\nGIT binary patch\n\n";

		ok(!SCAN(unsplit, &d) && d.error == DIFF_ERR_GIT_LINE &&
		   d.nr_files == 1 && !d.files[0].git_new.p &&
		   d.end == sizeof(unsplit) - 1,
		   "diff --git names no rule splits: an error, the file is "
		   "still one");
		diff_release(&d);
		ok(!SCAN(mode, &d) && d.error == DIFF_ERR_HEADER &&
		   d.error_line == 2 && d.end == sizeof(mode) - 1,
		   "a mode that is not octal");
		diff_release(&d);
		ok(!SCAN(sim, &d) && d.error == DIFF_ERR_HEADER &&
		   path_is(d.files[0].rename_to, "g"), "similarity over 100%%");
		diff_release(&d);
		ok(!SCAN(nodata, &d) && d.error == DIFF_ERR_HEADER,
		   "GIT binary patch without a block");
		diff_release(&d);
	}
	{
		static const char cr[] =
			"diff --git a/f b/f\r\n--- a/f\r\n+++ b/f\r\n"
			"@@ -1,2 +1,2 @@\r\n-a\r\n+b\r\n\r\n";

		ok(!SCAN(cr, &d) && path_is(d.files[0].git_new, "b/f\r") &&
		   d.error == DIFF_ERR_TRUNCATED,
		   "a \\r is part of the line: in a path, and \"\\r\" is no "
		   "empty context line");
		diff_release(&d);
	}
}

static void test_structure(void)
{
	struct diff d;

	{
		static const char two[] =
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
			"-a\n+b\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n";
		static const char binnext[] =
			"diff --git a/x b/x\nGIT binary patch\nliteral 0\n"
			"HcmV?d00001\ndiff --git a/y b/y\nold mode 100644\n"
			"new mode 100755\n";
		static const char stray[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
			"Binary files a/f and b/f differ\n";

		ok(!SCAN(two, &d) && d.nr_files == 2 && d.files[0].git &&
		   !d.files[1].git && d.files[0].nr_hunks == 1,
		   "---/+++ after a git header is its, after a hunk a new file");
		diff_release(&d);
		ok(!SCAN(binnext, &d) && d.nr_files == 2 &&
		   !d.files[0].binary_ended && d.files[1].new_mode == 0100755,
		   "base85 data ends at a line that is not base85");
		diff_release(&d);
		ok(!SCAN(stray, &d) &&
		   d.end == (size_t)(strstr(stray, "Binary") - stray),
		   "Binary files ... differ only in a git header");
		diff_release(&d);
	}
	{
		struct diff_path p = { "b/mm/x.c", 8 }, q = { "x.c", 3 };

		ok(path_is(diff_path_strip1(p), "mm/x.c") &&
		   path_is(diff_path_strip1(q), "x.c"),
		   "-p1 strips one component, if there is one");
	}
}

/* The paths in the tree of the four files of a forms-* fixture. */
static int forms_paths(const struct diff *d, int strip)
{
	const struct diff_file *f = d->files;
	int good = d->nr_files == 4;

	if (!good)
		return ok(0, "four files (%zu)", d->nr_files);
	good &= path_is(f[0].old_path, "a.c") && path_is(f[0].new_path, "a.c");
	good &= f[1].deleted_file && path_is(f[1].old_path, "b.txt") &&
		path_is(f[1].new_path, NULL);
	good &= path_is(f[2].old_path, "big.c") &&
		path_is(f[2].new_path, "big.c");
	good &= f[3].new_file && path_is(f[3].old_path, NULL) &&
		path_is(f[3].new_path, "new.c");
	good &= f[0].strip == strip && f[1].strip == strip &&
		f[2].strip == strip && f[3].strip == strip;
	good &= f[0].nr_hunks == 2 && d->nr_hunks == 5;
	return good;
}

/* What people send besides git's own form (issue 16). */
static void test_forms(void)
{
	static const struct {
		const char *name;
		int git, strip;
		const char *first;	/* what the diff's first line starts */
	} forms[] = {
		{ "diff/forms-no-prefix.diff", 1, 0, "diff --git a.c a.c" },
		{ "diff/forms-mnemonic.diff", 1, 1, "diff --git c/a.c i/a.c" },
		{ "diff/forms-quilt.diff", 0, 1, "Index: linux/a.c" },
		{ "diff/forms-quilt-p0.diff", 0, 0, "Index: a.c" },
		{ "diff/forms-diff-r.diff", 0, 1, "diff -urN linux.orig/a.c" },
	};
	struct strbuf sb = STRBUF_INIT;
	struct diff d;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		if (scan_whole(forms[i].name, &sb, &d)) {
			ok(d.files[0].git == forms[i].git &&
			   !strncmp(sb.buf, forms[i].first,
				    strlen(forms[i].first)),
			   "%s: every file, from its first line", forms[i].name);
			ok(forms_paths(&d, forms[i].strip),
			   "%s: paths in the tree at -p%d, creation and "
			   "deletion", forms[i].name, forms[i].strip);
		}
		diff_release(&d);
	}
	if (scan_whole("diff/forms-quilt-p0.diff", &sb, &d))
		ok(path_is(d.files[0].old, "a.c.orig") &&
		   path_is(d.files[0].old_path, "a.c"),
		   "quilt -p0: the .orig name is only a label");
	diff_release(&d);
	if (scan_whole("diff/rename-pure.diff", &sb, &d))
		ok(d.nr_files == 1 && !d.nr_hunks && d.files[0].strip == 1 &&
		   path_is(d.files[0].old_path, "big.c") &&
		   path_is(d.files[0].new_path, "renamed.c") &&
		   d.files[0].similarity == 100, "a rename without hunks");
	diff_release(&d);
	if (scan_whole("diff/no-prefix-rename.diff", &sb, &d))
		ok(d.nr_files == 1 && d.files[0].strip == 0 &&
		   path_is(d.files[0].git_old, "big.c") &&
		   path_is(d.files[0].git_new, "renamed.c"),
		   "a --no-prefix rename: its line split by the rename values");
	diff_release(&d);
	if (scan_whole("diff/copy-pure.diff", &sb, &d))
		ok(d.nr_files == 1 && !d.nr_hunks &&
		   path_is(d.files[0].old_path, "a.c") &&
		   path_is(d.files[0].new_path, "copied.c"),
		   "a copy without hunks");
	diff_release(&d);
	strbuf_release(&sb);
}

/* Wrong counts name their file and hunk and keep the files after. */
static void test_hunk_counts(void)
{
	static const char *const names[] = {
		"diff/hunk-count-short.diff", "diff/hunk-count-long.diff",
	};
	struct strbuf sb = STRBUF_INIT;
	struct diff_path file, hunk;
	struct diff d;
	size_t i;

	for (i = 0; i < 2; i++) {
		if (fixture(names[i], &sb) < 0 ||
		    diff_scan(sb.buf, sb.len, &d) < 0) {
			ok(0, "%s: a diff", names[i]);
			continue;
		}
		diff_error_where(&d, sb.buf, &file, &hunk);
		ok(d.error == DIFF_ERR_HUNK_COUNT && d.error_line == 5 &&
		   d.error_file == 0 && d.error_hunk == 0 &&
		   path_is(file, "a.c") &&
		   path_is(hunk, i ? "@@ -2,6 +2,6 @@" : "@@ -2,8 +2,8 @@"),
		   "%s: an error naming a.c and its first hunk", names[i]);
		ok(d.nr_files == 2 && d.nr_hunks == 3 && d.end == sb.len &&
		   path_is(d.files[1].old_path, "gone.txt"),
		   "%s: the hunk and the file after it are still there",
		   names[i]);
		diff_release(&d);
	}
	{
		static const char sig[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n";
		static const char blank[] =
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\n\n"
			"--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n\nthanks\n";
		static const char cut[] =
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+b\n"
			"--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n";

		ok(!SCAN(sig, &d) && d.error == DIFF_OK &&
		   d.end == (size_t)(strstr(sig, "-- \n") - sig),
		   "a signature after the last hunk is no surplus of it");
		diff_release(&d);
		ok(!SCAN(blank, &d) && d.error == DIFF_OK && d.nr_files == 2 &&
		   d.end == (size_t)(strstr(blank, "\nthanks") - blank),
		   "blank lines between files are skipped, not an end");
		diff_release(&d);
		ok(!SCAN(cut, &d) && d.error == DIFF_ERR_HUNK_COUNT &&
		   d.nr_files == 2 && d.hunks[0].end ==
		   (size_t)(strstr(cut, "--- a/g") - cut),
		   "a pair with its hunk header ends a hunk still counting");
		diff_release(&d);
	}
	strbuf_release(&sb);
}

/* Scanning what the scanner cut gives the same diff (what series.c cuts
 * and apply.c scans again must agree). */
static void test_rescan(void)
{
	static const char *const names[] = {
		"diff/all-kinds.diff", "diff/format-patch.mbox",
		"mail/v2-series.mbox", "mail/thread-v1-v2.mbox",
		"diff/forms-quilt.diff", "diff/forms-diff-r.diff",
		"diff/hunk-count-long.diff",
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct diff d, again;
		int good;

		if (fixture(names[i], &sb) < 0 ||
		    diff_scan(sb.buf, sb.len, &d) < 0) {
			ok(0, "%s: a diff", names[i]);
			continue;
		}
		good = !diff_scan(sb.buf + d.start, d.end - d.start, &again) &&
		       again.start == 0 && again.end == d.end - d.start &&
		       again.nr_files == d.nr_files &&
		       again.nr_hunks == d.nr_hunks;
		ok(good, "%s: its diff scanned again is the same", names[i]);
		diff_release(&again);
		diff_release(&d);
	}
	strbuf_release(&sb);
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");

	snprintf(src_dir, sizeof(src_dir), "%s", src ? src : ".");
	test_modify();
	test_git_headers();
	test_markers_and_binary();
	test_many_files();
	test_extent();
	test_hunks();
	test_errors();
	test_structure();
	test_forms();
	test_hunk_counts();
	test_rescan();
	return done_testing();
}
