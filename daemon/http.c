/*
 * http.c - libmicrohttpd wrapper: listening, connection limits, routing,
 * request framing, body cap, replies, per-thread database connections
 * and per-route metrics.
 *
 * libmicrohttpd calls us once when a request line is in (the URI log
 * callback: we allocate the request and split the target as the client
 * sent it), then the access handler several times per request: once when
 * the headers are in (we check the framing headers, match the route and
 * check Content-Length against the cap), once per chunk of body (we
 * append up to the cap and then only count), and once more when the body
 * is complete (we run the handler and queue its response).  A body that
 * announces a length over the cap is refused at the first call, before
 * anything is read; a chunked body that grows past the cap is dropped and
 * the rest of it discarded as it arrives, so memory stays bounded either
 * way.
 *
 * The router works on the raw target, not on libmicrohttpd's decoded
 * URL: that one is a C string cut at the first %00, so "/a/1%00/b" would
 * read as "/a/1".  Each '/'-separated segment is decoded on its own (a
 * %2F is data, not a separator); a control byte or a malformed escape
 * anywhere in the target is a 400 for every route at once.
 *
 * Framing (RFC 9112 6.3): a request with more than one Content-Length,
 * with both Content-Length and Transfer-Encoding, with a
 * Transfer-Encoding other than "chunked", or with blanks in a header
 * name is answered 400 and the connection closed, so that nothing a
 * front end may read as a body is ever served as a second request.
 * libmicrohttpd 0.9.75 takes the first Content-Length and lets
 * Transfer-Encoding win silently; its strict mode only adds the Host
 * check.
 *
 * Connections: at most max_conns in all and max_per_addr from one
 * address (libmicrohttpd refuses the others at accept); a connection
 * that has not sent a request's complete headers header_timeout_s after
 * it was opened or its previous request ended is shut down by the
 * sweeper thread.  libmicrohttpd's own timeout is an idle one that each
 * trickled byte restarts, so without the sweeper one header every few
 * seconds holds a connection for ever.  The sweeper sleeps until the
 * earliest deadline; a shutdown() makes libmicrohttpd's thread see the
 * end of the stream and close the connection itself.  The connection
 * list is under conn_lock, which the close notification also takes, so
 * a descriptor is never shut down after libmicrohttpd has closed it.
 *
 * The server runs a pool of threads, each with its own epoll loop; each
 * thread lazily opens one SQLite connection kept in thread-local storage.
 * A server id (not its address, which malloc may reuse) tells whether the
 * thread-local connection belongs to this server.  All connections are
 * recorded in the server and closed after MHD_stop_daemon() has joined the
 * threads.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <jansson.h>
#include <microhttpd.h>

#include "alloc.h"
#include "db.h"
#include "http.h"
#include "http_json.h"
#include "log.h"
#include "now.h"

#define HTTP_MAX_PARAMS		4
#define HTTP_MAX_SEGMENTS	16	/* more: no route can match */
#define HTTP_MAX_CODES		16
#define HTTP_MAX_ROUTES		32

static const double bucket_le[] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
#define N_BUCKETS (sizeof(bucket_le) / sizeof(bucket_le[0]))

struct http_stats {
	struct {
		int code;
		unsigned long long n;
	} codes[HTTP_MAX_CODES];
	int ncodes;
	unsigned long long bucket[N_BUCKETS];	/* not cumulative */
	unsigned long long count;
	double sum_s;
};

struct http_route {
	char *method;
	char *pattern;
	void (*handler)(struct http_request *req, void *arg);
	void *arg;
	struct http_stats stats;
};

/* One TCP connection, from accept to close (the socket context). */
struct http_conn {
	struct http_conn *prev, *next;	/* srv->conns */
	int fd;
	long long deadline_ms;	/* headers due (monotonic); 0 = none */
};

struct http_server {
	unsigned long id;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char *listen;
	char *db_path;
	int (*db_setup)(struct db *db);
	size_t body_max;
	unsigned threads;
	unsigned max_conns, max_per_addr;
	unsigned header_timeout_s, idle_timeout_s;
	struct MHD_Daemon *mhd;

	struct http_route routes[HTTP_MAX_ROUTES];
	int nroutes;

	pthread_mutex_t lock;		/* stats and dbs */
	struct http_stats unmatched;
	struct db **dbs;
	size_t ndbs, dbs_alloc;

	pthread_mutex_t conn_lock;	/* what follows */
	pthread_cond_t sweep_cond;	/* wakes the sweeper to stop */
	pthread_t sweeper;
	int sweeper_started, stopping;
	struct http_conn *conns;
	unsigned long long n_conns, n_refused, n_header_timeouts;
};

struct http_header_kv {
	char *name, *value;
};

struct http_request {
	struct http_server *srv;
	struct MHD_Connection *conn;	/* NULL until the headers are in */
	const char *method, *url;	/* owned by MHD for the request */
	/* The decoded path segments, NUL-separated in one buffer; nsegs is
	 * -1 for a target no route can match (not "/...", too deep). */
	char *path;
	const char *segs[HTTP_MAX_SEGMENTS];
	int nsegs;
	char bad_target[48];		/* why the target is refused */
	const char *bad_framing;	/* why the framing is refused */
	struct http_route *route;	/* NULL: no route matched */
	int wrong_method;		/* path matched, method did not */
	const char *params[HTTP_MAX_PARAMS];	/* into path */
	int nparams;
	struct strbuf body;
	int too_large;
	int queued;
	struct timespec start;

	struct MHD_Response *resp;
	int status;
	struct http_header_kv *hdrs;
	size_t nhdrs, alloc_hdrs;
};

static unsigned long server_ids;
static __thread struct db *tls_db;
static __thread unsigned long tls_server;

/* "host:port", "[v6addr]:port" or ":port" (loopback) into a sockaddr. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char host[256];
	const char *port, *h = listen;
	size_t hlen;
	int rc;

	if (*h == '[') {
		const char *end = strchr(h, ']');

		if (!end || end[1] != ':')
			goto bad;
		h++;
		hlen = end - h;
		port = end + 2;
	} else {
		const char *colon = strrchr(h, ':');

		if (!colon)
			goto bad;
		hlen = colon - h;
		port = colon + 1;
	}
	if (hlen >= sizeof(host) || !*port)
		goto bad;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (!hlen)
		strcpy(host, "127.0.0.1");

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return error("http", "%s: %s", listen, gai_strerror(rc));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
bad:
	return error("http", "%s: expected host:port or [ipv6]:port", listen);
}

int http_server_new(const struct http_opts *opts, struct http_server **out)
{
	struct http_server *srv;
	pthread_condattr_t cattr;

	srv = xcalloc(1, sizeof(*srv));
	srv->listen = xstrdup(opts->listen ? opts->listen : HTTP_LISTEN_DEFAULT);
	srv->db_path = opts->db_path ? xstrdup(opts->db_path) : NULL;
	srv->db_setup = opts->db_setup;
	srv->body_max = opts->body_max ? opts->body_max : HTTP_BODY_MAX_DEFAULT;
	srv->threads = opts->threads ? opts->threads : 4;
	srv->max_conns = opts->max_connections ? opts->max_connections :
			 HTTP_CONNECTIONS_DEFAULT;
	srv->max_per_addr = opts->max_per_address ? opts->max_per_address :
			    HTTP_PER_ADDRESS_DEFAULT;
	srv->header_timeout_s = opts->header_timeout_s ?
				opts->header_timeout_s :
				HTTP_HEADER_TIMEOUT_DEFAULT_S;
	srv->idle_timeout_s = opts->idle_timeout_s ? opts->idle_timeout_s :
			      HTTP_IDLE_TIMEOUT_DEFAULT_S;
	srv->id = __atomic_add_fetch(&server_ids, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&srv->lock, NULL);
	pthread_mutex_init(&srv->conn_lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->sweep_cond, &cattr);
	pthread_condattr_destroy(&cattr);
	if (parse_listen(srv->listen, &srv->addr, &srv->addrlen)) {
		http_server_free(srv);
		return -1;
	}
	*out = srv;
	return 0;
}

int http_route_add(struct http_server *srv, const char *method,
		   const char *pattern,
		   void (*handler)(struct http_request *req, void *arg),
		   void *arg)
{
	struct http_route *r;

	if (srv->nroutes == HTTP_MAX_ROUTES || srv->mhd)
		return error("http", "%s %s: cannot add route", method,
			     pattern);
	r = &srv->routes[srv->nroutes++];
	r->method = xstrdup(method);
	r->pattern = xstrdup(pattern);
	r->handler = handler;
	r->arg = arg;
	return 0;
}

/*
 * Matches the request's segments against pattern ("/a/{x}/b"); on
 * success, when take, points req->params at the "{...}" segments.
 */
static int route_match(const char *pattern, struct http_request *req,
		       int take)
{
	const char *p = pattern;
	int i, n = 0;

	if (req->nsegs < 0)
		return 0;
	for (i = 0; i < req->nsegs; i++) {
		const char *seg = req->segs[i];
		size_t plen;

		if (*p != '/')
			return 0;
		p++;
		plen = strcspn(p, "/");
		if (plen >= 2 && p[0] == '{' && p[plen - 1] == '}') {
			if (!*seg || n == HTTP_MAX_PARAMS)
				return 0;
			if (take)
				req->params[n] = seg;
			n++;
		} else if (strlen(seg) != plen || memcmp(seg, p, plen)) {
			return 0;
		}
		p += plen;
	}
	if (*p)
		return 0;
	if (take)
		req->nparams = n;
	return 1;
}

static void route_find(struct http_request *req)
{
	struct http_server *srv = req->srv;
	int i, path_seen = 0;

	for (i = 0; i < srv->nroutes; i++) {
		struct http_route *r = &srv->routes[i];

		if (!route_match(r->pattern, req, 0))
			continue;
		path_seen = 1;
		/* HEAD is served by the GET route (MHD drops the body). */
		if (!strcmp(r->method, req->method) ||
		    (!strcmp(req->method, "HEAD") &&
		     !strcmp(r->method, "GET"))) {
			route_match(r->pattern, req, 1);
			req->route = r;
			return;
		}
	}
	req->wrong_method = path_seen;
}

static void allowed_methods(struct http_request *req, struct strbuf *out)
{
	struct http_server *srv = req->srv;
	int i;

	for (i = 0; i < srv->nroutes; i++) {
		if (!route_match(srv->routes[i].pattern, req, 0))
			continue;
		if (out->len)
			strbuf_addstr(out, ", ");
		strbuf_addstr(out, srv->routes[i].method);
	}
}

static int hex_value(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/*
 * Decodes one byte of a request target at *s (a %XX escape or a plain
 * byte) into *out and advances *s; -1 with the reason in req->bad_target
 * on a malformed escape or a control byte, plain or escaped.
 */
static int target_byte(struct http_request *req, const char **s,
		       unsigned char *out)
{
	const unsigned char *p = (const unsigned char *)*s;

	if (*p == '%') {
		if (!isxdigit(p[1]) || !isxdigit(p[2])) {
			snprintf(req->bad_target, sizeof(req->bad_target),
				 "a malformed %%-escape");
			return -1;
		}
		*out = hex_value(p[1]) << 4 | hex_value(p[2]);
		*s += 3;
	} else {
		*out = *p;
		*s += 1;
	}
	if (*out < 0x20 || *out == 0x7f) {
		snprintf(req->bad_target, sizeof(req->bad_target),
			 "a control character (%%%02X)", *out);
		return -1;
	}
	return 0;
}

/*
 * Splits the target as the client sent it (path and query, before any
 * decoding) into req->path and req->segs.  Sets req->bad_target when a
 * byte of it, in the path or in the query, is one target_byte() refuses.
 */
static void target_parse(struct http_request *req, const char *raw)
{
	size_t plen = strcspn(raw, "?");
	const char *s = raw, *end = raw + plen;
	unsigned char b;
	char *w;

	req->path = xmalloc(plen + 1);
	w = req->path;
	req->nsegs = -1;
	if (*s == '/') {
		s++;
		req->segs[0] = w;
		req->nsegs = 1;
	}
	while (s < end) {
		if (*s == '/') {
			s++;
			*w++ = '\0';
			if (req->nsegs < 0)
				continue;
			if (req->nsegs == HTTP_MAX_SEGMENTS)
				req->nsegs = -1;
			else
				req->segs[req->nsegs++] = w;
			continue;
		}
		if (target_byte(req, &s, &b))
			return;
		*w++ = (char)b;
	}
	*w = '\0';
	/* The query is libmicrohttpd's to split; its bytes obey the same
	 * rule, so that no argument is cut at a NUL either. */
	if (*s == '?')
		s++;
	while (*s)
		if (target_byte(req, &s, &b))
			return;
}

static void request_free(struct http_request *req)
{
	size_t i;

	if (!req)
		return;
	free(req->path);
	for (i = 0; i < req->nhdrs; i++) {
		free(req->hdrs[i].name);
		free(req->hdrs[i].value);
	}
	free(req->hdrs);
	if (req->resp)
		MHD_destroy_response(req->resp);
	strbuf_release(&req->body);
	free(req);
}

static void stats_record(struct http_stats *st, int code, double secs)
{
	size_t b;
	int i;

	for (i = 0; i < st->ncodes; i++)
		if (st->codes[i].code == code)
			break;
	if (i == st->ncodes) {
		if (st->ncodes == HTTP_MAX_CODES)
			i = HTTP_MAX_CODES - 1;	/* lump rare codes */
		else
			st->codes[st->ncodes++].code = code;
	}
	st->codes[i].n++;
	for (b = 0; b < N_BUCKETS; b++)
		if (secs <= bucket_le[b]) {
			st->bucket[b]++;
			break;
		}
	st->count++;
	st->sum_s += secs;
}

static int queue_reply(struct http_request *req)
{
	struct http_server *srv = req->srv;
	struct timespec now;
	double secs;
	int ret;

	if (!req->resp)
		http_reply_error(req, 500, "internal",
				 "the handler gave no response");
	ret = MHD_queue_response(req->conn, req->status, req->resp);
	req->queued = 1;

	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = (now.tv_sec - req->start.tv_sec) +
	       (now.tv_nsec - req->start.tv_nsec) / 1e9;
	pthread_mutex_lock(&srv->lock);
	stats_record(req->route ? &req->route->stats : &srv->unmatched,
		     req->status, secs);
	pthread_mutex_unlock(&srv->lock);
	return ret;
}

static void dispatch(struct http_request *req)
{
	if (req->bad_framing) {
		/* What follows the headers cannot be told apart from a
		 * next request: read none of it. */
		http_add_header(req, "Connection", "close");
		http_reply_error(req, 400, "bad-framing", "%s",
				 req->bad_framing);
	} else if (req->bad_target[0]) {
		http_reply_error(req, 400, "bad-path", "the request target "
				 "has %s", req->bad_target);
	} else if (req->too_large) {
		http_reply_error(req, 413, "body-too-large",
				 "request body exceeds %zu bytes",
				 req->srv->body_max);
	} else if (req->route) {
		req->route->handler(req, req->route->arg);
	} else if (req->wrong_method) {
		struct strbuf allow = STRBUF_INIT;

		allowed_methods(req, &allow);
		http_add_header(req, "Allow", allow.buf);
		strbuf_release(&allow);
		http_reply_error(req, 405, "method-not-allowed",
				 "%s is not allowed on %s", req->method,
				 req->url);
	} else {
		http_reply_error(req, 404, "not-found", "no such resource: %s",
				 req->url);
	}
}

/* Counts the framing headers of a request (a MHD_KeyValueIterator). */
struct framing {
	int content_length, transfer_encoding, chunked, blank_name;
};

static enum MHD_Result framing_count(void *cls, enum MHD_ValueKind kind,
				     const char *key, const char *value)
{
	struct framing *f = cls;

	if (strpbrk(key, " \t"))
		f->blank_name = 1;
	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		f->content_length++;
	if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->transfer_encoding++;
		f->chunked = value && !strcasecmp(value, "chunked");
	}
	return MHD_YES;
}

/* Why the request's framing headers are ambiguous; NULL if they are not. */
static const char *framing_check(struct MHD_Connection *conn)
{
	struct framing f = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, framing_count, &f);
	if (f.blank_name)
		return "a header name with a blank (before its colon)";
	if (f.content_length > 1)
		return "more than one Content-Length";
	if (f.content_length && f.transfer_encoding)
		return "both Content-Length and Transfer-Encoding";
	if (f.transfer_encoding > 1 || (f.transfer_encoding && !f.chunked))
		return "a Transfer-Encoding other than one \"chunked\"";
	return NULL;
}

/* Sets the header deadline of conn's connection: 0 (none) or due_ms. */
static void conn_deadline(struct http_server *srv, struct MHD_Connection *conn,
			  long long due_ms)
{
	const union MHD_ConnectionInfo *info;
	struct http_conn *c;

	info = MHD_get_connection_info(conn,
				       MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = info ? info->socket_context : NULL;
	if (!c)
		return;
	pthread_mutex_lock(&srv->conn_lock);
	c->deadline_ms = due_ms;
	pthread_mutex_unlock(&srv->conn_lock);
}

/* A request line is in: the request starts, with the target as sent. */
static void *uri_cb(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_request *req = xcalloc(1, sizeof(*req));
	req->srv = cls;
	strbuf_init(&req->body);
	target_parse(req, uri ? uri : "");
	return req;
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn,
				 const char *url, const char *method,
				 const char *version, const char *upload,
				 size_t *upload_size, void **con_cls)
{
	struct http_server *srv = cls;
	struct http_request *req = *con_cls;

	if (!req)
		return MHD_NO;
	if (!req->conn) {
		const char *cl;

		conn_deadline(srv, conn, 0);
		clock_gettime(CLOCK_MONOTONIC, &req->start);
		req->conn = conn;
		req->url = url;
		req->method = method;
		req->bad_framing = framing_check(conn);
		if (!req->bad_framing && !req->bad_target[0])
			route_find(req);

		/* Refuse an announced oversized body before reading it. */
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > srv->body_max)
			req->too_large = 1;
		if (req->bad_framing || req->bad_target[0] ||
		    req->too_large) {
			dispatch(req);
			return (enum MHD_Result)queue_reply(req);
		}
		return MHD_YES;
	}
	if (req->queued) {
		/* Answered early: discard whatever still arrives. */
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;

		if (!req->too_large && req->body.len + n > srv->body_max) {
			req->too_large = 1;
			strbuf_release(&req->body);
		}
		/* A body nobody reads is not kept either. */
		if (!req->too_large && req->route)
			strbuf_add(&req->body, upload, n);
		*upload_size = 0;
		return MHD_YES;
	}
	dispatch(req);
	return (enum MHD_Result)queue_reply(req);
}

/* A request ended: the next one's headers are due from now. */
static void completed_cb(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;

	request_free(*con_cls);
	*con_cls = NULL;
	conn_deadline(srv, conn, now_ms() + srv->header_timeout_s * 1000LL);
}

/* Connections opened and closed: the list the sweeper walks. */
static void conn_cb(void *cls, struct MHD_Connection *conn, void **ctx,
		    enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *info;
	struct http_conn *c = *ctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		c = xcalloc(1, sizeof(*c));
		info = MHD_get_connection_info(conn,
				MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = info ? info->connect_fd : -1;
		c->deadline_ms = now_ms() + srv->header_timeout_s * 1000LL;
		pthread_mutex_lock(&srv->conn_lock);
		c->next = srv->conns;
		if (c->next)
			c->next->prev = c;
		srv->conns = c;
		srv->n_conns++;
		pthread_mutex_unlock(&srv->conn_lock);
		*ctx = c;
		return;
	}
	if (!c)
		return;
	pthread_mutex_lock(&srv->conn_lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	srv->n_conns--;
	pthread_mutex_unlock(&srv->conn_lock);
	free(c);
	*ctx = NULL;
}

/*
 * Shuts down the connections whose headers are late, then sleeps until
 * the next deadline: a connection opened later has a later deadline, so
 * header_timeout_s is the longest sleep that misses none.
 */
static void *sweeper_main(void *arg)
{
	struct http_server *srv = arg;
	struct timespec until;
	struct http_conn *c;
	long long now, next;

	pthread_mutex_lock(&srv->conn_lock);
	while (!srv->stopping) {
		now = now_ms();
		next = now + srv->header_timeout_s * 1000LL;
		for (c = srv->conns; c; c = c->next) {
			if (!c->deadline_ms)
				continue;
			if (c->deadline_ms > now) {
				if (c->deadline_ms < next)
					next = c->deadline_ms;
				continue;
			}
			if (c->fd >= 0)
				shutdown(c->fd, SHUT_RDWR);
			c->deadline_ms = 0;
			srv->n_header_timeouts++;
		}
		until.tv_sec = next / 1000;
		until.tv_nsec = next % 1000 * 1000000;
		pthread_cond_timedwait(&srv->sweep_cond, &srv->conn_lock,
				       &until);
	}
	pthread_mutex_unlock(&srv->conn_lock);
	return NULL;
}

/*
 * libmicrohttpd's own diagnostics, as "http: ADDRESS: message".  Any
 * client can make a line per connection of these, so a connection
 * refused at a limit is only counted, and one that ended in the middle
 * of its request (the client left, or the sweeper cut it) is a debug
 * line.
 */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http_server *srv = cls;
	struct strbuf msg = STRBUF_INIT;
	enum log_level level = LOG_LEVEL_WARN;

	if (strstr(fmt, "reached connection limit")) {
		pthread_mutex_lock(&srv->conn_lock);
		srv->n_refused++;
		pthread_mutex_unlock(&srv->conn_lock);
		return;
	}
	if (strstr(fmt, "when reading request") ||
	    strstr(fmt, "closed by remote side"))
		level = LOG_LEVEL_DEBUG;
	strbuf_vaddf(&msg, fmt, ap);
	while (msg.len && msg.buf[msg.len - 1] == '\n')
		msg.buf[--msg.len] = '\0';
	log_msg(level, "http", "%s: %s", srv->listen, msg.buf);
	strbuf_release(&msg);
}

int http_server_start(struct http_server *srv)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_USE_ERROR_LOG;

	if (srv->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv->mhd = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, srv,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&srv->addr,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)srv->threads,
		MHD_OPTION_URI_LOG_CALLBACK, uri_cb, srv,
		MHD_OPTION_NOTIFY_COMPLETED, completed_cb, srv,
		MHD_OPTION_NOTIFY_CONNECTION, conn_cb, srv,
		MHD_OPTION_STRICT_FOR_CLIENT, 1,
		MHD_OPTION_CONNECTION_TIMEOUT, srv->idle_timeout_s,
		MHD_OPTION_CONNECTION_LIMIT, srv->max_conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, srv->max_per_addr,
		MHD_OPTION_END);
	if (!srv->mhd)
		return error("http", "%s: cannot listen: %s", srv->listen,
			     errno ? strerror(errno) : "unknown error");
	if (pthread_create(&srv->sweeper, NULL, sweeper_main, srv))
		return error("http", "%s: cannot start the connection "
			     "sweeper", srv->listen);
	srv->sweeper_started = 1;
	return 0;
}

int http_server_port(struct http_server *srv)
{
	const union MHD_DaemonInfo *info;

	if (!srv || !srv->mhd)
		return 0;
	info = MHD_get_daemon_info(srv->mhd, MHD_DAEMON_INFO_BIND_PORT);
	return info ? info->port : 0;
}

void http_server_free(struct http_server *srv)
{
	size_t i;
	int r;

	if (!srv)
		return;
	if (srv->sweeper_started) {
		pthread_mutex_lock(&srv->conn_lock);
		srv->stopping = 1;
		pthread_cond_signal(&srv->sweep_cond);
		pthread_mutex_unlock(&srv->conn_lock);
		pthread_join(srv->sweeper, NULL);
	}
	/* Closes every connection: conn_cb() frees them all. */
	if (srv->mhd)
		MHD_stop_daemon(srv->mhd);
	for (i = 0; i < srv->ndbs; i++)
		db_close(srv->dbs[i]);
	free(srv->dbs);
	for (r = 0; r < srv->nroutes; r++) {
		free(srv->routes[r].method);
		free(srv->routes[r].pattern);
	}
	pthread_mutex_destroy(&srv->lock);
	pthread_mutex_destroy(&srv->conn_lock);
	pthread_cond_destroy(&srv->sweep_cond);
	free(srv->listen);
	free(srv->db_path);
	free(srv);
}

static void stats_write(const struct http_stats *st, const char *method,
			const char *route, struct strbuf *out, int part)
{
	unsigned long long cum = 0;
	size_t b;
	int i;

	if (part == 0) {
		for (i = 0; i < st->ncodes; i++)
			strbuf_addf(out, "kregress_http_requests_total"
				    "{method=\"%s\",route=\"%s\",code=\"%d\"}"
				    " %llu\n", method, route,
				    st->codes[i].code, st->codes[i].n);
		return;
	}
	if (!st->count)
		return;
	for (b = 0; b < N_BUCKETS; b++) {
		cum += st->bucket[b];
		strbuf_addf(out, "kregress_http_request_duration_seconds_bucket"
			    "{method=\"%s\",route=\"%s\",le=\"%g\"} %llu\n",
			    method, route, bucket_le[b], cum);
	}
	strbuf_addf(out, "kregress_http_request_duration_seconds_bucket"
		    "{method=\"%s\",route=\"%s\",le=\"+Inf\"} %llu\n",
		    method, route, st->count);
	strbuf_addf(out, "kregress_http_request_duration_seconds_sum"
		    "{method=\"%s\",route=\"%s\"} %.6f\n", method, route,
		    st->sum_s);
	strbuf_addf(out, "kregress_http_request_duration_seconds_count"
		    "{method=\"%s\",route=\"%s\"} %llu\n", method, route,
		    st->count);
}

void http_metrics_write(struct http_server *srv, struct strbuf *out)
{
	int part, i;

	pthread_mutex_lock(&srv->lock);
	for (part = 0; part < 2; part++) {
		if (part == 0)
			strbuf_addstr(out,
				"# HELP kregress_http_requests_total HTTP "
				"requests answered, by route and status.\n"
				"# TYPE kregress_http_requests_total "
				"counter\n");
		else
			strbuf_addstr(out,
				"# HELP kregress_http_request_duration_seconds"
				" Time from request headers to response.\n"
				"# TYPE kregress_http_request_duration_seconds"
				" histogram\n");
		for (i = 0; i < srv->nroutes; i++)
			stats_write(&srv->routes[i].stats,
				    srv->routes[i].method,
				    srv->routes[i].pattern, out, part);
		stats_write(&srv->unmatched, "", "unmatched", out, part);
	}
	pthread_mutex_unlock(&srv->lock);

	pthread_mutex_lock(&srv->conn_lock);
	strbuf_addf(out, "# HELP kregress_http_connections Connections open "
		    "now.\n"
		    "# TYPE kregress_http_connections gauge\n"
		    "kregress_http_connections %llu\n"
		    "# HELP kregress_http_connections_refused_total "
		    "Connections refused at a limit (in all or per "
		    "address).\n"
		    "# TYPE kregress_http_connections_refused_total counter\n"
		    "kregress_http_connections_refused_total %llu\n"
		    "# HELP kregress_http_header_timeouts_total Connections "
		    "closed for headers not complete in time.\n"
		    "# TYPE kregress_http_header_timeouts_total counter\n"
		    "kregress_http_header_timeouts_total %llu\n",
		    srv->n_conns, srv->n_refused, srv->n_header_timeouts);
	pthread_mutex_unlock(&srv->conn_lock);
}

const char *http_method(struct http_request *req)
{
	return req->method;
}

const char *http_path(struct http_request *req)
{
	return req->url;
}

const char *http_header(struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_query(struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}

const char *http_param(struct http_request *req, int idx)
{
	return idx >= 0 && idx < req->nparams ? req->params[idx] : NULL;
}

const char *http_body(struct http_request *req, size_t *len)
{
	if (len)
		*len = req->body.len;
	return req->body.buf;
}

struct db *http_db(struct http_request *req)
{
	struct http_server *srv = req->srv;
	struct db *db = NULL;

	if (tls_db && tls_server == srv->id)
		return tls_db;
	if (!srv->db_path || db_open(srv->db_path, &db) ||
	    (srv->db_setup && srv->db_setup(db))) {
		db_close(db);
		http_reply_error(req, 500, "database",
				 "the database cannot be opened");
		return NULL;
	}
	pthread_mutex_lock(&srv->lock);
	ALLOC_GROW(srv->dbs, srv->ndbs + 1, srv->dbs_alloc);
	srv->dbs[srv->ndbs++] = db;
	pthread_mutex_unlock(&srv->lock);
	tls_db = db;
	tls_server = srv->id;
	return db;
}

void http_add_header(struct http_request *req, const char *name,
		     const char *value)
{
	ALLOC_GROW(req->hdrs, req->nhdrs + 1, req->alloc_hdrs);
	req->hdrs[req->nhdrs].name = xstrdup(name);
	req->hdrs[req->nhdrs].value = xstrdup(value);
	req->nhdrs++;
}

void http_reply(struct http_request *req, int status, const char *ctype,
		char *body, size_t len)
{
	size_t i;

	if (req->resp) {
		/* A second reply is a bug in a handler; keep the first. */
		free(body);
		log_warn("http", "%s %s: second reply ignored", req->method,
			 req->url);
		return;
	}
	req->resp = alloc_check(MHD_create_response_from_buffer(len, body,
						MHD_RESPMEM_MUST_FREE),
				"MHD_create_response_from_buffer");
	req->status = status;
	MHD_add_response_header(req->resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	for (i = 0; i < req->nhdrs; i++)
		MHD_add_response_header(req->resp, req->hdrs[i].name,
					req->hdrs[i].value);
}

void http_reply_error(struct http_request *req, int status, const char *code,
		      const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* json_pack() fails on bytes that are not UTF-8: say so instead. */
	v = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message",
		      msg.buf);
	if (!v)
		v = json_pack("{s:{s:s,s:s}}", "error", "code", code,
			      "message", "(message is not valid UTF-8)");
	http_reply_json(req, status, v);
	strbuf_release(&msg);
}
