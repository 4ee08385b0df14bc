/*
 * api_web.c - the dashboard's API routes (see api_web.h): arguments
 * checked first (api_args.c), queries in db_web.c, answers with ETags.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "alloc.h"
#include "api_args.h"
#include "api_web.h"
#include "db_web.h"
#include "http.h"
#include "log.h"
#include "stats.h"
#include "strbuf.h"
#include "web.h"

struct api_web {
	char *state_dir;	/* resolved (realpath); NULL: none */
	struct stats_opts stats;
};

struct api_web *api_web_new(const char *state_dir,
			    const struct stats_opts *stats)
{
	struct api_web *w = xcalloc(1, sizeof(*w));
	if (state_dir) {
		w->state_dir = realpath(state_dir, NULL);
		if (!w->state_dir)
			log_warn("api", "%s: %m: no console log will be "
				 "served", state_dir);
	}
	if (stats)
		w->stats = *stats;
	else
		stats_opts_init(&w->stats);
	return w;
}

void api_web_free(struct api_web *w)
{
	if (!w)
		return;
	free(w->state_dir);
	free(w);
}

/* Replies v (stolen) as JSON with an ETag. */
static void reply_json(struct http_request *req, json_t *v)
{
	char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	if (!text) {
		http_reply_error(req, 500, "internal",
				 "cannot encode the response");
		return;
	}
	web_reply_tagged(req, "application/json", text, strlen(text), NULL);
}

/* The id of the path's first parameter, or 0 after a 404 naming what. */
static long long path_id(struct http_request *req, const char *what)
{
	const char *param = http_param(req, 0);
	long long id;

	if (api_parse_ll(param, 1, INT64_MAX, &id)) {
		http_reply_error(req, 404, "not-found", "no %s \"%s\"", what,
				 param);
		return 0;
	}
	return id;
}

static void get_run(struct http_request *req, void *arg)
{
	struct api_web *w = arg;
	json_t *run;
	struct db *db;
	long long id;

	id = path_id(req, "run");
	if (!id)
		return;
	db = http_db(req);
	if (!db)
		return;
	if (db_web_run(db, id, &run)) {
		http_reply_error(req, 500, "database",
				 "the run could not be read");
		return;
	}
	if (!run) {
		http_reply_error(req, 404, "not-found", "no run %lld", id);
		return;
	}
	json_object_set_new(run, "threshold_pct",
			    json_real(100 * w->stats.threshold));
	reply_json(req, run);
}

static void trends(struct http_request *req, void *arg)
{
	struct db_web_trend_filter f = { .limit = API_TRENDS_DEFAULT };
	long long limit = API_TRENDS_DEFAULT;
	json_t *points, *noise;
	struct db *db;
	int more;

	if (api_query_str_required(req, "tree", &f.tree) ||
	    api_query_str_required(req, "arch", &f.arch) ||
	    api_query_str_required(req, "workload", &f.workload) ||
	    api_query_str_required(req, "metric", &f.metric) ||
	    api_query_str(req, "host", &f.host) ||
	    api_query_ll(req, "limit", 1, API_TRENDS_MAX, &limit))
		return;
	f.limit = limit;
	db = http_db(req);
	if (!db)
		return;
	if (db_web_trends(db, &f, &points, &more, &noise)) {
		http_reply_error(req, 500, "database",
				 "the trends could not be read");
		return;
	}
	reply_json(req, json_pack("{s:o,s:b,s:I,s:o}", "points", points,
				  "more", more, "limit", (json_int_t)limit,
				  "noise", noise ? noise : json_null()));
}

static void hosts(struct http_request *req, void *arg)
{
	json_t *items;
	struct db *db;

	db = http_db(req);
	if (!db)
		return;
	if (db_web_hosts(db, &items)) {
		http_reply_error(req, 500, "database",
				 "the hosts could not be read");
		return;
	}
	reply_json(req, json_pack("{s:o}", "items", items));
}

/* A required build id argument; 0 after a 400. */
static long long build_arg(struct http_request *req, const char *name)
{
	long long id = 0;

	if (!http_query(req, name)) {
		http_reply_error(req, 400, "bad-parameter",
				 "%s (a build id) is required", name);
		return 0;
	}
	if (api_query_ll(req, name, 1, INT64_MAX, &id))
		return 0;
	return id;
}

static void compare(struct http_request *req, void *arg)
{
	struct api_web *w = arg;
	long long a, b;
	json_t *out;
	struct db *db;

	a = build_arg(req, "a");
	if (!a)
		return;
	b = build_arg(req, "b");
	if (!b)
		return;
	if (a == b) {
		http_reply_error(req, 400, "bad-parameter",
				 "a and b must be two different builds");
		return;
	}
	db = http_db(req);
	if (!db)
		return;
	if (db_web_compare(db, a, b, &w->stats, &out)) {
		http_reply_error(req, 500, "database",
				 "the builds could not be compared");
		return;
	}
	if (!out) {
		http_reply_error(req, 404, "not-found",
				 "no build %lld or no build %lld", a, b);
		return;
	}
	json_object_set_new(out, "threshold_pct",
			    json_real(100 * w->stats.threshold));
	json_object_set_new(out, "alpha", json_real(w->stats.alpha));
	reply_json(req, out);
}

/*
 * The file of a recorded console path if it resolves to a regular file
 * under the state directory (relative paths are taken from it); NULL
 * otherwise.  The caller frees the result.
 */
static char *console_file(struct api_web *w, const char *recorded)
{
	struct strbuf full = STRBUF_INIT;
	size_t n;
	struct stat st;
	char *real;

	if (!w->state_dir || !*recorded)
		return NULL;
	if (*recorded != '/')
		strbuf_addf(&full, "%s/", w->state_dir);
	strbuf_addstr(&full, recorded);
	real = realpath(full.buf, NULL);
	strbuf_release(&full);
	if (!real)
		return NULL;
	n = strlen(w->state_dir);
	if (strncmp(real, w->state_dir, n) || real[n] != '/' ||
	    stat(real, &st) || !S_ISREG(st.st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}

/*
 * Reads the file at path, or its last API_CONSOLE_MAX bytes behind a
 * line that says how much was left out.  0, or -1 (logged).
 */
static int console_read(const char *path, struct strbuf *out)
{
	struct stat st;
	off_t skip = 0;
	char buf[65536];
	ssize_t n;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error("api", "%s: %m", path);
	if (fstat(fd, &st))
		goto out;
	if (st.st_size > API_CONSOLE_MAX) {
		skip = st.st_size - API_CONSOLE_MAX;
		strbuf_addf(out, "[kregress: the first %lld bytes of this "
			    "log are left out]\n", (long long)skip);
		if (lseek(fd, skip, SEEK_SET) < 0)
			goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 &&
	       out->len < API_CONSOLE_MAX + 128)
		strbuf_add(out, buf, n);
	if (n < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		error("api", "%s: %m", path);
	close(fd);
	return ret;
}

static void console(struct http_request *req, void *arg)
{
	struct api_web *w = arg;
	struct strbuf text = STRBUF_INIT;
	char *recorded = NULL, *file = NULL, *body;
	int found, finished;
	struct db *db;
	long long id;
	size_t len;

	id = path_id(req, "boot");
	if (!id)
		return;
	db = http_db(req);
	if (!db)
		return;
	if (db_web_console(db, id, &found, &recorded, &finished)) {
		http_reply_error(req, 500, "database",
				 "the boot could not be read");
		goto out;
	}
	if (!found) {
		http_reply_error(req, 404, "not-found", "no boot %lld", id);
		goto out;
	}
	if (recorded)
		file = console_file(w, recorded);
	if (!file) {
		if (recorded)
			log_warn("api", "boot %lld: console log %s is not a "
				 "file under the state directory", id,
				 recorded);
		http_reply_error(req, 404, "no-console-log",
				 "boot %lld has no console log on this "
				 "server", id);
		goto out;
	}
	if (console_read(file, &text)) {
		http_reply_error(req, 500, "io",
				 "the console log could not be read");
		goto out;
	}
	body = strbuf_detach(&text, &len);
	if (!finished)
		/* Still growing: no tag a client would keep. */
		http_reply(req, 200, "text/plain; charset=utf-8", body, len);
	else
		web_reply_tagged(req, "text/plain; charset=utf-8", body, len,
				 NULL);
out:
	strbuf_release(&text);
	free(recorded);
	free(file);
}

static void notifications(struct http_request *req, void *arg)
{
	json_t *items;
	struct db *db;
	long long id;

	id = path_id(req, "series");
	if (!id)
		return;
	db = http_db(req);
	if (!db)
		return;
	if (db_web_notifications(db, id, &items)) {
		http_reply_error(req, 500, "database",
				 "the mails could not be read");
		return;
	}
	if (!items) {
		http_reply_error(req, 404, "not-found", "no series %lld", id);
		return;
	}
	reply_json(req, json_pack("{s:o}", "items", items));
}

static void facets(struct http_request *req, void *arg)
{
	json_t *out;
	struct db *db;

	db = http_db(req);
	if (!db)
		return;
	if (db_web_facets(db, &out)) {
		http_reply_error(req, 500, "database",
				 "the filter values could not be read");
		return;
	}
	reply_json(req, out);
}

int api_web_routes_add(struct api_web *w, struct http_server *srv)
{
	static const struct {
		const char *pattern;
		void (*handler)(struct http_request *req, void *arg);
	} routes[] = {
		{ "/api/v1/runs/{id}", get_run },
		{ "/api/v1/trends", trends },
		{ "/api/v1/hosts", hosts },
		{ "/api/v1/compare", compare },
		{ "/api/v1/boots/{id}/console", console },
		{ "/api/v1/series/{id}/notifications", notifications },
		{ "/api/v1/facets", facets },
	};
	size_t i;

	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (http_route_add(srv, "GET", routes[i].pattern,
				   routes[i].handler, w))
			return -1;
	return 0;
}
