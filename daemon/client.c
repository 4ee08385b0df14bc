/*
 * client.c - the CLI's HTTP client: the only libcurl user on the CLI side
 * (fetch.c owns libcurl for intake in the daemon).
 */
#include <string.h>

#include <curl/curl.h>

#include "client.h"
#include "log.h"

struct sink {
	struct strbuf *sb;
	size_t start;
	int too_large;
};

static size_t write_cb(char *data, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t len = size * n;

	if (s->sb->len - s->start + len > CLIENT_RESPONSE_MAX) {
		s->too_large = 1;
		return 0;	/* makes curl stop with CURLE_WRITE_ERROR */
	}
	strbuf_add(s->sb, data, len);
	return len;
}

int client_call(const char *server, const struct client_request *r,
		long *status, struct strbuf *resp)
{
	struct sink sink = { resp, resp->len, 0 };
	struct curl_slist *hdrs = NULL;
	struct strbuf url = STRBUF_INIT, h = STRBUF_INIT;
	CURLcode rc;
	CURL *curl;
	int ret = -1;

	strbuf_addstr(&url, server);
	while (url.len && url.buf[url.len - 1] == '/')
		url.buf[--url.len] = '\0';
	strbuf_addstr(&url, r->path);

	curl = curl_easy_init();
	if (!curl)
		die("client", "cannot initialise libcurl");
	curl_easy_setopt(curl, CURLOPT_URL, url.buf);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, r->method);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)CLIENT_TIMEOUT_S);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "kregress");
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (r->body) {
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)r->body_len);
	}
	if (r->token) {
		strbuf_addf(&h, "Authorization: Bearer %s", r->token);
		hdrs = curl_slist_append(hdrs, h.buf);
		strbuf_reset(&h);
	}
	if (r->content_type) {
		strbuf_addf(&h, "Content-Type: %s", r->content_type);
		hdrs = curl_slist_append(hdrs, h.buf);
	}
	/* No "Expect: 100-continue" round trip for large mboxes. */
	hdrs = curl_slist_append(hdrs, "Expect:");
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);

	rc = curl_easy_perform(curl);
	if (sink.too_large) {
		error("client", "%s: response larger than %u bytes", url.buf,
		      CLIENT_RESPONSE_MAX);
		goto out;
	}
	if (rc != CURLE_OK) {
		error("client", "%s: %s", url.buf, curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	ret = 0;
out:
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(curl);
	strbuf_release(&url);
	strbuf_release(&h);
	return ret;
}
