/*
 * http_json.c - a JSON value as the body of a reply (see http_json.h), on
 * http.c's http_reply().
 */
#include <string.h>

#include "alloc.h"
#include "http.h"
#include "http_json.h"

void http_reply_json(struct http_request *req, int status, json_t *v)
{
	char *text = NULL, *body;
	size_t len;

	if (v)
		text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	if (!text) {
		static const char fallback[] = "{\"error\":{\"code\":"
			"\"internal\",\"message\":\"cannot encode the "
			"response\"}}";

		status = 500;
		text = xstrdup(fallback);
	}
	/* jansson allocates with malloc(), so MHD may free() it. */
	len = strlen(text);
	body = xrealloc(text, len + 2);
	body[len] = '\n';
	body[len + 1] = '\0';
	http_reply(req, status, "application/json", body, len + 1);
}
