/*
 * api.h - the JSON API of kregressd (v1) on top of http.c.
 *
 * Routes: POST/GET /api/v1/series, GET /api/v1/series/{id},
 * GET /api/v1/series/{id}/samples (raw samples, keyset pages by sample
 * id: ?after=ID&limit=N, at most 10000 a page; filters run, workload,
 * metric), GET /api/v1/health, GET /metrics; the dashboard's routes
 * (api_web.h) and its pages and files (web.h).  Write routes need a bearer token,
 * compared in constant time against the configured ones.  Every error is
 * {"error":{"code":...,"message":...}} with its HTTP status.
 */
#ifndef KREGRESS_API_H
#define KREGRESS_API_H

#include <stddef.h>

struct api;
struct config;
struct stats_opts;

struct api_opts {
	const char *listen;	/* host:port; NULL = 127.0.0.1:8080 */
	const char *db_path;	/* the SQLite database */
	const char *const *tokens;	/* bearer tokens for writes */
	size_t n_tokens;	/* 0: every write is refused with 401 */
	/* URL prefixes a submitted URL must start with; NULL = any URL */
	const char *const *url_allowlist;
	size_t n_url_allowlist;
	size_t body_max;	/* bytes; 0 = 8 MiB */
	unsigned threads;	/* worker threads; 0 = 4 */
	/* Connection limits (struct http_opts); each 0 = http.h's default */
	unsigned max_connections, max_per_address;
	unsigned header_timeout_s, idle_timeout_s;
	/* The dashboard (api_web.h, web.h): its files (NULL = none), the
	 * directory console logs must be under, the statistics options
	 * (stage_analyze_options(); NULL = stats.c's defaults). */
	const char *web_dir;
	const char *state_dir;
	const struct stats_opts *stats;
};

/*
 * Starts serving on its own threads (returns at once); the options are
 * copied.  0 and *out, or -1 (logged) when the address cannot be bound.
 */
int api_start_opts(const struct api_opts *opts, struct api **out);

/*
 * api_start_opts() with the address, tokens, body cap, URL allowlist,
 * connection limits and database of kregressd's configuration (api.*,
 * url_allowlist, limits.api_*, database), its state_dir and stats.*,
 * and the dashboard web_find_dir() finds.
 */
int api_start(const struct config *cfg, struct api **out);

/*
 * Takes the tokens and URL allowlist of a reloaded configuration; the
 * next request uses them.  The address, body cap and connection limits
 * need a restart.
 */
void api_reload(struct api *api, const struct config *cfg);

/* The bound TCP port (for listen addresses with port 0). */
int api_port(struct api *api);

/* Stops serving, waits for the running requests, frees; accepts NULL. */
void api_stop(struct api *api);

#endif
