/*
 * api_web.h - the API routes the dashboard reads, beside api.c's:
 *
 *   GET /api/v1/runs/{id}              a run, its boots and every
 *                                      per-boot value (db_web_run())
 *   GET /api/v1/trends?tree=&arch=&workload=&metric=&host=&limit=
 *                                      a metric over runs, with the
 *                                      hosts' A/A noise (db_web_trends())
 *   GET /api/v1/hosts
 *   GET /api/v1/compare?a=BUILD&b=BUILD  two builds' per-boot values and
 *                                      stats.c's test of each metric
 *   GET /api/v1/boots/{id}/console     the console log, text/plain
 *   GET /api/v1/series/{id}/notifications   the mails of a series
 *   GET /api/v1/facets                 the values the filters offer
 *
 * Every answer carries a strong ETag and is 304 to a matching
 * If-None-Match (web_reply_tagged()).  A console log is served only from
 * a file under the state directory, whatever path its row records.
 */
#ifndef KREGRESS_API_WEB_H
#define KREGRESS_API_WEB_H

#include <stddef.h>

struct api_web;
struct http_server;
struct stats_opts;

#define API_TRENDS_DEFAULT	500
#define API_TRENDS_MAX		2000
#define API_CONSOLE_MAX		(16u << 20)	/* bytes served: the tail */

/*
 * state_dir: where console logs must be (NULL: none is served); stats:
 * the options compare tests with, whose threshold is the T the pages
 * draw (copied; NULL: stats.c's defaults).
 */
struct api_web *api_web_new(const char *state_dir,
			    const struct stats_opts *stats);
void api_web_free(struct api_web *w);

/* Adds the routes above to srv (before it starts); 0 or -1 (logged). */
int api_web_routes_add(struct api_web *w, struct http_server *srv);

#endif
