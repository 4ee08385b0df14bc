/*
 * t-series.c - series grouping (series.c): subjects, revisions, trailers,
 * completeness, footers and byte-exact diffs, on the fixtures of
 * tests/fixtures/mail/ (made by git format-patch from kernel files).
 */
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "series.h"
#include "strbuf.h"
#include "tap.h"

static char fixture_dir[4096];

static const char *fixture(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	return path;
}

static struct series *parse_file(const char *name)
{
	struct mail_box box;
	struct series *s = NULL;

	mail_box_init(&box);
	if (mail_box_read_file(&box, fixture(name), NULL) ||
	    series_build(&box, &s))
		s = NULL;
	mail_box_release(&box);
	return s;
}

static struct series *parse_buf(const char *buf, size_t len)
{
	struct mail_box box;
	struct series *s = NULL;

	mail_box_init(&box);
	if (mail_box_read_buf(&box, buf, len, "test", NULL) ||
	    series_build(&box, &s))
		s = NULL;
	mail_box_release(&box);
	return s;
}

static int has_problem(const struct series *s, const char *needle)
{
	size_t i;

	for (i = 0; i < s->nr_problems; i++)
		if (strstr(s->problems[i], needle))
			return 1;
	return 0;
}

static int has_trailer(const struct series_patch *p, const char *name,
		       const char *value)
{
	size_t i;

	for (i = 0; i < p->nr_trailers; i++)
		if (!strcmp(p->trailers[i].name, name) &&
		    !strcmp(p->trailers[i].value, value))
			return 1;
	return 0;
}

static void test_subjects(void)
{
	static const struct {
		const char *subject;
		int reply, prefix, version, index, total, rfc, resend;
		const char *tree, *title;
	} t[] = {
		{ "[PATCH] mm: foo", 0, 1, 1, 1, 1, 0, 0, NULL, "mm: foo" },
		{ "[PATCH v2 3/5] mm: foo", 0, 1, 2, 3, 5, 0, 0, NULL,
		  "mm: foo" },
		{ "[PATCHv3 01/12] x", 0, 1, 3, 1, 12, 0, 0, NULL, "x" },
		{ "[RFC PATCH] x", 0, 1, 1, 1, 1, 1, 0, NULL, "x" },
		{ "[RFC][PATCH 1/2] x", 0, 1, 1, 1, 2, 1, 0, NULL, "x" },
		{ "[PATCH RESEND v4 2/2] x", 0, 1, 4, 2, 2, 0, 1, NULL, "x" },
		{ "[PATCH mm-unstable v2 1/3] mm: y", 0, 1, 2, 1, 3, 0, 0,
		  "mm-unstable", "mm: y" },
		{ "[PATCH net-next 0/4] z", 0, 1, 1, 0, 4, 0, 0, "net-next",
		  "z" },
		{ "Re: [PATCH v2 1/2] mm: z", 1, 1, 2, 1, 2, 0, 0, NULL,
		  "mm: z" },
		{ "RE: Re: [PATCH] a", 1, 1, 1, 1, 1, 0, 0, NULL, "a" },
		{ "Aw: [PATCH] a", 1, 1, 1, 1, 1, 0, 0, NULL, "a" },
		{ "mm: no prefix at all", 0, 0, 1, 1, 1, 0, 0, NULL,
		  "mm: no prefix at all" },
		{ "[GIT PULL] mm", 0, 0, 1, 1, 1, 0, 0, "GIT PULL", "mm" },
		{ "[PATCH V5 00/10] big", 0, 1, 5, 0, 10, 0, 0, NULL, "big" },
		{ "[PATCH-v2] dash", 0, 1, 2, 1, 1, 0, 0, NULL, "dash" },
		{ "[PATCH 2 of 5] hg", 0, 1, 1, 2, 5, 0, 0, NULL, "hg" },
		{ "[Patch v2 1/2]: colon", 0, 1, 2, 1, 2, 0, 0, NULL,
		  "colon" },
		{ "[PATCH] 3 of us", 0, 1, 1, 1, 1, 0, 0, NULL, "3 of us" },
		{ "", 0, 0, 1, 1, 1, 0, 0, NULL, "" },
		{ "[unterminated", 0, 0, 1, 1, 1, 0, 0, NULL,
		  "[unterminated" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct series_subject s;
		int good;

		series_subject_parse(t[i].subject, &s);
		good = s.is_reply == t[i].reply &&
		       s.has_prefix == t[i].prefix &&
		       s.version == t[i].version && s.index == t[i].index &&
		       s.total == t[i].total && s.rfc == t[i].rfc &&
		       s.resend == t[i].resend &&
		       (t[i].tree ? s.tree && !strcmp(s.tree, t[i].tree) :
			!s.tree) && !strcmp(s.title, t[i].title);
		if (!ok(good, "subject \"%s\"", t[i].subject))
			diag("reply %d prefix %d v%d %d/%d rfc %d resend %d "
			     "tree '%s' title '%s'", s.is_reply, s.has_prefix,
			     s.version, s.index, s.total, s.rfc, s.resend,
			     s.tree ? s.tree : "(null)", s.title);
		series_subject_release(&s);
	}
}

static int diff_equals(const struct series_patch *p, const char *file)
{
	struct strbuf want = STRBUF_INIT;
	int same;

	if (strbuf_read_file(&want, fixture(file), 1 << 20))
		return 0;
	same = p->diff && p->diff_len == want.len &&
	       !memcmp(p->diff, want.buf, want.len);
	if (!same)
		diag("diff of %zu bytes, %s has %zu", p->diff_len, file,
		     want.len);
	strbuf_release(&want);
	return same;
}

static void test_v2_series(void)
{
	struct strbuf base = STRBUF_INIT, msg = STRBUF_INIT;
	struct series *s = parse_file("v2-series.mbox");
	const struct series_patch *p;

	ok(s != NULL, "v2-series.mbox parses");
	if (!s)
		return;
	is_int(s->version, 2, "version 2");
	is_int(s->total, 3, "three patches");
	is_int(s->status, SERIES_COMPLETE, "complete");
	is_int(s->nr_patches, 3, "three present");
	is_int(s->nr_problems, 0, "no problems");
	ok(s->cover != NULL, "cover letter found");
	if (s->cover)
		is_str(s->cover->title, "mm: faster huge page clearing, PUD "
		       "mremap, zero-page swap", "cover title");
	strbuf_read_file(&base, fixture("base-commit"), 100);
	if (base.len && base.buf[base.len - 1] == '\n')
		base.buf[--base.len] = '\0';
	is_str(s->base_commit, base.buf, "base-commit footer");
	ok(s->older == NULL, "no older revision");
	if (s->nr_patches == 3) {
		p = s->patches[0];
		is_int(p->index, 1, "first is 1/3");
		is_str(p->title, "mm: clear huge pages in forward order",
		       "title without prefix");
		is_str(p->author_name, "J\xc3\xb6rg M\xc3\xbcller", "author");
		is_int(p->date, 1717744500, "author date");
		is_int(p->tz_offset_min, 120, "author timezone");
		is_int(p->nr_files, 1, "one file");
		if (p->nr_files)
			is_str(p->files[0], "mm/memory.c", "mm/memory.c");
		ok(!strncmp(p->message, "process_huge_page() clears", 26),
		   "message starts with the body text");
		ok(strstr(p->message, "\n\nSigned-off-by: J") != NULL,
		   "message keeps its Signed-off-by");
		ok(!strstr(p->message, "---") && !strstr(p->message, "|"),
		   "message stops before --- and the diffstat");
		ok(diff_equals(p, "v2-1.diff"),
		   "diff of 1/3 is byte for byte git diff's");
		ok(diff_equals(s->patches[2], "v2-3.diff"),
		   "diff of 3/3 is byte for byte git diff's");
		is_str(s->patches[1]->files[0], "mm/mremap.c", "2/3 file");
		is_str(s->patches[1]->title, "mm/mremap: document moving page "
		       "tables at the PUD level", "folded subject unfolded");
		series_patch_commit_message(p, 1, &msg);
		ok(!strncmp(msg.buf, "mm: clear huge pages in forward order\n\n"
			    "process_huge_page()", 58),
		   "commit message: title, blank line, body");
	}
	series_free(s);
	strbuf_release(&base);
	strbuf_release(&msg);
}

static void test_encoded(void)
{
	struct series *s = parse_file("qp-patch.mbox");

	ok(s && s->nr_patches == 1, "quoted-printable patch parses");
	if (s && s->nr_patches == 1) {
		ok(diff_equals(s->patches[0], "v2-1.diff"),
		   "quoted-printable diff decodes byte for byte");
		is_int(s->status, SERIES_INCOMPLETE, "1/3 alone: incomplete");
	}
	series_free(s);
	s = parse_file("base64-crlf.mbox");
	ok(s && s->nr_patches == 1, "base64 CRLF patch parses");
	if (s && s->nr_patches == 1)
		ok(diff_equals(s->patches[0], "v2-3.diff"),
		   "base64 CRLF diff decodes byte for byte");
	series_free(s);
}

static void test_thread(void)
{
	struct series *s = parse_file("thread-v1-v2.mbox");
	const struct series *o;
	struct strbuf msg = STRBUF_INIT;

	ok(s != NULL, "thread-v1-v2.mbox parses");
	if (!s)
		return;
	is_int(s->version, 2, "the newest revision is v2");
	is_int(s->status, SERIES_COMPLETE, "v2 complete");
	o = s->older;
	ok(o && o->version == 1 && o->status == SERIES_COMPLETE &&
	   o->nr_patches == 3, "v1 kept as the older revision");
	if (s->nr_patches == 3) {
		const struct series_patch *p1 = s->patches[0];
		const struct series_patch *p2 = s->patches[1];

		ok(has_trailer(p1, "Tested-by", "Tess Ter <tess@example.org>"),
		   "Tested-by from a reply to 2/3 is on v2 1/3");
		ok(has_trailer(p1, "Acked-by",
			       "Maint Ainer <maint@example.org>"),
		   "Acked-by on the v2 cover letter is on 1/3");
		ok(has_trailer(s->patches[2], "Acked-by",
			       "Maint Ainer <maint@example.org>"),
		   "... and on 3/3");
		ok(!has_trailer(p1, "Reviewed-by",
				"Reviewer One <r1@example.org>"),
		   "a v1 review is not on v2");
		ok(has_trailer(p2, "Reviewed-by",
			       "Reviewer One <r1@example.org>"),
		   "Reviewed-by three replies deep reaches v2 2/3");
		ok(!has_trailer(p1, "Not-a-trailer-by",
				"signature <sig@example.org>"),
		   "nothing after a -- signature");
		ok(!has_trailer(p1, "Signed-off-by",
				"J\xc3\xb6rg M\xc3\xbcller "
				"<joerg.mueller@example.org>"),
		   "quoted Signed-off-by lines are not trailers");
		series_patch_commit_message(p1, 1, &msg);
		ok(strstr(msg.buf, "<joerg.mueller@example.org>\n"
			  "Tested-by: Tess Ter <tess@example.org>\n"
			  "Acked-by: Maint Ainer <maint@example.org>\n") != NULL,
		   "commit message ends with the reply trailers");
	}
	if (o && o->nr_patches == 3) {
		ok(has_trailer(o->patches[1], "Reviewed-by",
			       "Reviewer One <r1@example.org>") &&
		   has_trailer(o->patches[1], "Acked-by",
			       "Maint Ainer <maint@example.org>"),
		   "v1 2/3 has its review and the cover's ack");
		is_int(o->patches[0]->nr_trailers, 1, "v1 1/3 only the ack");
	}
	series_free(s);
	strbuf_release(&msg);
}

static void test_incomplete_and_empty(void)
{
	struct series *s = parse_file("missing-2.mbox");

	ok(s != NULL, "missing-2.mbox parses");
	if (s) {
		is_int(s->status, SERIES_INCOMPLETE, "incomplete");
		is_int(s->nr_missing, 1, "one missing");
		if (s->nr_missing)
			is_int(s->missing[0], 2, "2/3 is missing");
		ok(has_problem(s, "missing 2/3"), "the problem says which");
		is_int(s->nr_patches, 2, "1/3 and 3/3 present");
	}
	series_free(s);

	s = parse_file("discussion.mbox");
	ok(s != NULL, "discussion.mbox parses");
	if (s) {
		is_int(s->status, SERIES_EMPTY, "a discussion is no series");
		is_int(s->nr_patches, 0, "no patches");
		ok(has_problem(s, "no patch"), "and says so");
	}
	series_free(s);

	s = parse_file("seeds/000_a82741f32667c94a.txt");
	ok(s && s->status == SERIES_COMPLETE && s->nr_patches == 1,
	   "seed 000: [PATCH 1/1] complete");
	if (s && s->nr_patches == 1) {
		is_int(s->patches[0]->nr_files, 2, "two files");
		is_int(s->patches[0]->tz_offset_min, 330, "+0530");
	}
	series_free(s);

	s = parse_file("seeds/002_bfb8b74248ec630e.txt");
	ok(s && s->version == 4 && s->total == 5 && s->nr_missing == 4,
	   "seed 002: v4 5/5 alone, 1-4 missing");
	series_free(s);

	s = parse_file("seeds/003_df701e1e7ba8e399.txt");
	ok(s && s->status == SERIES_EMPTY, "seed 003: a reply is no patch");
	series_free(s);
}

static void test_crafted(void)
{
	static const char nodiff[] =
		"From: a <a@b.c>\nSubject: [PATCH 2/3] words only\n"
		"Message-ID: <nd@x>\n\nNo diff here.\n";
	static const char reply_with_diff[] =
		"From: a <a@b.c>\nSubject: Re: [PATCH] x\n"
		"Message-ID: <rd@x>\n\nTry this:\n\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
	static const char inbody[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"From: Sender <s@x>\nSubject: [PATCH] fix\n"
		"Date: Mon, 1 Jan 2024 00:00:00 +0000\nMessage-ID: <ib@x>\n\n"
		"From: Real Author <real@x>\nDate: Tue, 2 Jan 2024 01:00:00 "
		"-0500\n\nWhy.\n\nSigned-off-by: Real Author <real@x>\n---\n"
		" f | 2 +-\n\n"
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n"
		"@@ -1,2 +1,2 @@\n-a\n+b\n \n-- \n2.39.5\n\n"
		"From x Mon Sep 17 00:00:00 2001\n"
		"From: Sender <s@x>\nSubject: [PATCH RESEND] fix\n"
		"Date: Mon, 8 Jan 2024 00:00:00 +0000\nMessage-ID: <ib2@x>\n\n"
		"Why.\n---\n"
		"--- a/g\t2024-01-01\n+++ b/g\t2024-01-02\n"
		"@@ -1 +1 @@\n-c\n+d\n\\ No newline at end of file\n"
		"base-commit: abc\n";
	struct series *s;

	s = parse_buf(nodiff, sizeof(nodiff) - 1);
	ok(s && s->status == SERIES_EMPTY && has_problem(s, "has no diff"),
	   "a [PATCH 2/3] subject without a diff is not a patch");
	series_free(s);
	s = parse_buf(reply_with_diff, sizeof(reply_with_diff) - 1);
	ok(s && s->status == SERIES_EMPTY,
	   "a reply holding a diff is not a patch");
	series_free(s);
	s = parse_buf(inbody, sizeof(inbody) - 1);
	ok(s && s->nr_patches == 1, "two sends of [PATCH]: one patch");
	if (s && s->nr_patches == 1) {
		const struct series_patch *p = s->patches[0];

		ok(s->resend, "the RESEND is kept");
		ok(has_problem(s, "sent twice"), "the duplicate is reported");
		is_str(p->message_id, "ib2@x", "the later one wins");
		is_int(p->nr_files, 1, "plain (non-git) diff: one file");
		if (p->nr_files)
			is_str(p->files[0], "g", "+++ b/g\\t... gives g");
		ok(p->diff_len > 0 &&
		   !strcmp(p->diff + p->diff_len - 28,
			   "\\ No newline at end of file\n"),
		   "diff ends after the \\ No newline marker");
		is_str(s->base_commit, "abc", "base-commit from a patch");
	}
	series_free(s);
	/* the first send alone: in-body From: and Date: win */
	s = parse_buf(inbody, strstr(inbody, "\n\nFrom x Mon") - inbody + 2);
	ok(s && s->nr_patches == 1, "in-body header patch parses");
	if (s && s->nr_patches == 1) {
		const struct series_patch *p = s->patches[0];

		is_str(p->author_name, "Real Author", "in-body From: name");
		is_str(p->author_email, "real@x", "in-body From: email");
		is_int(p->tz_offset_min, -300, "in-body Date: zone");
		is_str(p->message, "Why.\n\nSigned-off-by: Real Author <real@x>",
		       "message after the in-body headers");
		ok(p->diff && !strncmp(p->diff, "diff --git a/f b/f\n", 19) &&
		   !strcmp(p->diff + p->diff_len - 6, "\n+b\n \n"),
		   "diff without the diffstat and without the signature");
	}
	series_free(s);
}

/* Found by check-fuzz: a NUL byte inside a diff must not cut it short. */
static void test_nul_in_diff(void)
{
	static const char nul[] =
		"From: a <a@b.c>\nSubject: [PATCH] nul\nMessage-ID: <n@x>\n\n"
		"---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		"-a\n+b\0c\n";
	struct series *s = parse_buf(nul, sizeof(nul) - 1);

	ok(s && s->nr_patches == 1, "a diff holding a NUL parses");
	if (s && s->nr_patches == 1)
		ok(s->patches[0]->diff_len == 55 &&
		   !memcmp(s->patches[0]->diff + 50, "+b\0c\n", 5),
		   "all of its bytes are kept");
	ok(s && has_problem(s, "NUL byte at line 6 of its diff"),
	   "and the NUL is a problem of the series");
	series_free(s);
}

/* Where the diff ends is diff.c's: its errors are problems. */
static void test_diff_ends(void)
{
	static const char trunc[] =
		"From: a <a@b.c>\nSubject: [PATCH] t\nMessage-ID: <t@x>\n\n"
		"---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n"
		"-a\n+b\n-- \n2.39.5\n";
	static const char badhunk[] =
		"From: a <a@b.c>\nSubject: [PATCH] h\nMessage-ID: <h@x>\n\n"
		"---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		"-a\n+b\n@@ -9 +9\n-c\n+d\n";
	struct series *s = parse_buf(trunc, sizeof(trunc) - 1);

	ok(s && s->nr_patches == 1 && has_problem(s, "truncated hunk at "
	   "line 8 of its diff"), "a truncated hunk is a problem (its "
	   "signature read as a removed line)");
	series_free(s);
	s = parse_buf(badhunk, sizeof(badhunk) - 1);
	ok(s && s->nr_patches == 1 &&
	   has_problem(s, "malformed hunk header at line 7"),
	   "a malformed hunk header is a problem");
	if (s && s->nr_patches == 1)
		ok(s->patches[0]->diff_len == 53, "and the diff ends before "
		   "it (%zu bytes)", s->patches[0]->diff_len);
	series_free(s);
	s = parse_file("../diff/format-patch.mbox");
	ok(s && s->nr_patches == 1 && s->nr_problems == 0,
	   "a git format-patch mail: one patch, no problem");
	if (s && s->nr_patches == 1) {
		is_int(s->patches[0]->nr_files, 1, "one file");
		if (s->patches[0]->nr_files)
			is_str(s->patches[0]->files[0], "a.c", "a.c");
		ok(!strncmp(s->patches[0]->diff, "diff --git a/a.c b/a.c\n",
			    23) && s->patches[0]->diff[s->patches[0]->diff_len
			    - 1] == '\n' && !strstr(s->patches[0]->diff, "-- \n"),
		   "the diff without diffstat and signature");
	}
	series_free(s);
}

/* The shapes of issue 16 (tests/fixtures/mail/make-shapes.sh). */
static void test_shapes(void)
{
	struct strbuf msg = STRBUF_INIT;
	struct series *s;
	size_t i;

	s = parse_file("shapes/cover-version.mbox");
	ok(s && s->version == 3 && s->status == SERIES_COMPLETE &&
	   s->nr_patches == 3 && !s->older,
	   "[PATCH i/3] answering a [PATCH v3 0/3] cover: all of v3");
	series_free(s);

	s = parse_file("shapes/fixup-reply.mbox");
	ok(s && s->status == SERIES_COMPLETE && s->nr_patches == 2 &&
	   !strcmp(s->patches[1]->message_id, "fx-2@example.org"),
	   "an unnumbered [PATCH] with a diff answering 2/2 does not "
	   "replace it");
	ok(s && has_problem(s, "a comment or fix-up, not a patch"),
	   "and is named a comment or fix-up");
	ok(s && s->nr_patches == 2 &&
	   !has_trailer(s->patches[1], "Signed-off-by",
			"Fix Er <fixer@example.org>"),
	   "its own sign-off is no trailer of 2/2");
	series_free(s);

	s = parse_file("shapes/late-addition.mbox");
	ok(s && s->status == SERIES_COMPLETE && s->total == 2 &&
	   s->nr_patches == 3 && s->patches[2]->index == 3 &&
	   s->patches[1]->index == 2,
	   "a late [PATCH 3/2] is kept, in order");
	ok(s && has_problem(s, "is patch 3/2, beyond the 2 announced; kept"),
	   "and said so");
	series_free(s);

	s = parse_file("shapes/of-numbering.mbox");
	ok(s && s->status == SERIES_COMPLETE && s->nr_patches == 3 &&
	   s->cover && s->patches[2]->index == 3 && !s->nr_problems,
	   "[PATCH 2 of 3] subjects: a complete series, none dropped");
	if (s && s->nr_patches == 3)
		is_str(s->patches[0]->title, "mm/mremap: include what it uses",
		       "\"N of M\" out of the title");
	series_free(s);

	s = parse_file("shapes/colon-subject.mbox");
	ok(s && s->nr_patches == 1, "[Patch 1/1]: parses");
	if (s && s->nr_patches == 1) {
		is_str(s->patches[0]->title, "mm/mremap: include what it uses",
		       "the ':' after the prefix is dropped, as git am does");
		series_patch_commit_message(s->patches[0], 1, &msg);
		ok(!strncmp(msg.buf, "mm/mremap: include", 18),
		   "and from the commit message");
	}
	series_free(s);

	s = parse_file("shapes/duplicate-date.mbox");
	ok(s && s->nr_patches == 1 &&
	   !strcmp(s->patches[0]->message_id, "dup-new@example.org"),
	   "of two copies, the newer by Date is kept, not the later sent");
	ok(s && has_problem(s, "kept <dup-new@example.org>, the newer by Date"),
	   "and the choice is said");
	series_free(s);

	for (i = 0; i < 2; i++) {
		struct strbuf why = STRBUF_INIT;

		s = parse_file(i ? "shapes/request-pull-p.mbox" :
			       "shapes/request-pull.mbox");
		if (s)
			series_status_reason(s, &why);
		ok(s && s->status == SERIES_PULL_REQUEST && !s->nr_patches &&
		   !strcmp(why.buf, "a pull request for https://git.example."
			   "org/ada/linux.git master: kregress tests patch "
			   "series"), "git request-pull%s: a pull request, "
		   "said plainly (%s)", i ? " -p, diff included" : "",
		   why.buf);
		ok(s && s->cover && !strcmp(s->cover->title, "mm: include "
					    "what they use"),
		   "its request-pull mail heads the series, as a cover");
		strbuf_release(&why);
		series_free(s);
	}

	s = parse_file("discussion.mbox");
	strbuf_reset(&msg);
	if (s)
		series_status_reason(s, &msg);
	is_str(msg.buf, "no patch in the thread",
	       "a thread without a patch has its reason too");
	series_free(s);
	strbuf_release(&msg);
}

/* Diffs as people send them, at the mail level. */
static void test_mail_forms(void)
{
	struct series *s;

	s = parse_file("shapes/quilt-series.mbox");
	ok(s && s->status == SERIES_COMPLETE && s->nr_patches == 2 &&
	   s->patches[0]->nr_files == 2 && s->patches[1]->nr_files == 2 &&
	   !s->nr_problems,
	   "a quilt series: every file of each patch, not only the first");
	if (s && s->nr_patches == 2 && s->patches[1]->nr_files == 2) {
		is_str(s->patches[0]->files[1], "mm/page_io.c",
		       "its second file, by its path in the tree");
		is_str(s->patches[1]->files[1], "mm/new.c", "a new file");
		ok(!strncmp(s->patches[0]->diff, "Index: linux/mm/mremap.c",
			    24), "the diff from its first Index: line");
	}
	series_free(s);

	s = parse_file("shapes/no-prefix.mbox");
	ok(s && s->nr_patches == 1 && s->patches[0]->nr_files == 2 &&
	   !strcmp(s->patches[0]->files[0], "mm/mremap.c") &&
	   !s->nr_problems, "--no-prefix: each file named once, by its path");
	series_free(s);

	s = parse_file("shapes/bad-count.mbox");
	ok(s && s->nr_patches == 1 && s->patches[0]->nr_files == 2,
	   "a hunk with wrong counts keeps the file after it");
	ok(s && has_problem(s, "hunk line counts do not match its lines at "
			    "line 5 of its diff (in mm/mremap.c, hunk @@ "
			    "-9,8 +9,9 @@)"), "and is a problem naming the "
	   "file and hunk");
	series_free(s);

	s = parse_file("shapes/binary-mode.mbox");
	ok(s && s->nr_patches == 1 && s->patches[0]->nr_files == 2 &&
	   !s->nr_problems, "a binary file and a mode change: both files");
	if (s && s->nr_patches == 1)
		ok(!strstr(s->patches[0]->diff, "-- \n2.") &&
		   strstr(s->patches[0]->diff, "GIT binary patch") &&
		   strstr(s->patches[0]->diff, "new mode 100755"),
		   "the binary data and the mode change, not the signature");
	series_free(s);
}

/* Versions in one thread: what an unchanged patch keeps. */
static void test_carried_trailers(void)
{
	struct series *s = parse_file("shapes/version-thread.mbox");
	struct strbuf msg = STRBUF_INIT;

	ok(s && s->version == 2 && s->nr_patches == 2 && s->older &&
	   s->older->version == 1, "v1 and v2 in one thread");
	if (s && s->nr_patches == 2) {
		const struct series_patch *p = s->patches[0];

		ok(has_trailer(p, "Reviewed-by", "Rev Iewer <rev@example.org>") &&
		   p->nr_trailers == 1 && p->trailers[0].from_version == 1,
		   "v2 1/2, unchanged, keeps v1 1/2's review, from v1");
		ok(!strcmp(p->fingerprint, s->older->patches[0]->fingerprint) &&
		   strcmp(s->patches[1]->fingerprint,
			  s->older->patches[1]->fingerprint),
		   "the fingerprints say which patch changed");
		ok(!has_trailer(s->patches[1], "Reviewed-by",
				"Oth Er <other@example.org>"),
		   "v2 2/2, changed, does not keep v1 2/2's");
		series_patch_commit_message(p, 1, &msg);
		ok(strstr(msg.buf, "\nReviewed-by: Rev Iewer <rev@example.org>\n")
		   != NULL, "the carried review is in the commit message");
	}
	series_free(s);
	strbuf_release(&msg);
}

/* A reply chain thousands deep: linear work, no recursion. */
static void test_deep_chain(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct series *s;
	int i, n = 3000;

	strbuf_addstr(&sb, "From a b 00:00\nFrom: a <a@b.c>\n"
		      "Subject: [PATCH] deep\nMessage-ID: <m0@x>\n\n"
		      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		      "-a\n+b\n\n");
	for (i = 1; i <= n; i++) {
		strbuf_addf(&sb, "From a b 00:00\nFrom: r <r@b.c>\n"
			    "Subject: Re: [PATCH] deep\nMessage-ID: <m%d@x>\n"
			    "In-Reply-To: <m%d@x>\n\n", i, i - 1);
		if (i == n)
			strbuf_addstr(&sb, "Reviewed-by: Deep <deep@x>\n");
		strbuf_addstr(&sb, "ok\n\n");
	}
	/* and a cycle that must not hang */
	strbuf_addstr(&sb, "From a b 00:00\nFrom: c <c@b.c>\nSubject: Re: c\n"
		      "Message-ID: <c1@x>\nIn-Reply-To: <c2@x>\n\nx\n\n"
		      "From a b 00:00\nFrom: c <c@b.c>\nSubject: Re: c\n"
		      "Message-ID: <c2@x>\nIn-Reply-To: <c1@x>\n\n"
		      "Acked-by: Cyc <cyc@x>\n\n");
	s = parse_buf(sb.buf, sb.len);
	ok(s && s->nr_patches == 1, "deep chain parses");
	if (s && s->nr_patches == 1) {
		ok(has_trailer(s->patches[0], "Reviewed-by", "Deep <deep@x>"),
		   "a trailer %d replies deep reaches the patch", n);
		ok(!has_trailer(s->patches[0], "Acked-by", "Cyc <cyc@x>"),
		   "a reply cycle reaches nothing");
	}
	series_free(s);
	strbuf_release(&sb);
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/mail",
		 src ? src : ".");
	test_subjects();
	test_v2_series();
	test_encoded();
	test_thread();
	test_incomplete_and_empty();
	test_crafted();
	test_nul_in_diff();
	test_diff_ends();
	test_shapes();
	test_mail_forms();
	test_carried_trailers();
	test_deep_chain();
	return done_testing();
}
