/*
 * api.c - the routes of the JSON API (v1).
 *
 * Handlers validate every input before touching the database, so bad
 * input is a 4xx and never a half-written row: a submission is one
 * transaction (series row + fetch job, db_series_submit()).  Queries go
 * through db_series.c; this file only shapes requests and responses.
 */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "alloc.h"
#include "allowlist.h"
#include "api.h"
#include "api_args.h"
#include "api_web.h"
#include "config.h"
#include "db.h"
#include "db_report.h"
#include "db_series.h"
#include "http.h"
#include "http_json.h"
#include "jobq.h"
#include "log.h"
#include "mail.h"
#include "options.h"
#include "stage_analyze.h"
#include "strbuf.h"
#include "web.h"

#define API_URL_MAX		4096
#define API_LIMIT_DEFAULT	50
#define API_LIMIT_MAX		500
#define API_SAMPLES_DEFAULT	1000
#define API_SAMPLES_MAX		10000

/* What a reload may change: swapped whole under api->lock. */
struct api_access {
	char **tokens;
	size_t n_tokens;
	char **allow;		/* NULL: any URL may be submitted */
	size_t n_allow;
};

struct api {
	struct http_server *http;
	struct api_web *dash;	/* the dashboard's API routes */
	struct web *web;	/* its files; NULL: none */
	pthread_rwlock_t lock;	/* readers: handlers; writer: reload */
	struct api_access *access;
};

/*
 * Compares in time that depends only on the length of the configured
 * token b, never on where a and b first differ.
 */
static int token_equal(const char *a, size_t alen, const char *b,
		       size_t blen)
{
	volatile unsigned char diff = alen != blen;
	size_t i;

	for (i = 0; i < blen; i++)
		diff |= (unsigned char)(i < alen ? a[i] : 0) ^
			(unsigned char)b[i];
	return diff == 0;
}

/*
 * 1 if the request carries a configured bearer token; 0 after a 401.
 * Called with api->lock held for reading.
 */
static int authorized(struct http_request *req, struct api_access *api)
{
	const char *h = http_header(req, "Authorization");
	size_t i, len;
	int match = 0;

	if (h && !strncasecmp(h, "Bearer ", 7)) {
		h += 7;
		while (*h == ' ')
			h++;
		len = strlen(h);
		/* Check every token: the time does not say which matched. */
		for (i = 0; i < api->n_tokens; i++)
			match |= token_equal(h, len, api->tokens[i],
					     strlen(api->tokens[i]));
		if (len && match)
			return 1;
	}
	http_add_header(req, "WWW-Authenticate",
			"Bearer realm=\"kregress\"");
	http_reply_error(req, 401, "unauthorized",
			 h ? "the bearer token is not valid" :
			     "an Authorization: Bearer token is required");
	return 0;
}

/* The media type of Content-Type, lower-case, parameters stripped. */
static void media_type(struct http_request *req, char *out, size_t size)
{
	const char *ct = http_header(req, "Content-Type");
	size_t i = 0;

	if (ct)
		while (ct[i] && ct[i] != ';' && ct[i] != ' ' &&
		       i + 1 < size) {
			out[i] = tolower((unsigned char)ct[i]);
			i++;
		}
	out[i] = '\0';
}

static int valid_url(const char *url)
{
	size_t i, len = strlen(url);

	if (len > API_URL_MAX)
		return 0;
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f)
			return 0;
	return strlen(strstr(url, "://") + 3) > 0;
}

/*
 * The allowlist keeps submissions from pointing into private networks:
 * 1 when url may be fetched, else 0 with *why.  Called with api->lock
 * held for reading.
 */
static int url_allowed(struct api_access *api, const char *url,
		       const char **why)
{
	if (!api->allow)
		return 1;
	return !allowlist_check((const char *const *)api->allow, url, NULL,
				why);
}

static void submit_series(struct http_request *req, void *arg)
{
	struct api *api = arg;
	char type[64], location[64];
	const char *body, *url = NULL, *why = NULL;
	json_t *doc = NULL;
	json_error_t jerr;
	struct db *db;
	long long id;
	size_t len;
	int allowed;

	pthread_rwlock_rdlock(&api->lock);
	allowed = authorized(req, api->access);
	pthread_rwlock_unlock(&api->lock);
	if (!allowed)
		return;
	body = http_body(req, &len);
	media_type(req, type, sizeof(type));
	if (!strcmp(type, "application/json")) {
		const char *key;
		json_t *v;

		doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc) {
			http_reply_error(req, 400, "bad-json",
					 "malformed JSON at line %d column "
					 "%d: %s", jerr.line, jerr.column,
					 jerr.text);
			goto out;
		}
		if (!json_is_object(doc)) {
			http_reply_error(req, 400, "bad-request",
					 "expected an object {\"url\": ...}");
			goto out;
		}
		json_object_foreach(doc, key, v)
			if (strcmp(key, "url")) {
				http_reply_error(req, 400, "bad-request",
						 "unknown key \"%s\"", key);
				goto out;
			}
		url = json_string_value(json_object_get(doc, "url"));
		if (!url) {
			http_reply_error(req, 400, "bad-request",
					 "\"url\" must be a string");
			goto out;
		}
		if (!valid_url(url)) {
			http_reply_error(req, 400, "bad-url",
					 "\"url\" must be an http(s) URL of at "
					 "most %d bytes without spaces",
					 API_URL_MAX);
			goto out;
		}
		pthread_rwlock_rdlock(&api->lock);
		allowed = url_allowed(api->access, url, &why);
		pthread_rwlock_unlock(&api->lock);
		if (!allowed) {
			http_reply_error(req, 403, "url-not-allowed",
					 "\"%s\" is refused: %s", url, why);
			goto out;
		}
	} else if (!strcmp(type, "application/mbox") ||
		   !strcmp(type, "text/plain")) {
		struct strbuf bad = STRBUF_INIT;

		if (mail_box_check(body, len, &bad)) {
			http_reply_error(req, 400, "bad-mbox", "%s", bad.buf);
			strbuf_release(&bad);
			goto out;
		}
	} else {
		http_reply_error(req, 415, "unsupported-media-type",
				 "send application/json {\"url\": ...} or "
				 "an application/mbox body, not \"%s\"",
				 type);
		goto out;
	}

	db = http_db(req);
	if (!db)
		goto out;
	if (db_series_submit(db, url, url ? NULL : body, len, &id)) {
		http_reply_error(req, 500, "database",
				 "the series could not be stored");
		goto out;
	}
	snprintf(location, sizeof(location), "/api/v1/series/%lld", id);
	http_add_header(req, "Location", location);
	http_reply_json(req, 202, json_pack("{s:I,s:s}", "id", (json_int_t)id,
					    "status", "queued"));
out:
	json_decref(doc);
}

static void list_series(struct http_request *req, void *arg)
{
	struct series_filter f = { .limit = API_LIMIT_DEFAULT };
	long long limit = API_LIMIT_DEFAULT, next = 0;
	json_t *items = NULL;
	struct db *db;

	if (api_query_str(req, "status", &f.status) ||
	    api_query_str(req, "list", &f.list) ||
	    api_query_str(req, "author", &f.author) ||
	    api_query_str(req, "q", &f.q) ||
	    api_query_str(req, "tree", &f.tree) ||
	    api_query_str(req, "arch", &f.arch) ||
	    api_query_str(req, "verdict", &f.verdict) ||
	    api_query_ll(req, "limit", 1, API_LIMIT_MAX, &limit) ||
	    api_query_ll(req, "before", 1, INT64_MAX, &f.before) ||
	    api_query_ll(req, "after", 0, INT64_MAX, &f.after) ||
	    api_query_ll(req, "offset", 0, 1000000000, &f.offset))
		return;
	f.limit = limit;
	db = http_db(req);
	if (!db)
		return;
	if (db_series_list(db, &f, &items, &next)) {
		http_reply_error(req, 500, "database",
				 "the series could not be read");
		return;
	}
	http_reply_json(req, 200, json_pack("{s:o,s:o,s:I}", "items", items,
		"next_before", next ? json_integer(next) : json_null(),
		"limit", (json_int_t)limit));
}

/* The series id of the path, or 0 after a 404. */
static long long series_id(struct http_request *req)
{
	const char *param = http_param(req, 0);
	long long id;

	if (api_parse_ll(param, 1, INT64_MAX, &id)) {
		http_reply_error(req, 404, "not-found", "no series \"%s\"",
				 param);
		return 0;
	}
	return id;
}

static void get_series(struct http_request *req, void *arg)
{
	json_t *series = NULL;
	struct db *db;
	long long id;

	id = series_id(req);
	if (!id)
		return;
	db = http_db(req);
	if (!db)
		return;
	if (db_series_get(db, id, &series)) {
		http_reply_error(req, 500, "database",
				 "the series could not be read");
		return;
	}
	if (!series) {
		http_reply_error(req, 404, "not-found", "no series %lld", id);
		return;
	}
	http_reply_json(req, 200, series);
}

static void series_samples(struct http_request *req, void *arg)
{
	struct sample_filter f = { .limit = API_SAMPLES_DEFAULT };
	long long limit = API_SAMPLES_DEFAULT, next = 0, id;
	json_t *items = NULL;
	struct db *db;

	id = series_id(req);
	if (!id)
		return;
	if (api_query_ll(req, "run", 1, INT64_MAX, &f.run) ||
	    api_query_str(req, "workload", &f.workload) ||
	    api_query_str(req, "metric", &f.metric) ||
	    api_query_ll(req, "after", 0, INT64_MAX, &f.after) ||
	    api_query_ll(req, "limit", 1, API_SAMPLES_MAX, &limit))
		return;
	f.limit = limit;
	db = http_db(req);
	if (!db)
		return;
	if (db_series_samples(db, id, &f, &items, &next)) {
		http_reply_error(req, 500, "database",
				 "the samples could not be read");
		return;
	}
	if (!items) {
		http_reply_error(req, 404, "not-found", "no series %lld", id);
		return;
	}
	http_reply_json(req, 200, json_pack("{s:I,s:o,s:o,s:I}", "series",
		(json_int_t)id, "items", items, "next_after",
		next ? json_integer(next) : json_null(), "limit",
		(json_int_t)limit));
}

/* A moderator releases a held report: it is sent by the report stage. */
static void release_notification(struct http_request *req, void *arg)
{
	struct api *api = arg;
	const char *param = http_param(req, 0);
	long long id, series = 0;
	char *status = NULL;
	struct db *db;
	int allowed, rc;

	pthread_rwlock_rdlock(&api->lock);
	allowed = authorized(req, api->access);
	pthread_rwlock_unlock(&api->lock);
	if (!allowed)
		return;
	if (api_parse_ll(param, 1, INT64_MAX, &id)) {
		http_reply_error(req, 404, "not-found",
				 "no notification \"%s\"", param);
		return;
	}
	db = http_db(req);
	if (!db)
		return;
	rc = db_report_release_held(db, id, &series, &status);
	if (rc == DB_REPORT_RELEASED)
		http_reply_json(req, 200, json_pack("{s:I,s:I,s:s}", "id",
			(json_int_t)id, "series", (json_int_t)series,
			"status", "pending"));
	else if (rc == DB_REPORT_NOT_FOUND)
		http_reply_error(req, 404, "not-found", "no notification %lld",
				 id);
	else if (rc == DB_REPORT_NOT_HELD)
		http_reply_error(req, 409, "not-held", "notification %lld is "
				 "%s, not held for moderation", id, status);
	else
		http_reply_error(req, 500, "database",
				 "the notification could not be released");
	free(status);
}

static void health(struct http_request *req, void *arg)
{
	struct jobq_counts c;
	struct db *db;
	int version;

	db = http_db(req);
	if (!db)
		return;
	if (db_user_version(db, &version) || jobq_counts(db, &c)) {
		http_reply_error(req, 503, "unhealthy",
				 "the database does not answer");
		return;
	}
	http_reply_json(req, 200, json_pack("{s:s,s:s,s:i,s:I,s:{s:I,s:I,s:I,"
		"s:I}}", "status", "ok", "database", "ok",
		"schema_version", version, "queue_depth", (json_int_t)c.queued,
		"jobs", "queued", (json_int_t)c.queued,
		"running", (json_int_t)c.running, "done", (json_int_t)c.done,
		"failed", (json_int_t)c.failed));
}

static void metrics(struct http_request *req, void *arg)
{
	struct api *api = arg;
	struct strbuf out = STRBUF_INIT;
	struct jobq_counts c;
	struct db *db;
	char *text;
	size_t len;

	db = http_db(req);
	if (!db)
		return;
	if (jobq_counts(db, &c)) {
		http_reply_error(req, 500, "database",
				 "the queue could not be read");
		return;
	}
	strbuf_addf(&out,
		"# HELP kregress_queue_depth Jobs waiting in the queue.\n"
		"# TYPE kregress_queue_depth gauge\n"
		"kregress_queue_depth %lld\n"
		"# HELP kregress_queue_ready Queued jobs whose backoff is over."
		"\n# TYPE kregress_queue_ready gauge\n"
		"kregress_queue_ready %lld\n"
		"# HELP kregress_jobs Jobs by state.\n"
		"# TYPE kregress_jobs gauge\n"
		"kregress_jobs{state=\"queued\"} %lld\n"
		"kregress_jobs{state=\"running\"} %lld\n"
		"kregress_jobs{state=\"done\"} %lld\n"
		"kregress_jobs{state=\"failed\"} %lld\n",
		c.queued, c.ready, c.queued, c.running, c.done, c.failed);
	http_metrics_write(api->http, &out);
	text = strbuf_detach(&out, &len);
	http_reply(req, 200, "text/plain; version=0.0.4; charset=utf-8", text,
		   len);
}

static char **strings_dup(const char *const *v, size_t n)
{
	char **copy = xcalloc(n + 1, sizeof(*copy));
	size_t i;
	for (i = 0; i < n; i++) {
		copy[i] = xstrdup(v[i]);
	}
	return copy;
}

static void strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static struct api_access *access_new(const struct api_opts *opts)
{
	struct api_access *a = xcalloc(1, sizeof(*a));
	a->tokens = strings_dup(opts->tokens, opts->n_tokens);
	a->n_tokens = opts->n_tokens;
	if (opts->url_allowlist) {
		a->allow = strings_dup(opts->url_allowlist,
				       opts->n_url_allowlist);
		a->n_allow = opts->n_url_allowlist;
	}
	return a;
}

static void access_free(struct api_access *a)
{
	if (!a)
		return;
	strings_free(a->tokens, a->n_tokens);
	strings_free(a->allow, a->n_allow);
	free(a);
}

int api_start_opts(const struct api_opts *opts, struct api **out)
{
	struct http_opts ho = {
		.listen = opts->listen,
		.db_path = opts->db_path,
		.body_max = opts->body_max,
		.threads = opts->threads,
		.db_setup = db_series_reader_setup,
		.max_connections = opts->max_connections,
		.max_per_address = opts->max_per_address,
		.header_timeout_s = opts->header_timeout_s,
		.idle_timeout_s = opts->idle_timeout_s,
	};
	struct api *api;

	api = xcalloc(1, sizeof(*api));
	pthread_rwlock_init(&api->lock, NULL);
	api->access = access_new(opts);
	api->dash = api_web_new(opts->state_dir, opts->stats);
	if (opts->web_dir && web_new(opts->web_dir, &api->web)) {
		api_stop(api);
		return -1;
	}
	if (api->web)
		log_info("api", "serving the dashboard from %s",
			 opts->web_dir);

	if (http_server_new(&ho, &api->http) ||
	    http_route_add(api->http, "POST", "/api/v1/series",
			   submit_series, api) ||
	    http_route_add(api->http, "GET", "/api/v1/series",
			   list_series, api) ||
	    http_route_add(api->http, "GET", "/api/v1/series/{id}",
			   get_series, api) ||
	    http_route_add(api->http, "GET", "/api/v1/series/{id}/samples",
			   series_samples, api) ||
	    http_route_add(api->http, "POST",
			   "/api/v1/notifications/{id}/release",
			   release_notification, api) ||
	    http_route_add(api->http, "GET", "/api/v1/health", health, api) ||
	    http_route_add(api->http, "GET", "/metrics", metrics, api) ||
	    api_web_routes_add(api->dash, api->http) ||
	    (api->web && web_routes_add(api->web, api->http)) ||
	    http_server_start(api->http)) {
		api_stop(api);
		return -1;
	}
	log_info("api", "%s: serving the API on port %d",
		 opts->listen ? opts->listen : HTTP_LISTEN_DEFAULT,
		 http_server_port(api->http));
	*out = api;
	return 0;
}

int api_port(struct api *api)
{
	return http_server_port(api->http);
}

void api_stop(struct api *api)
{
	if (!api)
		return;
	http_server_free(api->http);
	api_web_free(api->dash);
	web_free(api->web);
	access_free(api->access);
	pthread_rwlock_destroy(&api->lock);
	free(api);
}

/* The api_opts of cfg (the tokens and url_allowlist arrays to free()). */
static void opts_from_config(const struct config *cfg, struct api_opts *o)
{
	const char **tokens;
	size_t i;

	tokens = xcalloc(cfg->api.n_tokens + 1, sizeof(*tokens));
	for (i = 0; i < cfg->api.n_tokens; i++)
		tokens[i] = cfg->api.tokens[i].value;
	o->listen = cfg->api.listen;
	o->db_path = cfg->database;
	o->state_dir = cfg->state_dir;
	o->tokens = tokens;
	o->n_tokens = cfg->api.n_tokens;
	/* An empty allowlist in the file means no URL at all. */
	o->url_allowlist = options_allowlist(cfg);
	o->n_url_allowlist = cfg->n_url_allowlist;
	o->body_max = cfg->api.max_body_bytes;
	o->max_connections = cfg->limits.api_connections;
	o->max_per_address = cfg->limits.api_connections_per_address;
	o->header_timeout_s = cfg->limits.api_header_timeout_s;
	o->idle_timeout_s = cfg->limits.api_idle_timeout_s;
}

int api_start(const struct config *cfg, struct api **out)
{
	struct api_opts o = { 0 };
	char web_dir[PATH_MAX];
	struct stats_opts stats;
	enum analyze_fdr fdr;
	int ret;

	opts_from_config(cfg, &o);
	stage_analyze_options(cfg, &stats, &fdr);
	o.stats = &stats;
	if (!web_find_dir(web_dir, sizeof(web_dir)))
		o.web_dir = web_dir;
	else
		log_warn("api", "no dashboard next to the program or in "
			 "%s/web (build it with make): only the API is "
			 "served", KREGRESS_DATADIR);
	ret = api_start_opts(&o, out);
	free((void *)o.tokens);
	free((void *)o.url_allowlist);
	return ret;
}

void api_reload(struct api *api, const struct config *cfg)
{
	struct api_access *fresh, *old;
	struct api_opts o = { 0 };

	opts_from_config(cfg, &o);
	fresh = access_new(&o);
	free((void *)o.tokens);
	free((void *)o.url_allowlist);
	pthread_rwlock_wrlock(&api->lock);
	old = api->access;
	api->access = fresh;
	pthread_rwlock_unlock(&api->lock);
	access_free(old);
}
