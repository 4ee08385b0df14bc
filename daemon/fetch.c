/*
 * fetch.c - HTTP(S) fetching of mail for the intake; the only libcurl
 * user of the intake (client.c is the CLI's API client).
 *
 * Redirects are followed by hand, not by CURLOPT_FOLLOWLOCATION, so that
 * each target passes the allowlist before it is requested: an allowed
 * host must not be able to bounce us into the operator's network.  The
 * body is collected through a write callback that stops the transfer once
 * the cap is passed; gzip bodies (lore's t.mbox.gz is a gzip file, not a
 * Content-Encoding) are inflated with zlib under the same cap.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>
#include <zlib.h>

#include "fetch.h"
#include "log.h"
#include "strbuf.h"

#define FETCH_MAX_BYTES_DEFAULT	(32u << 20)
#define FETCH_MAX_JSON_BYTES	(1u << 20)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_setup(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static char *xstrndup(const char *s, size_t n)
{
	char *r = strndup(s, n);

	if (!r)
		die("fetch", "out of memory");
	return r;
}

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

/* Host part of an http(s) URL: [start, end).  -1 if there is none. */
static int url_host(const char *url, const char **start, const char **end)
{
	const char *p = strstr(url, "://"), *e;

	if (!p)
		return -1;
	p += 3;
	e = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(e - p)))
		return -1;	/* userinfo: refused, it only confuses */
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(e - p));

		if (!rb)
			return -1;
		*start = p;
		*end = rb + 1;
		return 0;
	}
	*start = p;
	*end = p + strcspn(p, ":/?#");
	return *end > *start ? 0 : -1;
}

static int host_is(const char *s, const char *e, const char *lit)
{
	return (size_t)(e - s) == strlen(lit) && !strncasecmp(s, lit, e - s);
}

int fetch_url_check(const char *url, const struct fetch_options *fo,
		    const char **why)
{
	const char *hs, *he;
	const char *const *a;
	size_t i;

	for (i = 0; url[i]; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f) {
			*why = "control character or space in the URL";
			return -1;
		}
	if (strncasecmp(url, "https://", 8) && strncasecmp(url, "http://", 7)) {
		*why = "only https:// URLs are fetched";
		return -1;
	}
	if (url_host(url, &hs, &he)) {
		*why = "no host, or user information, in the URL";
		return -1;
	}
	if (!strncasecmp(url, "http://", 7) &&
	    !host_is(hs, he, "127.0.0.1") && !host_is(hs, he, "[::1]") &&
	    !host_is(hs, he, "localhost")) {
		*why = "plain http:// is only allowed on loopback";
		return -1;
	}
	if (!fo->allow || !fo->allow[0]) {
		*why = "no URL allowlist is configured";
		return -1;
	}
	for (a = fo->allow; *a; a++) {
		size_t n = strlen(*a);
		char next;

		if (!n || strncmp(url, *a, n))
			continue;
		next = url[n];
		if ((*a)[n - 1] == '/' || !next || next == '/' ||
		    next == '?' || next == '#')
			return 0;
	}
	*why = "not in the URL allowlist";
	return -1;
}

static int ends_with(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	return n >= k && !memcmp(s + n - k, lit, k);
}

int fetch_resolve(const char *url, char **out, enum fetch_kind *kind)
{
	const char *hs, *he, *path;
	size_t n = strcspn(url, "#?");
	struct strbuf sb = STRBUF_INIT;

	*out = NULL;
	if (url_host(url, &hs, &he))
		return -1;
	path = he + strcspn(he, "/?#");
	if (strstr(path, "/api/") && strstr(path, "/series/")) {
		*kind = FETCH_PATCHWORK;
		*out = xstrndup(url, strlen(url));
		return 0;
	}
	/* keep a query string for everything but lore message URLs */
	if (ends_with(url, n, "/t.mbox.gz") || ends_with(url, n, ".mbox") ||
	    ends_with(url, n, "/mbox/") || ends_with(url, n, "/mbox") ||
	    ends_with(url, n, ".mbox.gz")) {
		*kind = FETCH_MBOX;
		*out = xstrndup(url, strlen(url));
		return 0;
	}
	if (ends_with(url, n, "/raw") || ends_with(url, n, "/raw/")) {
		*kind = FETCH_MESSAGE;
		*out = xstrndup(url, n);
		return 0;
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
			return -1;
	}
	strbuf_add(&sb, url, n);
	strbuf_addstr(&sb, "/t.mbox.gz");
	*kind = FETCH_MBOX;
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

void fetch_result_release(struct fetch_result *r)
{
	free(r->etag);
	free(r->last_modified);
	free(r->content_type);
	r->etag = r->last_modified = r->content_type = NULL;
}

struct sink {
	struct strbuf *body;
	size_t max;
	int too_big;
};

static size_t write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

	if (s->body->len + n > s->max) {
		s->too_big = 1;
		return 0;	/* makes curl stop with CURLE_WRITE_ERROR */
	}
	strbuf_add(s->body, data, n);
	return n;
}

struct headers {
	char *etag;
	char *last_modified;
};

static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct headers *h = arg;
	size_t n = size * nmemb, k;
	char **slot = NULL;

	if (n > 7 && !strncasecmp(data, "ETag:", 5))
		slot = &h->etag, k = 5;
	else if (n > 15 && !strncasecmp(data, "Last-Modified:", 14))
		slot = &h->last_modified, k = 14;
	if (slot && n < 1024) {
		while (k < n && (data[k] == ' ' || data[k] == '\t'))
			k++;
		while (n > k && isspace((unsigned char)data[n - 1]))
			n--;
		free(*slot);
		*slot = xstrndup(data + k, n - k);
	}
	return size * nmemb;
}

/* Inflates a gzip body in place under the cap. */
static int gunzip(struct strbuf *body, size_t max, const char *url)
{
	struct strbuf out = STRBUF_INIT;
	unsigned char chunk[65536];
	z_stream z;
	int zr, ret = -1;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return error("fetch", "%s: zlib init failed", url);
	z.next_in = (unsigned char *)body->buf;
	z.avail_in = (uInt)body->len;
	for (;;) {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			error("fetch", "%s: bad gzip data: %s", url,
			      z.msg ? z.msg : "inflate failed");
			goto out;
		}
		if (out.len + (sizeof(chunk) - z.avail_out) > max) {
			error("fetch", "%s: larger than the limit of %zu bytes "
			      "once decompressed", url, max);
			goto out;
		}
		strbuf_add(&out, chunk, sizeof(chunk) - z.avail_out);
		if (zr == Z_STREAM_END) {
			/* concatenated gzip members */
			if (!z.avail_in)
				break;
			if (inflateReset(&z) != Z_OK)
				goto out;
			continue;
		}
		if (zr == Z_BUF_ERROR || (!z.avail_in && z.avail_out)) {
			if (!z.avail_in) {
				error("fetch", "%s: truncated gzip data", url);
				goto out;
			}
		}
	}
	strbuf_release(body);
	*body = out;
	strbuf_init(&out);
	ret = 0;
out:
	inflateEnd(&z);
	strbuf_release(&out);
	return ret;
}

static int is_gzip(const struct strbuf *b)
{
	return b->len >= 2 && (unsigned char)b->buf[0] == 0x1f &&
	       (unsigned char)b->buf[1] == 0x8b;
}

int fetch_get(const char *url, const struct fetch_options *fo,
	      struct fetch_result *r)
{
	struct curl_slist *hdrs = NULL;
	struct headers h = { NULL, NULL };
	char errbuf[CURL_ERROR_SIZE];
	char *cur = NULL;
	CURL *curl = NULL;
	const char *why;
	int hops, ret = -1;

	pthread_once(&curl_once, curl_setup);
	r->status = 0;
	cur = xstrndup(url, strlen(url));
	for (hops = 0;; hops++) {
		struct sink sink = { r->body, fo->max_bytes ? fo->max_bytes :
				     FETCH_MAX_BYTES_DEFAULT, 0 };
		char *loc = NULL, *ct = NULL;
		CURLcode cc;

		if (fetch_url_check(cur, fo, &why)) {
			error("fetch", "%s: refused: %s", cur, why);
			goto out;
		}
		curl_easy_cleanup(curl);
		curl_slist_free_all(hdrs);
		hdrs = NULL;
		curl = curl_easy_init();
		if (!curl) {
			error("fetch", "%s: curl_easy_init failed", cur);
			goto out;
		}
		strbuf_reset(r->body);
		errbuf[0] = '\0';
		hdrs = curl_slist_append(hdrs, "Accept: */*");
		if (fo->if_none_match) {
			char line[1100];

			snprintf(line, sizeof(line), "If-None-Match: %s",
				 fo->if_none_match);
			hdrs = curl_slist_append(hdrs, line);
		}
		if (fo->if_modified_since) {
			char line[1100];

			snprintf(line, sizeof(line), "If-Modified-Since: %s",
				 fo->if_modified_since);
			hdrs = curl_slist_append(hdrs, line);
		}
		curl_easy_setopt(curl, CURLOPT_URL, cur);
		curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
		curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
		curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
				 (long)(fo->connect_timeout_s > 0 ?
					fo->connect_timeout_s : 10));
		curl_easy_setopt(curl, CURLOPT_TIMEOUT,
				 (long)(fo->total_timeout_s > 0 ?
					fo->total_timeout_s : 60));
		curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)sink.max);
		curl_easy_setopt(curl, CURLOPT_USERAGENT, "kregress/0.1");
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
		curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
		curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, header_cb);
		curl_easy_setopt(curl, CURLOPT_HEADERDATA, &h);
		curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
		/* Content-Encoding: gzip is decoded by curl itself */
		curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
		cc = curl_easy_perform(curl);
		if (cc != CURLE_OK) {
			if (sink.too_big || cc == CURLE_FILESIZE_EXCEEDED)
				error("fetch", "%s: larger than the limit of "
				      "%zu bytes", cur, sink.max);
			else
				error("fetch", "%s: %s", cur, errbuf[0] ?
				      errbuf : curl_easy_strerror(cc));
			goto out;
		}
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
		if (r->status >= 300 && r->status < 400 && r->status != 304) {
			curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &loc);
			if (!loc) {
				error("fetch", "%s: HTTP %ld without Location",
				      cur, r->status);
				goto out;
			}
			if (hops >= (fo->max_redirects >= 0 ?
				     fo->max_redirects : 5)) {
				error("fetch", "%s: more than %d redirects",
				      url, fo->max_redirects);
				goto out;
			}
			free(cur);
			cur = xstrndup(loc, strlen(loc));
			free(h.etag);
			free(h.last_modified);
			h.etag = h.last_modified = NULL;
			continue;
		}
		curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &ct);
		if (ct)
			r->content_type = xstrndup(ct, strlen(ct));
		break;
	}
	if (r->status == 200 && is_gzip(r->body) &&
	    gunzip(r->body, fo->max_bytes ? fo->max_bytes :
		   FETCH_MAX_BYTES_DEFAULT, cur))
		goto out;
	r->etag = h.etag;
	r->last_modified = h.last_modified;
	h.etag = h.last_modified = NULL;
	ret = 0;
out:
	free(h.etag);
	free(h.last_modified);
	free(cur);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(curl);
	return ret;
}

/* patchwork's /api/series/ID/ JSON: its "mbox" link. */
static int patchwork_mbox_url(const struct strbuf *body, const char *url,
			      char **out)
{
	json_error_t jerr;
	json_t *root, *mbox;
	int ret = -1;

	if (body->len > FETCH_MAX_JSON_BYTES)
		return error("fetch", "%s: JSON answer too large", url);
	root = json_loadb(body->buf, body->len, 0, &jerr);
	if (!root)
		return error("fetch", "%s: not JSON: %s (line %d)", url,
			     jerr.text, jerr.line);
	mbox = json_object_get(root, "mbox");
	if (!json_is_string(mbox)) {
		error("fetch", "%s: patchwork answer has no \"mbox\" link",
		      url);
		goto out;
	}
	*out = xstrndup(json_string_value(mbox),
			strlen(json_string_value(mbox)));
	ret = 0;
out:
	json_decref(root);
	return ret;
}

int fetch_mbox(const char *url, const struct fetch_options *fo,
	       struct strbuf *out)
{
	struct fetch_result r = { 0 };
	struct strbuf body = STRBUF_INIT;
	enum fetch_kind kind;
	char *target = NULL, *mbox = NULL;
	const char *why;
	int ret = -1;

	/* refuse before anything else, even before resolving */
	if (fetch_url_check(url, fo, &why))
		return error("fetch", "%s: refused: %s", url, why);
	if (fetch_resolve(url, &target, &kind))
		return error("fetch", "%s: not a lore, public-inbox or "
			     "patchwork URL kregress understands", url);
	r.body = &body;
	if (fetch_get(target, fo, &r))
		goto out;
	if (r.status != 200) {
		error("fetch", "%s: HTTP %ld", target, r.status);
		goto out;
	}
	if (kind == FETCH_PATCHWORK) {
		if (patchwork_mbox_url(&body, target, &mbox))
			goto out;
		fetch_result_release(&r);
		strbuf_reset(&body);
		if (fetch_get(mbox, fo, &r))
			goto out;
		if (r.status != 200) {
			error("fetch", "%s: HTTP %ld", mbox, r.status);
			goto out;
		}
	}
	strbuf_add(out, body.buf, body.len);
	ret = 0;
out:
	fetch_result_release(&r);
	strbuf_release(&body);
	free(target);
	free(mbox);
	return ret;
}
