/*
 * client.h - the CLI's HTTP client for kregressd's API (on net.c).
 *
 * One blocking request per call; the response body is capped so that a
 * wrong server cannot make the CLI eat memory.
 */
#ifndef KREGRESS_CLIENT_H
#define KREGRESS_CLIENT_H

#include <stddef.h>

#include "strbuf.h"

#define CLIENT_RESPONSE_MAX	(64u << 20)
#define CLIENT_TIMEOUT_S	30

struct client_request {
	const char *method;	/* "GET", "POST" */
	const char *path;	/* "/api/v1/series", appended to the server */
	const char *token;	/* bearer token, or NULL */
	const char *content_type;	/* of body, or NULL */
	const void *body;	/* NULL = no body */
	size_t body_len;
};

/*
 * Sends r to server ("http://host:port", no trailing slash needed).
 * Returns 0 when a response arrived, whatever its status (in *status,
 * body appended to resp); -1 (logged: "client: URL: reason") when there
 * was none: connection refused, timeout, response over the cap.  No
 * redirect is followed.
 */
int client_call(const char *server, const struct client_request *r,
		long *status, struct strbuf *resp);

#endif
