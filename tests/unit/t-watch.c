/*
 * t-watch.c - the list watcher's pure parts: Atom feed parsing (atom.c)
 * and the decisions of watch_rules.c, on tests/fixtures/mail/feed.atom
 * (written like lore's new.atom) and the mail fixtures.
 */
#include <stdlib.h>
#include <string.h>

#include "atom.h"
#include "mail.h"
#include "series.h"
#include "strbuf.h"
#include "tap.h"
#include "watch_rules.h"

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

static void test_msgid_from_url(void)
{
	char *id;

	id = atom_msgid_from_url("https://lore.kernel.org/linux-mm/"
				 "20240604105950.1134192-1-a@b.com/");
	is_str(id, "20240604105950.1134192-1-a@b.com", "message URL");
	free(id);
	id = atom_msgid_from_url("https://lore.kernel.org/all/a%2Fb%40c/T/#u");
	is_str(id, "a/b@c", "percent-decoded, /T/#u dropped");
	free(id);
	id = atom_msgid_from_url("https://lore.kernel.org/lkml/x@y/raw");
	is_str(id, "x@y", "/raw dropped");
	free(id);
	id = atom_msgid_from_url("https://lore.kernel.org/");
	ok(id == NULL, "no path segment: no Message-ID");
	free(id);
	id = atom_msgid_from_url("https://h/l/a%00b/");
	ok(id == NULL, "an encoded NUL is refused");
	free(id);
}

static void test_feed(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct atom_feed feed;
	size_t i, patches = 0, replies = 0;

	is_int(strbuf_read_file(&text, fixture("feed.atom"), 1 << 20), 0,
	       "read feed.atom");
	is_int(atom_parse(text.buf, text.len, &feed, &err), 0,
	       "feed.atom parses");
	is_int(feed.nr, 7, "seven entries");
	for (i = 0; i < feed.nr; i++) {
		if (!strncmp(feed.entries[i].title, "[PATCH v2", 9))
			patches++;
		if (feed.entries[i].in_reply_to)
			replies++;
	}
	is_int(patches, 4, "cover letter and three patches");
	is_int(replies, 5, "five entries answer another");
	if (feed.nr) {
		const struct atom_entry *e = &feed.entries[0];

		is_str(e->title, "[PATCH v2 1/3] mm: clear huge pages in "
		       "forward order", "first title");
		is_str(e->author_name, "J\xc3\xb6rg M\xc3\xbcller",
		       "character references decoded");
		ok(e->message_id && strstr(e->message_id, ".git.joerg.mueller@"
					   "example.org"), "Message-ID");
		ok(e->in_reply_to && !strncmp(e->in_reply_to, "cover.", 6),
		   "in-reply-to the cover letter");
		is_int(e->updated, 1717744500, "updated 2024-06-07T07:15:00Z");
		ok(e->link && !strncmp(e->link, "@@BASE@@/lkml/", 14), "link");
	}
	atom_feed_release(&feed);

	strbuf_reset(&err);
	is_int(atom_parse("<feed><entry><title>x</entry></feed>", 36, &feed,
			  &err), -1, "malformed XML is refused");
	ok(strstr(err.buf, "not well-formed") != NULL, "%s", err.buf);
	strbuf_reset(&err);
	is_int(atom_parse("<html><body/></html>", 20, &feed, &err), -1,
	       "HTML is not a feed");
	ok(strstr(err.buf, "not an Atom feed") != NULL, "%s", err.buf);
	strbuf_reset(&err);
	is_int(atom_parse("\x01\x02garbage\0", 10, &feed, &err), -1,
	       "binary garbage is refused");
	strbuf_reset(&err);
	is_int(atom_parse("<feed xmlns='http://www.w3.org/2005/Atom'/>", 43,
			  &feed, &err), 0, "an empty feed parses");
	is_int(feed.nr, 0, "with no entries");
	atom_feed_release(&feed);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_entry_filter(void)
{
	char *subject_res[] = { "^mm(/[a-z_]+)?:" };
	char *bad[] = { "mm(" };
	struct strbuf err = STRBUF_INIT;
	struct watch_filter f, none;
	const char *why = "";
	int w;

	is_int(watch_filter_init(&f, subject_res, 1, NULL, 0, &err), 0,
	       "subject filter compiles");
	is_int(watch_filter_init(&none, NULL, 0, NULL, 0, &err), 0,
	       "empty filter");
	ok(watch_entry_wanted(&f, "[PATCH v2 1/3] mm: clear", &why),
	   "an mm patch is wanted");
	ok(watch_entry_wanted(&f, "[PATCH 0/2] mm/mremap: x", &why),
	   "an mm/mremap cover letter is wanted");
	w = watch_entry_wanted(&f, "[PATCH net-next] net: tweak", &why);
	ok(!w && !strcmp(why, "subject filter does not match"),
	   "a net patch is not: %s", why);
	w = watch_entry_wanted(&f, "Re: [PATCH v2 1/3] mm: clear", &why);
	ok(!w && !strcmp(why, "a reply"), "a reply is not: %s", why);
	w = watch_entry_wanted(&none, "mm: no prefix", &why);
	ok(!w, "no [PATCH] prefix: %s", why);
	ok(watch_entry_wanted(&none, "[RFC] anything", &why),
	   "no filter: any [RFC] is wanted");
	{
		char *full[] = { "^\\[PATCH" };
		struct watch_filter g;

		watch_filter_init(&g, full, 1, NULL, 0, &err);
		ok(watch_entry_wanted(&g, "[PATCH v2 1/3] net: x", &why),
		   "a filter on the whole subject matches too");
		watch_filter_release(&g);
	}
	watch_filter_release(&f);
	is_int(watch_filter_init(&f, bad, 1, NULL, 0, &err), -1,
	       "a bad regex is refused");
	ok(strstr(err.buf, "subject filter 'mm('") != NULL, "%s", err.buf);
	watch_filter_release(&none);
	strbuf_release(&err);
}

static void test_decide(void)
{
	char *subject_res[] = { "^mm" };
	char *mm_globs[] = { "mm/*" };
	char *net_globs[] = { "net/*", "drivers/net/*" };
	char *page_io[] = { "mm/page_io.c" };
	struct strbuf err = STRBUF_INIT;
	struct series *full = parse_file("v2-series.mbox");
	struct series *part = parse_file("missing-2.mbox");
	struct series *disc = parse_file("discussion.mbox");
	struct watch_filter mm, net, one, none;
	const char *why;
	char *key;

	watch_filter_init(&mm, subject_res, 1, mm_globs, 1, &err);
	watch_filter_init(&net, NULL, 0, net_globs, 2, &err);
	watch_filter_init(&one, NULL, 0, page_io, 1, &err);
	watch_filter_init(&none, NULL, 0, NULL, 0, &err);
	if (!full || !part || !disc) {
		ok(0, "fixtures parse");
		return;
	}
	is_int(watch_decide(&mm, full, 1000, 1000, 3600, &why), WATCH_QUEUE,
	       "a complete mm series on mm/: queue");
	is_int(watch_decide(&one, full, 1000, 1000, 3600, &why), WATCH_QUEUE,
	       "one touched file matching is enough");
	is_int(watch_decide(&net, full, 1000, 1000, 3600, &why), WATCH_SKIP,
	       "a net path filter skips it");
	is_str(why, "no touched file matches the path filter", "why");
	is_int(watch_decide(&mm, part, 1000, 2000, 3600, &why), WATCH_WAIT,
	       "incomplete within the wait: wait");
	is_int(watch_decide(&mm, part, 1000, 4600, 3600, &why), WATCH_GIVE_UP,
	       "incomplete after the wait: give up");
	is_int(watch_decide(&none, disc, 1000, 1000, 3600, &why), WATCH_SKIP,
	       "a discussion: skip");
	is_str(why, "no patch in the thread", "why");
	key = watch_series_key(full);
	ok(key && !strncmp(key, "<cover.", 7) && strstr(key, "> v2"),
	   "series key from the cover letter: %s", key ? key : "(null)");
	free(key);
	ok(watch_series_key(disc) == NULL, "a discussion has no key");
	watch_filter_release(&mm);
	watch_filter_release(&net);
	watch_filter_release(&one);
	watch_filter_release(&none);
	series_free(full);
	series_free(part);
	series_free(disc);
	strbuf_release(&err);
}

static void test_seen(void)
{
	struct watch_seen s;
	char key[32];
	int i, dup = 0;

	watch_seen_init(&s, 100);
	is_int(watch_seen_add(&s, "a@x"), 0, "new id");
	is_int(watch_seen_add(&s, "a@x"), 1, "same id again: seen");
	for (i = 0; i < 150; i++) {
		snprintf(key, sizeof(key), "k%d@x", i);
		dup += watch_seen_add(&s, key);
	}
	is_int(dup, 0, "150 new ids");
	is_int(s.nr, 100, "the set stays bounded");
	ok(!watch_seen_has(&s, "a@x") && !watch_seen_has(&s, "k49@x"),
	   "the oldest are forgotten");
	ok(watch_seen_has(&s, "k50@x") && watch_seen_has(&s, "k149@x"),
	   "the newest are kept");
	watch_seen_release(&s);
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/mail",
		 src ? src : ".");
	test_msgid_from_url();
	test_feed();
	test_entry_filter();
	test_decide();
	test_seen();
	return done_testing();
}
