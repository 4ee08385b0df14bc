/*
 * web.h - the dashboard's static files, served by kregressd under "/".
 *
 * The dashboard is a directory (web/ built by make into $(BUILD)/web,
 * installed under DATADIR/web): index.html and assets/NAME, each asset
 * optionally with a gzipped twin NAME.gz.  web_new() reads every file
 * into memory once; nothing under the directory is looked up per
 * request, so no request path can name a file outside it.  The pages
 * ("/", "/series", "/series/{id}", "/trends", "/hosts", "/compare") all
 * answer index.html, whose script reads the path; "/assets/{name}"
 * answers that asset.  Every answer has a strong ETag (304 on a matching
 * If-None-Match) and Cache-Control: no-cache, so a rebuilt dashboard is
 * fetched again; the gzipped twin is served to a client that accepts
 * gzip.
 */
#ifndef KREGRESS_WEB_H
#define KREGRESS_WEB_H

#include <stddef.h>

struct http_request;
struct http_server;
struct web;

#define WEB_FILE_MAX	(8u << 20)	/* bytes of one file */
#define WEB_FILES_MAX	64		/* assets */

/*
 * The dashboard directory: "web" next to the running program (the build
 * directory), else KREGRESS_DATADIR/web.  0 with the path in out, or -1
 * when neither has an index.html (not logged).
 */
int web_find_dir(char *out, size_t size);

/* Reads dir's files; 0 and *out, or -1 (logged). */
int web_new(const char *dir, struct web **out);
void web_free(struct web *w);

/* Adds the page and asset routes to srv (before it starts). */
int web_routes_add(struct web *w, struct http_server *srv);

/*
 * Answers 200 with body and a strong ETag of its contents (tag_suffix
 * appended, to tell variants apart; may be NULL), or 304 without a body
 * when the request's If-None-Match names that tag.  Takes body over.
 * The API's dashboard routes answer through it too.
 */
void web_reply_tagged(struct http_request *req, const char *ctype,
		      char *body, size_t len, const char *tag_suffix);

#endif
