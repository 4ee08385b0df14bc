/*
 * series.h - patch series out of mail messages, the way b4 sees them.
 *
 * Pure logic, no I/O: the input is a mail_box (mail.h), the output a
 * struct series for the newest revision found, with the older revisions
 * linked through ->older.  A message is a patch only when it is not a reply
 * ("Re:") and its body holds a unified diff; its subject gives the place in
 * the series: [PATCH v2 3/5], [RFC PATCH], [PATCH RESEND], [PATCHv3],
 * [PATCH mm-unstable v2 1/3], [RFC][PATCH 1/2].  [PATCH 0/N] is the cover
 * letter.  Replies contribute trailers (Reviewed-by: ...) to the patch they
 * answer, or to every patch of the revision when they answer the cover
 * letter.  Whatever does not fit (a missing 2/5, a duplicate 3/5, a
 * [PATCH] subject without a diff) is reported in ->problems, never fatal.
 *
 * The apply stage consumes: for each patch of series->patches in order,
 * author_name/author_email/date/tz_offset_min, series_patch_commit_message()
 * and diff/diff_len.
 */
#ifndef KREGRESS_SERIES_H
#define KREGRESS_SERIES_H

#include <stddef.h>
#include <stdint.h>

struct mail_box;
struct strbuf;

struct series_trailer {
	char *name;		/* "Reviewed-by" */
	char *value;		/* "Jane Doe <jane@example.org>" */
	char *message_id;	/* the reply it came from */
	int from_version;	/* 0: given to this revision; N: carried
				 * over from the unchanged patch of vN */
};

/* What a subject's [...] prefix says. */
struct series_subject {
	int is_reply;		/* "Re:" / "Aw:" / "Fwd:" in front */
	int has_prefix;		/* a [PATCH ...] or [RFC ...] found */
	int version;		/* vN, PATCHvN; 1 when absent */
	int has_version;	/* the subject says vN */
	int index;		/* M of M/N or "M of N"; 1 when absent (0 =
				 * cover) */
	int total;		/* N of M/N; 1 when absent */
	int numbered;		/* the subject says M/N */
	int rfc;
	int resend;
	char *tree;		/* other prefix words ("mm-unstable"), NULL */
	char *title;		/* subject without "Re:", [..] and the ':'
				 * after them, as git am */
};

struct series_patch {
	int index;		/* M: 1..total (0 for the cover letter) */
	int total;		/* N */
	int version;		/* v, 1 when the subject has none */
	int rfc, resend;
	char *subject;		/* the full decoded subject */
	char *title;		/* subject without the [PATCH ...] prefix */
	char *author_name;	/* From: header, or the in-body From: line */
	char *author_email;
	int has_date;
	int64_t date;		/* Unix time, s (in-body Date: wins) */
	int tz_offset_min;	/* minutes east of UTC */
	char *message_id;	/* without <> */
	char *in_reply_to;	/* without <>; NULL if none */
	/*
	 * The commit message body: the mail body after any in-body
	 * From:/Date:/Subject: block, up to (excluding) the "---" line, or
	 * the start of the diff; trailing blank lines removed.  Holds the
	 * patch's own Signed-off-by lines.  "" for none.
	 */
	char *message;
	/* Trailers from replies, in the order the replies came. */
	struct series_trailer *trailers;
	size_t nr_trailers, alloc_trailers;
	/*
	 * The diff, byte for byte as mailed (after transfer decoding and
	 * CRLF -> LF): from the first "diff --git" (or "--- "/"+++ " pair)
	 * to the end of its last hunk; the diffstat before it and the
	 * "-- " signature and footers after it are not included.  NULL and
	 * 0 for the cover letter.
	 */
	char *diff;
	size_t diff_len;
	char **files;		/* paths touched, in diff order, unique */
	size_t nr_files;
	/*
	 * What the patch changes, as git patch-id --stable sees it (its
	 * files and +/- lines, whitespace and line numbers left out), in
	 * 16 hex digits of a 64-bit FNV-1a hash: equal for a patch resent
	 * unchanged.  "" for the cover letter.
	 */
	char fingerprint[17];
	/* The mail as received when the box kept raw bytes, else NULL. */
	char *raw;
	size_t raw_len;
};

enum series_status {
	SERIES_COMPLETE,	/* every patch 1..N present */
	SERIES_INCOMPLETE,	/* some index missing: see missing[] */
	SERIES_EMPTY,		/* no patch at all (a discussion thread) */
	SERIES_PULL_REQUEST,	/* no patch, a git request-pull mail */
};

struct series {
	int version;
	int total;		/* N from the subjects (the largest seen) */
	int rfc, resend;
	char *tree;		/* tree prefix of the subject, or NULL */
	struct series_patch *cover;	/* or the request-pull mail; NULL: none */
	struct series_patch **patches;	/* by index, present ones only */
	size_t nr_patches, alloc_patches;
	enum series_status status;
	int *missing;		/* indexes absent from 1..total */
	size_t nr_missing, alloc_missing;
	char *base_commit;	/* footer "base-commit:", or NULL */
	char *change_id;	/* footer "change-id:", or NULL */
	char **prereq_patch_ids;	/* footers "prerequisite-patch-id:" */
	size_t nr_prereq_patch_ids, alloc_prereq_patch_ids;
	char *pull_request;	/* "URL BRANCH" of a request-pull, or NULL */
	char **problems;	/* human-readable, one per issue */
	size_t nr_problems, alloc_problems;
	struct series *older;	/* previous revision, or NULL */
};

/*
 * Groups the mails of box into revisions and returns the newest in *out
 * (caller frees with series_free()); the earlier ones hang off ->older,
 * newest first.  Messages box skipped appear as problems.  Returns 0, or
 * -1 only on impossible input (NULL box); a box without any patch gives a
 * series with status SERIES_EMPTY and a problem saying so.
 */
int series_build(const struct mail_box *box, struct series **out);

/*
 * The revision of s (itself or one of its ->older) whose version is
 * version; with version 0, s itself (the newest).  NULL if none is.
 */
const struct series *series_revision(const struct series *s, int version);

/* Frees the series and its older revisions; accepts NULL. */
void series_free(struct series *s);

/* Parses a subject; fills *out (caller releases with _release). */
void series_subject_parse(const char *subject, struct series_subject *out);
void series_subject_release(struct series_subject *s);

/*
 * Adds a trailer to p unless p has it already (same name and value):
 * from_version 0 for one given to p, N for one carried over from vN.
 */
void series_patch_add_trailer(struct series_patch *p, const char *name,
			      const char *value, const char *message_id,
			      int from_version);

/*
 * Appends to sb the commit message git-am would make: title, blank line,
 * message, then (when with_trailers) the reply trailers not already in
 * the message, each on its own line.
 */
void series_patch_commit_message(const struct series_patch *p,
				 int with_trailers, struct strbuf *sb);

const char *series_status_str(enum series_status st);

/*
 * Appends to sb why s is not (yet) a series to test, in words: "missing
 * 2/5 4/5", "no patch in the thread", "a pull request for URL BRANCH:
 * kregress tests patch series"; nothing for a complete series.
 */
void series_status_reason(const struct series *s, struct strbuf *sb);

#endif
