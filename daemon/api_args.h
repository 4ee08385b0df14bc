/*
 * api_args.h - the query arguments of API requests: parsed and checked,
 * or answered with a 400 "bad-parameter" error that names the argument
 * and what it must be.
 *
 * Each api_query_*() returns 0 with the value in *out (left as it was
 * when the argument is absent), or -1 after it has replied 400: the
 * handler then just returns.
 */
#ifndef KREGRESS_API_ARGS_H
#define KREGRESS_API_ARGS_H

struct http_request;

#define API_FILTER_MAX		256	/* bytes of a text argument */

/* A decimal integer in [min, max]; 0 and *out, or -1. */
int api_parse_ll(const char *s, long long min, long long max,
		 long long *out);

/* An optional integer argument in [min, max]. */
int api_query_ll(struct http_request *req, const char *name,
		 long long min, long long max, long long *out);

/* An optional text argument of 1 to API_FILTER_MAX bytes. */
int api_query_str(struct http_request *req, const char *name,
		  const char **out);

/* api_query_str() of an argument that must be there. */
int api_query_str_required(struct http_request *req, const char *name,
			   const char **out);

#endif
