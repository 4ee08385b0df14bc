/*
 * fetch.h - mail over HTTP(S): lore/public-inbox and patchwork, through
 * net.c.
 *
 * A URL a kernel developer pastes is mapped to the mbox it stands for
 * (fetch_resolve, pure), every URL, redirect target and patchwork "mbox"
 * link passes the caller's allowlist (allowlist.c) before any request is
 * made, and the body is read with a size cap (after gzip decoding, so a
 * small bomb cannot grow past it), connect and total timeouts, TLS peer
 * and host verification, and at most max_redirects redirects.
 */
#ifndef KREGRESS_FETCH_H
#define KREGRESS_FETCH_H

#include <stddef.h>

struct strbuf;

struct fetch_options {
	/* URL prefixes, NULL-terminated: see allowlist_check() */
	const char *const *allow;
	size_t max_bytes;	/* decoded body; default 32 MiB */
	int connect_timeout_s;	/* default 10 */
	int total_timeout_s;	/* per request; default 60 */
	int max_redirects;	/* default 5 */
	/* conditional request (watcher); NULL for none */
	const char *if_none_match;	/* an ETag from a previous answer */
	const char *if_modified_since;	/* a Last-Modified value */
};

void fetch_options_init(struct fetch_options *fo);

enum fetch_kind {
	FETCH_MBOX,		/* the URL is an mbox (maybe gzipped) */
	FETCH_MESSAGE,		/* one raw message (lore .../raw) */
	FETCH_PATCHWORK,	/* patchwork /api/.../series/ID/: JSON */
};

const char *fetch_kind_str(enum fetch_kind kind);

/* 1 when s looks like a URL ("scheme://..."), else 0 (a file name). */
int fetch_is_url(const char *s);

/*
 * Pure: maps a URL to what must be fetched.  A lore message URL
 * (https://HOST/LIST/MSGID/, also .../T/, .../t/, #anchors) becomes that
 * thread's .../t.mbox.gz; .../raw, .../t.mbox.gz, patchwork .../mbox/ and
 * /api/[VERSION/]series/ID/ are kept.  The URL comes out normalised
 * (net_url_parse()).  *out is the caller's.
 */
int fetch_resolve(const char *url, char **out, enum fetch_kind *kind);

struct fetch_result {
	long status;		/* final HTTP status */
	char *etag;		/* NULL if none; caller frees via release */
	char *last_modified;
	char *content_type;
	char *status_text;	/* "HTTP 404 Not Found", as a user reads it */
	struct strbuf *body;	/* caller's; gzip bodies are decoded */
	int permanent;		/* fetch_get() failed for good: refused, a
				 * redirect loop, over the size cap */
};

void fetch_result_release(struct fetch_result *r);

/*
 * One GET of url (allowlist checked for it and every redirect).  Blocks
 * for at most the timeouts.  Returns 0 when an answer came (any status,
 * also 304; the caller judges r->status), -1 when refused, on a
 * transport error, a timeout, too many redirects, too large a body or bad
 * gzip data: then one line "URL: cause" is appended to why (not logged:
 * the caller logs it or makes it a series' reason), and r->permanent
 * says whether asking again cannot help.
 */
int fetch_get(const char *url, const struct fetch_options *fo,
	      struct fetch_result *r, struct strbuf *why);

/*
 * What `series parse URL` and the daemon's fetch stage do: resolve url,
 * fetch it (through the patchwork JSON to its mbox link if need be), check
 * for HTTP 200, decode gzip, and append the mbox bytes to out.  Returns 0,
 * or -1 with one line "URL: cause" appended to why (the refusal, the
 * HTTP status as the server put it, the cap, the transport error) and
 * *permanent set to 1 when fetching again cannot help: a URL refused by
 * the allowlist or not understood, an answer over a cap, a redirect loop,
 * an HTTP 4xx but 408 and 429, a patchwork answer without its mbox link;
 * to 0 when it may (5xx, a timeout, no route, a transfer cut short).
 * Nothing is logged.  why and permanent may be NULL.
 */
int fetch_mbox(const char *url, const struct fetch_options *fo,
	       struct strbuf *out, struct strbuf *why, int *permanent);

#endif
