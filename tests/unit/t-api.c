/*
 * t-api.c - the JSON API through a real HTTP server on 127.0.0.1 with an
 * ephemeral port: every route, every error status, bad JSON, oversized
 * bodies (announced and chunked), wrong tokens, unknown ids and routes,
 * paging and filters, metrics, and that a failed submission writes
 * nothing; targets with a NUL or a control character, and requests whose
 * framing is ambiguous (smuggling).  Requests go through client.c
 * (libcurl) or, where headers or framing matter, a raw socket.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "api.h"
#include "client.h"
#include "db.h"
#include "db_series.h"
#include "dbquery.h"
#include "strbuf.h"
#include "tap.h"

#define TOKEN		"s3cret-token-for-tests"
#define BODY_MAX	(64 * 1024)

static char dir[] = "/tmp/t-api.XXXXXX";
static char server[64];
static int port;
static struct db *db;

/* One request; returns the status, *doc the parsed body (or NULL). */
static long req(const char *method, const char *path, const char *token,
		const char *ctype, const char *body, size_t len, json_t **doc)
{
	struct client_request r = { method, path, token, ctype, body, len };
	struct strbuf resp = STRBUF_INIT;
	long status = -1;

	if (doc)
		*doc = NULL;
	if (client_call(server, &r, &status, &resp))
		status = -1;
	else if (doc)
		*doc = json_loadb(resp.buf, resp.len, 0, NULL);
	strbuf_release(&resp);
	return status;
}

static long get(const char *path, json_t **doc)
{
	return req("GET", path, NULL, NULL, NULL, 0, doc);
}

static long post_json(const char *token, const char *body, json_t **doc)
{
	return req("POST", "/api/v1/series", token, "application/json", body,
		   strlen(body), doc);
}

static const char *err_code(json_t *doc)
{
	return json_string_value(json_object_get(json_object_get(doc,
							"error"), "code"));
}

/*
 * Writes request verbatim (len 0: a string), reads the whole answer
 * (the requests say Connection: close).
 */
static int raw(const char *request, size_t len, struct strbuf *out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[4096];
	ssize_t n;
	int fd;

	if (!len)
		len = strlen(request);
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	while (len) {
		n = write(fd, request, len);
		if (n <= 0)
			break;	/* the server may answer and close */
		request += n;
		len -= n;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, n);
	close(fd);
	return 0;
}

/* The status of a raw GET of target (sent as it is); *out the answer. */
static int raw_get(const char *target, struct strbuf *out)
{
	struct strbuf r = STRBUF_INIT;
	int status = -1;

	strbuf_reset(out);
	strbuf_addf(&r, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close"
		    "\r\n\r\n", target);
	if (!raw(r.buf, 0, out))
		sscanf(out->buf, "HTTP/1.1 %d", &status);
	strbuf_release(&r);
	return status;
}

/* How many responses (status lines) out holds. */
static int responses(const struct strbuf *out)
{
	const char *p = out->buf;
	int n = 0;

	while ((p = strstr(p, "HTTP/1.1 "))) {
		n++;
		p++;
	}
	return n;
}

static const char mbox[] =
	"From 1234 Mon Sep 17 00:00:00 2001\n"
	"From: A Developer <dev@example.org>\n"
	"Subject: [PATCH] mm: make clear_huge_page faster\n"
	"Message-ID: <1@example.org>\n"
	"\n"
	"body\n";

static void test_health(void)
{
	json_t *doc;

	is_int(get("/api/v1/health", &doc), 200, "health: 200");
	is_str(json_string_value(json_object_get(doc, "status")), "ok",
	       "health: status ok");
	is_int(json_integer_value(json_object_get(doc, "schema_version")),
	       db_schema_version(), "health: schema version of the binary");
	is_int(json_integer_value(json_object_get(doc, "queue_depth")), 0,
	       "health: empty queue");
	json_decref(doc);
}

static void test_auth(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *body = "{\"url\":\"https://lore.kernel.org/r/1@x\"}";
	json_t *doc;

	is_int(post_json(NULL, body, &doc), 401, "no token: 401");
	is_str(err_code(doc), "unauthorized", "no token: error code");
	json_decref(doc);
	is_int(post_json("wrong", body, &doc), 401, "wrong token: 401");
	json_decref(doc);
	is_int(post_json("s3cret-token-for-test", body, NULL), 401,
	       "token prefix: 401");
	is_int(post_json(TOKEN "x", body, NULL), 401, "token + 1 char: 401");
	is_int(post_json("", body, NULL), 401, "empty token: 401");

	raw("POST /api/v1/series HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\nContent-Type: application/json\r\n"
	    "Content-Length: 2\r\n\r\n{}", 0, &out);
	ok(strstr(out.buf, "HTTP/1.1 401") != NULL, "raw: 401 status line");
	ok(strstr(out.buf, "WWW-Authenticate: Bearer") != NULL,
	   "401 carries WWW-Authenticate");
	ok(strstr(out.buf, "application/json") != NULL, "401 is JSON");
	strbuf_release(&out);
	is_int(q_int(db, "SELECT count(*) FROM series"), 0,
	       "refused submissions wrote nothing");
}

static void test_bad_bodies(void)
{
	static const struct {
		const char *ctype, *body, *code, *what;
		long status;
	} cases[] = {
		{ "application/json", "{\"url\": ", "bad-json",
		  "truncated JSON", 400 },
		{ "application/json", "", "bad-json", "empty JSON body", 400 },
		{ "application/json", "[\"https://x/y\"]", "bad-request",
		  "JSON array", 400 },
		{ "application/json", "{\"url\": 42}", "bad-request",
		  "url not a string", 400 },
		{ "application/json", "{\"url\":\"https://a/b\",\"x\":1}",
		  "bad-request", "unknown key", 400 },
		{ "application/json",
		  "{\"url\":\"https://a/b\",\"url\":\"https://a/c\"}",
		  "bad-json", "duplicate key", 400 },
		{ "application/json", "{\"url\":\"ftp://a/b\"}", "bad-url",
		  "ftp URL", 400 },
		{ "application/json", "{\"url\":\"https://a/b c\"}", "bad-url",
		  "URL with a space", 400 },
		{ "application/json", "{\"url\":\"https://\"}", "bad-url",
		  "URL without host", 400 },
		{ "application/json", "{\"url\":\"https://10.0.0.1/x\"}",
		  "url-not-allowed", "URL outside the allowlist", 403 },
		{ "application/json", "{\"url\":\"https://x.evil.example/\"}",
		  "url-not-allowed", "allowlisted host as a prefix", 403 },
		{ "application/mbox", "", "bad-mbox", "empty mbox", 400 },
		{ "application/mbox", "just some words\n", "bad-mbox",
		  "not a mail", 400 },
		{ "image/png", "\x89PNG", "unsupported-media-type",
		  "image/png", 415 },
		{ NULL, "{\"url\":\"https://a/b\"}", "unsupported-media-type",
		  "no Content-Type", 415 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc;
		long st = req("POST", "/api/v1/series", TOKEN, cases[i].ctype,
			      cases[i].body, strlen(cases[i].body), &doc);

		is_int(st, cases[i].status, "%s: status", cases[i].what);
		is_str(err_code(doc), cases[i].code, "%s: error code",
		       cases[i].what);
		ok(json_is_string(json_object_get(json_object_get(doc,
			"error"), "message")), "%s: has a message",
		   cases[i].what);
		json_decref(doc);
	}
	is_int(q_int(db, "SELECT count(*) FROM series"), 0,
	       "bad bodies wrote no series");
	is_int(q_int(db, "SELECT count(*) FROM job"), 0, "... and no job");
}

static void test_oversized(void)
{
	struct strbuf out = STRBUF_INIT, r = STRBUF_INIT;
	char *big = malloc(BODY_MAX + 1);
	json_t *doc;
	int i;

	memset(big, 'a', BODY_MAX + 1);
	memcpy(big, "From: x\n\n", 9);
	is_int(req("POST", "/api/v1/series", TOKEN, "application/mbox", big,
		   BODY_MAX + 1, &doc), 413, "body of cap + 1 bytes: 413");
	is_str(err_code(doc), "body-too-large", "413 error code");
	json_decref(doc);

	/* Announced far over the cap: answered without sending the body. */
	raw("POST /api/v1/series HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
	    "Authorization: Bearer " TOKEN "\r\n"
	    "Content-Type: application/mbox\r\n"
	    "Content-Length: 100000000000\r\n\r\n", 0, &out);
	ok(!strncmp(out.buf, "HTTP/1.1 413", 12),
	   "Content-Length of 100 GB: 413 before any body");
	strbuf_reset(&out);

	/* Chunked, no length announced: cut off once past the cap. */
	strbuf_addstr(&r, "POST /api/v1/series HTTP/1.1\r\nHost: x\r\n"
		      "Connection: close\r\nAuthorization: Bearer " TOKEN
		      "\r\nContent-Type: application/mbox\r\n"
		      "Transfer-Encoding: chunked\r\n\r\n");
	strbuf_addstr(&r, "9\r\nFrom: x\n\n\r\n");
	for (i = 0; i < 20; i++) {
		strbuf_addf(&r, "1000\r\n");
		strbuf_grow(&r, 4096);
		memset(r.buf + r.len, 'b', 4096);
		r.len += 4096;
		strbuf_addstr(&r, "\r\n");
	}
	strbuf_addstr(&r, "0\r\n\r\n");
	raw(r.buf, r.len, &out);
	ok(!strncmp(out.buf, "HTTP/1.1 413", 12),
	   "chunked body of 80 KiB: 413");
	ok(strstr(out.buf, "body-too-large") != NULL, "... as JSON error");

	/* Exactly at the cap is accepted. */
	memset(big, 'a', BODY_MAX);
	memcpy(big, "From: x\n\n", 9);
	is_int(req("POST", "/api/v1/series", TOKEN, "application/mbox", big,
		   BODY_MAX, NULL), 202, "body of exactly the cap: 202");
	is_int(q_int(db, "SELECT count(*) FROM series"), 1,
	       "only the body within the cap was stored");
	is_int(q_int(db, "SELECT length(mbox) FROM series"), BODY_MAX,
	       "... completely");
	db_exec(db, "DELETE FROM series");
	strbuf_release(&out);
	strbuf_release(&r);
	free(big);
}

static long long submit_ok(void)
{
	struct strbuf out = STRBUF_INIT;
	json_t *doc;
	long long id1, id2;
	char want[64];

	is_int(post_json(TOKEN, "{\"url\":\"https://lore.kernel.org/all/"
			 "20231122.1@example.org/t.mbox.gz\"}", &doc), 202,
	       "submit URL: 202");
	id1 = json_integer_value(json_object_get(doc, "id"));
	ok(id1 > 0, "submit URL: an id");
	is_str(json_string_value(json_object_get(doc, "status")), "queued",
	       "submit URL: queued");
	json_decref(doc);

	is_int(req("POST", "/api/v1/series", TOKEN,
		   "text/plain; charset=utf-8", mbox, strlen(mbox), &doc), 202,
	       "submit mbox as text/plain: 202");
	id2 = json_integer_value(json_object_get(doc, "id"));
	ok(id2 == id1 + 1, "submit mbox: next id");
	json_decref(doc);

	raw("POST /api/v1/series HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
	    "Authorization: Bearer " TOKEN "\r\n"
	    "Content-Type: application/json\r\nContent-Length: 23\r\n\r\n"
	    "{\"url\":\"https://x/y/z\"}", 0, &out);
	snprintf(want, sizeof(want), "Location: /api/v1/series/%lld",
		 id2 + 1);
	ok(strstr(out.buf, "HTTP/1.1 202") != NULL, "raw submit: 202");
	ok(strstr(out.buf, want) != NULL, "202 carries Location");
	strbuf_release(&out);

	is_int(q_int(db, "SELECT count(*) FROM series"), 3, "three series stored");
	is_int(q_int(db, "SELECT count(*) FROM job WHERE kind = 'fetch' AND "
		     "state = 'queued'"), 3, "one queued fetch job each");
	is_int(q_int(db, "SELECT count(DISTINCT series_id) FROM job"), 3,
	       "... for three different series");
	is_int(q_int(db, "SELECT length(mbox) FROM series WHERE source_url IS "
		     "NULL"), strlen(mbox), "the mbox is stored whole");
	return id1;
}

static void test_get(long long id)
{
	char path[64];
	json_t *doc, *jobs;

	snprintf(path, sizeof(path), "/api/v1/series/%lld", id);
	is_int(get(path, &doc), 200, "GET series: 200");
	is_int(json_integer_value(json_object_get(doc, "id")), id,
	       "GET series: its id");
	is_str(json_string_value(json_object_get(doc, "status")), "queued",
	       "GET series: queued");
	ok(strstr(json_string_value(json_object_get(doc, "source_url")),
		  "t.mbox.gz") != NULL, "GET series: source_url");
	jobs = json_object_get(doc, "jobs");
	is_int(json_array_size(jobs), 1, "GET series: one job");
	is_str(json_string_value(json_object_get(json_array_get(jobs, 0),
						 "kind")), "fetch",
	       "GET series: the fetch job");
	is_str(json_string_value(json_object_get(json_array_get(jobs, 0),
						 "state")), "queued",
	       "GET series: job state");
	ok(json_is_array(json_object_get(doc, "patches")) &&
	   json_is_array(json_object_get(doc, "comparisons")) &&
	   json_is_array(json_object_get(doc, "boots")) &&
	   json_is_array(json_object_get(doc, "builds")),
	   "GET series: patches, builds, boots, comparisons arrays");
	ok(!json_object_get(doc, "mbox"), "GET series: no raw mbox");
	json_decref(doc);

	is_int(get("/api/v1/series/999999", &doc), 404, "unknown id: 404");
	is_str(err_code(doc), "not-found", "unknown id: error code");
	json_decref(doc);
	is_int(get("/api/v1/series/abc", NULL), 404, "id abc: 404");
	is_int(get("/api/v1/series/0", NULL), 404, "id 0: 404");
	is_int(get("/api/v1/series/-1", NULL), 404, "id -1: 404");
	is_int(get("/api/v1/series/99999999999999999999", NULL), 404,
	       "id beyond 64 bits: 404");
	is_int(get("/api/v1/series/1/extra", NULL), 404,
	       "extra path segment: 404");
}

static void test_routes(void)
{
	struct strbuf out = STRBUF_INIT;
	json_t *doc;

	is_int(get("/nope", &doc), 404, "unknown route: 404");
	is_str(err_code(doc), "not-found", "unknown route: JSON error");
	json_decref(doc);
	is_int(get("/", NULL), 404, "/: 404");
	is_int(req("DELETE", "/api/v1/series", TOKEN, NULL, NULL, 0, &doc),
	       405, "DELETE series: 405");
	is_str(err_code(doc), "method-not-allowed", "405 error code");
	json_decref(doc);
	is_int(req("POST", "/api/v1/health", NULL, NULL, NULL, 0, NULL), 405,
	       "POST health: 405");
	raw("PUT /api/v1/series/1 HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\nContent-Length: 0\r\n\r\n", 0, &out);
	ok(strstr(out.buf, "HTTP/1.1 405") != NULL &&
	   strstr(out.buf, "Allow: GET") != NULL, "405 carries Allow");
	strbuf_reset(&out);
	raw("HEAD /api/v1/health HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\n\r\n", 0, &out);
	ok(!strncmp(out.buf, "HTTP/1.1 200", 12) && !strchr(out.buf, '{'),
	   "HEAD is served by the GET route, without a body");
	strbuf_release(&out);
}

/*
 * The router decodes each segment of the target as sent: a NUL or a
 * control character is refused for every route (libmicrohttpd's decoded
 * URL stops at a %00, so "ID%00/samples" used to read as "ID"), and an
 * escaped '/' is not a separator.
 */
static void test_targets(long long id)
{
	struct strbuf out = STRBUF_INIT;
	char t[128];

	snprintf(t, sizeof(t), "/api/v1/series/%lld%%00/samples", id);
	is_int(raw_get(t, &out), 400, "%%00 in a segment: 400, not the series");
	ok(strstr(out.buf, "\"bad-path\"") &&
	   strstr(out.buf, "a control character (%00)"),
	   "... a bad-path error naming the byte");
	snprintf(t, sizeof(t), "/api/v1/series/%lld%%00", id);
	is_int(raw_get(t, &out), 400, "%%00 at the end of the path: 400");
	snprintf(t, sizeof(t), "/api/v1/series/%lld%%0a", id);
	is_int(raw_get(t, &out), 400, "%%0a in a segment: 400");
	snprintf(t, sizeof(t), "/api/v1/series/%lld%%2", id);
	is_int(raw_get(t, &out), 400, "malformed %%-escape: 400");
	ok(strstr(out.buf, "a malformed %-escape") != NULL,
	   "... named as such");
	is_int(raw_get("/api/v1/series?status=queued%00x", &out), 400,
	       "%%00 in a query argument: 400, not a cut-off filter");
	snprintf(t, sizeof(t), "/api/v1/series/%lld%%2Fsamples", id);
	is_int(raw_get(t, &out), 404, "%%2F is data, not a separator: 404");
	snprintf(t, sizeof(t), "/api/v1/%%73eries/%lld", id);
	is_int(raw_get(t, &out), 200, "an escaped letter still routes: 200");
	snprintf(t, sizeof(t), "\"id\":%lld", id);
	ok(strstr(out.buf, t) != NULL, "... to the series");
	strbuf_release(&out);
}

/*
 * Requests whose body length two parsers could read differently are
 * refused whole, with the connection closed: the bytes after the first
 * body are never served as a second request.
 */
static void test_framing(void)
{
	static const char smuggled[] =
		"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"
		"Connection: close\r\n\r\n";
	/* Each ends with a header whose value is what a front end could
	 * read as the body: the smuggled request, after an empty chunked
	 * body when chunked. */
	static const struct {
		const char *headers, *what;
		int chunked;
	} framing[] = {
		{ "Content-Length: 0\r\nContent-Length: ",
		  "two Content-Length", 0 },
		{ "Transfer-Encoding: chunked\r\nContent-Length: ",
		  "Transfer-Encoding and Content-Length", 1 },
		{ "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"
		  "\r\nX-Length: ", "two Transfer-Encoding", 1 },
		{ "Transfer-Encoding: identity\r\nX-Length: ",
		  "Transfer-Encoding: identity", 0 },
		{ "Content-Length : ", "a blank before the colon", 0 },
	};
	struct strbuf r = STRBUF_INIT, out = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(framing) / sizeof(framing[0]); i++) {
		const char *what = framing[i].what;
		const char *end = framing[i].chunked ? "0\r\n\r\n" : "";

		strbuf_reset(&r);
		strbuf_reset(&out);
		strbuf_addf(&r, "POST /api/v1/series HTTP/1.1\r\nHost: x\r\n"
			    "Authorization: Bearer " TOKEN "\r\n"
			    "Content-Type: application/json\r\n%s%zu\r\n"
			    "\r\n%s%s", framing[i].headers,
			    strlen(end) + strlen(smuggled), end, smuggled);
		raw(r.buf, r.len, &out);
		ok(!strncmp(out.buf, "HTTP/1.1 400", 12) &&
		   strstr(out.buf, "\"bad-framing\"") &&
		   strstr(out.buf, "Connection: close"),
		   "%s: 400 bad-framing, connection closed", what);
		is_int(responses(&out), 1, "%s: the request after it is not "
		       "served", what);
	}

	/* Pipelining with one clear length: both requests answered. */
	strbuf_reset(&r);
	strbuf_reset(&out);
	strbuf_addf(&r, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"
		    "Content-Length: 0\r\n\r\n%s", smuggled);
	raw(r.buf, r.len, &out);
	is_int(responses(&out), 2, "two pipelined requests with a clear "
	       "length: both answered");
	strbuf_release(&r);
	strbuf_release(&out);
}

/* Walks every page of path with ?limit=; returns the number of items. */
static int walk_pages(const char *query, int limit, int *pages,
		      int *ordered)
{
	char path[256];
	long long before = 0, prev = 0;
	int n = 0;

	*pages = 0;
	*ordered = 1;
	for (;;) {
		json_t *doc, *items, *it, *next;
		size_t i;

		snprintf(path, sizeof(path), "/api/v1/series?limit=%d%s%s",
			 limit, query, "");
		if (before)
			snprintf(path + strlen(path),
				 sizeof(path) - strlen(path), "&before=%lld",
				 before);
		if (get(path, &doc) != 200)
			return -1;
		(*pages)++;
		items = json_object_get(doc, "items");
		json_array_foreach(items, i, it) {
			long long id = json_integer_value(json_object_get(it,
									"id"));

			if (prev && id >= prev)
				*ordered = 0;
			prev = id;
			n++;
		}
		next = json_object_get(doc, "next_before");
		before = json_integer_value(next);
		json_decref(doc);
		if (!before || *pages > 100)
			break;
	}
	return n;
}

static void test_list(void)
{
	json_t *doc, *items;
	int i, pages, ordered;
	long long id;

	/* 3 series exist; add 120 more, some with parsed fields. */
	for (i = 0; i < 120; i++)
		db_series_submit(db, "https://x/s", NULL, 0, &id);
	db_exec(db, "UPDATE series SET status = 'done', subject = "
		    "'[PATCH v2 1/3] MM: Faster mremap', author = "
		    "'Ada Lovelace <ada@example.org>', list = 'linux-mm' "
		    "WHERE id % 10 = 0");

	is_int(get("/api/v1/series", &doc), 200, "list: 200");
	items = json_object_get(doc, "items");
	is_int(json_array_size(items), 50, "list: default limit 50");
	is_int(json_integer_value(json_object_get(json_array_get(items, 0),
						  "id")), 123,
	       "list: newest first");
	is_int(json_integer_value(json_object_get(doc, "next_before")), 74,
	       "list: next_before is the last id shown");
	json_decref(doc);

	is_int(walk_pages("", 50, &pages, &ordered), 123,
	       "paging by 50 visits all 123 series");
	is_int(pages, 3, "... in 3 pages");
	ok(ordered, "... each once, in descending order");
	is_int(walk_pages("", 500, &pages, &ordered), 123,
	       "limit 500: all in one page");
	is_int(pages, 1, "... and no next cursor");
	is_int(walk_pages("&status=done", 5, &pages, &ordered), 12,
	       "status=done: 12 series over pages of 5");
	is_int(pages, 3, "... in 3 pages");

	is_int(get("/api/v1/series?q=faster%20MREMAP&limit=500", &doc), 200,
	       "q: 200");
	is_int(json_array_size(json_object_get(doc, "items")), 12,
	       "q: case-insensitive subject substring");
	json_decref(doc);
	get("/api/v1/series?author=LOVELACE&list=linux-mm&after=100", &doc);
	is_int(json_array_size(json_object_get(doc, "items")), 2,
	       "author + list + after combine");
	json_decref(doc);
	get("/api/v1/series?list=linux-kernel", &doc);
	is_int(json_array_size(json_object_get(doc, "items")), 0,
	       "unknown list: empty");
	ok(json_is_null(json_object_get(doc, "next_before")),
	   "empty page: next_before null");
	json_decref(doc);
	get("/api/v1/series?offset=10&limit=5", &doc);
	items = json_object_get(doc, "items");
	is_int(json_integer_value(json_object_get(json_array_get(items, 0),
						  "id")), 113, "offset=10");
	is_int(json_array_size(items), 5, "offset with limit 5");
	json_decref(doc);

	is_int(get("/api/v1/series?limit=0", &doc), 400, "limit=0: 400");
	is_str(err_code(doc), "bad-parameter", "limit=0: bad-parameter");
	json_decref(doc);
	is_int(get("/api/v1/series?limit=501", NULL), 400, "limit=501: 400");
	is_int(get("/api/v1/series?limit=ten", NULL), 400, "limit=ten: 400");
	is_int(get("/api/v1/series?limit=5x", NULL), 400, "limit=5x: 400");
	is_int(get("/api/v1/series?before=-3", NULL), 400, "before=-3: 400");
	is_int(get("/api/v1/series?offset=-1", NULL), 400, "offset=-1: 400");
	is_int(get("/api/v1/series?status=", NULL), 400, "empty status: 400");
}

static void test_metrics(void)
{
	struct client_request r = { .method = "GET", .path = "/metrics" };
	struct strbuf out = STRBUF_INIT;
	long status;

	client_call(server, &r, &status, &out);
	is_int(status, 200, "metrics: 200");
	ok(strstr(out.buf, "# TYPE kregress_queue_depth gauge\n"
		  "kregress_queue_depth 123\n") != NULL,
	   "metrics: queue depth 123");
	ok(strstr(out.buf, "kregress_jobs{state=\"queued\"} 123\n") != NULL,
	   "metrics: jobs by state");
	ok(strstr(out.buf, "kregress_http_requests_total{method=\"POST\","
		  "route=\"/api/v1/series\",code=\"401\"} 6\n") != NULL,
	   "metrics: 401s counted per route and code");
	ok(strstr(out.buf, "kregress_http_requests_total{method=\"\","
		  "route=\"unmatched\",code=\"404\"} 3\n") != NULL,
	   "metrics: unknown routes counted");
	ok(strstr(out.buf, "kregress_http_request_duration_seconds_bucket{"
		  "method=\"GET\",route=\"/api/v1/series/{id}\",le=\"+Inf\"}")
	   != NULL, "metrics: latency histogram per route");
	ok(strstr(out.buf, "# TYPE kregress_http_request_duration_seconds "
		  "histogram\n") != NULL, "metrics: histogram type");
	strbuf_release(&out);
}

/* A failure after the series insert must roll the insert back. */
static void test_atomic_submit(void)
{
	json_t *doc;
	long long before = q_int(db, "SELECT count(*) FROM series");

	db_exec(db, "CREATE TRIGGER no_jobs BEFORE INSERT ON job BEGIN "
		    "SELECT RAISE(ABORT, 'test: job table refuses'); END");
	is_int(post_json(TOKEN, "{\"url\":\"https://x/atomic\"}", &doc), 500,
	       "submit with a failing job insert: 500");
	is_str(err_code(doc), "database", "500 error code");
	json_decref(doc);
	is_int(q_int(db, "SELECT count(*) FROM series"), before,
	       "no series row without its job");
	db_exec(db, "DROP TRIGGER no_jobs");
	is_int(post_json(TOKEN, "{\"url\":\"https://x/atomic\"}", NULL), 202,
	       "the same submission works afterwards");
}

static void *submitter(void *arg)
{
	long *accepted = arg;
	int i;

	for (i = 0; i < 25; i++)
		if (post_json(TOKEN, "{\"url\":\"https://x/concurrent\"}",
			      NULL) == 202)
			(*accepted)++;
	return NULL;
}

/* Four clients at once: every worker thread writes on its connection. */
static void test_concurrent(void)
{
	long long series0 = q_int(db, "SELECT count(*) FROM series");
	long long jobs0 = q_int(db, "SELECT count(*) FROM job");
	long accepted[4] = { 0 };
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, submitter, &accepted[i]);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(accepted[0] + accepted[1] + accepted[2] + accepted[3], 100,
	       "100 concurrent submissions: all 202");
	is_int(q_int(db, "SELECT count(*) FROM series") - series0, 100,
	       "... 100 new series");
	is_int(q_int(db, "SELECT count(*) FROM job") - jobs0, 100,
	       "... and 100 new jobs");
	is_int(q_int(db, "SELECT count(*) FROM series s WHERE source_url = "
		     "'https://x/concurrent' AND (SELECT count(*) FROM job j "
		     "WHERE j.series_id = s.id) = 1"), 100,
	       "... exactly one job per series");
}

static void test_db_unavailable(void)
{
	struct api_opts o = { .listen = "127.0.0.1:0",
			      .db_path = "/nonexistent-dir/x.db" };
	struct api *bad;
	json_t *doc;
	char saved[64];

	if (api_start_opts(&o, &bad)) {
		ok(0, "second server starts");
		return;
	}
	strcpy(saved, server);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", api_port(bad));
	is_int(get("/api/v1/health", &doc), 500, "no database: 500");
	is_str(err_code(doc), "database", "no database: JSON error");
	json_decref(doc);
	strcpy(server, saved);
	api_stop(bad);
}

int main(void)
{
	const char *tokens[] = { "another-token", TOKEN };
	const char *allow[] = { "https://lore.kernel.org/", "https://x/" };
	struct api_opts o = {
		.url_allowlist = allow,
		.n_url_allowlist = 2,
		.listen = "127.0.0.1:0",
		.tokens = tokens,
		.n_tokens = 2,
		.body_max = BODY_MAX,
		.threads = 2,
	};
	struct api *api = NULL;
	char path[256];
	long long id;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/kregress.db", dir);
	o.db_path = path;
	if (db_open(path, &db) || api_start_opts(&o, &api)) {
		ok(0, "server starts");
		return done_testing();
	}
	port = api_port(api);
	ok(port > 0, "listening on an ephemeral port (%d)", port);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", port);

	test_health();
	test_auth();
	test_bad_bodies();
	test_oversized();
	id = submit_ok();
	test_get(id);
	test_routes();
	test_targets(id);
	test_framing();
	test_list();
	test_metrics();
	test_atomic_submit();
	test_concurrent();
	test_db_unavailable();

	api_stop(api);
	db_close(db);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		diag("could not remove %s", dir);
	return done_testing();
}
