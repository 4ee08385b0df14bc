/*
 * diff.c - the unified-diff scanner (pure, no I/O); diff.h has the rules.
 *
 * One pass over the lines; the only look-ahead is the "+++ " (and "@@ -")
 * line after a "--- " line, so the cost is linear in the input.  Every
 * number is read with a digit cap and every line within len, so no input
 * can overflow a value or read past the buffer.  Files and hunks go to
 * arrays that grow by doubling; paths point into the caller's buffer.
 *
 * Where a diff ends is decided here once: series.c cuts a mail's diff at
 * diff->end, and apply.c applies only what lies before it, so a line the
 * scanner did not take (say a "+++ b/../x" after a hunk that closed) is
 * never read as a header by anyone.
 *
 * Look-ahead beyond one line happens in two places, both bounded by what
 * they then consume or end: a hunk whose counts are met is followed by
 * lines that look like hunk lines only up to the next start (then they
 * are the hunk's surplus) or up to something else (then the diff ends
 * before them), and a blank run is skipped only when a start follows it.
 * The names and strip levels are worked out after the scan, file by file
 * (diff.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diff.h"
#include "log.h"

struct line {
	const char *p;
	size_t n;		/* without the '\n' */
	size_t off;		/* offset of the line in the buffer */
	size_t next;		/* offset of the following line */
};

struct scan {
	const char *buf;
	size_t len;
	struct diff *d;
	size_t alloc_files, alloc_hunks;
};

const char *diff_error_str(enum diff_error e)
{
	switch (e) {
	case DIFF_OK:
		return "ok";
	case DIFF_ERR_NUL:
		return "NUL byte";
	case DIFF_ERR_GIT_LINE:
		return "diff --git line without a b/ name";
	case DIFF_ERR_HEADER:
		return "malformed extended header";
	case DIFF_ERR_HUNK_HEADER:
		return "malformed hunk header";
	case DIFF_ERR_HUNK_COUNT:
		return "hunk line counts do not match its lines";
	case DIFF_ERR_TRUNCATED:
		return "truncated hunk";
	}
	return "unknown";
}

static int get_line(const struct scan *s, size_t off, struct line *l)
{
	const char *nl;

	if (off >= s->len)
		return 0;
	l->p = s->buf + off;
	l->off = off;
	nl = memchr(l->p, '\n', s->len - off);
	l->n = nl ? (size_t)(nl - l->p) : s->len - off;
	l->next = off + l->n + (nl ? 1 : 0);
	return 1;
}

static int starts(const struct line *l, const char *lit)
{
	size_t n = strlen(lit);

	return l->n >= n && !memcmp(l->p, lit, n);
}

static int is_marker(const struct line *l)
{
	return starts(l, "\\ ");
}

/* Records e at off, in the current file and (unless NO_HUNK) hunk. */
#define NO_HUNK ((size_t)-1)

static void set_error_in(struct diff *d, enum diff_error e, size_t off,
			 size_t hunk)
{
	if (d->error == DIFF_OK || off < d->error_off) {
		d->error = e;
		d->error_off = off;
		d->error_file = d->nr_files ? d->nr_files - 1 : 0;
		d->error_hunk = hunk;
	}
}

static void set_error(struct diff *d, enum diff_error e, size_t off)
{
	set_error_in(d, e, off, NO_HUNK);
}

static struct diff_file *file_add(struct scan *s, size_t off)
{
	struct diff *d = s->d;
	struct diff_file *f;

	ALLOC_GROW(d->files, d->nr_files + 1, s->alloc_files);
	/* the blank lines before a file are the one before it */
	if (d->nr_files)
		d->files[d->nr_files - 1].end = off;
	f = &d->files[d->nr_files++];
	memset(f, 0, sizeof(*f));
	f->start = f->end = off;
	f->ext_start = f->ext_end = f->body = off;
	f->similarity = f->dissimilarity = -1;
	f->first_hunk = d->nr_hunks;
	return f;
}

static void hunk_add(struct scan *s, struct diff_file *f,
		     const struct diff_hunk *h)
{
	struct diff *d = s->d;

	ALLOC_GROW(d->hunks, d->nr_hunks + 1, s->alloc_hunks);
	d->hunks[d->nr_hunks++] = *h;
	f->nr_hunks++;
}

/* Up to DIFF_MAX_DIGITS decimal digits at *p, at least one. */
static int parse_num(const char **p, const char *end, unsigned long *v)
{
	const char *s = *p;
	unsigned long x = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (s - *p == DIFF_MAX_DIGITS)
			return -1;
		x = x * 10 + (unsigned long)(*s - '0');
		s++;
	}
	if (s == *p)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* "a[,b]": the count is 1 when absent. */
static int parse_range(const char **p, const char *end, unsigned long *start,
		       unsigned long *count)
{
	*count = 1;
	if (parse_num(p, end, start))
		return -1;
	if (*p < end && **p == ',') {
		(*p)++;
		return parse_num(p, end, count);
	}
	return 0;
}

/* "@@ -a[,b] +c[,d] @@[ section]" */
static int parse_hunk_header(const struct line *l, struct diff_hunk *h)
{
	const char *p = l->p + 4, *end = l->p + l->n;

	if (parse_range(&p, end, &h->old_start, &h->old_count))
		return -1;
	if (end - p < 2 || memcmp(p, " +", 2))
		return -1;
	p += 2;
	if (parse_range(&p, end, &h->new_start, &h->new_count))
		return -1;
	return end - p >= 3 && !memcmp(p, " @@", 3) ? 0 : -1;
}

/* A git file mode: one to six octal digits, the whole value. */
static int parse_mode(const char *p, const char *end, unsigned int *mode)
{
	unsigned int v = 0;
	const char *s = p;

	while (s < end && *s >= '0' && *s <= '7') {
		if (s - p == 6)
			return -1;
		v = v * 8 + (unsigned int)(*s - '0');
		s++;
	}
	if (s == p || s != end)
		return -1;
	*mode = v;
	return 0;
}

/* "95%": up to three digits, at most 100. */
static int parse_percent(const char *p, const char *end, int *pct)
{
	unsigned long v;

	if (end - p > 4 || parse_num(&p, end, &v) || v > 100 ||
	    end - p != 1 || *p != '%')
		return -1;
	*pct = (int)v;
	return 0;
}

/* git quotes unusual names: the quotes go, the escapes stay. */
static struct diff_path unquote(const char *p, size_t n)
{
	struct diff_path r = { p, n };

	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		r.p++;
		r.n -= 2;
	}
	return r;
}

/*
 * "--- a/x\t2024-01-01 ..." -> "a/x"; *epoch set when the date is the
 * epoch, what diff -N writes for the side of a file that is absent.
 */
static struct diff_path file_line_path(const struct line *l, int *epoch)
{
	const char *p = l->p + 4, *tab;
	size_t n = l->n - 4, rest;

	*epoch = 0;
	tab = memchr(p, '\t', n);
	if (tab) {
		rest = n - (size_t)(tab - p) - 1;
		*epoch = (rest >= 10 && !memcmp(tab + 1, "1970-01-01", 10)) ||
			 (rest >= 10 && !memcmp(tab + 1, "1969-12-31", 10));
		n = (size_t)(tab - p);
	}
	return unquote(p, n);
}

static int path_eq(struct diff_path a, struct diff_path b)
{
	return a.p && b.p && a.n == b.n && !memcmp(a.p, b.p, a.n);
}

/* Does path have a first component to strip ("x/...")? */
static int has_dir(struct diff_path path)
{
	return path.p && path.n > 1 && memchr(path.p, '/', path.n - 1);
}

static struct diff_path strip_n(struct diff_path path, int n)
{
	return n ? diff_path_strip1(path) : path;
}

/* Sets the names of f to line[0, i) and line[i + 1, n); returns strip. */
static int git_split(struct diff_file *f, const char *p, size_t n, size_t i,
		     int strip)
{
	f->git_old = unquote(p, i);
	f->git_new = unquote(p + i + 1, n - i - 1);
	return f->strip = strip;
}

/*
 * "diff --git X Y" into its two names and their strip level, as git
 * reads it (diff.h): identical halves (-p0), the last " b/" (-p1), a
 * split whose unquoted names agree past one component (-p1), then the
 * rename or copy values (-p0 or -p1).  -1 when no rule splits it.  Each
 * rule is one pass over the line: a split whose names agree past their
 * first components X/R and Y/R has |X/R| - |X| = |R| + 1, so for each
 * space only the next '/' after it can make one.
 */
static int git_line(struct diff_file *f, const struct line *l)
{
	const char *p = l->p + 11, *k;
	size_t n = l->n - 11, i, b = 0, slash = 0, d;
	struct diff_path from = f->rename_from.p ? f->rename_from : f->copy_from;
	struct diff_path to = f->rename_to.p ? f->rename_to : f->copy_to;
	int found = 0;

	if (n % 2 && p[n / 2] == ' ' && !memcmp(p, p + n / 2 + 1, n / 2))
		return git_split(f, p, n, n / 2, 0);
	for (i = 0; i + 3 < n; i++)
		if (!memcmp(p + i, " b/", 3) || !memcmp(p + i, " \"b/", 4)) {
			b = i;
			found = 1;
		}
	if (found)
		return git_split(f, p, n, b, 1);
	k = memchr(p, '/', n);
	d = k ? (size_t)(k - p) : n;
	for (i = n; k && i-- > d + 1;) {
		if (p[i] == '/')
			slash = i;
		else if (p[i] == ' ' && slash && slash + 1 < n &&
			 i - d == n - slash &&
			 !memcmp(p + d + 1, p + slash + 1, n - slash - 1))
			return git_split(f, p, n, i, 1);
	}
	if (!from.p || !to.p)
		return -1;
	/* "FROM TO", or "P/FROM Q/TO" with one component each as prefix */
	if (n == from.n + 1 + to.n && p[from.n] == ' ' &&
	    !memcmp(p, from.p, from.n) && !memcmp(p + from.n + 1, to.p, to.n))
		return git_split(f, p, n, from.n, 0);
	i = d + 1 + from.n;
	if (k && i < n && p[i] == ' ' && !memcmp(p + d + 1, from.p, from.n)) {
		const char *j = memchr(p + i + 1, '/', n - i - 1);

		if (j && (size_t)(p + n - j - 1) == to.n &&
		    !memcmp(j + 1, to.p, to.n))
			return git_split(f, p, n, i, 1);
	}
	return -1;
}

enum ext_kind {
	EXT_OLD_MODE, EXT_NEW_MODE, EXT_DELETED_FILE, EXT_NEW_FILE,
	EXT_COPY_FROM, EXT_COPY_TO, EXT_RENAME_FROM, EXT_RENAME_TO,
	EXT_SIMILARITY, EXT_DISSIMILARITY, EXT_INDEX,
};

static const struct {
	const char *prefix;
	enum ext_kind kind;
} ext_headers[] = {
	{ "old mode ", EXT_OLD_MODE },
	{ "new mode ", EXT_NEW_MODE },
	{ "deleted file mode ", EXT_DELETED_FILE },
	{ "new file mode ", EXT_NEW_FILE },
	{ "copy from ", EXT_COPY_FROM },
	{ "copy to ", EXT_COPY_TO },
	{ "rename from ", EXT_RENAME_FROM },
	{ "rename to ", EXT_RENAME_TO },
	{ "similarity index ", EXT_SIMILARITY },
	{ "dissimilarity index ", EXT_DISSIMILARITY },
	{ "index ", EXT_INDEX },
};

/* Takes l into f when it is an extended header line; 0 when it is not. */
static int ext_header(struct diff *d, struct diff_file *f,
		      const struct line *l)
{
	const char *v, *end = l->p + l->n;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(ext_headers) / sizeof(*ext_headers); i++)
		if (starts(l, ext_headers[i].prefix))
			break;
	if (i == sizeof(ext_headers) / sizeof(*ext_headers))
		return 0;
	v = l->p + strlen(ext_headers[i].prefix);
	switch (ext_headers[i].kind) {
	case EXT_DELETED_FILE:
		f->deleted_file = 1;
		/* fall through */
	case EXT_OLD_MODE:
		bad = parse_mode(v, end, &f->old_mode);
		break;
	case EXT_NEW_FILE:
		f->new_file = 1;
		/* fall through */
	case EXT_NEW_MODE:
		bad = parse_mode(v, end, &f->new_mode);
		break;
	case EXT_COPY_FROM:
		f->copy_from = unquote(v, (size_t)(end - v));
		break;
	case EXT_COPY_TO:
		f->copy_to = unquote(v, (size_t)(end - v));
		break;
	case EXT_RENAME_FROM:
		f->rename_from = unquote(v, (size_t)(end - v));
		break;
	case EXT_RENAME_TO:
		f->rename_to = unquote(v, (size_t)(end - v));
		break;
	case EXT_SIMILARITY:
		bad = parse_percent(v, end, &f->similarity);
		break;
	case EXT_DISSIMILARITY:
		bad = parse_percent(v, end, &f->dissimilarity);
		break;
	case EXT_INDEX:
		break;
	}
	if (bad)
		set_error(d, DIFF_ERR_HEADER, l->off);
	return 1;
}

/*
 * A line of base85 data: a length letter ('A'-'Z' 1-26 bytes, 'a'-'z'
 * 27-52) and five characters for every four bytes.
 */
static int is_base85_line(const struct line *l)
{
	static const char alphabet[] = "0123456789"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"!#$%&()*+-;<=>?@^_`{|}~";
	size_t bytes, i;
	char c;

	if (!l->n)
		return 0;
	c = l->p[0];
	if (c >= 'A' && c <= 'Z')
		bytes = (size_t)(c - 'A' + 1);
	else if (c >= 'a' && c <= 'z')
		bytes = (size_t)(c - 'a' + 27);
	else
		return 0;
	if (l->n != 1 + (bytes + 3) / 4 * 5)
		return 0;
	for (i = 1; i < l->n; i++)
		if (!l->p[i] || !strchr(alphabet, l->p[i]))
			return 0;
	return 1;
}

/* "literal N" / "delta N" */
static int is_binary_block(const struct line *l, int *bad)
{
	const char *p;
	unsigned long v;

	if (starts(l, "literal "))
		p = l->p + 8;
	else if (starts(l, "delta "))
		p = l->p + 6;
	else
		return 0;
	*bad = parse_num(&p, l->p + l->n, &v) || p != l->p + l->n;
	return 1;
}

/* After "GIT binary patch": one or two blocks of base85 lines. */
static size_t binary_patch(struct scan *s, struct diff_file *f,
			   const struct line *hdr)
{
	struct line l;
	size_t pos = hdr->next;
	int blocks = 0, bad = 0;

	f->binary = DIFF_BINARY_PATCH;
	while (blocks < 2 && get_line(s, pos, &l) &&
	       is_binary_block(&l, &bad)) {
		if (bad)
			set_error(s->d, DIFF_ERR_HEADER, l.off);
		pos = l.next;
		while (get_line(s, pos, &l) && is_base85_line(&l))
			pos = l.next;
		f->binary_ended = get_line(s, pos, &l) && !l.n;
		if (f->binary_ended)
			pos = l.next;
		blocks++;
		if (!f->binary_ended)
			break;
	}
	if (!blocks)
		set_error(s->d, DIFF_ERR_HEADER, hdr->off);
	return pos;
}

/* "diff --git" and what may follow it before "--- " or a hunk. */
static size_t git_header(struct scan *s, struct diff_file *f,
			 const struct line *first)
{
	struct line l = { NULL, 0, 0, 0 };
	size_t pos = first->next;

	f->git = 1;
	f->ext_start = pos;
	while (get_line(s, pos, &l) && ext_header(s->d, f, &l))
		pos = l.next;
	f->ext_end = f->body = pos;
	/* after the extended headers: a rename names its paths there */
	f->strip = -1;
	if (git_line(f, first) < 0)
		set_error(s->d, DIFF_ERR_GIT_LINE, first->off);
	if (!get_line(s, pos, &l))
		return pos;
	if (starts(&l, "Binary files ") && l.n >= 20 &&
	    !memcmp(l.p + l.n - 7, " differ", 7)) {
		f->binary = DIFF_BINARY_DIFFER;
		return l.next;
	}
	if (l.n == 16 && !memcmp(l.p, "GIT binary patch", 16))
		return binary_patch(s, f, &l);
	return pos;
}

/* A "--- "/"+++ " pair at l, and (when hunk is set) a hunk header. */
static int pair_at(const struct scan *s, const struct line *l, int hunk)
{
	struct diff_hunk h;
	struct line l2, l3;

	if (!starts(l, "--- ") || !get_line(s, l->next, &l2) ||
	    !starts(&l2, "+++ "))
		return 0;
	return !hunk || (get_line(s, l2.next, &l3) && starts(&l3, "@@ -") &&
			 !parse_hunk_header(&l3, &h));
}

static int is_rule(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->p[i] != '=')
			return 0;
	return l->n > 0;
}

/*
 * A traditional file's lead lines at l: "Index: X" with an optional line
 * of '=' (quilt, svn), or a "diff -..." command (diff -r), then a pair
 * (with a hunk header when hunk is set).  Returns the offset of the
 * "--- " line, or 0 when no lead starts there.
 */
static size_t lead_at(const struct scan *s, const struct line *l, int hunk)
{
	struct line l2;

	if (starts(l, "Index: ")) {
		if (!get_line(s, l->next, &l2))
			return 0;
		if (is_rule(&l2) && !get_line(s, l2.next, &l2))
			return 0;
	} else if (starts(l, "diff -") && !starts(l, "diff --git ")) {
		if (!get_line(s, l->next, &l2))
			return 0;
	} else {
		return 0;
	}
	return pair_at(s, &l2, hunk) ? l2.off : 0;
}

/*
 * Does the next file or hunk start at l?  With strict, a pair needs its
 * hunk header (as where a diff begins, and where lines before it might
 * be hunk lines).
 */
static int next_start(const struct scan *s, const struct line *l, int strict)
{
	struct diff_hunk h;

	return starts(l, "diff --git ") || pair_at(s, l, strict) ||
	       lead_at(s, l, strict) ||
	       (starts(l, "@@ -") && !parse_hunk_header(l, &h));
}

/*
 * The body of hunk h from *pos: exactly its counts of lines, each line
 * taken only while its side's count lasts, a "\ " marker after any of
 * them.  A pair with a hunk header ends it early: those three lines
 * cannot all be its lines.  Returns -1 when the lines end first (*pos
 * at the one that did not fit).
 */
static int hunk_body(struct scan *s, size_t *pos, struct diff_hunk *h)
{
	unsigned long old = h->old_count, new = h->new_count;
	struct line l;
	int after_line = 0;

	h->body = *pos;
	while ((old || new) && get_line(s, *pos, &l)) {
		char c = l.n ? l.p[0] : ' ';

		if (c == ' ' && old && new) {
			old--;
			new--;
		} else if (c == '-' && old && !pair_at(s, &l, 1)) {
			old--;
		} else if (c == '+' && new) {
			new--;
		} else if (after_line && is_marker(&l)) {
			after_line = 0;
			*pos = l.next;
			continue;
		} else {
			break;
		}
		after_line = 1;
		*pos = l.next;
	}
	if (!old && !new && after_line && get_line(s, *pos, &l) &&
	    is_marker(&l))
		*pos = l.next;
	h->end = *pos;
	return old || new ? -1 : 0;
}

/*
 * After a hunk whose counts were met, at pos: the offset of the next
 * file or hunk when only lines that look like hunk lines (or blank ones)
 * come before it, else pos.  *surplus is set when one of those lines is
 * not blank: the hunk has more lines than it counts.
 */
static size_t after_hunk(const struct scan *s, size_t pos, int *surplus)
{
	struct line l;
	size_t q = pos;
	int seen = 0;

	*surplus = 0;
	while (get_line(s, q, &l)) {
		if (next_start(s, &l, 1)) {
			*surplus = seen;
			return q;
		}
		if (l.n && l.p[0] != ' ' && l.p[0] != '-' && l.p[0] != '+' &&
		    !is_marker(&l))
			break;
		seen |= l.n > 0;
		q = l.next;
	}
	return pos;
}

/* A run of blank lines at pos followed by a next start: its end, or pos. */
static size_t blank_run(const struct scan *s, size_t pos)
{
	struct line l;
	size_t q = pos;

	while (get_line(s, q, &l) && !l.n)
		q = l.next;
	return q > pos && get_line(s, q, &l) && next_start(s, &l, 1) ? q : pos;
}

/* Does a diff start at l?  (A pair needs its hunk header, see above.) */
static int diff_begins(const struct scan *s, const struct line *l)
{
	return starts(l, "diff --git ") || pair_at(s, l, 1) ||
	       lead_at(s, l, 1);
}

/* A traditional file from its lead or pair at l; returns the next offset. */
static size_t trad_header(struct scan *s, struct diff_file *f,
			  const struct line *l)
{
	struct line l1 = { NULL, 0, 0, 0 }, l2 = l1;
	size_t at = lead_at(s, l, 0);
	int old_epoch, new_epoch;

	get_line(s, at ? at : l->off, &l1);
	get_line(s, l1.next, &l2);
	f->old = file_line_path(&l1, &old_epoch);
	f->new = file_line_path(&l2, &new_epoch);
	f->ext_start = f->ext_end = f->start;
	f->body = l2.next;
	f->new_file = diff_path_is_null(f->old) || old_epoch;
	f->deleted_file = !f->new_file &&
			  (diff_path_is_null(f->new) || new_epoch);
	f->strip = -1;
	return l2.next;
}

/*
 * The strip level of a traditional file with both sides (diff.h): the
 * old name is a label, the new one the path.  -1 with one side.
 */
static int trad_strip(const struct diff_file *f)
{
	const char *a, *b;

	if (f->new_file || f->deleted_file)
		return -1;
	/* an absolute name stays one, for the consumer to refuse */
	if (path_eq(f->old, f->new) || !has_dir(f->old) ||
	    !has_dir(f->new) || f->new.p[0] == '/')
		return 0;
	if (path_eq(diff_path_strip1(f->old), diff_path_strip1(f->new)))
		return 1;
	a = memchr(f->old.p, '/', f->old.n);
	b = memchr(f->new.p, '/', f->new.n);
	return a - f->old.p == b - f->new.p &&
	       !memcmp(f->old.p, f->new.p, (size_t)(a - f->old.p)) ? 0 : 1;
}

/* old_path and new_path of every file, after the scan (diff.h). */
static void file_paths(struct diff *d)
{
	int inherited = -1;
	size_t i;

	for (i = 0; i < d->nr_files; i++) {
		struct diff_file *f = &d->files[i];
		struct diff_path o = f->git ? f->git_old : f->old;
		struct diff_path n = f->git ? f->git_new : f->new;

		if (f->git && f->strip < 0) {
			/* the line did not split: the pair, if any */
			o = f->old;
			n = f->new;
		}
		if (!f->git || f->strip < 0)
			f->strip = trad_strip(f);
		if (f->strip < 0) {
			struct diff_path one = f->new_file ? f->new : f->old;

			f->strip = inherited >= 0 ? inherited :
				   has_dir(one) && one.p[0] != '/';
		} else {
			inherited = f->strip;
		}
		if (!f->git && !f->new_file && !f->deleted_file)
			o = n;	/* the old name is a label */
		if (diff_path_is_null(o))
			o.p = NULL;
		if (diff_path_is_null(n))
			n.p = NULL;
		f->old_path = f->new_file ? (struct diff_path){ NULL, 0 } :
			      f->rename_from.p ? f->rename_from :
			      f->copy_from.p ? f->copy_from :
			      strip_n(o, f->strip);
		f->new_path = f->deleted_file ? (struct diff_path){ NULL, 0 } :
			      f->rename_to.p ? f->rename_to :
			      f->copy_to.p ? f->copy_to :
			      strip_n(n, f->strip);
		if (!f->old_path.p)
			f->old_path.n = 0;
		if (!f->new_path.p)
			f->new_path.n = 0;
	}
}

int diff_scan(const char *buf, size_t len, struct diff *d)
{
	struct scan s = { buf, len, d, 0, 0 };
	struct diff_file *f = NULL;
	struct line l;
	const char *nul;
	size_t pos = 0, i, q;

	memset(d, 0, sizeof(*d));
	while (get_line(&s, pos, &l) && !diff_begins(&s, &l))
		pos = l.next;
	d->start = d->end = pos;
	while (get_line(&s, pos, &l)) {
		if (starts(&l, "diff --git ")) {
			f = file_add(&s, l.off);
			pos = git_header(&s, f, &l);
		} else if (pair_at(&s, &l, 0) && f && f->git && !f->old.p &&
			   !f->nr_hunks && !f->binary) {
			/* after a git header the pair is its */
			int epoch;
			struct line l2;

			get_line(&s, l.next, &l2);
			f->old = file_line_path(&l, &epoch);
			f->new = file_line_path(&l2, &epoch);
			pos = f->body = l2.next;
		} else if (pair_at(&s, &l, 0) || lead_at(&s, &l, 0)) {
			f = file_add(&s, l.off);
			pos = trad_header(&s, f, &l);
		} else if (starts(&l, "@@ -") && f && !f->binary) {
			struct diff_hunk h;
			int cut, surplus;

			if (parse_hunk_header(&l, &h)) {
				set_error(d, DIFF_ERR_HUNK_HEADER, l.off);
				break;
			}
			h.start = l.off;
			pos = l.next;
			cut = hunk_body(&s, &pos, &h);
			hunk_add(&s, f, &h);
			f->end = d->end = pos;
			if (cut) {
				if (get_line(&s, pos, &l) &&
				    next_start(&s, &l, 0)) {
					set_error_in(d, DIFF_ERR_HUNK_COUNT,
						     h.start, d->nr_hunks - 1);
					continue;
				}
				set_error_in(d, DIFF_ERR_TRUNCATED, pos,
					     d->nr_hunks - 1);
				break;
			}
			q = after_hunk(&s, pos, &surplus);
			if (surplus)
				set_error_in(d, DIFF_ERR_HUNK_COUNT, h.start,
					     d->nr_hunks - 1);
			f->end = d->end = pos = q;
			continue;
		} else if ((q = blank_run(&s, pos)) > pos) {
			/* they count once what follows is taken */
			pos = q;
			continue;
		} else {
			break;
		}
		f->end = d->end = pos;
	}
	nul = d->end > d->start ? memchr(buf + d->start, '\0',
					 d->end - d->start) : NULL;
	if (nul)
		set_error(d, DIFF_ERR_NUL, (size_t)(nul - buf));
	if (d->error != DIFF_OK) {
		d->error_line = 1;
		for (i = d->start; i < d->error_off && i < len; i++)
			d->error_line += buf[i] == '\n';
		if (d->error_hunk == NO_HUNK)
			d->error_hunk = d->nr_hunks;
		if (d->error == DIFF_ERR_NUL) {
			/* the file that holds the byte */
			for (i = 0; i < d->nr_files; i++)
				if (d->files[i].end > d->error_off)
					break;
			d->error_file = i;
		}
	}
	file_paths(d);
	return d->nr_files ? 0 : -1;
}

void diff_release(struct diff *d)
{
	free(d->files);
	free(d->hunks);
	memset(d, 0, sizeof(*d));
}

struct diff_path diff_path_strip1(struct diff_path path)
{
	const char *slash;

	if (!path.p)
		return path;
	slash = memchr(path.p, '/', path.n);
	if (slash) {
		path.n -= (size_t)(slash + 1 - path.p);
		path.p = slash + 1;
	}
	return path;
}

int diff_path_is_null(struct diff_path path)
{
	return path.p && path.n == 9 && !memcmp(path.p, "/dev/null", 9);
}

struct diff_path diff_file_path(const struct diff_file *f)
{
	return f->new_path.p ? f->new_path : f->old_path;
}

void diff_error_where(const struct diff *d, const char *buf,
		      struct diff_path *file, struct diff_path *hunk)
{
	const struct diff_hunk *h;
	const char *nl;

	file->p = hunk->p = NULL;
	file->n = hunk->n = 0;
	if (d->error == DIFF_OK)
		return;
	if (d->error_file < d->nr_files)
		*file = diff_file_path(&d->files[d->error_file]);
	if (d->error_hunk < d->nr_hunks) {
		h = &d->hunks[d->error_hunk];
		hunk->p = buf + h->start;
		nl = memchr(hunk->p, '\n', h->body - h->start);
		hunk->n = nl ? (size_t)(nl - hunk->p) : h->body - h->start;
	}
}
