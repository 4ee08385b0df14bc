/*
 * apply.h - turn a patch series into git commits on a kernel tree.
 *
 * apply.c is the libgit2 wrapper of the apply stage: it resolves the base
 * commit of a series, applies the series patch by patch in memory
 * (git_diff_from_buffer + git_apply_to_tree, no working tree involved) and
 * creates one commit per patch with the mail's author, date and message.
 * tree.c (the other libgit2 user) owns trees and worktrees.
 *
 * The input is deliberately this module's own small struct, so that the
 * core does not depend on the mail parser: cli_apply.c converts parsed
 * series into struct apply_patch.
 *
 * A patch that does not apply is a result (APPLY_FAILED with the patch,
 * file, hunk and reason), not an error; -1 is returned only when the
 * repository itself cannot be used.
 */
#ifndef KREGRESS_APPLY_H
#define KREGRESS_APPLY_H

#include <stddef.h>

#include "strbuf.h"

/* Caps on untrusted input. */
#define APPLY_MAX_PATCHES	200
#define APPLY_MAX_DIFF		(16u << 20)	/* bytes per patch */
#define APPLY_MAX_MESSAGE	(1u << 20)	/* bytes per message */

struct apply_patch {
	const char *author_name;
	const char *author_email;
	long long time;		/* author date, Unix seconds */
	int tz_min;		/* author time zone, minutes east of UTC */
	const char *message;	/* commit message, as git am makes it */
	const char *diff;	/* the diff part of the mail, not NUL-bound */
	size_t diff_len;
};

enum apply_status {
	APPLY_OK,		/* every patch applied */
	APPLY_FAILED,		/* a patch does not apply: see failed_* */
	APPLY_REJECTED,		/* unsafe: .., absolute, symlink */
};
const char *apply_status_str(enum apply_status s);

enum apply_method {
	APPLY_METHOD_LIBGIT2,	/* exact, in memory */
	APPLY_METHOD_GIT_APPLY3,	/* fallback: git apply --cached -3 */
};
const char *apply_method_str(enum apply_method m);

enum apply_base_source {
	APPLY_BASE_EXPLICIT,	/* given by the caller (CLI --base) */
	APPLY_BASE_SERIES,	/* the series' base-commit: trailer */
	APPLY_BASE_BRANCH,	/* the configured branch of the tree */
};
const char *apply_base_source_str(enum apply_base_source s);

struct apply_base {
	char oid[41];		/* hex commit id */
	enum apply_base_source source;
	char reason[256];	/* one line, for people */
};

struct apply_commit {
	char oid[41];
	enum apply_method method;
};

struct apply_result {
	enum apply_status status;
	char base[41];			/* the base commit tried */
	size_t n_commits;		/* commits created, in order */
	struct apply_commit *commits;
	/* When status != APPLY_OK (strings owned by the result): */
	size_t failed_patch;		/* failing patch, 1-based */
	char *failed_file;		/* path, or NULL if none */
	char *failed_hunk;		/* "@@ -a,b +c,d @@ ...", or NULL */
	char *reason;			/* one line */
};

struct apply_opts {
	int no_fallback;	/* 1: libgit2 only, never the git CLI */
	const char *committer_name;	/* default "kregress" */
	const char *committer_email;	/* default "kregress@invalid" */
	/*
	 * Ref updated to the last commit so that it survives git gc;
	 * NULL: refs/kregress/applied/<last oid>.
	 */
	const char *ref;
};

struct apply_repo;

/* Opens the git repository at path (bare or not).  -1 logged. */
int apply_repo_open(const char *path, struct apply_repo **out);
void apply_repo_free(struct apply_repo *r);

/*
 * Chooses the base of a series: base_commit (the series' "base-commit:"
 * trailer, may be NULL) if the repository has that commit, otherwise
 * branch (a rev such as "master" or "origin/master").  Fills out with the
 * commit and a reason saying why.  -1 (logged) if neither resolves.
 */
int apply_base_resolve(struct apply_repo *r, const char *base_commit,
		       const char *branch, struct apply_base *out);

/*
 * Resolves rev (a commit id, branch, tag, "HEAD~2" ...) to a commit and
 * fills out with source APPLY_BASE_EXPLICIT.  -1 logged.
 */
int apply_base_explicit(struct apply_repo *r, const char *rev,
			struct apply_base *out);

/*
 * Applies patches[0..n) on top of base (hex commit id), one commit per
 * patch.  Fills res (apply_result_release() it afterwards) and returns 0,
 * whether or not the series applied; -1 (logged) on repository errors.
 * Commits are deterministic: the committer date is the author date.
 * Blocks (disk I/O; the fallback runs git(1)).  Threads may apply the
 * same series or on the same base at once, each with its own apply_repo:
 * all succeed, without a retry.
 */
int apply_series(struct apply_repo *r, const char *base,
		 const struct apply_patch *patches, size_t n,
		 const struct apply_opts *opts, struct apply_result *res);

void apply_result_init(struct apply_result *res);
void apply_result_release(struct apply_result *res);

/*
 * Checks that a diff is one unified diff as diff.h scans it (blank lines
 * may come before it; blank lines and a mail signature after it; no NUL
 * byte, no malformed header; a truncated hunk is not checked here) and
 * only touches safe paths: relative, without "..", "." or ".git"
 * components, backslashes or control characters.  Returns 0 if safe,
 * else -1 and a reason in why (not logged: an unsafe patch is a result).
 */
int apply_check_paths(const char *diff, size_t len, struct strbuf *why);

/* Hex id of the tree of commit rev, for comparisons.  -1 logged. */
int apply_tree_of(struct apply_repo *r, const char *rev, char out[41]);

#endif
