/*
 * web.c - the dashboard's static files (see web.h).
 *
 * The files are read at start-up into a table of (name, type, body,
 * gzipped body, tags); a request only looks its name up in the table.
 * Asset names are single path segments of [A-Za-z0-9._-] that do not
 * start with a dot, of regular files (not links): anything else in the
 * directory is skipped.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "http.h"
#include "log.h"
#include "sha256.h"
#include "strbuf.h"
#include "web.h"

struct web_file {
	char *name;		/* "index.html", or the asset's name */
	const char *ctype;
	char *body, *gz;	/* gz: NULL when there is no .gz twin */
	size_t len, gzlen;
};

struct web {
	struct web_file index;
	struct web_file assets[WEB_FILES_MAX];
	size_t nassets;
};

static const struct {
	const char *ext, *ctype;
} types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".map", "application/json" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *type_of(const char *name)
{
	size_t i, n = strlen(name), e;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		e = strlen(types[i].ext);
		if (n > e && !strcmp(name + n - e, types[i].ext))
			return types[i].ctype;
	}
	return "application/octet-stream";
}

static int safe_name(const char *name)
{
	size_t i;

	if (!*name || *name == '.')
		return 0;
	for (i = 0; name[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", name[i]))
			return 0;
	return 1;
}

int web_find_dir(char *out, size_t size)
{
	char exe[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(path, sizeof(path), "%s/web/index.html",
				     exe) < (int)sizeof(path) &&
			    !access(path, R_OK) &&
			    snprintf(out, size, "%s/web", exe) < (int)size)
				return 0;
		}
	}
	snprintf(path, sizeof(path), "%s/web/index.html", KREGRESS_DATADIR);
	if (!access(path, R_OK) &&
	    snprintf(out, size, "%s/web", KREGRESS_DATADIR) < (int)size)
		return 0;
	return -1;
}

/* Reads path into *body; with optional, a missing file is 0, *body NULL. */
static int read_whole(const char *path, int optional, char **body,
		      size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	*body = NULL;
	*len = 0;
	if (optional && access(path, F_OK))
		return 0;
	if (strbuf_read_file(&sb, path, WEB_FILE_MAX)) {
		strbuf_release(&sb);
		return -1;
	}
	*body = strbuf_detach(&sb, len);
	return 0;
}

static int file_load(struct web_file *f, const char *dir, const char *name)
{
	char path[PATH_MAX];

	f->name = xstrdup(name);
	f->ctype = type_of(name);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return error("web", "%s/%s: path too long", dir, name);
	if (read_whole(path, 0, &f->body, &f->len))
		return -1;
	strcat(path, ".gz");
	return read_whole(path, 1, &f->gz, &f->gzlen);
}

static void file_release(struct web_file *f)
{
	free(f->name);
	free(f->body);
	free(f->gz);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int web_new(const char *dir, struct web **out)
{
	char assets[PATH_MAX];
	struct dirent *de;
	struct web *w;
	DIR *d = NULL;
	int ret = -1;

	w = xcalloc(1, sizeof(*w));
	if (file_load(&w->index, dir, "index.html"))
		goto out;
	snprintf(assets, sizeof(assets), "%s/assets", dir);
	d = opendir(assets);
	if (!d) {
		error("web", "%s: %m", assets);
		goto out;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (!safe_name(de->d_name) || has_suffix(de->d_name, ".gz"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", assets,
			     de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (w->nassets == WEB_FILES_MAX) {
			error("web", "%s: more than %d files", assets,
			      WEB_FILES_MAX);
			goto out;
		}
		if (file_load(&w->assets[w->nassets++], assets, de->d_name))
			goto out;
	}
	*out = w;
	w = NULL;
	ret = 0;
out:
	if (d)
		closedir(d);
	web_free(w);
	return ret;
}

void web_free(struct web *w)
{
	size_t i;

	if (!w)
		return;
	file_release(&w->index);
	for (i = 0; i < w->nassets; i++)
		file_release(&w->assets[i]);
	free(w);
}

/* 1 when the If-None-Match header lists tag (or is "*"). */
static int tag_matches(struct http_request *req, const char *tag)
{
	const char *h = http_header(req, "If-None-Match");

	return h && (!strcmp(h, "*") || strstr(h, tag));
}

void web_reply_tagged(struct http_request *req, const char *ctype,
		      char *body, size_t len, const char *tag_suffix)
{
	char hex[SHA256_HEX_LEN + 1], tag[SHA256_HEX_LEN + 16];

	sha256_hex(body, len, hex);
	/* 128 bits of the digest are plenty for a cache validator. */
	snprintf(tag, sizeof(tag), "\"%.32s%s\"", hex,
		 tag_suffix ? tag_suffix : "");
	http_add_header(req, "ETag", tag);
	http_add_header(req, "Cache-Control", "no-cache");
	if (tag_matches(req, tag)) {
		free(body);
		http_reply(req, 304, ctype, NULL, 0);
		return;
	}
	http_reply(req, 200, ctype, body, len);
}

static int accepts_gzip(struct http_request *req)
{
	const char *h = http_header(req, "Accept-Encoding");

	return h && strstr(h, "gzip");
}

static void file_reply(struct http_request *req, const struct web_file *f)
{
	int gz = f->gz && accepts_gzip(req);
	const char *src = gz ? f->gz : f->body;
	size_t len = gz ? f->gzlen : f->len;
	char *copy = xmalloc(len ? len : 1);
	memcpy(copy, src, len);
	http_add_header(req, "X-Content-Type-Options", "nosniff");
	if (f->gz)
		http_add_header(req, "Vary", "Accept-Encoding");
	if (gz)
		http_add_header(req, "Content-Encoding", "gzip");
	if (!strcmp(f->name, "index.html")) {
		/* Everything the pages use comes from this server. */
		http_add_header(req, "Content-Security-Policy",
				"default-src 'self'; style-src 'self' "
				"'unsafe-inline'; img-src 'self' data:; "
				"frame-ancestors 'none'");
		http_add_header(req, "Referrer-Policy", "no-referrer");
	}
	web_reply_tagged(req, f->ctype, copy, len, gz ? "-gz" : NULL);
}

static void page(struct http_request *req, void *arg)
{
	struct web *w = arg;

	file_reply(req, &w->index);
}

static void asset(struct http_request *req, void *arg)
{
	const char *name = http_param(req, 0);
	struct web *w = arg;
	size_t i;

	for (i = 0; i < w->nassets; i++)
		if (!strcmp(w->assets[i].name, name)) {
			file_reply(req, &w->assets[i]);
			return;
		}
	http_reply_error(req, 404, "not-found", "no such file: %s", name);
}

int web_routes_add(struct web *w, struct http_server *srv)
{
	static const char *const pages[] = {
		"/", "/series", "/series/{id}", "/trends", "/hosts",
		"/compare",
	};
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (http_route_add(srv, "GET", pages[i], page, w))
			return -1;
	return http_route_add(srv, "GET", "/assets/{name}", asset, w);
}
