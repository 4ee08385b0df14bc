/*
 * cli_client.c - the API commands of kregress: submit, status, watch,
 * results.
 *
 * Each command makes plain API calls through client.c and prints either
 * a human table or, with --json, the API's JSON.  Exit status: 0 success,
 * 1 the server said no, could not be reached or answered something that
 * is not what the API answers (the reason is on stderr), 2 usage.
 * "watch" redraws a small block in place on a terminal and prints one
 * line per change otherwise, so its output can be logged or piped.
 *
 * The server is not trusted further than its answers are checked: a
 * submission's answer must name a series id, a series the one asked for,
 * with a status, a list an array of such series; else the command fails
 * saying what came.  Text in the answers is mostly mail (subjects,
 * authors, paths of diffs, compiler lines): every string of a document is
 * escaped (escape.h) before it is printed, and --json prints the document
 * as jansson writes it with JSON_ENSURE_ASCII, so no raw control
 * character of any kind reaches the terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "alloc.h"
#include "cli.h"
#include "cli_client.h"
#include "client.h"
#include "db_series.h"
#include "escape.h"
#include "log.h"
#include "net.h"
#include "numfmt.h"
#include "strbuf.h"

#define DEFAULT_CONFIG	"/etc/kregress/config.json"
#define DEFAULT_SERVER	"http://127.0.0.1:8080"
#define MBOX_MAX	(64u << 20)
#define CONFIG_MAX	(1u << 20)

struct opts {
	const char *server;
	const char *config;
	const char *token;
	const char *before;	/* status: list series older than this id */
	int json;
	int interval_s;
	int optind;
};

/* Parses the options every API command shares; -1 on a usage error. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "token", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "before", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_s = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!*optarg)
				return error("kregress", "--server is empty");
			o->server = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 't':
			o->token = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'b':
			o->before = optarg;
			break;
		case 'i':
			o->interval_s = atoi(optarg);
			if (o->interval_s < 1 || o->interval_s > 3600)
				return -1;
			break;
		default:
			return -1;
		}
	}
	o->optind = optind;
	return 0;
}

/* --json output: one document, ASCII only (\u escapes), then a newline. */
static int print_json(json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII |
				JSON_ENCODE_ANY);

	if (!text)
		return error("kregress", "the answer cannot be written as "
			     "JSON");
	printf("%s\n", text);
	free(text);
	return 0;
}

/*
 * Every string of doc (values, not keys; the keys printed are ours)
 * escaped in place, so that what the tables print is safe whatever the
 * mail held.  Escaping is idempotent.
 */
static void escape_doc(json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(doc)) {
		if (escape_needed(json_string_value(doc),
				  json_string_length(doc))) {
			escape_text_add(&sb, json_string_value(doc),
					json_string_length(doc));
			json_string_set(doc, sb.buf);
		}
	} else if (json_is_object(doc)) {
		json_object_foreach(doc, key, v)
			escape_doc(v);
	} else if (json_is_array(doc)) {
		json_array_foreach(doc, i, v)
			escape_doc(v);
	}
	strbuf_release(&sb);
}

/* A positive integer at doc.key, else 0. */
static long long positive(json_t *doc, const char *key)
{
	json_t *v = json_object_get(doc, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ?
	       json_integer_value(v) : 0;
}

/* doc is a series: an object with a positive id (id itself when id is
 * not 0) and a status; else -1, saying what came from where. */
static int check_series(json_t *doc, long long id, const char *what)
{
	json_t *st = json_object_get(doc, "status");

	if (!json_is_object(doc))
		return error("kregress", "%s: the answer is not a JSON object",
			     what);
	if (!positive(doc, "id") || (id && positive(doc, "id") != id))
		return id ? error("kregress", "%s: the answer is not series "
				  "%lld", what, id) :
		       error("kregress", "%s: the answer names no series id",
			     what);
	if (!json_is_string(st) || !*json_string_value(st))
		return error("kregress", "%s: series %lld in the answer has "
			     "no status", what, positive(doc, "id"));
	return 0;
}

/* doc is a list of series: {"items": [series...]}. */
static int check_list(json_t *doc, const char *what)
{
	json_t *items = json_object_get(doc, "items"), *s;
	size_t i;

	if (!json_is_array(items))
		return error("kregress", "%s: the answer has no list of "
			     "series (\"items\")", what);
	json_array_foreach(items, i, s)
		if (check_series(s, 0, what))
			return -1;
	return 0;
}

/* "0.0.0.0:8080" is where the daemon listens, not where to connect. */
static void listen_to_url(const char *listen, struct strbuf *out)
{
	strbuf_addstr(out, "http://");
	if (!strncmp(listen, "0.0.0.0:", 8))
		strbuf_addf(out, "127.0.0.1%s", listen + 7);
	else if (!strncmp(listen, "[::]:", 5))
		strbuf_addf(out, "[::1]%s", listen + 4);
	else if (*listen == ':')
		strbuf_addf(out, "127.0.0.1%s", listen);
	else
		strbuf_addstr(out, listen);
}

/* The daemon's configuration at path as JSON, or NULL (said why). */
static json_t *read_config(const char *path)
{
	struct strbuf text = STRBUF_INIT;
	json_error_t jerr;
	json_t *cfg = NULL;

	if (!strbuf_read_file(&text, path, CONFIG_MAX)) {
		cfg = json_loadb(text.buf, text.len, 0, &jerr);
		if (!cfg)
			error("kregress", "%s:%d: %s", path, jerr.line,
			      jerr.text);
	}
	strbuf_release(&text);
	return cfg;
}

/* An http:// or https:// URL with a host, or -1 saying where it came
 * from and what is wrong. */
static int check_server(const char *url, const char *from)
{
	struct net_url u;
	const char *why = NULL;
	int ret = 0;

	if (net_url_parse(url, &u, &why))
		return error("kregress", "%s \"%s\": not a URL: %s", from, url,
			     why);
	if ((strcmp(u.scheme, "http") && strcmp(u.scheme, "https")) ||
	    !*u.host)
		ret = error("kregress", "%s \"%s\": not an http:// or "
			    "https:// URL with a host", from, url);
	net_url_release(&u);
	return ret;
}

int cli_client_server(const char *opt_server, const char *config_path,
		      struct strbuf *out)
{
	const char *env = getenv("KREGRESS_SERVER"), *listen;
	json_t *cfg = NULL;
	int ret = -1;

	if (opt_server) {
		if (!*opt_server)
			return error("kregress", "--server is empty");
		if (check_server(opt_server, "--server"))
			return -1;
		strbuf_addstr(out, opt_server);
		return 0;
	}
	if (env && *env) {
		if (check_server(env, "KREGRESS_SERVER"))
			return -1;
		strbuf_addstr(out, env);
		return 0;
	}
	if (!config_path && access(DEFAULT_CONFIG, R_OK))
		goto fallback;
	if (!config_path)
		config_path = DEFAULT_CONFIG;
	cfg = read_config(config_path);
	if (!cfg)
		goto out;
	listen = json_string_value(json_object_get(json_object_get(cfg,
						   "api"), "listen"));
	if (listen && *listen) {
		listen_to_url(listen, out);
		ret = check_server(out->buf, config_path);
		goto out;
	}
fallback:
	strbuf_addstr(out, DEFAULT_SERVER);
	ret = 0;
out:
	json_decref(cfg);
	return ret;
}

/*
 * The token for a write: --token, else $KREGRESS_TOKEN, else (for the
 * administrator on the daemon's machine, who can read it anyway) the
 * first of api.tokens in the configuration named by -c.  A copy in *out.
 */
static int submit_token(const struct opts *o, struct strbuf *out)
{
	const char *t = o->token ? o->token : getenv("KREGRESS_TOKEN");
	json_t *cfg;

	if (t && *t) {
		strbuf_addstr(out, t);
		return 0;
	}
	if (o->config && (cfg = read_config(o->config))) {
		t = json_string_value(json_object_get(json_array_get(
			json_object_get(json_object_get(cfg, "api"),
					"tokens"), 0), "value"));
		if (t && *t)
			strbuf_addstr(out, t);
		json_decref(cfg);
		if (out->len)
			return 0;
	}
	return error("kregress", "submit needs a token: --token TOKEN, "
		     "KREGRESS_TOKEN, or -c CONFIG with api.tokens");
}

/*
 * One API call.  Returns the parsed JSON body of a 2xx answer in *doc
 * (when doc is not NULL) and 0; prints the server's error and returns -1
 * otherwise.  With json set, the document is also printed (print_json());
 * without --json, its strings come back escaped for printing
 * (escape_doc()).
 */
static int call(const struct opts *o, const struct client_request *r,
		int json, json_t **doc)
{
	struct strbuf server = STRBUF_INIT, resp = STRBUF_INIT;
	json_error_t jerr;
	json_t *body = NULL;
	long status = 0;
	int ret = -1;

	if (cli_client_server(o->server, o->config, &server))
		goto out;
	if (client_call(server.buf, r, &status, &resp)) {
		fprintf(stderr, "kregress: is kregressd running at %s? "
			"(--server or KREGRESS_SERVER)\n", server.buf);
		goto out;
	}
	body = json_loadb(resp.buf, resp.len, 0, &jerr);
	if (json && body && print_json(body))
		goto out;
	if (!o->json)
		escape_doc(body);
	if (status < 200 || status > 299) {
		const char *msg = json_string_value(json_object_get(
			json_object_get(body, "error"), "message"));

		error("kregress", "%s %s: HTTP %ld: %s", r->method, r->path,
		      status, msg ? msg : "(no error message)");
		goto out;
	}
	if (!body) {
		error("kregress", "%s %s: the answer is not JSON: %s",
		      r->method, r->path, jerr.text);
		goto out;
	}
	if (doc) {
		*doc = body;
		body = NULL;
	}
	ret = 0;
out:
	json_decref(body);
	strbuf_release(&server);
	strbuf_release(&resp);
	return ret;
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

static long long num(json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

/* A real number; NaN when absent or null. */
static double real(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* An id as the commands take it (what: "series"): a positive integer. */
static int parse_id(const char *s, const char *what, long long *id)
{
	char *end;

	errno = 0;
	*id = strtoll(s, &end, 10);
	if (errno || *end || end == s || *id <= 0)
		return error("kregress", "%s: not a %s id", s, what);
	return 0;
}

/*
 * The arguments of a command on one object: the shared options into *o
 * and one id (what: "series") into *id.  CLI_OK, or CLI_USAGE (cmd's usage
 * or the bad id said).
 */
static int id_args(int argc, char **argv, const char *cmd, const char *what,
		   struct opts *o, long long *id)
{
	if (parse_opts(argc, argv, o) || argc - o->optind != 1)
		return cli_usage(cmd);
	if (parse_id(argv[o->optind], what, id))
		return CLI_USAGE;
	return CLI_OK;
}

/*
 * GET /api/v1/series/ID, checked to be that series (call(), with json as
 * there): 0 with the document in *doc, or -1 (said).
 */
static int get_series(const struct opts *o, long long id, int json,
		      json_t **doc)
{
	struct client_request r = { .method = "GET" };
	struct strbuf path = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "/api/v1/series/%lld", id);
	r.path = path.buf;
	ret = call(o, &r, json, doc) || check_series(*doc, id, r.path) ?
	      -1 : 0;
	strbuf_release(&path);
	return ret;
}

int cli_submit(int argc, char **argv)
{
	struct client_request r = { .method = "POST",
				    .path = "/api/v1/series" };
	struct strbuf body = STRBUF_INIT, token = STRBUF_INIT;
	json_t *doc = NULL;
	struct opts o;
	const char *what;
	int ret = CLI_FAILED;

	if (parse_opts(argc, argv, &o) || argc - o.optind != 1)
		return cli_usage("submit");
	what = argv[o.optind];
	if (submit_token(&o, &token))
		return CLI_USAGE;
	r.token = token.buf;
	if (!strncmp(what, "http://", 7) || !strncmp(what, "https://", 8)) {
		json_t *req = json_pack("{s:s}", "url", what);
		char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;

		json_decref(req);
		if (!text) {
			error("kregress", "%s: not a valid URL", what);
			goto out;
		}
		strbuf_addstr(&body, text);
		free(text);
		r.content_type = "application/json";
	} else {
		if (strbuf_read_file(&body, what, MBOX_MAX))
			goto out;
		r.content_type = "application/mbox";
	}
	r.body = body.buf;
	r.body_len = body.len;
	if (call(&o, &r, o.json, &doc) ||
	    check_series(doc, 0, "POST /api/v1/series"))
		goto out;
	if (!o.json)
		printf("submitted series %lld (%s); follow it with: "
		       "kregress watch %lld\n", num(doc, "id"),
		       str(doc, "status"), num(doc, "id"));
	ret = CLI_OK;
out:
	json_decref(doc);
	strbuf_release(&body);
	strbuf_release(&token);
	return ret;
}

static void print_time(time_t t, char *buf, size_t size)
{
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm))
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
}

static const char *series_title(json_t *s)
{
	if (*str(s, "subject"))
		return str(s, "subject");
	if (*str(s, "source_url"))
		return str(s, "source_url");
	return "(mbox, not parsed yet)";
}

static void print_list(json_t *doc)
{
	json_t *items = json_object_get(doc, "items"), *s;
	size_t i;
	char when[32];

	printf("%-8s %-16s %-17s %s\n", "ID", "STATUS", "UPDATED (UTC)",
	       "SUBJECT");
	json_array_foreach(items, i, s) {
		print_time(num(s, "updated_at"), when, sizeof(when));
		printf("%-8lld %-16s %-17s %s\n", num(s, "id"),
		       str(s, "status"), when, series_title(s));
	}
	if (!json_array_size(items))
		printf("(no series)\n");
	else if (json_is_integer(json_object_get(doc, "next_before")))
		printf("(older series: kregress status --before %lld)\n",
		       num(doc, "next_before"));
}

static void print_jobs(json_t *s, FILE *f)
{
	json_t *jobs = json_object_get(s, "jobs"), *j;
	size_t i;

	json_array_foreach(jobs, i, j) {
		fprintf(f, "    job %lld %-8s %-7s %-8s attempt %lld/%lld",
			num(j, "id"), str(j, "kind"), str(j, "arch"),
			str(j, "state"), num(j, "attempts"),
			num(j, "max_attempts"));
		if (*str(j, "last_error"))
			fprintf(f, "  last error: %s", str(j, "last_error"));
		fputc('\n', f);
	}
}

/* "base done 3, patched running 1" from the boots counts. */
static void boots_summary(json_t *s, struct strbuf *out)
{
	json_t *boots = json_object_get(s, "boots"), *b;
	size_t i;

	json_array_foreach(boots, i, b)
		strbuf_addf(out, "%s%s %s %lld", i ? ", " : "",
			    str(b, "side"), str(b, "status"), num(b, "n"));
}

/*
 * One line per build, "x86_64 base 0f3c... ok, 2 objects, warnings 1
 * (new 0)" ("base aligned" for the layout control's), each after
 * prefix, the reason on the next line after indent.
 */
static void builds_lines(json_t *s, const char *prefix, const char *indent,
			 struct strbuf *out)
{
	json_t *builds = json_object_get(s, "builds"), *b;
	size_t i;

	json_array_foreach(builds, i, b) {
		strbuf_addf(out, "%s%s %s%s %.12s %s", prefix, str(b, "arch"),
			    *str(b, "side") ? str(b, "side") : "-",
			    !strcmp(str(b, "layout"), "aligned") ?
			    " aligned" : "", str(b, "commit_id"),
			    str(b, "status"));
		if (num(b, "objects_expected"))
			strbuf_addf(out, ", %lld/%lld objects",
				    num(b, "objects_compiled"),
				    num(b, "objects_expected"));
		else
			strbuf_addf(out, ", %lld objects",
				    num(b, "objects_compiled"));
		if (json_is_integer(json_object_get(b, "warnings")))
			strbuf_addf(out, ", warnings %lld",
				    num(b, "warnings"));
		if (json_is_integer(json_object_get(b, "new_warnings")))
			strbuf_addf(out, " (new %lld)",
				    num(b, "new_warnings"));
		if (num(b, "cached"))
			strbuf_addstr(out, ", cached");
		strbuf_addch(out, '\n');
		if (*str(b, "status_reason"))
			strbuf_addf(out, "%s%s\n", indent,
				    str(b, "status_reason"));
	}
}

static void print_builds(json_t *s)
{
	struct strbuf sb = STRBUF_INIT;

	builds_lines(s, "  build:       ", "               ", &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

/* "x86_64 tcg, instruction time: run 3 decided after 2 rounds (seed
 * 42); boots: ..." */
static void print_run(const char *prefix, json_t *r)
{
	long long rounds = num(r, "rounds");
	/* The layout control's run: its comparisons are answers on the
	 * as-built ones, not rows of its own. */
	int aligned = !strcmp(str(r, "layout"), "aligned");

	printf("%s%s %s, %s time%s: run %lld %s after %lld round%s (seed "
	       "%lld); boots: base %lld ok, %lld failed; patched %lld ok, "
	       "%lld failed%s\n", prefix, str(r, "arch"), str(r, "accel"),
	       !strcmp(str(r, "clock"), "instructions") ? "instruction" :
	       "real", aligned ? ", aligned kernels (layout control)" : "",
	       num(r, "id"), str(r, "status"),
	       rounds, rounds == 1 ? "" : "s", num(r, "seed"),
	       num(r, "base_ok"), num(r, "base_failed"), num(r, "patched_ok"),
	       num(r, "patched_failed"),
	       num(r, "analyzed") || aligned ? "" : " (not analyzed)");
}

/*
 * "  mail 3:      regression to A <a@x> (smtp): sent, 1 attempt" per
 * notification, the reason under it; a held one says how to release it;
 * then one line per patchwork check.
 */
static void print_notifications(json_t *s)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(s, "notifications"), i, n) {
		char label[32];

		/* "  mail 12:" padded to the column of the other fields */
		snprintf(label, sizeof(label), "  mail %lld:", num(n, "id"));
		printf("%-14s %s%s to %s (%s): %s, %lld attempt%s\n", label,
		       str(n, "kind"), strcmp(str(n, "role"), "moderation") ?
		       "" : " (moderation copy)", str(n, "recipients"),
		       !strcmp(str(n, "transport"), "outbox") ? "outbox" :
		       "smtp", str(n, "status"), num(n, "attempts"),
		       num(n, "attempts") == 1 ? "" : "s");
		if (*str(n, "path"))
			printf("               %s\n", str(n, "path"));
		if (*str(n, "status_reason"))
			printf("               %s\n", str(n, "status_reason"));
		if (!strcmp(str(n, "status"), "held"))
			printf("               release it with: kregress "
			       "report release %lld\n", num(n, "id"));
	}
	json_array_foreach(json_object_get(s, "checks"), i, n)
		printf("  check:       patch %lld %s: %s%s%s%s\n",
		       num(n, "patch_id"), str(n, "context"), str(n, "state"),
		       strcmp(str(n, "state"), str(n, "posted")) ?
		       " (not posted yet)" : "", *str(n, "last_error") ?
		       ": " : "", str(n, "last_error"));
}

/* The series' versions: the one before it, the one that superseded it. */
static void print_versions(json_t *s)
{
	json_t *prev = json_object_get(s, "since_previous"), *p;
	size_t i;

	if (num(s, "previous_id"))
		printf("  previous:    v%lld, series %lld (%s)\n",
		       num(s, "previous_version"), num(s, "previous_id"),
		       *str(prev, "status") ? str(prev, "status") : "?");
	if (num(s, "superseded_by"))
		printf("  superseded:  by v%lld, series %lld\n",
		       num(s, "superseded_by_version"),
		       num(s, "superseded_by"));
	json_array_foreach(json_object_get(s, "problems"), i, p)
		printf("  problem:     %s\n", json_string_value(p));
}

static void print_series(json_t *s)
{
	json_t *patches = json_object_get(s, "patches"), *p;
	struct strbuf boots = STRBUF_INIT;
	size_t i;
	char when[32];

	printf("series %lld: %s\n", num(s, "id"), str(s, "status"));
	if (*str(s, "status_reason"))
		printf("  reason:      %s\n", str(s, "status_reason"));
	printf("  subject:     %s\n", series_title(s));
	if (*str(s, "author"))
		printf("  author:      %s\n", str(s, "author"));
	if (*str(s, "source_url"))
		printf("  source:      %s\n", str(s, "source_url"));
	else
		printf("  source:      mbox, %lld bytes\n",
		       num(s, "mbox_bytes"));
	print_time(num(s, "created_at"), when, sizeof(when));
	printf("  submitted:   %s UTC\n", when);
	print_time(num(s, "updated_at"), when, sizeof(when));
	printf("  updated:     %s UTC\n", when);
	print_versions(s);
	if (*str(s, "tree"))
		printf("  tree:        %s\n", str(s, "tree"));
	if (*str(s, "base_used"))
		printf("  base:        %s (%s: %s)\n", str(s, "base_used"),
		       str(s, "base_source"), str(s, "base_reason"));
	if (num(s, "apply_failed_patch"))
		printf("  not applied: patch %lld/%lld %s %s\n",
		       num(s, "apply_failed_patch"), num(s, "total"),
		       str(s, "apply_failed_file"),
		       str(s, "apply_failed_hunk"));
	if (json_array_size(patches)) {
		printf("  patches:\n");
		json_array_foreach(patches, i, p) {
			printf("    %lld/%lld %s\n", num(p, "idx"),
			       num(s, "total"), str(p, "subject"));
			if (*str(p, "applied_commit"))
				printf("        commit %s (%s)\n",
				       str(p, "applied_commit"),
				       str(p, "apply_method"));
		}
	}
	print_builds(s);
	json_array_foreach(json_object_get(s, "runs"), i, p)
		print_run("  run:         ", p);
	printf("  jobs:\n");
	print_jobs(s, stdout);
	boots_summary(s, &boots);
	if (boots.len)
		printf("  boots:       %s\n", boots.buf);
	printf("  comparisons: %zu (kregress results %lld)\n",
	       json_array_size(json_object_get(s, "comparisons")),
	       num(s, "id"));
	print_notifications(s);
	strbuf_release(&boots);
}

int cli_status(int argc, char **argv)
{
	struct client_request r = { .method = "GET" };
	struct strbuf path = STRBUF_INIT;
	json_t *doc = NULL;
	struct opts o;
	long long id = 0, before;
	int ret = CLI_FAILED;

	if (parse_opts(argc, argv, &o) || argc - o.optind > 1)
		return cli_usage("status");
	if (argc - o.optind == 1) {
		if (parse_id(argv[o.optind], "series", &id))
			return CLI_USAGE;
		if (get_series(&o, id, o.json, &doc))
			goto out;
	} else {
		strbuf_addstr(&path, "/api/v1/series");
		if (o.before) {
			if (parse_id(o.before, "series", &before)) {
				ret = CLI_USAGE;
				goto out;
			}
			strbuf_addf(&path, "?before=%lld", before);
		}
		r.path = path.buf;
		if (call(&o, &r, o.json, &doc) || check_list(doc, r.path))
			goto out;
	}
	if (!o.json) {
		if (id)
			print_series(doc);
		else
			print_list(doc);
	}
	ret = CLI_OK;
out:
	json_decref(doc);
	strbuf_release(&path);
	return ret;
}

/* Success and failure states: the pipeline does no more for the series. */
static int final_status(const char *status)
{
	static const char *const finals[] = {
		"done", "failed", "incomplete", "does-not-apply", "superseded",
		NULL,
	};
	size_t len = strlen(status);
	int i;

	for (i = 0; finals[i]; i++)
		if (!strcmp(status, finals[i]))
			return 1;
	return len > 7 && !strcmp(status + len - 7, "-failed");
}

/* The lines watch shows: status, reason, jobs, builds, boots. */
static void watch_block(json_t *s, struct strbuf *out)
{
	json_t *jobs = json_object_get(s, "jobs"), *j;
	size_t i;

	strbuf_addf(out, "series %lld: %s", num(s, "id"), str(s, "status"));
	if (*str(s, "status_reason"))
		strbuf_addf(out, " (%s)", str(s, "status_reason"));
	strbuf_addf(out, "  %s\n", series_title(s));
	json_array_foreach(jobs, i, j) {
		if (!strcmp(str(j, "state"), "done"))
			continue;
		strbuf_addf(out, "  %s%s%s: %s, attempt %lld/%lld",
			    str(j, "kind"), *str(j, "arch") ? " " : "",
			    str(j, "arch"), str(j, "state"), num(j, "attempts"),
			    num(j, "max_attempts"));
		if (*str(j, "last_error"))
			strbuf_addf(out, ", last error: %s",
				    str(j, "last_error"));
		strbuf_addch(out, '\n');
	}
	builds_lines(s, "  build: ", "    ", out);
	if (json_array_size(json_object_get(s, "boots"))) {
		strbuf_addstr(out, "  boots: ");
		boots_summary(s, out);
		strbuf_addch(out, '\n');
	}
	if (json_array_size(json_object_get(s, "comparisons")))
		strbuf_addf(out, "  comparisons: %zu\n",
			    json_array_size(json_object_get(s,
							    "comparisons")));
}

/* "a\n  b\n" -> "a; b\n": a block as one line for logs and pipes. */
static void join_lines(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;
	const char *p;

	for (p = sb->buf; *p; p++) {
		if (*p == '\n' && p[1]) {
			strbuf_addstr(&out, "; ");
			while (p[1] == ' ')
				p++;
			continue;
		}
		strbuf_addch(&out, *p);
	}
	strbuf_reset(sb);
	strbuf_add(sb, out.buf, out.len);
	strbuf_release(&out);
}

int cli_watch(int argc, char **argv)
{
	struct strbuf prev = STRBUF_INIT, cur = STRBUF_INIT;
	int tty = isatty(STDOUT_FILENO), shown_lines = 0;
	struct opts o;
	long long id;
	int ret = id_args(argc, argv, "watch", "series", &o, &id);

	if (ret != CLI_OK)
		return ret;
	ret = CLI_FAILED;
	for (;;) {
		json_t *doc = NULL;
		int final;

		if (get_series(&o, id, 0, &doc)) {
			json_decref(doc);
			goto out;
		}
		final = final_status(str(doc, "status"));
		strbuf_reset(&cur);
		if (o.json) {
			char *text = json_dumps(doc, JSON_COMPACT |
						JSON_ENSURE_ASCII);

			strbuf_addf(&cur, "%s\n", text ? text : "null");
			free(text);
		} else {
			watch_block(doc, &cur);
		}
		if (tty && !o.json) {
			char when[16];
			time_t now = time(NULL);
			struct tm tm;
			const char *p;

			/* Move up over the last block and redraw it. */
			if (shown_lines)
				printf("\033[%dA\r\033[J", shown_lines);
			strftime(when, sizeof(when), "%H:%M:%S",
				 localtime_r(&now, &tm));
			printf("%s  (updated %s, every %ds)\n", cur.buf,
			       when, o.interval_s);
			shown_lines = 1;
			for (p = cur.buf; *p; p++)
				shown_lines += *p == '\n';
		} else if (strcmp(cur.buf, prev.buf)) {
			strbuf_reset(&prev);
			strbuf_addstr(&prev, cur.buf);
			/* One line per change: the block's lines joined. */
			if (!o.json)
				join_lines(&cur);
			fputs(cur.buf, stdout);
		}
		fflush(stdout);
		if (final) {
			ret = strcmp(str(doc, "status"), "done") ?
			      CLI_FAILED : CLI_OK;
			json_decref(doc);
			break;
		}
		json_decref(doc);
		sleep(o.interval_s);
	}
out:
	strbuf_release(&prev);
	strbuf_release(&cur);
	return ret;
}

enum fmt {
	FMT_VALUE,	/* a measured value: numfmt_value() */
	FMT_PCT,	/* signed percentage: numfmt_pct() */
	FMT_P,		/* 3 significant digits */
};

/* A number of a comparison as text: "-" when absent (NULL). */
static void fmt_num(json_t *c, const char *key, enum fmt fmt, char *buf,
		    size_t size)
{
	double d = real(c, key);

	if (fmt == FMT_PCT)
		numfmt_pct(d, buf, size);
	else if (fmt == FMT_VALUE)
		numfmt_value(d, buf, size);
	else if (isfinite(d))
		snprintf(buf, size, "%.3g", d);
	else
		snprintf(buf, size, "-");
}

/*
 * What an inconclusive comparison rules out: the CI's far ends, oriented
 * by the metric's direction (as stats.c's worse_max/better_max).
 */
static void print_rules_out(json_t *c)
{
	double lo = real(c, "ci_low_pct"), hi = real(c, "ci_high_pct");
	double worse = hi, better = -lo;

	if (!isfinite(lo) || !isfinite(hi))
		return;
	if (!strcmp(str(c, "direction"), "higher")) {
		worse = -lo;
		better = hi;
	}
	printf("      more boots needed: the data rule out a regression "
	       "above %.1f%% and an improvement above %.1f%%\n",
	       worse > 0 ? worse : 0, better > 0 ? better : 0);
}

/*
 * The practical thresholds of run id's comparisons: the smallest into
 * *min (NAN if none is recorded), one line saying where they came from.
 */
static void print_thresholds(json_t *cmp, long long id, double *min)
{
	double lo = NAN, hi = NAN;
	long long cal = 0;
	const char *host = "";
	json_t *c, *t;
	size_t i;

	json_array_foreach(cmp, i, c) {
		if (num(c, "run_id") != id)
			continue;
		t = json_object_get(c, "threshold_pct");
		if (!json_is_number(t))
			continue;
		lo = isnan(lo) ? json_number_value(t) :
		     fmin(lo, json_number_value(t));
		hi = isnan(hi) ? json_number_value(t) :
		     fmax(hi, json_number_value(t));
		if (!cal && num(c, "calibration_id")) {
			cal = num(c, "calibration_id");
			host = str(c, "host");
		}
	}
	*min = lo;
	if (isnan(lo))
		return;
	if (!cal)
		printf("  threshold: +-%.3g%% for every metric (configured; no "
		       "A/A calibration of the host)\n", lo);
	else if (hi > lo)
		printf("  thresholds: +-%.3g%% to +-%.3g%% (A/A calibration "
		       "%lld of host %s; those above +-%.3g%% are named)\n",
		       lo, hi, cal, *host ? host : "?", lo);
	else
		printf("  threshold: +-%.3g%% for every metric (host %s "
		       "resolves each within it: A/A calibration %lld)\n", lo,
		       *host ? host : "?", cal);
}

/*
 * What the layout control said of c: "layout control (aligned run 7):
 * confirmed: regression +20.1% [18.8%, 21.2%]", its reason when it was
 * unconfirmed, or why no control was made.
 */
static void print_layout(json_t *c)
{
	char chg[NUMFMT_BUF], ci[NUMFMT_CI_BUF];

	if (!*str(c, "layout")) {
		if (*str(c, "layout_reason"))
			printf("      no layout control: %s\n",
			       str(c, "layout_reason"));
		return;
	}
	printf("      layout control");
	if (num(c, "layout_run_id"))
		printf(" (aligned run %lld)", num(c, "layout_run_id"));
	printf(": %s", str(c, "layout"));
	if (*str(c, "layout_verdict")) {
		fmt_num(c, "layout_change_pct", FMT_PCT, chg, sizeof(chg));
		numfmt_ci(real(c, "layout_ci_low_pct"),
			  real(c, "layout_ci_high_pct"), ci, sizeof(ci));
		printf(": aligned %s %s %s", str(c, "layout_verdict"), chg,
		       ci);
	}
	if (*str(c, "verdict_as_built"))
		printf("; as built %s", str(c, "verdict_as_built"));
	if (*str(c, "layout_reason"))
		printf(": %s", str(c, "layout_reason"));
	printf("\n");
}

static void print_comparison(json_t *c, double min_threshold)
{
	char name[80], n[24], base[NUMFMT_BUF], new[NUMFMT_BUF];
	char chg[NUMFMT_BUF], ci[NUMFMT_CI_BUF];
	char p[16], padj[16], pholm[16];
	json_t *params = json_object_get(c, "params");
	char *ptext = NULL;

	snprintf(name, sizeof(name), "%s%s/%s",
		 num(c, "is_primary") ? "* " : "", str(c, "workload"),
		 str(c, "metric"));
	snprintf(n, sizeof(n), "%lld/%lld", num(c, "n_base"),
		 num(c, "n_new"));
	fmt_num(c, "median_base", FMT_VALUE, base, sizeof(base));
	fmt_num(c, "median_new", FMT_VALUE, new, sizeof(new));
	fmt_num(c, "change_pct", FMT_PCT, chg, sizeof(chg));
	numfmt_ci(real(c, "ci_low_pct"), real(c, "ci_high_pct"), ci,
		  sizeof(ci));
	fmt_num(c, "p_value", FMT_P, p, sizeof(p));
	fmt_num(c, "p_adjusted", FMT_P, padj, sizeof(padj));
	fmt_num(c, "p_holm", FMT_P, pholm, sizeof(pholm));
	printf("  %-30s %7s %11s %14s %9s %18s %9s %9s %9s  %s%s%s %s\n",
	       name, n, base, new, chg, ci, p, padj, pholm, str(c, "verdict"),
	       *str(c, "flags") ? " " : "", str(c, "flags"), str(c, "unit"));
	if (json_is_object(params) && json_object_size(params))
		ptext = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS |
				   JSON_ENSURE_ASCII);
	else if (json_is_string(params) && strcmp(str(c, "params"), "{}"))
		ptext = xstrdup(str(c, "params"));
	if (ptext)
		printf("      params %s\n", ptext);
	free(ptext);
	if (json_number_value(json_object_get(c, "threshold_pct")) >
	    min_threshold)
		printf("      threshold +-%.3g%%: what host %s resolves (A/A "
		       "calibration %lld)\n", json_number_value(
		       json_object_get(c, "threshold_pct")), str(c, "host"),
		       num(c, "calibration_id"));
	print_layout(c);
	if (!strcmp(str(c, "verdict"), "inconclusive"))
		print_rules_out(c);
}

/* The comparisons of run id (0: those of no listed run); how many. */
static size_t print_comparisons(json_t *cmp, json_t *runs, long long id)
{
	json_t *c, *r;
	size_t i, j, n = 0;
	double min = NAN;

	if (id)
		print_thresholds(cmp, id, &min);
	json_array_foreach(cmp, i, c) {
		long long rid = num(c, "run_id");
		int listed = 0;

		if (id) {
			if (rid != id)
				continue;
		} else {
			json_array_foreach(runs, j, r)
				listed |= rid && num(r, "id") == rid;
			if (listed)
				continue;
		}
		if (!n++)
			printf("  %-30s %7s %11s %14s %9s %18s %9s %9s %9s  "
			       "%s\n", "METRIC", "N B/P", "BASE MEDIAN",
			       "PATCHED MEDIAN", "HL CHANGE", "CI", "P",
			       "P ADJ", "P HOLM", "VERDICT FLAGS UNIT");
		print_comparison(c, isnan(min) ? INFINITY : min);
	}
	return n;
}

/* "verdicts: 1 regression, 3 no-change", most severe first. */
static void print_verdicts(json_t *cmp)
{
	static const char *const order[] = {
		"regression", "likely-regression", "improvement",
		"likely-improvement", "layout-sensitive", "minor",
		"no-change", "inconclusive",
		"insufficient-data", NULL,
	};
	json_t *c;
	size_t i, n;
	int k, first = 1;

	printf("verdicts:");
	for (k = 0; order[k]; k++) {
		n = 0;
		json_array_foreach(cmp, i, c)
			n += !strcmp(str(c, "verdict"), order[k]);
		if (n)
			printf("%s %zu %s", first ? "" : ",", n, order[k]);
		if (n)
			first = 0;
	}
	printf("\n");
}

/*
 * Per metric, the previous version's verdict and change next to this
 * one's ("since_previous" of the API).
 */
static void print_since_previous(json_t *doc)
{
	json_t *sp = json_object_get(doc, "since_previous"), *m;
	json_t *params;
	char name[80], chg[16], pchg[16], ver[16], pver[16];
	size_t i;

	if (!json_is_object(sp))
		return;
	printf("since v%lld (series %lld, %s):\n", num(sp, "version"),
	       num(sp, "series_id"), str(sp, "status"));
	snprintf(pver, sizeof(pver), "v%lld", num(sp, "version"));
	snprintf(ver, sizeof(ver), "v%lld", num(doc, "version"));
	printf("  %-8s %-30s %-19s %9s   %-19s %9s\n", "ARCH", "METRIC",
	       pver, "CHANGE", ver, "CHANGE");
	json_array_foreach(json_object_get(sp, "metrics"), i, m) {
		char *ptext = NULL;

		params = json_object_get(m, "params");
		if (json_is_object(params) && json_object_size(params))
			ptext = json_dumps(params, JSON_COMPACT |
					   JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		snprintf(name, sizeof(name), "%s/%s%s%s", str(m, "workload"),
			 str(m, "metric"), ptext ? " " : "",
			 ptext ? ptext : "");
		free(ptext);
		fmt_num(m, "previous_change_pct", FMT_PCT, pchg, sizeof(pchg));
		fmt_num(m, "change_pct", FMT_PCT, chg, sizeof(chg));
		printf("  %-8s %-30s %-19s %9s   %-19s %9s\n", str(m, "arch"),
		       name, *str(m, "previous_verdict") ?
		       str(m, "previous_verdict") : "-", pchg,
		       *str(m, "verdict") ? str(m, "verdict") : "-", chg);
	}
}

/* cli_results_local()'s printing of doc, the series document. */
static int print_results(json_t *doc, long long id, int json)
{
	json_t *cmp = json_object_get(doc, "comparisons");
	json_t *runs = json_object_get(doc, "runs"), *run;
	size_t i;

	if (json) {
		json_t *res = json_pack("{s:I,s:O?,s:O?,s:O?,s:O?}", "id",
			(json_int_t)id, "status", json_object_get(doc,
			"status"), "runs", runs, "comparisons", cmp,
			"since_previous", json_object_get(doc,
			"since_previous"));
		int rc = res ? print_json(res) : -1;

		json_decref(res);
		return rc ? CLI_FAILED : CLI_OK;
	}
	escape_doc(doc);
	printf("series %lld: %s%s%s\n", id, str(doc, "status"),
	       *str(doc, "status_reason") ? ": " : "",
	       str(doc, "status_reason"));
	if (*str(doc, "subject"))
		printf("  %s\n", str(doc, "subject"));
	json_array_foreach(runs, i, run) {
		print_run("", run);
		print_comparisons(cmp, runs, num(run, "id"));
	}
	if (print_comparisons(cmp, runs, 0))
		printf("(comparisons of runs not listed above)\n");
	print_since_previous(doc);
	if (!json_array_size(cmp)) {
		printf("no results yet\n");
		return CLI_OK;
	}
	print_verdicts(cmp);
	printf("BASE MEDIAN, PATCHED MEDIAN: medians of the per-boot medians;"
	       "\nHL CHANGE: Hodges-Lehmann estimate of patched/base - 1, the "
	       "median of the patched/base\nratios of all (base boot, patched "
	       "boot) pairs, not the ratio of the two medians;\nCI: the "
	       "interval at 1 - alpha that inverts the Mann-Whitney test; P: "
	       "that test on the\nper-boot medians (pairs of equal values "
	       "count for no change): P < alpha exactly when\nthe CI excludes "
	       "0; P ADJ: adjusted over the run's metrics by "
	       "stats.fdr_method;\nP HOLM: Holm-adjusted within the run (a "
	       "primary metric over its primary metrics),\nwhat an e-mail "
	       "report goes by; *: a primary metric, what its workload "
	       "measures\n(a run stops when these are decided)\n");
	return CLI_OK;
}

int cli_results_local(struct db *db, long long id, int json)
{
	json_t *doc = NULL;
	int ret = CLI_FAILED;

	if (db_series_get(db, id, &doc) || !doc)
		error("analyze", "series %lld cannot be read back", id);
	else
		ret = print_results(doc, id, json);
	json_decref(doc);
	return ret;
}

int cli_results(int argc, char **argv)
{
	json_t *doc = NULL;
	struct opts o;
	long long id;
	int ret = id_args(argc, argv, "results", "series", &o, &id);

	if (ret != CLI_OK)
		return ret;
	ret = CLI_FAILED;
	if (!get_series(&o, id, 0, &doc))
		ret = print_results(doc, id, o.json);
	json_decref(doc);
	return ret;
}

int cli_report_release(int argc, char **argv)
{
	struct client_request r = { .method = "POST" };
	struct strbuf path = STRBUF_INIT;
	json_t *doc = NULL;
	struct opts o;
	long long id;
	int ret = id_args(argc, argv, "report release", "notification", &o,
			  &id);

	if (ret != CLI_OK)
		return ret;
	ret = CLI_FAILED;
	r.token = o.token ? o.token : getenv("KREGRESS_TOKEN");
	if (!r.token || !*r.token) {
		error("kregress", "report release needs a token: --token "
		      "TOKEN or KREGRESS_TOKEN");
		return CLI_USAGE;
	}
	strbuf_addf(&path, "/api/v1/notifications/%lld/release", id);
	r.path = path.buf;
	if (call(&o, &r, o.json, &doc))
		goto out;
	if (!o.json)
		printf("notification %lld of series %lld released; the report "
		       "stage sends it (kregress status %lld)\n", id,
		       num(doc, "series"), num(doc, "series"));
	ret = CLI_OK;
out:
	json_decref(doc);
	strbuf_release(&path);
	return ret;
}
