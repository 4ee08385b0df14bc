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
 * rules are those of what git diff, git format-patch, quilt and diff -u
 * write:
 *  - a diff starts at a "diff --git " line, or at a "--- " line followed
 *    by a "+++ " line and a hunk header, or at the lines that lead such a
 *    pair in quilt and diff -r output ("Index: X" and an optional line of
 *    '=', or a "diff -..." command line);
 *  - a file is a "diff --git X Y" line with its extended header lines
 *    (old/new mode, deleted/new file mode, rename/copy from/to,
 *    similarity/dissimilarity index, index), then either a "Binary files
 *    ... differ" line, a "GIT binary patch" with one or two literal/delta
 *    blocks (each ended by an empty line), or an optional "--- "/"+++ "
 *    pair and hunks; or a traditional file: the lead lines above, a
 *    "--- "/"+++ " pair, then hunks;
 *  - a hunk header is "@@ -a[,b] +c[,d] @@" (DIFF_MAX_DIGITS digits at most
 *    per number, the closing "@@" required); its body is b old and d new
 *    lines (' ' both, '-' old, '+' new; an empty line is context, as
 *    mailers strip the space), each optionally followed by a "\ " marker
 *    line ("\ No newline at end of file");
 *  - a hunk whose lines do not match its counts is an error that names it
 *    (DIFF_ERR_HUNK_COUNT), and the scan goes on when the next file or
 *    hunk follows: fewer lines than counted up to a next start, or more
 *    lines that look like hunk lines before one; otherwise the diff ends
 *    there (DIFF_ERR_TRUNCATED when fewer, before the extra lines when
 *    more: a "-- " signature after the last hunk is no hunk line);
 *  - blank lines between files or hunks are skipped;
 *  - the diff ends before the first line that fits none of these.
 * Lines end at '\n' only: a '\r' is part of the line (mail.c has turned
 * CRLF mail into LF before).
 *
 * Names and strip levels: the names as written keep their prefixes
 * ("a/", "linux.orig/", none with --no-prefix).  Each file also gets the
 * number of leading components that are such a prefix (git apply -p) and
 * its paths in the tree (old_path, new_path): for "diff --git", the split
 * of its line into two names, the same after one component ("a/x b/x",
 * "i/x w/x": -p1), identical ("x x", --no-prefix: -p0), or matching the
 * rename/copy values; for a traditional file, -p0 when its names are the
 * same or differ past their first component ("mm/x.c.orig" and "mm/x.c",
 * quilt -p0), else -p1 ("linux.orig/mm/x.c" and "linux/mm/x.c"); its old
 * name is only a label, so both paths are the new one.  A traditional
 * file with one side (creation or deletion: "/dev/null", or the epoch
 * date diff -N writes) takes the strip level of the files before it, else
 * -p1 when its name has a '/'.
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
	DIFF_ERR_HUNK_COUNT,	/* a hunk's lines do not match its counts;
				 * the scan went on to the next file or hunk */
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
	int new_file, deleted_file;	/* also a traditional file's
					 * /dev/null (or epoch) side */
	int similarity;		/* percent; -1 when absent */
	int dissimilarity;	/* percent; -1 when absent */
	enum diff_binary binary;
	int binary_ended;	/* the last binary block's empty line is there */
	size_t first_hunk;	/* index into diff->hunks */
	size_t nr_hunks;
	/*
	 * Where the parts are: the extended header lines of a "diff --git"
	 * file are [ext_start, ext_end) (empty for a traditional file);
	 * body is the offset of what follows the "--- "/"+++ " pair (or the
	 * extended headers): the first hunk or the binary data.
	 */
	size_t ext_start, ext_end, body;
	/* Leading components of the names that are prefixes (see above). */
	int strip;
	/*
	 * The paths in the tree, for consumers to check and apply: the
	 * rename/copy values when there are some, else the names without
	 * their prefix; p NULL for the side a creation or deletion lacks.
	 */
	struct diff_path old_path, new_path;
};

struct diff {
	size_t start, end;	/* the diff's bytes; start == end: no diff */
	struct diff_file *files;
	size_t nr_files;
	struct diff_hunk *hunks;
	size_t nr_hunks;
	enum diff_error error;	/* DIFF_OK, or the first problem */
	size_t error_off;	/* where: its line (a hunk's: its header), or
				 * the NUL byte */
	size_t error_line;	/* its line in the diff, from 1 at start */
	size_t error_file;	/* index of the file it is in; nr_files when
				 * it is in none */
	size_t error_hunk;	/* index into hunks of the hunk it is about
				 * (DIFF_ERR_HUNK_COUNT, DIFF_ERR_TRUNCATED);
				 * nr_hunks otherwise */
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

/*
 * The path a file is known by: its new path, or its old one when it is
 * deleted (p NULL only for a file whose names could not be read).
 */
struct diff_path diff_file_path(const struct diff_file *f);

/*
 * Where d's error is, for a message: the path of its file and its hunk's
 * header line (without the newline), p NULL for what it is not in.  buf
 * is the buffer d was scanned from.
 */
void diff_error_where(const struct diff *d, const char *buf,
		      struct diff_path *file, struct diff_path *hunk);

/* Does path say "/dev/null" (the missing side of a creation/deletion)? */
int diff_path_is_null(struct diff_path path);

#endif
