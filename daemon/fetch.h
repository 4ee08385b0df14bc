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
};

void fetch_result_release(struct fetch_result *r);

/*
 * One GET of url (allowlist checked for it and every redirect).  Blocks
 * for at most the timeouts.  Returns 0 when an answer came (any status,
 * also 304; the caller judges r->status), -1 (logged) when refused, on a
 * transport error, a timeout, too many redirects or too large a body.
 */
int fetch_get(const char *url, const struct fetch_options *fo,
	      struct fetch_result *r);

/*
 * What `series parse URL` and the daemon's fetch stage do: resolve url,
 * fetch it (through the patchwork JSON to its mbox link if need be), check
 * for HTTP 200, decode gzip, and append the mbox bytes to out.  Returns 0
 * or -1 (logged, with the URL and the reason).
 */
int fetch_mbox(const char *url, const struct fetch_options *fo,
	       struct strbuf *out);

#endif
