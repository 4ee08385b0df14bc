/*
 * http.h - the HTTP server of kregressd: the only libmicrohttpd user.
 *
 * A server listens on one address (loopback by default) and serves
 * requests on a pool of worker threads.  Requests are dispatched through a
 * router of (method, path pattern) pairs; a pattern segment "{name}"
 * matches any one non-empty path segment, which the handler reads with
 * http_param() (percent-decoded; a %2F in it is a '/', not a separator).
 * The server answers by itself, as JSON errors:
 *   400 "bad-path" for a target (path or query) with a control character
 *   plain or escaped (%00 included) or a malformed %-escape, 400
 *   "bad-framing" (and closes the connection) for a request whose body
 *   length is ambiguous: two Content-Length, Content-Length with
 *   Transfer-Encoding, a Transfer-Encoding but "chunked", a blank in a
 *   header name; 404 for a path no route matches, 405 (with Allow) for a
 *   path that matches only with another method, 413 for a body over the
 *   cap (the body is never buffered past the cap), 500 when a handler
 *   does not reply.
 *
 * Connections are limited in all and per client address; one that has
 * not sent a request's complete headers header_timeout_s after it was
 * opened (or after its previous request ended) is closed, however slowly
 * it keeps sending, and one idle for idle_timeout_s too.
 *
 * Each worker thread opens its own SQLite connection (db_open) on first
 * use and keeps it in thread-local storage; the connections are closed
 * when the server stops.  Every request is counted per route and status
 * code, and its latency (first byte of headers to response queued) goes
 * into a per-route histogram, written in Prometheus text format by
 * http_metrics_write() with the connections open, refused at a limit and
 * closed for late headers.
 */
#ifndef KREGRESS_HTTP_H
#define KREGRESS_HTTP_H

#include <stddef.h>

#include "strbuf.h"

struct db;
struct http_server;
struct http_request;

struct http_opts {
	const char *listen;	/* "127.0.0.1:8080", "[::1]:0"; NULL: 8080 */
	const char *db_path;	/* per-thread connections; NULL = none */
	size_t body_max;	/* bytes; 0 = HTTP_BODY_MAX_DEFAULT */
	unsigned threads;	/* worker threads; 0 = 4 */
	/* Called on each worker's connection after db_open(); may be NULL. */
	int (*db_setup)(struct db *db);
	/* Each 0 = its HTTP_*_DEFAULT. */
	unsigned max_connections;	/* open at once, in all */
	unsigned max_per_address;	/* open at once from one address */
	unsigned header_timeout_s;	/* to complete a request's headers */
	unsigned idle_timeout_s;	/* without a byte either way */
};

#define HTTP_BODY_MAX_DEFAULT		(8u << 20)
#define HTTP_LISTEN_DEFAULT		"127.0.0.1:8080"
#define HTTP_CONNECTIONS_DEFAULT	1000
#define HTTP_PER_ADDRESS_DEFAULT	64
#define HTTP_HEADER_TIMEOUT_DEFAULT_S	10
#define HTTP_IDLE_TIMEOUT_DEFAULT_S	30

/* Creates a stopped server; 0 and *out, or -1 (logged) on a bad address. */
int http_server_new(const struct http_opts *opts, struct http_server **out);

/*
 * Adds a route (before http_server_start()); arg is passed to handler.
 * A handler runs on a worker thread and must answer with exactly one of
 * the http_reply*() calls; it may block briefly (one short transaction).
 */
int http_route_add(struct http_server *srv, const char *method,
		   const char *pattern,
		   void (*handler)(struct http_request *req, void *arg),
		   void *arg);

/* Binds and starts the worker threads; 0 or -1 (logged). */
int http_server_start(struct http_server *srv);

/* The bound port (useful after listening on port 0); 0 if not started. */
int http_server_port(struct http_server *srv);

/* Stops the threads, closes their connections, frees; accepts NULL. */
void http_server_free(struct http_server *srv);

/*
 * Appends kregress_http_requests_total,
 * kregress_http_request_duration_seconds, kregress_http_connections,
 * kregress_http_connections_refused_total and
 * kregress_http_header_timeouts_total in Prometheus text format.
 */
void http_metrics_write(struct http_server *srv, struct strbuf *out);

/* Request accessors: the strings are borrowed for the handler's call. */
const char *http_method(struct http_request *req);
const char *http_path(struct http_request *req);
const char *http_header(struct http_request *req, const char *name);
/* A query-string argument (decoded); NULL when absent. */
const char *http_query(struct http_request *req, const char *name);
/* The value of the pattern's idx-th "{name}" segment, 0-based. */
const char *http_param(struct http_request *req, int idx);
/* The body (NUL-terminated for convenience), *len its size. */
const char *http_body(struct http_request *req, size_t *len);

/*
 * The calling worker thread's database connection, opened on first use.
 * Returns NULL after replying 500 itself when it cannot be opened, so a
 * handler just returns.
 */
struct db *http_db(struct http_request *req);

/* Adds a response header; call before replying.  Copies both strings. */
void http_add_header(struct http_request *req, const char *name,
		     const char *value);

/* Replies with body (taken over: freed by the server), len bytes. */
void http_reply(struct http_request *req, int status, const char *ctype,
		char *body, size_t len);

/*
 * Replies {"error":{"code":code,"message":...}} with status (through
 * http_json.c, as every JSON reply).
 */
void http_reply_error(struct http_request *req, int status, const char *code,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
