/*
 * atom.h - public-inbox Atom feeds (new.atom, or a search with &x=A), the
 * list watcher's view of a mailing list.  Pure: text in, entries out.
 *
 * An entry is one message: its subject (the <title>), its link (the
 * message URL, https://HOST/LIST/MSGID/), the Message-ID taken from that
 * link, the parent's link from <thr:in-reply-to href=...>, the author and
 * the <updated> time.  The message body in <content> is not kept: the
 * watcher fetches the thread's mbox when an entry interests it.
 */
#ifndef KREGRESS_ATOM_H
#define KREGRESS_ATOM_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

struct atom_entry {
	char *title;		/* the mail's subject; "" if none */
	char *link;		/* message URL; NULL if the entry had none */
	char *message_id;	/* from link, percent-decoded; NULL if none */
	char *in_reply_to;	/* parent's Message-ID, or NULL */
	char *author_name;	/* "" if none */
	char *author_email;	/* "" if none */
	int64_t updated;	/* Unix time; 0 if missing or unparsable */
};

struct atom_feed {
	struct atom_entry *entries;	/* in feed order (newest first) */
	size_t nr, alloc;
};

#define ATOM_MAX_ENTRIES 1000

/*
 * Parses an Atom document of len bytes.  Entries beyond ATOM_MAX_ENTRIES
 * are dropped.  Returns 0, or -1 with the reason appended to err when the
 * text is not well-formed XML or not an Atom feed.  Never logs.
 */
int atom_parse(const char *text, size_t len, struct atom_feed *out,
	       struct strbuf *err);

void atom_feed_release(struct atom_feed *feed);

/*
 * The Message-ID in a public-inbox message URL: the last non-empty path
 * segment, percent-decoded (".../linux-mm/a%2Fb@x/" -> "a/b@x").  NULL
 * when there is none.  Caller frees.
 */
char *atom_msgid_from_url(const char *url);

#endif
