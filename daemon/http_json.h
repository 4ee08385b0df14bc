/*
 * http_json.h - the API's JSON replies: a jansson value serialized as the
 * body of a reply of http.c's server.  Kept out of http.h so that the
 * server's interface (and what only serves files or reads arguments)
 * does not carry jansson.
 */
#ifndef KREGRESS_HTTP_JSON_H
#define KREGRESS_HTTP_JSON_H

#include <jansson.h>

struct http_request;

/*
 * Replies with v serialized as compact JSON and a newline; steals the
 * reference to v.  A v that cannot be encoded (or NULL) becomes a 500
 * "internal" error.
 */
void http_reply_json(struct http_request *req, int status, json_t *v);

#endif
