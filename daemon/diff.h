/*
 * diff.h - the unified-diff scanner: where a diff starts and ends, its
 * files with their git extended headers, its hunks.
 *
 * Pure: no I/O, no library.  series.c cuts the diff out of a mail with it
 * and lists the files from it; apply.c checks exactly what it found (the
 * paths, the headers) and hands exactly those bytes to libgit2.  So the
 * code that decides where a patch ends and the code that decides which
 * paths it touches are one piece of code.
 *
 * The input is untrusted: any bytes, bounded by len, NULs included.  The
 * rules are those of what git diff and git format-patch write:
 *  - a diff starts at a "diff --git " line, or at a "--- " line followed
 *    by a "+++ " line and a hunk header;
 *  - a file is a "diff --git a/X b/Y" line with its extended header lines
 *    (old/new mode, deleted/new file mode, rename/copy from/to,
 *    similarity/dissimilarity index, index), then either a "Binary files
 *    ... differ" line, a "GIT binary patch" with one or two literal/delta
 *    blocks (each ended by an empty line), or an optional "--- "/"+++ "
 *    pair and hunks; or a "--- "/"+++ " pair on its own, then hunks;
 *  - a hunk header is "@@ -a[,b] +c[,d] @@" (DIFF_MAX_DIGITS digits at most
 *    per number, the closing "@@" required); its body is exactly b old
 *    and d new lines (' ' both, '-' old, '+' new; an empty line is
 *    context, as mailers strip the space), each optionally followed by a
 *    "\ " marker line ("\ No newline at end of file");
 *  - the diff ends before the first line that fits none of these.
 * Lines end at '\n' only: a '\r' is part of the line (mail.c has turned
 * CRLF mail into LF before).
 */
#ifndef KREGRESS_DIFF_H
#define KREGRESS_DIFF_H

#include <stddef.h>

#define DIFF_MAX_DIGITS	9	/* per hunk header number */

/* What is wrong with a diff; the first problem (by position) is kept. */
enum diff_error {
	DIFF_OK,
	DIFF_ERR_NUL,		/* a NUL byte inside the diff */
	DIFF_ERR_GIT_LINE,	/* "diff --git" line without a " b/" name */
	DIFF_ERR_HEADER,	/* a malformed extended or binary header */
	DIFF_ERR_HUNK_HEADER,	/* a "@@ -" line that does not parse; the
				 * diff ends before it */
	DIFF_ERR_TRUNCATED,	/* a hunk ends before its line counts; the
				 * diff ends there */
};
const char *diff_error_str(enum diff_error e);

/* A path as the header writes it: borrowed from the buffer, not NUL-bound. */
struct diff_path {
	const char *p;		/* NULL when absent */
	size_t n;
};

enum diff_binary {
	DIFF_BINARY_NONE,
	DIFF_BINARY_DIFFER,	/* "Binary files a/x and b/x differ" */
	DIFF_BINARY_PATCH,	/* "GIT binary patch" */
};

struct diff_hunk {
	unsigned long old_start, old_count;	/* lines */
	unsigned long new_start, new_count;
	size_t start;		/* offset of the "@@" line */
	size_t body;		/* offset of its first body line */
	size_t end;		/* offset after its last line (or marker) */
};

struct diff_file {
	size_t start, end;	/* offsets of the file's lines */
	int git;		/* begins with a "diff --git" line */
	/*
	 * Paths as written, surrounding quotes removed (escapes are not
	 * undone), prefixes ("a/", "b/") kept: the names of the "diff --git"
	 * line, of "--- "/"+++ " (up to a tab; "/dev/null" as is), and the
	 * values of rename/copy from/to.
	 */
	struct diff_path git_old, git_new;
	struct diff_path old, new;
	struct diff_path rename_from, rename_to;
	struct diff_path copy_from, copy_to;
	unsigned int old_mode;	/* "old mode" / "deleted file mode"; 0 */
	unsigned int new_mode;	/* "new mode" / "new file mode"; 0 */
	int new_file, deleted_file;
	int similarity;		/* percent; -1 when absent */
	int dissimilarity;	/* percent; -1 when absent */
	enum diff_binary binary;
	int binary_ended;	/* the last binary block's empty line is there */
	size_t first_hunk;	/* index into diff->hunks */
	size_t nr_hunks;
};

struct diff {
	size_t start, end;	/* the diff's bytes; start == end: no diff */
	struct diff_file *files;
	size_t nr_files;
	struct diff_hunk *hunks;
	size_t nr_hunks;
	enum diff_error error;	/* DIFF_OK, or the first problem */
	size_t error_off;	/* where: its line, or the NUL byte */
	size_t error_line;	/* its line in the diff, from 1 at start */
};

/*
 * Scans buf[0..len) for the first diff and fills d (diff_release() it
 * afterwards, whatever the result).  Returns 0 when a diff was found (at
 * least one file), -1 when none was.  A diff with an error is still
 * found: d->error says what, and consumers decide what it means.
 */
int diff_scan(const char *buf, size_t len, struct diff *d);
void diff_release(struct diff *d);

/*
 * The path without its first component, as git apply -p1 reads it:
 * "b/mm/x.c" -> "mm/x.c"; a path without a '/' is returned whole.
 */
struct diff_path diff_path_strip1(struct diff_path path);

/* Does path say "/dev/null" (the missing side of a creation/deletion)? */
int diff_path_is_null(struct diff_path path);

#endif
