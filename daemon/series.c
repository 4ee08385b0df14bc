/*
 * series.c - grouping mail messages into patch series (pure, no I/O).
 *
 * The rules follow what b4 and git-am do, so that a kernel developer gets
 * the series they expect:
 *  - the subject's bracketed prefixes give version, M/N, RFC, RESEND and
 *    a tree name; "Re:" makes a reply, never a patch;
 *  - a patch is a non-reply whose body holds a unified diff; the commit
 *    message ends where git-mailinfo's patchbreak() says (a "---" line, a
 *    "diff -" or "Index: " line); an in-body From:/Date:/Subject: block
 *    overrides the mail's own headers;
 *  - the diff is cut where the scanner of diff.c says it ends (hunk lines
 *    counted), so the diffstat before it and the signature and footers
 *    after it never leak into the bytes handed to the apply stage, and
 *    apply.c, scanning them again with the same code, sees the same
 *    files; what the scanner finds wrong (a truncated hunk, a NUL byte)
 *    is a problem of the series;
 *  - replies are walked up (iteratively, memoised: a References chain
 *    thousands deep costs linear time and no stack) to the patch or cover
 *    letter they answer, and their trailers attached there;
 *  - the thread shapes b4 knows (series.h): versions copied from the
 *    cover letter answered, unnumbered fix-ups, [PATCH 3/2], "2 of 5",
 *    duplicates by Date, trailers of unchanged patches carried over (a
 *    fingerprint in the spirit of git patch-id: no SHA-1 in pure code,
 *    and nothing outside kregress compares it);
 *  - a git request-pull mail ("are available in the Git repository
 *    at:") is never a patch, even with its diff appended.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "diff.h"
#include "log.h"
#include "mail.h"
#include "series.h"
#include "strbuf.h"

static void push_str(char ***v, size_t *nr, size_t *alloc, char *s)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = s;
}

static __attribute__((format(printf, 2, 3)))
void problem(struct series *s, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	push_str(&s->problems, &s->nr_problems, &s->alloc_problems,
		 strbuf_detach(&sb, NULL));
}

const char *series_status_str(enum series_status st)
{
	switch (st) {
	case SERIES_COMPLETE:
		return "complete";
	case SERIES_INCOMPLETE:
		return "incomplete";
	case SERIES_EMPTY:
		return "empty";
	case SERIES_PULL_REQUEST:
		return "pull-request";
	}
	return "unknown";
}

void series_status_reason(const struct series *s, struct strbuf *sb)
{
	size_t i;

	switch (s->status) {
	case SERIES_COMPLETE:
		break;
	case SERIES_INCOMPLETE:
		strbuf_addstr(sb, "missing");
		for (i = 0; i < s->nr_missing; i++)
			strbuf_addf(sb, " %d/%d", s->missing[i], s->total);
		break;
	case SERIES_EMPTY:
		strbuf_addstr(sb, "no patch in the thread");
		break;
	case SERIES_PULL_REQUEST:
		strbuf_addf(sb, "a pull request for %s: kregress tests patch "
			    "series", s->pull_request);
		break;
	}
}

/* ---- subjects ---- */

static int word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && !strncasecmp(w, lit, n);
}

static int parse_uint(const char *s, size_t n, int *out)
{
	long v = 0;
	size_t i;

	if (!n || n > 6)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = (int)v;
	return 0;
}

/* One word inside [...]; returns 1 if it is a patch word (PATCH, RFC). */
static int subject_word(struct series_subject *out, const char *w, size_t n,
			struct strbuf *tree)
{
	const char *slash;
	int a, b;

	if (word_is(w, n, "PATCH"))
		return 1;
	if (n > 5 && !strncasecmp(w, "PATCH", 5)) {
		const char *v = w + 5;
		size_t vn = n - 5;

		if (*v == '-' || *v == '_')
			v++, vn--;
		if (vn > 1 && (*v == 'v' || *v == 'V') &&
		    !parse_uint(v + 1, vn - 1, &a) && a > 0) {
			out->version = a;
			out->has_version = 1;
			return 1;
		}
	}
	if (word_is(w, n, "RFC")) {
		out->rfc = 1;
		return 1;
	}
	if (word_is(w, n, "RESEND")) {
		out->resend = 1;
		return 0;
	}
	if (n > 1 && (*w == 'v' || *w == 'V') && !parse_uint(w + 1, n - 1, &a)
	    && a > 0) {
		out->version = a;
		out->has_version = 1;
		return 0;
	}
	slash = memchr(w, '/', n);
	if (slash && !parse_uint(w, (size_t)(slash - w), &a) &&
	    !parse_uint(slash + 1, n - (size_t)(slash - w) - 1, &b) && b > 0) {
		out->index = a;
		out->total = b;
		out->numbered = 1;
		return 0;
	}
	if (tree->len)
		strbuf_addch(tree, ' ');
	strbuf_add(tree, w, n);
	return 0;
}

/* The word after p in [p, end) (not ' ' or ','), its length in *n. */
static const char *next_word(const char *p, const char *end, size_t *n)
{
	const char *we;

	while (p < end && (*p == ' ' || *p == ','))
		p++;
	for (we = p; we < end && *we != ' ' && *we != ','; we++)
		;
	*n = (size_t)(we - p);
	return *n ? p : NULL;
}

static const char *skip_reply_prefix(const char *s, int *is_reply)
{
	static const char *const prefixes[] = {
		"re:", "aw:", "fwd:", "fw:", "sv:", "antw:",
	};
	size_t i;
	int again = 1;

	while (again) {
		again = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
			size_t n = strlen(prefixes[i]);

			if (!strncasecmp(s, prefixes[i], n)) {
				s += n;
				*is_reply = 1;
				again = 1;
				break;
			}
		}
	}
	return s;
}

void series_subject_parse(const char *subject, struct series_subject *out)
{
	struct strbuf tree = STRBUF_INIT;
	const char *s = subject ? subject : "";
	const char *end;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->version = 1;
	out->index = 1;
	out->total = 1;
	s = skip_reply_prefix(s, &out->is_reply);
	while (*s == '[' && (end = strchr(s, ']'))) {
		struct strbuf bt = STRBUF_INIT;
		const char *w = s + 1, *w2, *w3;
		size_t n2, n3;
		int patchy = 0, a, b;

		while (w < end) {
			const char *we;

			while (w < end && (*w == ' ' || *w == ','))
				w++;
			we = w;
			while (we < end && *we != ' ' && *we != ',')
				we++;
			/* "2 of 5", as Mercurial's patchbomb numbers */
			w2 = next_word(we, end, &n2);
			w3 = w2 ? next_word(w2 + n2, end, &n3) : NULL;
			if (w3 && !parse_uint(w, (size_t)(we - w), &a) &&
			    word_is(w2, n2, "of") && !parse_uint(w3, n3, &b) &&
			    b > 0) {
				out->index = a;
				out->total = b;
				out->numbered = 1;
				w = w3 + n3;
				continue;
			}
			if (we > w)
				patchy |= subject_word(out, w, (size_t)(we - w),
						       &bt);
			w = we;
		}
		if (patchy)
			out->has_prefix = 1;
		if (bt.len) {
			if (tree.len)
				strbuf_addch(&tree, ' ');
			strbuf_add(&tree, bt.buf, bt.len);
		}
		strbuf_release(&bt);
		s = end + 1;
		while (*s == ' ' || *s == '\t')
			s++;
		/* "[PATCH] Re: foo" is rare but is still a reply */
		if (!strncasecmp(s, "re:", 3))
			s = skip_reply_prefix(s, &out->is_reply);
		/* "[Patch 2/2]: foo": git am drops the colon too */
		while (*s == ':' || *s == ' ' || *s == '\t')
			s++;
	}
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	out->title = xstrndup(s, n);
	out->tree = tree.len ? strbuf_detach(&tree, NULL) : NULL;
	strbuf_release(&tree);
}

void series_subject_release(struct series_subject *s)
{
	free(s->tree);
	free(s->title);
	memset(s, 0, sizeof(*s));
}

/* ---- bodies ---- */

struct line {
	const char *p;
	size_t n;		/* without the '\n' */
	size_t next;		/* offset of the following line */
};

static int get_line(const char *buf, size_t len, size_t off, struct line *l)
{
	const char *nl;

	if (off >= len)
		return 0;
	l->p = buf + off;
	nl = memchr(l->p, '\n', len - off);
	l->n = nl ? (size_t)(nl - l->p) : len - off;
	l->next = off + l->n + (nl ? 1 : 0);
	return 1;
}

static int starts(const struct line *l, const char *lit)
{
	size_t n = strlen(lit);

	return l->n >= n && !memcmp(l->p, lit, n);
}

/* git-mailinfo's patchbreak(): where the commit message ends. */
static int is_patchbreak(const struct line *l)
{
	size_t i;

	if (starts(l, "diff -") || starts(l, "Index: "))
		return 1;
	if (l->n < 3 || memcmp(l->p, "---", 3))
		return 0;
	if (l->n > 4 && l->p[3] == ' ' && !isspace((unsigned char)l->p[4]))
		return 1;
	for (i = 3; i < l->n; i++)
		if (!isspace((unsigned char)l->p[i]))
			return 0;
	return 1;
}

/* Adds a file's path in the tree (diff.h) to files, once. */
static void add_file(char ***files, size_t *nr, size_t *alloc,
		     struct diff_path name)
{
	size_t i;

	if (!name.p || !name.n)
		return;
	for (i = 0; i < *nr; i++)
		if (strlen((*files)[i]) == name.n &&
		    !memcmp((*files)[i], name.p, name.n))
			return;
	push_str(files, nr, alloc, xstrndup(name.p, name.n));
}

/* " (in mm/x.c, hunk @@ -1,3 +1,4 @@)" for what d's error is in. */
static char *error_where(const struct diff *d, const char *buf)
{
	struct strbuf sb = STRBUF_INIT;
	struct diff_path file, hunk;

	diff_error_where(d, buf, &file, &hunk);
	if (file.p)
		strbuf_addf(&sb, " (in %.*s", (int)file.n, file.p);
	if (file.p && hunk.p)
		strbuf_addf(&sb, ", hunk %.*s", (int)hunk.n, hunk.p);
	if (file.p)
		strbuf_addch(&sb, ')');
	return strbuf_detach(&sb, NULL);
}

/* The parts of one patch mail body. */
struct body_parts {
	size_t msg_start, msg_end;	/* commit message */
	int has_diff;
	size_t diff_start, diff_end;	/* as diff.c cut it */
	enum diff_error diff_error;	/* what diff.c found wrong, if any */
	size_t diff_error_line;		/* in the diff */
	char *diff_error_where;		/* " (in FILE, hunk @@ ...)", or "" */
	char **files;			/* paths in the tree (diff.h) */
	size_t nr_files, alloc_files;
	char *from;			/* in-body From: value */
	char *date;			/* in-body Date: value */
	char *subject;			/* in-body Subject: value */
};

static void body_parts_release(struct body_parts *b)
{
	size_t i;

	for (i = 0; i < b->nr_files; i++)
		free(b->files[i]);
	free(b->files);
	free(b->from);
	free(b->date);
	free(b->subject);
	free(b->diff_error_where);
}

static void body_split(const char *buf, size_t len, struct body_parts *b)
{
	struct diff d;
	struct line l;
	size_t pos = 0, i;

	memset(b, 0, sizeof(*b));
	/* leading blank lines, then an optional in-body header block */
	while (get_line(buf, len, pos, &l) && !l.n)
		pos = l.next;
	while (get_line(buf, len, pos, &l)) {
		char **slot = NULL;
		size_t skip = 0;

		if (starts(&l, "From: "))
			slot = &b->from, skip = 6;
		else if (starts(&l, "Date: "))
			slot = &b->date, skip = 6;
		else if (starts(&l, "Subject: "))
			slot = &b->subject, skip = 9;
		if (!slot || *slot)
			break;
		*slot = xstrndup(l.p + skip, l.n - skip);
		pos = l.next;
	}
	if (b->from || b->date || b->subject) {
		/* the block must end with an empty line to count */
		if (get_line(buf, len, pos, &l) && !l.n) {
			pos = l.next;
		} else {
			free(b->from);
			free(b->date);
			free(b->subject);
			b->from = b->date = b->subject = NULL;
			pos = 0;
		}
	}
	while (get_line(buf, len, pos, &l) && !l.n)
		pos = l.next;
	b->msg_start = b->msg_end = pos;
	while (get_line(buf, len, pos, &l) && !is_patchbreak(&l))
		pos = l.next;
	b->msg_end = pos;
	/* the diff: from the break on (after the diffstat, if any) */
	if (!diff_scan(buf + pos, len - pos, &d)) {
		b->has_diff = 1;
		b->diff_start = pos + d.start;
		b->diff_end = pos + d.end;
		b->diff_error = d.error;
		b->diff_error_line = d.error_line;
		b->diff_error_where = error_where(&d, buf + pos);
		for (i = 0; i < d.nr_files; i++)
			add_file(&b->files, &b->nr_files, &b->alloc_files,
				 diff_file_path(&d.files[i]));
	}
	diff_release(&d);
	/* trailing blank lines are not part of the message */
	while (b->msg_end > b->msg_start &&
	       (buf[b->msg_end - 1] == '\n' || buf[b->msg_end - 1] == ' ' ||
		buf[b->msg_end - 1] == '\t'))
		b->msg_end--;
}

/* Footers such as "base-commit: 1a2b..." anywhere at a line start. */
static char *footer(const char *buf, size_t len, const char *key)
{
	struct line l;
	size_t pos = 0, n = strlen(key);

	while (get_line(buf, len, pos, &l)) {
		if (l.n > n && !memcmp(l.p, key, n)) {
			const char *v = l.p + n, *end = l.p + l.n;

			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			while (end > v && isspace((unsigned char)end[-1]))
				end--;
			if (end > v)
				return xstrndup(v, (size_t)(end - v));
		}
		pos = l.next;
	}
	return NULL;
}

/*
 * Trailers in a reply: "Token-by: Name <addr>" lines that are not quoted
 * ("> ..."), before the "-- " signature.
 */
static void reply_trailers(const struct mail *m,
			   void (*add)(void *, const char *, size_t,
				       const char *, size_t),
			   void *data)
{
	struct line l;
	size_t pos = 0;

	while (get_line(m->body, m->body_len, pos, &l)) {
		const char *colon, *v, *end;
		size_t k;

		pos = l.next;
		if (l.n == 3 && !memcmp(l.p, "-- ", 3))
			break;
		colon = memchr(l.p, ':', l.n);
		if (!colon || colon - l.p < 4 || memcmp(colon - 3, "-by", 3))
			continue;
		for (k = 0; l.p + k < colon; k++)
			if (!isalnum((unsigned char)l.p[k]) && l.p[k] != '-')
				break;
		if (l.p + k != colon || !isalpha((unsigned char)l.p[0]))
			continue;
		v = colon + 1;
		end = l.p + l.n;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
		if (!memchr(v, '@', (size_t)(end - v)))
			continue;
		add(data, l.p, (size_t)(colon - l.p), v, (size_t)(end - v));
	}
}

/*
 * "URL BRANCH" of a git request-pull mail: the first line after "are
 * available in the Git repository at:" that is not blank, its blanks
 * squeezed.  NULL when body is no pull request.
 */
static char *pull_request(const char *buf, size_t len)
{
	static const char marker[] = "are available in the git repository at:";
	struct strbuf sb = STRBUF_INIT;
	struct line l;
	size_t pos = 0, k, mn = sizeof(marker) - 1;
	int found = 0;

	while (!found && get_line(buf, len, pos, &l)) {
		pos = l.next;
		for (k = 0; !found && k + mn <= l.n; k++)
			found = !strncasecmp(l.p + k, marker, mn);
	}
	while (found && get_line(buf, len, pos, &l)) {
		pos = l.next;
		for (k = 0; k < l.n; k++) {
			int blank = l.p[k] == ' ' || l.p[k] == '\t';

			if (!blank)
				strbuf_addch(&sb, l.p[k]);
			else if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
		}
		if (sb.len)
			break;
	}
	while (sb.len && sb.buf[sb.len - 1] == ' ')
		sb.buf[--sb.len] = '\0';
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The fingerprint of a diff (series.h): per file its path, per hunk its
 * '+' and '-' lines without their blanks, as git patch-id leaves out
 * whitespace and line numbers.
 */
static void fingerprint(const char *diff, size_t len, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct diff d;
	size_t i, k, off;

	if (diff_scan(diff, len, &d) == 0) {
		for (i = 0; i < d.nr_files; i++) {
			const struct diff_file *f = &d.files[i];
			struct diff_path path = diff_file_path(f);

			h = fnv1a(h, path.p ? path.p : "", path.n);
			h = fnv1a(h, "\n", 1);
			for (k = 0; k < f->nr_hunks; k++) {
				const struct diff_hunk *hk =
					&d.hunks[f->first_hunk + k];
				struct line l;

				for (off = hk->body;
				     off < hk->end &&
				     get_line(diff, hk->end, off, &l);
				     off = l.next) {
					size_t c;

					if (!l.n || (l.p[0] != '+' &&
						     l.p[0] != '-'))
						continue;
					for (c = 0; c < l.n; c++)
						if (!isspace((unsigned char)l.p[c]))
							h = fnv1a(h, l.p + c, 1);
					h = fnv1a(h, "\n", 1);
				}
			}
		}
	}
	diff_release(&d);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- grouping ---- */

enum item_kind {
	ITEM_OTHER,
	ITEM_REPLY,
	ITEM_PATCH,
	ITEM_COVER,
	ITEM_FIXUP,	/* unnumbered, with a diff, answering the series */
	ITEM_PULL,	/* a git request-pull mail */
};

struct item {
	const struct mail *m;
	struct series_subject subj;
	enum item_kind kind;
	struct body_parts body;
	struct series_patch *patch;	/* built patch (kept or not) */
	struct series *series;		/* its revision */
	long target;			/* reply -> patch/cover item; -1 */
	int resolved;
	int dup;			/* a second copy of a Message-ID */
};

/* Message-ID -> item index, open addressing. */
struct idmap {
	long *slots;
	size_t mask;
};

static size_t hash_str(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void idmap_init(struct idmap *map, size_t n)
{
	size_t size = 16;

	while (size < n * 2)
		size *= 2;
	map->slots = xcalloc(size, sizeof(long));
	memset(map->slots, 0xff, size * sizeof(long));
	map->mask = size - 1;
}

static long idmap_get(const struct idmap *map, const struct item *items,
		      const char *id)
{
	size_t i;

	if (!id || !*id)
		return -1;
	for (i = hash_str(id) & map->mask; map->slots[i] >= 0;
	     i = (i + 1) & map->mask)
		if (!strcmp(items[map->slots[i]].m->message_id, id))
			return map->slots[i];
	return -1;
}

static void idmap_put(struct idmap *map, const struct item *items,
		      const char *id, long idx)
{
	size_t i;

	for (i = hash_str(id) & map->mask; map->slots[i] >= 0;
	     i = (i + 1) & map->mask)
		if (!strcmp(items[map->slots[i]].m->message_id, id))
			return;
	map->slots[i] = idx;
}

static void patch_free(struct series_patch *p)
{
	size_t i;

	if (!p)
		return;
	free(p->subject);
	free(p->title);
	free(p->author_name);
	free(p->author_email);
	free(p->message_id);
	free(p->in_reply_to);
	free(p->message);
	for (i = 0; i < p->nr_trailers; i++) {
		free(p->trailers[i].name);
		free(p->trailers[i].value);
		free(p->trailers[i].message_id);
	}
	free(p->trailers);
	free(p->diff);
	for (i = 0; i < p->nr_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p->raw);
	free(p);
}

const struct series *series_revision(const struct series *s, int version)
{
	const struct series *r;

	if (!version)
		return s;
	for (r = s; r; r = r->older)
		if (r->version == version)
			return r;
	return NULL;
}

void series_free(struct series *s)
{
	while (s) {
		struct series *older = s->older;
		size_t i;

		patch_free(s->cover);
		for (i = 0; i < s->nr_patches; i++)
			patch_free(s->patches[i]);
		free(s->patches);
		free(s->missing);
		free(s->tree);
		free(s->base_commit);
		free(s->change_id);
		free(s->pull_request);
		for (i = 0; i < s->nr_prereq_patch_ids; i++)
			free(s->prereq_patch_ids[i]);
		free(s->prereq_patch_ids);
		for (i = 0; i < s->nr_problems; i++)
			free(s->problems[i]);
		free(s->problems);
		free(s);
		s = older;
	}
}

static struct series_patch *patch_new(struct item *it)
{
	const struct mail *m = it->m;
	struct body_parts *b = &it->body;
	struct series_patch *p = xcalloc(1, sizeof(*p));

	p->index = it->subj.index;
	p->total = it->subj.total;
	p->version = it->subj.version;
	p->rfc = it->subj.rfc;
	p->resend = it->subj.resend;
	p->subject = xstrdup(m->subject);
	p->title = xstrdup(it->subj.title);
	p->author_name = xstrdup(m->from_name);
	p->author_email = xstrdup(m->from_email);
	p->has_date = m->has_date;
	p->date = m->date;
	p->tz_offset_min = m->tz_offset_min;
	p->message_id = xstrdup(m->message_id);
	p->in_reply_to = m->in_reply_to ? xstrdup(m->in_reply_to) : NULL;
	if (b->from) {
		char *name, *email;

		if (!mail_parse_address(b->from, &name, &email)) {
			free(p->author_name);
			free(p->author_email);
			p->author_name = name;
			p->author_email = email;
		}
	}
	if (b->date) {
		int64_t date;
		int tz;

		if (!mail_parse_date(b->date, &date, &tz)) {
			p->has_date = 1;
			p->date = date;
			p->tz_offset_min = tz;
		}
	}
	if (b->subject) {
		struct series_subject s;

		series_subject_parse(b->subject, &s);
		free(p->title);
		p->title = s.title;
		s.title = NULL;
		series_subject_release(&s);
	}
	p->message = xstrndup(m->body + b->msg_start,
			      b->msg_end - b->msg_start);
	if (m->raw) {
		p->raw = xmalloc(m->raw_len + 1);
		memcpy(p->raw, m->raw, m->raw_len + 1);
		p->raw_len = m->raw_len;
	}
	if (it->kind == ITEM_PATCH && b->has_diff) {
		p->diff_len = b->diff_end - b->diff_start;
		/* not strndup: a NUL in the diff must not cut it short */
		p->diff = xmalloc(p->diff_len + 1);
		memcpy(p->diff, m->body + b->diff_start, p->diff_len);
		p->diff[p->diff_len] = '\0';
		p->files = b->files;
		p->nr_files = b->nr_files;
		b->files = NULL;
		b->nr_files = 0;
		fingerprint(p->diff, p->diff_len, p->fingerprint);
	}
	return p;
}

struct trailer_ctx {
	struct series_patch *p;
	const char *msgid;
	int from_version;
};

static void trailer_add(void *data, const char *name, size_t nn,
			const char *value, size_t vn)
{
	struct trailer_ctx *c = data;
	struct series_patch *p = c->p;
	size_t i;

	for (i = 0; i < p->nr_trailers; i++)
		if (strlen(p->trailers[i].name) == nn &&
		    !strncasecmp(p->trailers[i].name, name, nn) &&
		    strlen(p->trailers[i].value) == vn &&
		    !memcmp(p->trailers[i].value, value, vn))
			return;
	ALLOC_GROW(p->trailers, p->nr_trailers + 1, p->alloc_trailers);
	p->trailers[p->nr_trailers].name = xstrndup(name, nn);
	p->trailers[p->nr_trailers].value = xstrndup(value, vn);
	p->trailers[p->nr_trailers].message_id = xstrdup(c->msgid);
	p->trailers[p->nr_trailers].from_version = c->from_version;
	p->nr_trailers++;
}

void series_patch_add_trailer(struct series_patch *p, const char *name,
			      const char *value, const char *message_id,
			      int from_version)
{
	struct trailer_ctx ctx = { p, message_id ? message_id : "",
				   from_version };

	trailer_add(&ctx, name, strlen(name), value, strlen(value));
}

/*
 * A patch unchanged from an older revision (same fingerprint) keeps that
 * one's trailers, as b4 does; revs[0..n) oldest first.
 */
static void carry_trailers(struct series **revs, size_t n)
{
	size_t j, i, k, m, t;

	for (j = 1; j < n; j++) {
		for (k = 0; k < revs[j]->nr_patches; k++) {
			struct series_patch *p = revs[j]->patches[k];
			const struct series_patch *q = NULL;

			for (i = j; !q && i-- > 0;)
				for (m = 0; !q && m < revs[i]->nr_patches; m++)
					if (*p->fingerprint &&
					    !strcmp(revs[i]->patches[m]->
						    fingerprint,
						    p->fingerprint))
						q = revs[i]->patches[m];
			for (t = 0; q && t < q->nr_trailers; t++) {
				const struct series_trailer *tr =
					&q->trailers[t];

				series_patch_add_trailer(p, tr->name, tr->value,
					tr->message_id, tr->from_version ?
					tr->from_version : q->version);
			}
		}
	}
}

/* The item a message answers: In-Reply-To, else its newest Reference. */
static long parent_of(const struct idmap *map, const struct item *items,
		      const struct item *it)
{
	const struct mail *m = it->m;
	long p = idmap_get(map, items, m->in_reply_to);
	size_t i;

	if (p >= 0)
		return p;
	for (i = m->nr_references; i > 0; i--) {
		p = idmap_get(map, items, m->references[i - 1]);
		if (p >= 0)
			return p;
	}
	return -1;
}

/*
 * The patch or cover item that reply i answers, directly or through other
 * replies.  Iterative with memoisation: each item is resolved once.
 */
static long resolve_target(const struct idmap *map, struct item *items,
			   size_t nr, long i, long *path)
{
	size_t depth = 0, k;
	long cur = i, result = -1;

	while (cur >= 0 && depth < nr) {
		struct item *it = &items[cur];

		if (it->kind == ITEM_PATCH || it->kind == ITEM_COVER) {
			result = cur;
			break;
		}
		if (it->resolved) {
			result = it->target;
			break;
		}
		it->resolved = 1;	/* also breaks cycles */
		it->target = -1;
		path[depth++] = cur;
		cur = parent_of(map, items, it);
	}
	for (k = 0; k < depth; k++)
		items[path[k]].target = result;
	return result;
}

/*
 * b4 copies the revision of the cover letter a patch answers: a numbered
 * patch without a version takes it from the first versioned cover letter
 * or patch of its size up its chain of parents (a --chain-reply-to
 * series goes through patches).  Parents resolved first end the walk.
 */
static void inherit_version(const struct idmap *map, struct item *items,
			    size_t nr, size_t k)
{
	struct item *it = &items[k];
	size_t depth = 0;
	long p;

	if (it->kind != ITEM_PATCH || !it->subj.numbered ||
	    it->subj.has_version)
		return;
	for (p = parent_of(map, items, it); p >= 0 && depth++ < nr;
	     p = parent_of(map, items, &items[p])) {
		const struct item *q = &items[p];

		if ((q->kind != ITEM_PATCH && q->kind != ITEM_COVER) ||
		    q->subj.total != it->subj.total)
			return;
		if (q->subj.has_version) {
			it->subj.version = q->subj.version;
			it->subj.has_version = 1;
			return;
		}
	}
}

static struct series *series_new_rev(int version)
{
	struct series *s = xcalloc(1, sizeof(*s));

	s->version = version;
	return s;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "2024-06-04 10:59 UTC", or "no date" */
static void date_str(const struct mail *m, char *buf, size_t size)
{
	time_t t = (time_t)m->date;
	struct tm tm;

	if (!m->has_date || !gmtime_r(&t, &tm))
		snprintf(buf, size, "no date");
	else
		strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Is a the newer copy of one patch than b: by Date, else later sent? */
static int newer(const struct item *a, const struct item *b)
{
	if (a->m->has_date != b->m->has_date)
		return a->m->has_date;
	return !a->m->has_date || a->m->date >= b->m->date;
}

/* Builds revision v from the items; NULL if it has nothing. */
static struct series *build_revision(struct item *items, size_t nr, int v)
{
	struct series *s = series_new_rev(v);
	struct series_patch **by_index = NULL;
	struct item **src = NULL;
	int total = 0, last = 0, i, gap = 0;
	size_t k;

	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];

		if ((it->kind != ITEM_PATCH && it->kind != ITEM_COVER) ||
		    it->subj.version != v)
			continue;
		if (it->subj.total > total)
			total = it->subj.total;
		if (it->subj.index > last)
			last = it->subj.index;
	}
	if (!total) {
		free(s);
		return NULL;
	}
	if (last < total)
		last = total;
	s->total = total;
	by_index = xcalloc((size_t)last + 1, sizeof(*by_index));
	src = xcalloc((size_t)last + 1, sizeof(*src));
	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];
		struct series_patch *p;
		int idx = it->subj.index;

		if ((it->kind != ITEM_PATCH && it->kind != ITEM_COVER) ||
		    it->subj.version != v)
			continue;
		if (it->subj.total != total)
			problem(s, "v%d: <%s> says %d/%d but the series has %d "
				"patches", v, it->m->message_id, idx,
				it->subj.total, total);
		p = patch_new(it);
		if (it->body.has_diff && it->body.diff_error != DIFF_OK)
			problem(s, "v%d: patch %d/%d <%s>: %s at line %zu of "
				"its diff%s", v, idx, total, it->m->message_id,
				diff_error_str(it->body.diff_error),
				it->body.diff_error_line,
				it->body.diff_error_where);
		it->series = s;
		if (by_index[idx]) {
			/* a RESEND or a duplicate: the newer by Date wins */
			struct item *old = src[idx];
			int keep = newer(it, old);
			char d1[32], d2[32];

			date_str(old->m, d1, sizeof(d1));
			date_str(it->m, d2, sizeof(d2));
			problem(s, "v%d: patch %d/%d sent twice (<%s> of %s and "
				"<%s> of %s); kept <%s>, the newer by Date", v,
				idx, total, old->m->message_id, d1,
				it->m->message_id, d2, keep ?
				it->m->message_id : old->m->message_id);
			if (!keep) {
				patch_free(p);
				continue;
			}
			patch_free(by_index[idx]);
			old->patch = NULL;
		}
		by_index[idx] = p;
		src[idx] = it;
		it->patch = p;
	}
	/* patches beyond the announced total: kept while none is missing */
	for (i = total + 1; i <= last; i++) {
		if (!by_index[i]) {
			gap = 1;
			continue;
		}
		if (!gap) {
			problem(s, "v%d: <%s> is patch %d/%d, beyond the %d "
				"announced; kept, in order, as patch %d", v,
				src[i]->m->message_id, i, total, total, i);
			continue;
		}
		problem(s, "v%d: <%s> claims %d/%d beyond the %d patches of "
			"the series, after a gap; ignored", v,
			src[i]->m->message_id, i, total, total);
		patch_free(by_index[i]);
		src[i]->patch = NULL;
		by_index[i] = NULL;
		src[i] = NULL;
	}
	s->cover = by_index[0];
	for (i = 1; i <= last; i++) {
		if (by_index[i]) {
			ALLOC_GROW(s->patches, s->nr_patches + 1,
				   s->alloc_patches);
			s->patches[s->nr_patches++] = by_index[i];
		} else if (i <= total) {
			ALLOC_GROW(s->missing, s->nr_missing + 1,
				   s->alloc_missing);
			s->missing[s->nr_missing++] = i;
		}
	}
	if (s->nr_missing)
		qsort(s->missing, s->nr_missing, sizeof(int), cmp_int);
	if (!s->nr_patches)
		s->status = s->cover ? SERIES_INCOMPLETE : SERIES_EMPTY;
	else
		s->status = s->nr_missing ? SERIES_INCOMPLETE :
			    SERIES_COMPLETE;
	if (s->nr_missing) {
		struct strbuf sb = STRBUF_INIT;
		size_t m;

		for (m = 0; m < s->nr_missing; m++)
			strbuf_addf(&sb, "%s%d/%d", m ? ", " : "",
				    s->missing[m], total);
		problem(s, "v%d: incomplete: missing %s", v, sb.buf);
		strbuf_release(&sb);
	}
	/* prefix flags and footers from the cover letter, else the patches */
	for (i = 0; i <= last; i++) {
		struct item *it = src[i];
		char *f;

		if (!it)
			continue;
		s->rfc |= it->subj.rfc;
		s->resend |= it->subj.resend;
		if (!s->tree && it->subj.tree)
			s->tree = xstrdup(it->subj.tree);
		if (!s->base_commit)
			s->base_commit = footer(it->m->body, it->m->body_len,
						"base-commit:");
		if (!s->change_id)
			s->change_id = footer(it->m->body, it->m->body_len,
					      "change-id:");
		{
			struct line l;
			size_t pos = 0;

			while (get_line(it->m->body, it->m->body_len, pos,
					&l)) {
				static const char key[] =
					"prerequisite-patch-id:";
				size_t kn = sizeof(key) - 1;

				pos = l.next;
				if (l.n <= kn || memcmp(l.p, key, kn))
					continue;
				f = footer(l.p, l.n, key);
				if (f)
					push_str(&s->prereq_patch_ids,
						 &s->nr_prereq_patch_ids,
						 &s->alloc_prereq_patch_ids, f);
			}
		}
	}
	free(by_index);
	free(src);
	return s;
}

int series_build(const struct mail_box *box, struct series **out)
{
	struct item *items = NULL;
	struct series *newest = NULL, *s, **revs = NULL;
	struct idmap map = { NULL, 0 };
	long *path = NULL;
	int *versions = NULL;
	char *pull, *pull_url = NULL;
	size_t nr, k, nr_versions = 0, alloc_versions = 0, nr_patches = 0;
	size_t nr_revs = 0, pull_item = 0;
	int ret = -1;

	*out = NULL;
	if (!box)
		return -1;
	nr = box->nr;
	items = xcalloc(nr, sizeof(*items));
	path = xcalloc(nr, sizeof(*path));
	idmap_init(&map, nr);

	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];
		const struct mail *m = box->mails[k];

		it->m = m;
		it->target = -1;
		series_subject_parse(m->subject, &it->subj);
		if (idmap_get(&map, items, m->message_id) >= 0) {
			it->dup = 1;
			it->kind = ITEM_OTHER;
			continue;
		}
		if (*m->message_id)
			idmap_put(&map, items, m->message_id, (long)k);
		if (it->subj.is_reply) {
			it->kind = ITEM_REPLY;
			continue;
		}
		body_split(m->body, m->body_len, &it->body);
		pull = pull_request(m->body, m->body_len);
		if (pull) {
			it->kind = ITEM_PULL;
			if (!pull_url) {
				pull_url = pull;
				pull_item = k;
			} else {
				free(pull);
			}
		} else if (it->subj.has_prefix && it->subj.index == 0) {
			it->kind = ITEM_COVER;
		} else if (it->body.has_diff) {
			it->kind = ITEM_PATCH;
		} else {
			it->kind = ITEM_OTHER;
		}
		if (it->subj.index < 0 || it->subj.total < 1)
			it->kind = ITEM_OTHER;
	}
	/* what the thread says of its messages, as b4 reads it */
	for (k = 0; k < nr; k++)
		inherit_version(&map, items, nr, k);
	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];
		long parent = parent_of(&map, items, it);
		const struct item *t = parent >= 0 ? &items[parent] : NULL;

		if (it->kind == ITEM_PATCH && !it->subj.numbered && t &&
		    (t->kind == ITEM_PATCH || t->kind == ITEM_COVER) &&
		    (!it->subj.has_version ||
		     it->subj.version == t->subj.version))
			it->kind = ITEM_FIXUP;
	}
	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];
		size_t v;

		if (it->kind != ITEM_PATCH && it->kind != ITEM_COVER)
			continue;
		for (v = 0; v < nr_versions; v++)
			if (versions[v] == it->subj.version)
				break;
		if (v == nr_versions) {
			ALLOC_GROW(versions, nr_versions + 1, alloc_versions);
			versions[nr_versions++] = it->subj.version;
		}
	}
	if (nr_versions)
		qsort(versions, nr_versions, sizeof(int), cmp_int);

	/* revisions, oldest first, each linked to the one before */
	revs = xcalloc(nr_versions, sizeof(*revs));
	for (k = 0; k < nr_versions; k++) {
		s = build_revision(items, nr, versions[k]);
		if (!s)
			continue;
		s->older = newest;
		newest = revs[nr_revs++] = s;
	}
	if (!newest) {
		newest = series_new_rev(1);
		newest->status = pull_url ? SERIES_PULL_REQUEST : SERIES_EMPTY;
		newest->pull_request = pull_url;
		/* the request-pull mail heads the thread, as a cover would */
		if (pull_url) {
			newest->cover = patch_new(&items[pull_item]);
			newest->cover->index = 0;
		}
		pull_url = NULL;
	}

	/* trailers from replies */
	for (k = 0; k < nr; k++) {
		struct item *it = &items[k], *t;
		struct trailer_ctx ctx = { NULL, NULL, 0 };
		long target;

		if (it->kind != ITEM_REPLY && it->kind != ITEM_OTHER)
			continue;
		if (it->dup)
			continue;
		target = resolve_target(&map, items, nr, (long)k, path);
		if (target < 0)
			continue;
		t = &items[target];
		ctx.msgid = it->m->message_id;
		if (t->kind == ITEM_PATCH) {
			/* a replaced duplicate: its kept twin gets them */
			ctx.p = t->patch;
			if (!ctx.p && t->series) {
				size_t j;

				for (j = 0; j < t->series->nr_patches; j++)
					if (t->series->patches[j]->index ==
					    t->subj.index)
						ctx.p = t->series->patches[j];
			}
			if (ctx.p)
				reply_trailers(it->m, trailer_add, &ctx);
		} else if (t->kind == ITEM_COVER && t->series) {
			size_t j;

			for (j = 0; j < t->series->nr_patches; j++) {
				ctx.p = t->series->patches[j];
				reply_trailers(it->m, trailer_add, &ctx);
			}
		}
	}

	carry_trailers(revs, nr_revs);

	/* box-wide problems go on the newest revision */
	for (k = 0; k < nr; k++) {
		struct item *it = &items[k];
		long parent = parent_of(&map, items, it);

		if (it->kind == ITEM_PATCH)
			nr_patches++;
		if (it->dup)
			problem(newest, "message <%s> appears twice; the "
				"second copy is ignored", it->m->message_id);
		else if (it->kind == ITEM_FIXUP)
			problem(newest, "<%s> \"%s\" answers <%s> with a diff: "
				"a comment or fix-up, not a patch of the "
				"series", it->m->message_id, it->m->subject,
				items[parent].m->message_id);
		else if (it->kind == ITEM_PULL &&
			 newest->status != SERIES_PULL_REQUEST)
			problem(newest, "<%s> is a pull request, not a patch",
				it->m->message_id);
		else if (it->kind == ITEM_OTHER && it->subj.has_prefix &&
			 it->subj.index > 0)
			problem(newest, "<%s> \"%s\" has no diff; not taken as "
				"a patch", it->m->message_id, it->m->subject);
	}
	for (k = 0; k < box->nr_skipped; k++) {
		struct strbuf sb = STRBUF_INIT;

		mail_skip_describe(&box->skipped[k], &sb);
		push_str(&newest->problems, &newest->nr_problems,
			 &newest->alloc_problems, strbuf_detach(&sb, NULL));
	}
	if (!nr_patches && newest->status == SERIES_EMPTY)
		problem(newest, "no patch among the %zu messages (a "
			"discussion thread?)", nr);
	if (newest->status == SERIES_PULL_REQUEST)
		problem(newest, "a pull request for %s, not a patch series",
			newest->pull_request);
	*out = newest;
	ret = 0;

	for (k = 0; k < nr; k++) {
		series_subject_release(&items[k].subj);
		body_parts_release(&items[k].body);
	}
	free(items);
	free(path);
	free(map.slots);
	free(versions);
	free(revs);
	free(pull_url);
	return ret;
}

void series_patch_commit_message(const struct series_patch *p,
				 int with_trailers, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, p->title);
	strbuf_addch(sb, '\n');
	if (*p->message) {
		strbuf_addch(sb, '\n');
		strbuf_addstr(sb, p->message);
		strbuf_addch(sb, '\n');
	}
	if (!with_trailers)
		return;
	for (i = 0; i < p->nr_trailers; i++) {
		struct strbuf t = STRBUF_INIT;

		strbuf_addf(&t, "%s: %s", p->trailers[i].name,
			    p->trailers[i].value);
		if (!strstr(p->message, t.buf)) {
			if (!*p->message && i == 0)
				strbuf_addch(sb, '\n');
			strbuf_addf(sb, "%s\n", t.buf);
		}
		strbuf_release(&t);
	}
}
