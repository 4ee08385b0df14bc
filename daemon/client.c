/*
 * client.c - the CLI's HTTP client for kregressd's API, on net.c.
 */
#include <string.h>

#include "client.h"
#include "log.h"
#include "net.h"

int client_call(const char *server, const struct client_request *r,
		long *status, struct strbuf *resp)
{
	struct strbuf url = STRBUF_INIT, auth = STRBUF_INIT, ct = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *headers[3] = { NULL };
	struct net_request req = {
		.method = r->method,
		.headers = headers,
		.body = r->body,
		.body_len = r->body_len,
		.max_bytes = CLIENT_RESPONSE_MAX,
		.timeout_s = CLIENT_TIMEOUT_S,
	};
	struct net_response answer;
	size_t nh = 0;
	int ret = -1;

	net_response_init(&answer);
	strbuf_addstr(&url, server);
	while (url.len && url.buf[url.len - 1] == '/')
		url.buf[--url.len] = '\0';
	strbuf_addstr(&url, r->path);
	req.url = url.buf;
	if (r->token) {
		strbuf_addf(&auth, "Authorization: Bearer %s", r->token);
		headers[nh++] = auth.buf;
	}
	if (r->content_type) {
		strbuf_addf(&ct, "Content-Type: %s", r->content_type);
		headers[nh++] = ct.buf;
	}
	if (net_perform(&req, &answer, &err)) {
		error("client", "%s", err.buf);
		goto out;
	}
	*status = answer.status;
	strbuf_add(resp, answer.body.buf, answer.body.len);
	ret = 0;
out:
	net_response_release(&answer);
	strbuf_release(&url);
	strbuf_release(&auth);
	strbuf_release(&ct);
	strbuf_release(&err);
	return ret;
}
