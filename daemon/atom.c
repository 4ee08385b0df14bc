/*
 * atom.c - parsing public-inbox Atom feeds with GLib's GMarkup.
 *
 * GLib comes with GMime (mail.c); its small, strict XML parser is enough
 * for the feeds public-inbox writes (well-formed, the predefined entities
 * only) and refuses anything malformed, which then is a clear error rather
 * than a guess.  Only the elements the watcher needs are looked at; the
 * <content> of entries, which holds whole messages, is skipped without
 * being copied.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "alloc.h"
#include "atom.h"
#include "log.h"
#include "strbuf.h"

enum field {
	F_NONE,
	F_TITLE,
	F_UPDATED,
	F_NAME,
	F_EMAIL,
};

struct state {
	struct atom_feed *feed;
	struct atom_entry *cur;	/* the entry being read, or NULL */
	int is_feed;		/* the root element was <feed> */
	int depth;
	int in_author;
	enum field field;
	struct strbuf text;
};

static const char *local_name(const char *name)
{
	const char *colon = strrchr(name, ':');

	return colon ? colon + 1 : name;
}

static const char *attr(const char **names, const char **values,
			const char *want)
{
	for (; *names; names++, values++)
		if (!strcmp(*names, want))
			return *values;
	return NULL;
}

char *atom_msgid_from_url(const char *url)
{
	const char *p, *end, *start;
	struct strbuf sb = STRBUF_INIT;

	if (!url)
		return NULL;
	p = strstr(url, "://");
	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	while (end > p && end[-1] == '/')
		end--;
	/* .../MSGID/T/, .../MSGID/t/, .../MSGID/raw name the same message */
	for (start = end; start > p && start[-1] != '/'; start--)
		;
	if ((end - start == 1 && (*start == 'T' || *start == 't')) ||
	    (end - start == 3 && !memcmp(start, "raw", 3))) {
		end = start;
		while (end > p && end[-1] == '/')
			end--;
		for (start = end; start > p && start[-1] != '/'; start--)
			;
	}
	if (start == p || end == start)
		return NULL;	/* only a host, no path segment */
	for (; start < end; start++) {
		if (*start == '%' && end - start >= 3 &&
		    isxdigit((unsigned char)start[1]) &&
		    isxdigit((unsigned char)start[2])) {
			char hex[3] = { start[1], start[2], 0 };

			strbuf_addch(&sb, (int)strtol(hex, NULL, 16));
			start += 2;
		} else {
			strbuf_addch(&sb, *start);
		}
	}
	if (memchr(sb.buf, '\0', sb.len) || !sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static void on_start(GMarkupParseContext *ctx, const char *name,
		     const char **names, const char **values, gpointer data,
		     GError **gerr)
{
	struct state *st = data;
	const char *ln = local_name(name);

	st->depth++;
	if (st->depth == 1) {
		st->is_feed = !strcmp(ln, "feed");
		return;
	}
	if (!st->is_feed)
		return;
	if (st->depth == 2 && !strcmp(ln, "entry")) {
		struct atom_feed *f = st->feed;

		st->cur = NULL;
		if (f->nr >= ATOM_MAX_ENTRIES)
			return;
		ALLOC_GROW(f->entries, f->nr + 1, f->alloc);
		st->cur = &f->entries[f->nr++];
		memset(st->cur, 0, sizeof(*st->cur));
		return;
	}
	if (!st->cur || st->depth < 3)
		return;
	if (st->depth == 3 && !strcmp(ln, "author")) {
		st->in_author = 1;
		return;
	}
	if (st->depth == 3 && !strcmp(name, "link")) {
		const char *rel = attr(names, values, "rel");
		const char *href = attr(names, values, "href");

		if (href && !st->cur->link &&
		    (!rel || !strcmp(rel, "alternate"))) {
			st->cur->link = xstrdup(href);
			st->cur->message_id = atom_msgid_from_url(href);
		}
		return;
	}
	if (st->depth == 3 && !strcmp(ln, "in-reply-to")) {
		const char *href = attr(names, values, "href");

		if (href && !st->cur->in_reply_to)
			st->cur->in_reply_to = atom_msgid_from_url(href);
		return;
	}
	st->field = F_NONE;
	if (st->depth == 3 && !strcmp(ln, "title"))
		st->field = F_TITLE;
	else if (st->depth == 3 && !strcmp(ln, "updated"))
		st->field = F_UPDATED;
	else if (st->depth == 4 && st->in_author && !strcmp(ln, "name"))
		st->field = F_NAME;
	else if (st->depth == 4 && st->in_author && !strcmp(ln, "email"))
		st->field = F_EMAIL;
	strbuf_reset(&st->text);
	(void)ctx;
	(void)gerr;
}

static void on_end(GMarkupParseContext *ctx, const char *name, gpointer data,
		   GError **gerr)
{
	struct state *st = data;
	struct atom_entry *e = st->cur;

	if (e && st->field != F_NONE) {
		char *v = xstrdup(st->text.buf);

		switch (st->field) {
		case F_TITLE:
			free(e->title);
			e->title = v;
			break;
		case F_NAME:
			free(e->author_name);
			e->author_name = v;
			break;
		case F_EMAIL:
			free(e->author_email);
			e->author_email = v;
			break;
		case F_UPDATED: {
			GDateTime *dt = g_date_time_new_from_iso8601(v, NULL);

			if (dt) {
				e->updated = g_date_time_to_unix(dt);
				g_date_time_unref(dt);
			}
			free(v);
			break;
		}
		default:
			free(v);
		}
		st->field = F_NONE;
	}
	if (st->depth == 3 && !strcmp(local_name(name), "author"))
		st->in_author = 0;
	if (st->depth == 2)
		st->cur = NULL;
	st->depth--;
	(void)ctx;
	(void)gerr;
}

static void on_text(GMarkupParseContext *ctx, const char *text, gsize len,
		    gpointer data, GError **gerr)
{
	struct state *st = data;

	if (st->cur && st->field != F_NONE && st->text.len < 4096)
		strbuf_add(&st->text, text, len);
	(void)ctx;
	(void)gerr;
}

static void entry_fill(struct atom_entry *e)
{
	if (!e->title)
		e->title = xstrdup("");
	if (!e->author_name)
		e->author_name = xstrdup("");
	if (!e->author_email)
		e->author_email = xstrdup("");
}

int atom_parse(const char *text, size_t len, struct atom_feed *out,
	       struct strbuf *err)
{
	static const GMarkupParser parser = {
		on_start, on_end, on_text, NULL, NULL,
	};
	struct state st;
	GMarkupParseContext *ctx;
	GError *gerr = NULL;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	st.feed = out;
	strbuf_init(&st.text);
	if (memchr(text, '\0', len)) {
		strbuf_addstr(err, "not XML: holds a NUL byte");
		goto out_nogerr;
	}
	ctx = g_markup_parse_context_new(&parser, 0, &st, NULL);
	if (!g_markup_parse_context_parse(ctx, text, (gssize)len, &gerr) ||
	    !g_markup_parse_context_end_parse(ctx, &gerr)) {
		strbuf_addf(err, "not well-formed XML: %s",
			    gerr ? gerr->message : "parse error");
		g_markup_parse_context_free(ctx);
		goto out;
	}
	g_markup_parse_context_free(ctx);
	if (!st.is_feed) {
		strbuf_addstr(err, "not an Atom feed (no <feed> root)");
		goto out;
	}
	for (i = 0; i < out->nr; i++)
		entry_fill(&out->entries[i]);
	ret = 0;
out:
	if (gerr)
		g_error_free(gerr);
out_nogerr:
	strbuf_release(&st.text);
	if (ret) {
		for (i = 0; i < out->nr; i++)
			entry_fill(&out->entries[i]);
		atom_feed_release(out);
	}
	return ret;
}

void atom_feed_release(struct atom_feed *feed)
{
	size_t i;

	for (i = 0; i < feed->nr; i++) {
		struct atom_entry *e = &feed->entries[i];

		free(e->title);
		free(e->link);
		free(e->message_id);
		free(e->in_reply_to);
		free(e->author_name);
		free(e->author_email);
	}
	free(feed->entries);
	memset(feed, 0, sizeof(*feed));
}
