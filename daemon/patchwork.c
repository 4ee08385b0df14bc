/*
 * patchwork.c - patchwork's REST API for the report stage (see
 * patchwork.h).  JSON in and out is jansson's; the transfers are net.c's.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "log.h"
#include "net.h"
#include "patchwork.h"
#include "strbuf.h"

#define PATCHWORK_MAX_BYTES	(4u << 20)
#define PATCHWORK_TIMEOUT_S	30

int patchwork_api_url(const char *url, struct strbuf *out)
{
	const char *api = strstr(url, "/api/"), *p;

	if (!api || (strncmp(url, "http://", 7) &&
		     strncmp(url, "https://", 8)))
		return -1;
	p = api + 5;
	/* an optional version: "1.3/" */
	if (*p >= '0' && *p <= '9') {
		p += strspn(p, "0123456789.");
		if (*p++ != '/')
			return -1;
	}
	if (strncmp(p, "series/", 7) || p[7] < '0' || p[7] > '9')
		return -1;
	strbuf_add(out, url, (size_t)(p - url));
	return 0;
}

/* "HTTP 403 Forbidden: {detail}" of an answer that is not 2xx. */
static void answer_error(const char *url, const struct net_response *r,
			 struct strbuf *err)
{
	strbuf_addf(err, "%s: ", url);
	net_response_status(r, err);
	if (r->body.len)
		strbuf_addf(err, ": %.200s", r->body.buf);
}

int patchwork_series_patches(const char *series_url, long long **ids,
			     size_t *n, struct strbuf *err)
{
	static const char *const accept[] = { "Accept: application/json",
					      NULL };
	struct net_request req = {
		.url = series_url, .headers = accept,
		.max_bytes = PATCHWORK_MAX_BYTES,
		.timeout_s = PATCHWORK_TIMEOUT_S,
	};
	struct net_response r;
	json_error_t jerr;
	json_t *doc = NULL, *patches, *p;
	size_t i;
	int ret = -1;

	*ids = NULL;
	*n = 0;
	net_response_init(&r);
	if (net_perform(&req, &r, err))
		goto out;
	if (r.status < 200 || r.status > 299) {
		answer_error(series_url, &r, err);
		goto out;
	}
	doc = json_loadb(r.body.buf, r.body.len, 0, &jerr);
	patches = json_object_get(doc, "patches");
	if (!json_is_array(patches)) {
		strbuf_addf(err, "%s: not a patchwork series (no \"patches\" "
			    "array)", series_url);
		goto out;
	}
	*ids = xcalloc(json_array_size(patches) + 1, sizeof(**ids));
	json_array_foreach(patches, i, p) {
		json_t *id = json_object_get(p, "id");

		if (!json_is_integer(id) || json_integer_value(id) <= 0) {
			strbuf_addf(err, "%s: patches[%zu] has no id",
				    series_url, i);
			goto out;
		}
		(*ids)[(*n)++] = json_integer_value(id);
	}
	ret = 0;
out:
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	json_decref(doc);
	net_response_release(&r);
	return ret;
}

int patchwork_check_post(const char *api_url, const char *token,
			 long long patch_id, const struct patchwork_check *c,
			 struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT, auth = STRBUF_INIT;
	const char *headers[4];
	struct net_request req = { 0 };
	struct net_response r;
	json_t *body;
	char *text;
	int ret = -1;

	strbuf_addf(&url, "%spatches/%lld/checks/", api_url, patch_id);
	strbuf_addf(&auth, "Authorization: Token %s", token);
	headers[0] = auth.buf;
	headers[1] = "Content-Type: application/json";
	headers[2] = "Accept: application/json";
	headers[3] = NULL;
	body = alloc_check(json_pack("{s:s,s:s}", "state", c->state,
				     "context", c->context), "json_pack");
	if (c->target_url)
		json_object_set_new(body, "target_url",
				    json_string(c->target_url));
	if (c->description)
		json_object_set_new(body, "description",
				    json_string(c->description));
	text = alloc_check(json_dumps(body, JSON_COMPACT), "json_dumps");
	req.url = url.buf;
	req.method = "POST";
	req.headers = headers;
	req.body = text;
	req.body_len = strlen(text);
	req.max_bytes = PATCHWORK_MAX_BYTES;
	req.timeout_s = PATCHWORK_TIMEOUT_S;
	net_response_init(&r);
	if (net_perform(&req, &r, err))
		goto out;
	if (r.status < 200 || r.status > 299) {
		answer_error(url.buf, &r, err);
		goto out;
	}
	ret = 0;
out:
	net_response_release(&r);
	json_decref(body);
	free(text);
	strbuf_release(&url);
	strbuf_release(&auth);
	return ret;
}
