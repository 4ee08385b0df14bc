/*
 * api_args.c - parsing and checking API query arguments (see api_args.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "http.h"

int api_parse_ll(const char *s, long long min, long long max,
		 long long *out)
{
	char *end;
	long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int api_query_ll(struct http_request *req, const char *name,
		 long long min, long long max, long long *out)
{
	const char *v = http_query(req, name);

	if (!v)
		return 0;
	if (api_parse_ll(v, min, max, out)) {
		http_reply_error(req, 400, "bad-parameter",
				 "%s must be an integer from %lld to %lld",
				 name, min, max);
		return -1;
	}
	return 0;
}

int api_query_str(struct http_request *req, const char *name,
		  const char **out)
{
	const char *v = http_query(req, name);

	if (v && (!*v || strlen(v) > API_FILTER_MAX)) {
		http_reply_error(req, 400, "bad-parameter",
				 "%s must have 1 to %d bytes", name,
				 API_FILTER_MAX);
		return -1;
	}
	if (v)
		*out = v;
	return 0;
}

int api_query_str_required(struct http_request *req, const char *name,
			   const char **out)
{
	if (!http_query(req, name)) {
		http_reply_error(req, 400, "bad-parameter",
				 "%s is required", name);
		return -1;
	}
	return api_query_str(req, name, out);
}
