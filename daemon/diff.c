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
 */
#include <stdlib.h>
#include <string.h>

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

static void set_error(struct diff *d, enum diff_error e, size_t off)
{
	if (d->error == DIFF_OK || off < d->error_off) {
		d->error = e;
		d->error_off = off;
	}
}

static void *grow(void *v, size_t nr, size_t *alloc, size_t size)
{
	if (nr < *alloc)
		return v;
	*alloc = *alloc ? *alloc * 2 : 8;
	v = realloc(v, *alloc * size);
	if (!v)
		die("diff", "out of memory");
	return v;
}

static struct diff_file *file_add(struct scan *s, size_t off)
{
	struct diff *d = s->d;
	struct diff_file *f;

	d->files = grow(d->files, d->nr_files, &s->alloc_files,
			sizeof(*d->files));
	f = &d->files[d->nr_files++];
	memset(f, 0, sizeof(*f));
	f->start = f->end = off;
	f->similarity = f->dissimilarity = -1;
	f->first_hunk = d->nr_hunks;
	return f;
}

static void hunk_add(struct scan *s, struct diff_file *f,
		     const struct diff_hunk *h)
{
	struct diff *d = s->d;

	d->hunks = grow(d->hunks, d->nr_hunks, &s->alloc_hunks,
			sizeof(*d->hunks));
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

/* "--- a/x\t2024-01-01 ..." -> "a/x" */
static struct diff_path file_line_path(const struct line *l)
{
	const char *p = l->p + 4, *tab;
	size_t n = l->n - 4;

	tab = memchr(p, '\t', n);
	if (tab)
		n = (size_t)(tab - p);
	return unquote(p, n);
}

/* "diff --git a/x b/y": split at the last " b/" (or ' "b/'). */
static int git_line(struct diff_file *f, const struct line *l)
{
	const char *p = l->p + 11;
	size_t n = l->n - 11, i, b = 0;
	int found = 0;

	for (i = 0; i + 3 < n; i++)
		if (!memcmp(p + i, " b/", 3) || !memcmp(p + i, " \"b/", 4)) {
			b = i;
			found = 1;
		}
	if (!found)
		return -1;
	f->git_old = unquote(p, b);
	f->git_new = unquote(p + b + 1, n - b - 1);
	return 0;
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
	struct line l;
	size_t pos = first->next;

	f->git = 1;
	if (git_line(f, first))
		set_error(s->d, DIFF_ERR_GIT_LINE, first->off);
	while (get_line(s, pos, &l) && ext_header(s->d, f, &l))
		pos = l.next;
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

/*
 * The body of hunk h from *pos: exactly its counts of lines, each line
 * taken only while its side's count lasts, a "\ " marker after any of
 * them.  Returns -1 when the lines end first (*pos at the one that did
 * not fit).
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
		} else if (c == '-' && old) {
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
 * Does a diff start at l?  The hunk header of a "--- " start must parse:
 * otherwise the diff would be just the "--- "/"+++ " pair, and scanning
 * that cut again would find no diff in it.
 */
static int diff_begins(const struct scan *s, const struct line *l)
{
	struct diff_hunk h;
	struct line l2, l3;

	if (starts(l, "diff --git "))
		return 1;
	return starts(l, "--- ") && get_line(s, l->next, &l2) &&
	       starts(&l2, "+++ ") && get_line(s, l2.next, &l3) &&
	       starts(&l3, "@@ -") && !parse_hunk_header(&l3, &h);
}

int diff_scan(const char *buf, size_t len, struct diff *d)
{
	struct scan s = { buf, len, d, 0, 0 };
	struct diff_file *f = NULL;
	struct line l, l2;
	const char *nul;
	size_t pos = 0, i;

	memset(d, 0, sizeof(*d));
	while (get_line(&s, pos, &l) && !diff_begins(&s, &l))
		pos = l.next;
	d->start = d->end = pos;
	while (get_line(&s, pos, &l)) {
		if (starts(&l, "diff --git ")) {
			f = file_add(&s, l.off);
			pos = git_header(&s, f, &l);
		} else if (starts(&l, "--- ") && get_line(&s, l.next, &l2) &&
			   starts(&l2, "+++ ")) {
			/* after a git header they are its; else a new file */
			if (!f || !f->git || f->old.p || f->nr_hunks ||
			    f->binary)
				f = file_add(&s, l.off);
			f->old = file_line_path(&l);
			f->new = file_line_path(&l2);
			pos = l2.next;
		} else if (starts(&l, "@@ -") && f && !f->binary) {
			struct diff_hunk h;
			int cut;

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
				set_error(d, DIFF_ERR_TRUNCATED, pos);
				break;
			}
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
	}
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
