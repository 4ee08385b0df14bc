/*
 * fetch.c - HTTP(S) fetching of mail for the intake, on net.c.
 *
 * Every URL goes through allowlist_check() twice over: once as given (so
 * that a refused URL is not even resolved), and as net.c's check of each
 * request, the first and every redirect target, so the normalised URL
 * that passed is the one requested.  gzip bodies (lore's t.mbox.gz is a
 * gzip file, not a Content-Encoding) are inflated (gzip.c) under the
 * same cap as the download.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "allowlist.h"
#include "fetch.h"
#include "gzip.h"
#include "log.h"
#include "net.h"
#include "strbuf.h"

#define FETCH_MAX_BYTES_DEFAULT	NET_MAX_BYTES_DEFAULT
#define FETCH_MAX_JSON_BYTES	(1u << 20)
#define FETCH_VALIDATOR_MAX	1024	/* an ETag or a date kept */

void fetch_options_init(struct fetch_options *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->max_bytes = FETCH_MAX_BYTES_DEFAULT;
	fo->connect_timeout_s = 10;
	fo->total_timeout_s = 60;
	fo->max_redirects = 5;
}

const char *fetch_kind_str(enum fetch_kind kind)
{
	switch (kind) {
	case FETCH_MBOX:
		return "mbox";
	case FETCH_MESSAGE:
		return "message";
	case FETCH_PATCHWORK:
		return "patchwork";
	}
	return "unknown";
}

int fetch_is_url(const char *s)
{
	const char *p = s;

	while (isalpha((unsigned char)*p))
		p++;
	return p > s && !strncmp(p, "://", 3);
}

static int ends_with(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s + n - k, lit, k);
}

int fetch_resolve(const char *given, char **out, enum fetch_kind *kind)
{
	struct strbuf sb = STRBUF_INIT;
	const char *url, *path, *why;
	struct net_url u;
	size_t n;
	int ret = -1;

	*out = NULL;
	if (net_url_parse(given, &u, &why) || !*u.host)
		return -1;
	url = u.url;
	n = strlen(url);
	if (strlen(u.path) > n || strcmp(url + n - strlen(u.path), u.path))
		goto out;
	path = url + n - strlen(u.path);
	n = strcspn(url, "?");
	if (strstr(path, "/api/") && strstr(path, "/series/")) {
		*kind = FETCH_PATCHWORK;
		*out = xstrndup(url, strlen(url));
		ret = 0;
		goto out;
	}
	/* keep a query string for everything but lore message URLs */
	if (ends_with(url, n, "/t.mbox.gz") || ends_with(url, n, ".mbox") ||
	    ends_with(url, n, "/mbox/") || ends_with(url, n, "/mbox") ||
	    ends_with(url, n, ".mbox.gz")) {
		*kind = FETCH_MBOX;
		*out = xstrndup(url, strlen(url));
		ret = 0;
		goto out;
	}
	if (ends_with(url, n, "/raw") || ends_with(url, n, "/raw/")) {
		*kind = FETCH_MESSAGE;
		*out = xstrndup(url, n);
		ret = 0;
		goto out;
	}
	/* https://HOST/LIST/MSGID[/][T/|t/] -> .../t.mbox.gz */
	while (n && url[n - 1] == '/')
		n--;
	if (ends_with(url, n, "/T") || ends_with(url, n, "/t"))
		n -= 2;
	while (n && url[n - 1] == '/')
		n--;
	/* LIST/MSGID: two path segments at least, else it is no message */
	{
		const char *q = path;
		int segs = 0;

		while (q < url + n) {
			while (q < url + n && *q == '/')
				q++;
			if (q < url + n)
				segs++;
			while (q < url + n && *q != '/')
				q++;
		}
		if (segs < 2)
			goto out;
	}
	strbuf_add(&sb, url, n);
	strbuf_addstr(&sb, "/t.mbox.gz");
	*kind = FETCH_MBOX;
	*out = strbuf_detach(&sb, NULL);
	ret = 0;
out:
	net_url_release(&u);
	return ret;
}

void fetch_result_release(struct fetch_result *r)
{
	free(r->etag);
	free(r->last_modified);
	free(r->content_type);
	free(r->status_text);
	r->etag = r->last_modified = r->content_type = NULL;
	r->status_text = NULL;
}

/*
 * Inflates a gzip body in place under the cap; -1 with the reason in why
 * and *permanent set when the data cannot become good by fetching again
 * (too large once inflated; corrupt data may be a transfer cut short).
 */
static int gunzip(struct strbuf *body, size_t max, const char *url,
		  struct strbuf *why, int *permanent)
{
	struct strbuf out = STRBUF_INIT, reason = STRBUF_INIT;
	int too_large, ret = -1;

	if (gzip_inflate(body->buf, body->len, max, &out, &reason,
			 &too_large)) {
		strbuf_addf(why, "%s: %s", url, reason.buf);
		if (too_large)
			*permanent = 1;
		goto out;
	}
	strbuf_release(body);
	*body = out;
	strbuf_init(&out);
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&reason);
	return ret;
}

static int is_gzip(const struct strbuf *b)
{
	return b->len >= 2 && (unsigned char)b->buf[0] == 0x1f &&
	       (unsigned char)b->buf[1] == 0x8b;
}

/* net.c's check of each request: the allowlist, normalised URL kept. */
static int allowed(void *arg, const char *url, char **use, const char **why)
{
	const struct fetch_options *fo = arg;

	return allowlist_check(fo->allow, url, use, why);
}

/* A validator of the answer worth sending back next time, or NULL. */
static char *validator(const struct net_response *resp, const char *name)
{
	char *v = net_response_header(resp, name);

	if (v && strlen(v) >= FETCH_VALIDATOR_MAX) {
		free(v);
		v = NULL;
	}
	return v;
}

int fetch_get(const char *url, const struct fetch_options *fo,
	      struct fetch_result *r, struct strbuf *why)
{
	struct strbuf inm = STRBUF_INIT, ims = STRBUF_INIT;
	struct strbuf status = STRBUF_INIT;
	const char *headers[4] = { "Accept: */*" };
	struct net_request req = {
		.url = url,
		.headers = headers,
		.max_bytes = fo->max_bytes ? fo->max_bytes :
			     FETCH_MAX_BYTES_DEFAULT,
		.connect_timeout_s = fo->connect_timeout_s,
		.timeout_s = fo->total_timeout_s,
		.max_redirects = fo->max_redirects,
		.check = allowed,
		.check_arg = (void *)fo,
	};
	struct net_response resp;
	size_t nh = 1;
	int ret = -1;

	net_response_init(&resp);
	if (fo->if_none_match) {
		strbuf_addf(&inm, "If-None-Match: %s", fo->if_none_match);
		headers[nh++] = inm.buf;
	}
	if (fo->if_modified_since) {
		strbuf_addf(&ims, "If-Modified-Since: %s",
			    fo->if_modified_since);
		headers[nh++] = ims.buf;
	}
	r->status = 0;
	r->permanent = 0;
	if (net_perform(&req, &resp, why)) {
		r->permanent = resp.error == NET_REFUSED ||
			       resp.error == NET_TOO_LARGE ||
			       resp.error == NET_REDIRECTS;
		goto out;
	}
	r->status = resp.status;
	strbuf_release(r->body);
	*r->body = resp.body;
	strbuf_init(&resp.body);
	if (r->status == 200 && is_gzip(r->body) &&
	    gunzip(r->body, req.max_bytes, resp.url, why, &r->permanent))
		goto out;
	net_response_status(&resp, &status);
	r->status_text = strbuf_detach(&status, NULL);
	r->etag = validator(&resp, "ETag");
	r->last_modified = validator(&resp, "Last-Modified");
	r->content_type = net_response_header(&resp, "Content-Type");
	ret = 0;
out:
	net_response_release(&resp);
	strbuf_release(&inm);
	strbuf_release(&ims);
	strbuf_release(&status);
	return ret;
}

/* patchwork's /api/series/ID/ JSON: its "mbox" link, or -1 and why. */
static int patchwork_mbox_url(const struct strbuf *body, const char *url,
			      char **out, struct strbuf *why)
{
	json_error_t jerr;
	json_t *root, *mbox;
	int ret = -1;

	if (body->len > FETCH_MAX_JSON_BYTES) {
		strbuf_addf(why, "%s: JSON answer larger than %u bytes", url,
			    FETCH_MAX_JSON_BYTES);
		return -1;
	}
	root = json_loadb(body->buf, body->len, 0, &jerr);
	if (!root) {
		strbuf_addf(why, "%s: not JSON: %s (line %d)", url,
			    jerr.text, jerr.line);
		return -1;
	}
	mbox = json_object_get(root, "mbox");
	if (!json_is_string(mbox)) {
		strbuf_addf(why, "%s: the patchwork answer has no \"mbox\" "
			    "link", url);
		goto out;
	}
	*out = xstrndup(json_string_value(mbox),
			strlen(json_string_value(mbox)));
	ret = 0;
out:
	json_decref(root);
	return ret;
}

/* A status that asking again may change: 5xx, 408 and 429. */
static int status_transient(long status)
{
	return status >= 500 || status == 408 || status == 429;
}

/* One GET that must answer 200; -1 with why and *permanent. */
static int get_200(const char *url, const struct fetch_options *fo,
		   struct fetch_result *r, struct strbuf *why,
		   int *permanent)
{
	fetch_result_release(r);
	strbuf_reset(r->body);
	if (fetch_get(url, fo, r, why)) {
		*permanent = r->permanent;
		return -1;
	}
	if (r->status == 200)
		return 0;
	strbuf_addf(why, "%s: %s", url, r->status_text);
	*permanent = !status_transient(r->status);
	return -1;
}

int fetch_mbox(const char *url, const struct fetch_options *fo,
	       struct strbuf *out, struct strbuf *why, int *permanent)
{
	struct fetch_result r = { 0 };
	struct strbuf body = STRBUF_INIT, reason = STRBUF_INIT;
	enum fetch_kind kind;
	char *norm = NULL, *target = NULL, *mbox = NULL;
	const char *refused;
	int perm = 1, ret = -1;

	r.body = &body;
	/* refuse before anything else, even before resolving */
	if (allowlist_check(fo->allow, url, &norm, &refused)) {
		strbuf_addf(&reason, "%s: refused: %s", url, refused);
		goto out;
	}
	if (fetch_resolve(norm, &target, &kind)) {
		strbuf_addf(&reason, "%s: not a lore, public-inbox or "
			    "patchwork URL kregress understands", url);
		goto out;
	}
	if (get_200(target, fo, &r, &reason, &perm))
		goto out;
	if (kind == FETCH_PATCHWORK) {
		if (patchwork_mbox_url(&body, target, &mbox, &reason) ||
		    get_200(mbox, fo, &r, &reason, &perm))
			goto out;
	}
	strbuf_add(out, body.buf, body.len);
	ret = 0;
out:
	if (ret) {
		if (why)
			strbuf_add(why, reason.buf, reason.len);
		if (permanent)
			*permanent = perm;
	}
	fetch_result_release(&r);
	strbuf_release(&body);
	strbuf_release(&reason);
	free(norm);
	free(target);
	free(mbox);
	return ret;
}
