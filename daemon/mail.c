/*
 * mail.c - mbox splitting and message parsing; the only GMime 3 user.
 *
 * The mbox is split here, not by GMime's mbox mode, for three reasons: the
 * input is read in fixed chunks so that one huge line cannot make us
 * allocate more than the caps allow; mboxrd ">From " quoting is undone
 * exactly (one '>' removed from any line matching ^>+From ); and a "From "
 * line in a body without a blank line before it, or without the date that
 * separator lines carry, does not start a new message (git's mailsplit
 * is as strict).  Each message is then handed to GMime from memory, the
 * fields we need are copied out into plain C strings and the GMime objects
 * are dropped at once, so memory holds one GMime message at a time.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "alloc.h"
#include "log.h"
#include "mail.h"
#include "strbuf.h"

#define MAIL_MAX_MIME_DEPTH 16
#define MAIL_MAX_MIME_PARTS 256

static pthread_once_t gmime_once = PTHREAD_ONCE_INIT;

static void gmime_setup(void)
{
	g_mime_init();
}

void mail_free(struct mail *m)
{
	size_t i;

	if (!m)
		return;
	free(m->message_id);
	free(m->in_reply_to);
	for (i = 0; i < m->nr_references; i++)
		free(m->references[i]);
	free(m->references);
	free(m->subject);
	free(m->from_name);
	free(m->from_email);
	for (i = 0; i < m->nr_recipients; i++)
		free(m->recipients[i]);
	free(m->recipients);
	free(m->body);
	free(m->raw);
	free(m);
}

void mail_box_init(struct mail_box *box)
{
	memset(box, 0, sizeof(*box));
}

void mail_box_release(struct mail_box *box)
{
	size_t i;

	for (i = 0; i < box->nr; i++)
		mail_free(box->mails[i]);
	free(box->mails);
	for (i = 0; i < box->nr_skipped; i++) {
		free(box->skipped[i].message_id);
		free(box->skipped[i].reason);
	}
	free(box->skipped);
	mail_box_init(box);
}

static void limits_fill(struct mail_limits *l, const struct mail_limits *in)
{
	memset(l, 0, sizeof(*l));
	if (in)
		*l = *in;
	if (!l->max_bytes)
		l->max_bytes = MAIL_MAX_BYTES_DEFAULT;
	if (!l->max_messages)
		l->max_messages = MAIL_MAX_MESSAGES_DEFAULT;
	if (!l->max_message_bytes)
		l->max_message_bytes = MAIL_MAX_MESSAGE_BYTES_DEFAULT;
	if (!l->max_references)
		l->max_references = MAIL_MAX_REFERENCES_DEFAULT;
}

/* Removes every CR that precedes an LF, in place; returns the new length. */
static size_t crlf_to_lf(char *buf, size_t len)
{
	size_t i, j = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		buf[j++] = buf[i];
	}
	return j;
}

/*
 * A message must start with a header field ("Name: value", the name being
 * printable ASCII without ':' or space).  Cheap check before GMime, which
 * would otherwise make a message out of anything.
 */
static int starts_with_header(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == ':')
			return i > 0;
		if (c <= 32 || c >= 127)
			return 0;
	}
	return 0;
}

/*
 * GMime parses nested multiparts in time that grows with the depth (7 s
 * for 100,000 levels in 7 MB): a message naming more multipart types than
 * MAIL_MAX_MIME_PARTS is refused before GMime sees it.
 */
static int too_many_multiparts(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int n = 0;

	while (p + 10 <= end &&
	       (p = memchr(p, '/', (size_t)(end - p))) != NULL) {
		if (p - buf >= 9 && !strncasecmp(p - 9, "multipart/", 10) &&
		    ++n > MAIL_MAX_MIME_PARTS)
			return 1;
		p++;
	}
	return 0;
}

static void body_append(struct strbuf *sb, GMimePart *part)
{
	GMimeObject *obj = GMIME_OBJECT(part);
	GMimeDataWrapper *w = g_mime_part_get_content(part);
	GMimeStream *mem, *filtered;
	GByteArray *bytes;
	const char *cs;
	size_t start = sb->len;

	if (!w)
		return;
	mem = g_mime_stream_mem_new();
	filtered = g_mime_stream_filter_new(mem);
	cs = g_mime_object_get_content_type_parameter(obj, "charset");
	if (cs && g_ascii_strcasecmp(cs, "utf-8") &&
	    g_ascii_strcasecmp(cs, "utf8") &&
	    g_ascii_strcasecmp(cs, "us-ascii")) {
		/* NULL for a charset iconv does not know: keep the bytes */
		GMimeFilter *f = g_mime_filter_charset_new(cs, "UTF-8");

		if (f) {
			g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered),
						 f);
			g_object_unref(f);
		}
	}
	g_mime_data_wrapper_write_to_stream(w, filtered);
	g_mime_stream_flush(filtered);
	bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
	if (bytes && bytes->len) {
		if (start && sb->buf[start - 1] != '\n')
			strbuf_addch(sb, '\n');
		start = sb->len;
		strbuf_add(sb, bytes->data, bytes->len);
		sb->len = start + crlf_to_lf(sb->buf + start, sb->len - start);
		sb->buf[sb->len] = '\0';
	}
	g_object_unref(filtered);
	g_object_unref(mem);
}

static int is_patch_type(GMimeContentType *ct)
{
	return g_mime_content_type_is_type(ct, "text", "x-patch") ||
	       g_mime_content_type_is_type(ct, "text", "x-diff") ||
	       g_mime_content_type_is_type(ct, "application", "x-patch") ||
	       g_mime_content_type_is_type(ct, "text", "x-patch-file");
}

/*
 * Walks the MIME tree without recursion (bounded depth and part count):
 * the first text/plain inline part is the body; patch attachments follow.
 * When there is no text/plain part, the first text part is used.
 */
static void collect_body(GMimeObject *root, struct strbuf *sb)
{
	GMimeObject *stack[MAIL_MAX_MIME_DEPTH];
	int pos[MAIL_MAX_MIME_DEPTH];
	GMimePart *first_text = NULL, *plain = NULL;
	GMimePart *patches[8];
	int nr_patches = 0, sp = 0, seen = 0, i;

	if (!root)
		return;
	if (!GMIME_IS_MULTIPART(root)) {
		if (GMIME_IS_PART(root))
			body_append(sb, GMIME_PART(root));
		return;
	}
	stack[0] = root;
	pos[0] = 0;
	while (sp >= 0 && seen < MAIL_MAX_MIME_PARTS) {
		GMimeMultipart *mp = GMIME_MULTIPART(stack[sp]);
		GMimeObject *child;
		GMimeContentType *ct;

		if (pos[sp] >= g_mime_multipart_get_count(mp)) {
			sp--;
			continue;
		}
		child = g_mime_multipart_get_part(mp, pos[sp]++);
		seen++;
		if (GMIME_IS_MULTIPART(child)) {
			if (sp + 1 < MAIL_MAX_MIME_DEPTH) {
				stack[++sp] = child;
				pos[sp] = 0;
			}
			continue;
		}
		if (!GMIME_IS_PART(child))
			continue;
		ct = g_mime_object_get_content_type(child);
		if (!ct)
			continue;
		if (is_patch_type(ct)) {
			if (nr_patches < 8)
				patches[nr_patches++] = GMIME_PART(child);
			continue;
		}
		if (g_mime_content_type_is_type(ct, "text", "plain")) {
			if (!plain && !g_mime_part_is_attachment(
					GMIME_PART(child)))
				plain = GMIME_PART(child);
			else if (nr_patches < 8)
				patches[nr_patches++] = GMIME_PART(child);
			continue;
		}
		if (!first_text && g_mime_content_type_is_type(ct, "text", "*"))
			first_text = GMIME_PART(child);
	}
	if (plain)
		body_append(sb, plain);
	else if (first_text)
		body_append(sb, first_text);
	for (i = 0; i < nr_patches; i++)
		body_append(sb, patches[i]);
}

static void set_references(struct mail *m, const char *raw,
			   const struct mail_limits *lim)
{
	GMimeReferences *refs;
	int n, i, from;
	size_t k = 0;

	if (!raw)
		return;
	refs = g_mime_references_parse(NULL, raw);
	if (!refs)
		return;
	n = g_mime_references_length(refs);
	if (n <= 0)
		goto out;
	m->references = xcalloc((size_t)n < lim->max_references ?
			       (size_t)n : lim->max_references,
			       sizeof(char *));
	/* keep the root and the newest ancestors */
	from = n - (int)lim->max_references + 1;
	if (from < 1)
		from = 1;
	m->references[k++] = xstrdup(g_mime_references_get_message_id(refs,
								       0));
	for (i = from; i < n && k < lim->max_references; i++)
		m->references[k++] = xstrdup(
			g_mime_references_get_message_id(refs, i));
	m->nr_references = k;
out:
	g_mime_references_free(refs);
}

/*
 * Appends the mailboxes of list (groups flattened) to m->recipients:
 * "Name <address>", or only the address when bare is set.
 */
static void add_recipients(struct mail *m, InternetAddressList *list,
			   int bare)
{
	int i, n = list ? internet_address_list_length(list) : 0;

	for (i = 0; i < n; i++) {
		InternetAddress *a = internet_address_list_get_address(list, i);
		const char *name, *addr;

		if (INTERNET_ADDRESS_IS_GROUP(a)) {
			add_recipients(m, internet_address_group_get_members(
				INTERNET_ADDRESS_GROUP(a)), bare);
			continue;
		}
		if (!INTERNET_ADDRESS_IS_MAILBOX(a))
			continue;
		addr = internet_address_mailbox_get_addr(
			INTERNET_ADDRESS_MAILBOX(a));
		if (!addr || !strchr(addr, '@'))
			continue;
		ALLOC_GROW(m->recipients, m->nr_recipients + 1,
			   m->alloc_recipients);
		name = internet_address_get_name(a);
		if (name && *name && !bare) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "%s <%s>", name, addr);
			m->recipients[m->nr_recipients] =
				strbuf_detach(&sb, NULL);
		} else {
			m->recipients[m->nr_recipients] = xstrdup(addr);
		}
		m->nr_recipients++;
	}
}

int mail_parse(const char *buf, size_t len, const struct mail_limits *limits,
	       struct mail **out, char **reason)
{
	struct mail_limits lim;
	GMimeStream *stream = NULL;
	GMimeParser *parser = NULL;
	GMimeMessage *msg = NULL;
	InternetAddressList *from;
	GDateTime *dt;
	struct strbuf body = STRBUF_INIT;
	struct mail *m = NULL;
	const char *s;
	char *id, *copy = NULL;
	int ret = -1;

	*out = NULL;
	*reason = NULL;
	limits_fill(&lim, limits);
	pthread_once(&gmime_once, gmime_setup);

	if (len > lim.max_message_bytes) {
		if (asprintf(reason, "message of %zu bytes exceeds the limit "
			     "of %zu", len, lim.max_message_bytes) < 0)
			*reason = NULL;
		goto out;
	}
	if (!starts_with_header(buf, len)) {
		*reason = xstrdup("not a mail message (no header block)");
		goto out;
	}
	if (too_many_multiparts(buf, len)) {
		if (asprintf(reason, "more than %d multipart parts",
			     MAIL_MAX_MIME_PARTS) < 0)
			*reason = NULL;
		goto out;
	}
	copy = xmalloc(len + 1);
	memcpy(copy, buf, len);
	len = crlf_to_lf(copy, len);

	stream = g_mime_stream_mem_new_with_buffer(copy, len);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	msg = g_mime_parser_construct_message(parser, NULL);
	if (!msg) {
		*reason = xstrdup("not a mail message (GMime cannot parse it)");
		goto out;
	}

	m = xcalloc(1, sizeof(*m));
	m->message_id = xstrdup(g_mime_message_get_message_id(msg));
	m->subject = xstrdup(g_mime_message_get_subject(msg));
	s = g_mime_object_get_header(GMIME_OBJECT(msg), "In-Reply-To");
	if (s && (id = g_mime_utils_decode_message_id(s))) {
		m->in_reply_to = xstrdup(id);
		g_free(id);
	}
	set_references(m, g_mime_object_get_header(GMIME_OBJECT(msg),
						   "References"), &lim);
	from = g_mime_message_get_from(msg);
	if (from && internet_address_list_length(from) > 0) {
		InternetAddress *a = internet_address_list_get_address(from, 0);

		m->from_name = xstrdup(internet_address_get_name(a));
		if (INTERNET_ADDRESS_IS_MAILBOX(a)) {
			InternetAddressMailbox *mb;

			mb = INTERNET_ADDRESS_MAILBOX(a);
			m->from_email = xstrdup(
				internet_address_mailbox_get_addr(mb));
		}
	}
	add_recipients(m, g_mime_message_get_addresses(msg,
						GMIME_ADDRESS_TYPE_TO), 0);
	add_recipients(m, g_mime_message_get_addresses(msg,
						GMIME_ADDRESS_TYPE_CC), 0);
	if (!m->from_name)
		m->from_name = xstrdup("");
	if (!m->from_email)
		m->from_email = xstrdup("");
	dt = g_mime_message_get_date(msg);
	if (dt) {
		m->has_date = 1;
		m->date = g_date_time_to_unix(dt);
		m->tz_offset_min = (int)(g_date_time_get_utc_offset(dt) /
					 G_TIME_SPAN_MINUTE);
	}
	if (!*m->message_id && !*m->subject && !*m->from_email) {
		*reason = xstrdup("not a mail message (no Message-ID, Subject "
				  "or From header)");
		goto out;
	}
	if (lim.keep_raw) {
		m->raw = xmalloc(len + 1);
		memcpy(m->raw, copy, len);
		m->raw[len] = '\0';
		m->raw_len = len;
	}
	collect_body(g_mime_message_get_mime_part(msg), &body);
	m->body_len = body.len;
	m->body = strbuf_detach(&body, NULL);
	*out = m;
	m = NULL;
	ret = 0;
out:
	if (msg)
		g_object_unref(msg);
	if (parser)
		g_object_unref(parser);
	if (stream)
		g_object_unref(stream);
	free(copy);
	mail_free(m);
	strbuf_release(&body);
	if (ret && !*reason)
		*reason = xstrdup("cannot parse the message");
	return ret;
}

/*
 * A separator line: "From " then a sender without spaces, then something
 * date-like (a ':' from the time and a digit).  Both git format-patch
 * ("From 1a2b... Mon Sep 17 00:00:00 2001") and lore ("From mboxrd@z Thu
 * Jan  1 00:00:00 1970") match; "From the start, ..." in a body does not.
 */
static int is_from_line(const char *line, size_t len)
{
	const char *p = line + 5, *end = line + len;
	int colon = 0, digit = 0;

	if (len < 5 || memcmp(line, "From ", 5))
		return 0;
	while (p < end && *p != ' ' && *p != '\n')
		p++;
	if (p == line + 5 || p >= end || *p != ' ')
		return 0;
	for (; p < end; p++) {
		if (*p == ':')
			colon = 1;
		else if (isdigit((unsigned char)*p))
			digit = 1;
	}
	return colon && digit;
}

/* A line of the current message is kept in pieces of at most this size. */
#define CHUNK 65536

struct splitter {
	const char *name;
	struct mail_limits lim;
	mail_cb cb;
	void *data;
	struct strbuf msg;
	size_t index;		/* messages handed out so far */
	int too_big;		/* the current message passed the cap */
	int in_mbox;		/* the input started with a From line */
	int prev_blank;		/* the previous line was empty */
	int started;		/* some line of the current message seen */
};

/*
 * The Message-ID of a message GMime did not take, from its header block,
 * so that a skipped message can still be named.  NULL if none.
 */
static char *header_msgid(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end && *p != '\n') {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (n > 11 && !strncasecmp(p, "Message-ID:", 11)) {
			const char *lt = memchr(p, '<', n);
			const char *gt = NULL;

			if (lt)
				gt = memchr(lt, '>', n - (size_t)(lt - p));

			if (lt && gt && gt - lt > 1 && gt - lt < 1000 &&
			    !memchr(lt, '\0', (size_t)(gt - lt)))
				return xstrndup(lt + 1, (size_t)(gt - lt - 1));
			return NULL;
		}
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

static int flush_message(struct splitter *sp)
{
	struct mail_skip skip = { 0 };
	struct mail *m = NULL;
	char *reason = NULL;
	int ret;

	if (!sp->started)
		return 0;
	if (sp->index >= sp->lim.max_messages)
		return error("mail", "%s: more than %zu messages", sp->name,
			     sp->lim.max_messages);
	skip.index = sp->index;
	/*
	 * The blank line before a separator belongs to the mbox format, not
	 * to the message: drop it, so that body bytes do not depend on the
	 * message's position in the file.
	 */
	if (sp->in_mbox && sp->msg.len >= 2 &&
	    !memcmp(sp->msg.buf + sp->msg.len - 2, "\n\n", 2))
		sp->msg.len--;
	if (sp->too_big) {
		if (asprintf(&reason, "message exceeds the limit of %zu bytes",
			     sp->lim.max_message_bytes) < 0)
			reason = NULL;
	} else if (mail_parse(sp->msg.buf, sp->msg.len, &sp->lim, &m,
			      &reason) == 0) {
		m->index = sp->index;
	}
	if (!m) {
		skip.reason = reason ? reason : xstrdup("unreadable");
		reason = NULL;
		if (!sp->too_big)
			skip.message_id = header_msgid(sp->msg.buf,
						       sp->msg.len);
	}
	ret = sp->cb(m, m ? NULL : &skip, sp->data);
	free(skip.message_id);
	free(skip.reason);
	free(reason);
	sp->index++;
	strbuf_reset(&sp->msg);
	sp->too_big = 0;
	sp->started = 0;
	return ret;
}

static void add_piece(struct splitter *sp, const char *p, size_t n)
{
	if (sp->too_big)
		return;
	if (sp->msg.len + n > sp->lim.max_message_bytes) {
		sp->too_big = 1;
		strbuf_release(&sp->msg);
		return;
	}
	strbuf_add(&sp->msg, p, n);
}

/* Buffered reading of lines of at most CHUNK bytes, NULs included. */
struct reader {
	FILE *f;
	char *buf;
	size_t pos, len;
	int eof;
};

/* Returns 1 and the next piece in *p and *n, 0 at the end, -1 on error. */
static int reader_line(struct reader *r, const char **p, size_t *n)
{
	char *nl;

	if (r->len - r->pos < CHUNK && !r->eof) {
		size_t got;

		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
		got = fread(r->buf + r->len, 1, 2 * CHUNK - r->len, r->f);
		r->len += got;
		if (got == 0 || r->len < 2 * CHUNK) {
			if (ferror(r->f))
				return -1;
			if (feof(r->f))
				r->eof = 1;
		}
	}
	if (r->pos == r->len)
		return 0;
	*p = r->buf + r->pos;
	nl = memchr(*p, '\n', r->len - r->pos < CHUNK ? r->len - r->pos :
		    CHUNK);
	*n = nl ? (size_t)(nl - *p) + 1 :
		  (r->len - r->pos < CHUNK ? r->len - r->pos : CHUNK);
	r->pos += *n;
	return 1;
}

int mail_read(FILE *f, const char *name, const struct mail_limits *limits,
	      mail_cb cb, void *data)
{
	struct splitter sp = { 0 };
	struct reader rd = { 0 };
	const char *p;
	size_t n, total = 0;
	int at_start = 1, first = 1, ret = -1, r;

	rd.f = f;
	rd.buf = xmalloc(2 * CHUNK);
	limits_fill(&sp.lim, limits);
	sp.name = name ? name : "mbox";
	sp.cb = cb;
	sp.data = data;
	strbuf_init(&sp.msg);
	sp.prev_blank = 1;

	while ((r = reader_line(&rd, &p, &n)) > 0) {
		int whole = p[n - 1] == '\n';

		total += n;
		if (total > sp.lim.max_bytes) {
			error("mail", "%s: larger than the limit of %zu bytes",
			      sp.name, sp.lim.max_bytes);
			goto out;
		}
		if (at_start) {
			int from = is_from_line(p, n);

			if (first)
				sp.in_mbox = from;
			first = 0;
			if (sp.in_mbox && sp.prev_blank && from) {
				if (flush_message(&sp))
					goto out;
				sp.started = 1;
				at_start = whole;
				sp.prev_blank = 0;
				continue;
			}
			if (sp.in_mbox && p[0] == '>') {
				size_t q = 0;

				while (q < n && p[q] == '>')
					q++;
				if (n - q >= 5 && !memcmp(p + q, "From ", 5))
					p++, n--;
			}
			sp.prev_blank = (n == 1 && p[0] == '\n') ||
					(n == 2 && p[0] == '\r' &&
					 p[1] == '\n');
		} else {
			sp.prev_blank = 0;
		}
		sp.started = 1;
		add_piece(&sp, p, n);
		at_start = whole;
	}
	if (r < 0) {
		error("mail", "%s: read error: %s", sp.name, strerror(errno));
		goto out;
	}
	if (flush_message(&sp))
		goto out;
	ret = 0;
out:
	free(rd.buf);
	strbuf_release(&sp.msg);
	return ret;
}

static int collect_cb(struct mail *m, const struct mail_skip *skip,
		      void *data)
{
	struct mail_box *box = data;

	if (m) {
		ALLOC_GROW(box->mails, box->nr + 1, box->alloc);
		box->mails[box->nr++] = m;
	} else {
		struct mail_skip *v;

		ALLOC_GROW(box->skipped, box->nr_skipped + 1,
			   box->alloc_skipped);
		v = box->skipped;
		v[box->nr_skipped].index = skip->index;
		v[box->nr_skipped].message_id = skip->message_id ?
			xstrdup(skip->message_id) : NULL;
		v[box->nr_skipped].reason = xstrdup(skip->reason);
		box->nr_skipped++;
	}
	return 0;
}

int mail_box_read(struct mail_box *box, FILE *f, const char *name,
		  const struct mail_limits *lim)
{
	return mail_read(f, name, lim, collect_cb, box);
}

int mail_box_read_buf(struct mail_box *box, const char *buf, size_t len,
		      const char *name, const struct mail_limits *lim)
{
	FILE *f;
	int ret;

	if (!len)
		return 0;
	f = fmemopen((void *)buf, len, "r");
	if (!f)
		return error("mail", "%s: fmemopen: %s", name ? name : "buffer",
			     strerror(errno));
	ret = mail_box_read(box, f, name, lim);
	fclose(f);
	return ret;
}

int mail_box_check(const char *buf, size_t len, struct strbuf *why)
{
	const char *nul = len ? memchr(buf, '\0', len) : NULL;
	size_t i, line = 1;

	if (!len) {
		strbuf_addstr(why, "the mbox is empty");
		return -1;
	}
	if (nul) {
		for (i = 0; i < (size_t)(nul - buf); i++)
			line += buf[i] == '\n';
		strbuf_addf(why, "a NUL byte at line %zu (mail has none)",
			    line);
		return -1;
	}
	if (len >= 5 && !memcmp(buf, "From ", 5))
		return 0;
	for (i = 0; i < len && i < 80; i++) {
		unsigned char c = buf[i];

		if (c == ':' && i > 0)
			return 0;
		if (c <= ' ' || c >= 0x7f)
			break;
	}
	strbuf_addstr(why, "not an mbox or a mail: it starts with neither a "
		      "\"From \" line nor a header");
	return -1;
}

void mail_skip_describe(const struct mail_skip *skip, struct strbuf *sb)
{
	strbuf_addf(sb, "message %zu%s%s%s skipped: %s", skip->index + 1,
		    skip->message_id ? " <" : "",
		    skip->message_id ? skip->message_id : "",
		    skip->message_id ? ">" : "", skip->reason);
}

int mail_box_read_file(struct mail_box *box, const char *path,
		       const struct mail_limits *lim)
{
	FILE *f = stdin;
	int ret;

	if (strcmp(path, "-")) {
		f = fopen(path, "re");
		if (!f)
			return error("mail", "%s: %s", path, strerror(errno));
	}
	ret = mail_box_read(box, f, path, lim);
	if (f != stdin)
		fclose(f);
	return ret;
}

int mail_parse_address(const char *value, char **name, char **email)
{
	InternetAddressList *list;
	InternetAddress *a;
	int ret = -1;

	*name = *email = NULL;
	pthread_once(&gmime_once, gmime_setup);
	list = internet_address_list_parse(NULL, value);
	if (!list)
		return -1;
	if (internet_address_list_length(list) > 0) {
		a = internet_address_list_get_address(list, 0);
		if (INTERNET_ADDRESS_IS_MAILBOX(a)) {
			*name = xstrdup(internet_address_get_name(a));
			*email = xstrdup(internet_address_mailbox_get_addr(
				INTERNET_ADDRESS_MAILBOX(a)));
			ret = 0;
		}
	}
	g_object_unref(list);
	return ret;
}

int mail_addresses(const char *value, char ***emails, size_t *n)
{
	InternetAddressList *list;
	struct mail m = { 0 };

	*emails = NULL;
	*n = 0;
	pthread_once(&gmime_once, gmime_setup);
	list = internet_address_list_parse(NULL, value);
	if (!list)
		return -1;
	add_recipients(&m, list, 1);
	g_object_unref(list);
	ALLOC_GROW(m.recipients, m.nr_recipients + 1, m.alloc_recipients);
	m.recipients[m.nr_recipients] = NULL;
	*emails = m.recipients;
	*n = m.nr_recipients;
	return *n ? 0 : -1;
}

int mail_parse_date(const char *value, int64_t *date, int *tz_offset_min)
{
	GDateTime *dt;

	pthread_once(&gmime_once, gmime_setup);
	dt = g_mime_utils_header_decode_date(value);
	if (!dt)
		return -1;
	*date = g_date_time_to_unix(dt);
	*tz_offset_min = (int)(g_date_time_get_utc_offset(dt) /
			       G_TIME_SPAN_MINUTE);
	g_date_time_unref(dt);
	return 0;
}

/* Adds the mailboxes of value ("A <a@x>, b@y") to the message's list. */
static int add_addresses(GMimeMessage *msg, GMimeAddressType type,
			 const char *value, struct strbuf *err)
{
	InternetAddressList *list;
	int ok;

	list = internet_address_list_parse(NULL, value);
	ok = list && internet_address_list_length(list) > 0;
	if (ok)
		internet_address_list_append(
			g_mime_message_get_addresses(msg, type), list);
	else
		strbuf_addf(err, "not a mail address: %s", value);
	if (list)
		g_object_unref(list);
	return ok ? 0 : -1;
}

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* A header value may not hold a line break (no header injection). */
static int one_line(const char *s)
{
	return !strpbrk(s, "\r\n");
}

int mail_compose(const struct mail_out *m, struct strbuf *out,
		 struct strbuf *err)
{
	GMimeFormatOptions *fo = NULL;
	GMimeDataWrapper *content;
	GMimeStream *stream;
	GMimeMessage *msg;
	GMimeTextPart *part;
	GDateTime *dt;
	const char *const *h;
	char *text = NULL, id[1024];
	int ret = -1;

	pthread_once(&gmime_once, gmime_setup);
	msg = g_mime_message_new(TRUE);
	if (add_addresses(msg, GMIME_ADDRESS_TYPE_FROM, m->from, err))
		goto out;
	for (h = m->to; h && *h; h++)
		if (add_addresses(msg, GMIME_ADDRESS_TYPE_TO, *h, err))
			goto out;
	for (h = m->cc; h && *h; h++)
		if (add_addresses(msg, GMIME_ADDRESS_TYPE_CC, *h, err))
			goto out;
	if (!one_line(m->subject) || !one_line(m->message_id) ||
	    (m->in_reply_to && !one_line(m->in_reply_to)) ||
	    (m->references && !one_line(m->references))) {
		strbuf_addstr(err, "a line break in a header");
		goto out;
	}
	g_mime_message_set_subject(msg, m->subject, "utf-8");
	dt = g_date_time_new_from_unix_utc(m->date);
	g_mime_message_set_date(msg, dt);
	g_date_time_unref(dt);
	g_mime_message_set_message_id(msg, m->message_id);
	if (m->in_reply_to) {
		snprintf(id, sizeof(id), "<%s>", m->in_reply_to);
		g_mime_object_set_header(GMIME_OBJECT(msg), "In-Reply-To", id,
					 NULL);
	}
	if (m->references) {
		snprintf(id, sizeof(id), "<%s>", m->references);
		g_mime_object_set_header(GMIME_OBJECT(msg), "References", id,
					 NULL);
	}
	for (h = m->headers; h && *h; h++) {
		const char *colon = strchr(*h, ':');
		char name[128];

		if (!colon || colon == *h || (size_t)(colon - *h) >=
		    sizeof(name) || !one_line(*h)) {
			strbuf_addf(err, "not a header line: %s", *h);
			goto out;
		}
		memcpy(name, *h, (size_t)(colon - *h));
		name[colon - *h] = '\0';
		g_mime_object_set_header(GMIME_OBJECT(msg), name,
					 colon + 1 + strspn(colon + 1, " "),
					 "utf-8");
	}
	/* The body's own bytes (g_mime_text_part_set_text() would pick a
	 * charset of its own, ISO-8859-1 for "ä"). */
	part = g_mime_text_part_new_with_subtype("plain");
	stream = g_mime_stream_mem_new_with_buffer(m->body, strlen(m->body));
	content = g_mime_data_wrapper_new_with_stream(stream,
					GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(GMIME_PART(part), content);
	g_object_unref(content);
	g_object_unref(stream);
	g_mime_text_part_set_charset(part, "utf-8");
	g_mime_part_set_content_encoding(GMIME_PART(part),
		is_ascii(m->body) ? GMIME_CONTENT_ENCODING_7BIT :
				    GMIME_CONTENT_ENCODING_8BIT);
	g_mime_message_set_mime_part(msg, GMIME_OBJECT(part));
	g_object_unref(part);
	fo = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(fo,
						 GMIME_NEWLINE_FORMAT_UNIX);
	text = g_mime_object_to_string(GMIME_OBJECT(msg), fo);
	if (!text) {
		strbuf_addstr(err, "GMime cannot write the message");
		goto out;
	}
	strbuf_addstr(out, text);
	ret = 0;
out:
	g_free(text);
	if (fo)
		g_mime_format_options_free(fo);
	g_object_unref(msg);
	return ret;
}
