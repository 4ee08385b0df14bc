/*
 * t-web.c - the dashboard's files (web.c) through a real server on an
 * ephemeral loopback port: what a directory must hold, which of its
 * files are served (regular files with plain names) and which are not
 * (dot files, links, directories, odd names, anything outside), that
 * every page path answers index.html, and that the API is still there.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "client.h"
#include "strbuf.h"
#include "tap.h"
#include "web.h"

static char dir[] = "/tmp/t-web.XXXXXX";
static char server[64];

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* GET path: the status, the body in out. */
static long get(const char *path, struct strbuf *out)
{
	struct client_request r = { .method = "GET", .path = path };
	long status = -1;

	strbuf_reset(out);
	if (client_call(server, &r, &status, out))
		return -1;
	return status;
}

static void test_refused(void)
{
	char path[PATH_MAX];
	struct web *w = NULL;

	snprintf(path, sizeof(path), "%s/none", dir);
	ok(web_new(path, &w) == -1 && !w,
	   "a directory without index.html is refused");
	snprintf(path, sizeof(path), "%s/noassets", dir);
	mkdir(path, 0755);
	put("noassets/index.html", "<p>x</p>");
	ok(web_new(path, &w) == -1 && !w,
	   "a directory without assets/ is refused");
}

static void test_served(void)
{
	static const char *const pages[] = {
		"/", "/series", "/series/12", "/trends", "/hosts", "/compare",
	};
	static const char *const refused[] = {
		"/assets/.hidden", "/assets/link.js", "/assets/sub",
		"/assets/bad%20name.js", "/assets/..%2Findex.html",
		"/assets/", "/index.html", "/series/12/boots",
	};
	struct strbuf body = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		ok(get(pages[i], &body) == 200 &&
		   !strcmp(body.buf, "<p>dashboard</p>"),
		   "GET %s answers index.html", pages[i]);
	ok(get("/assets/app.js", &body) == 200 &&
	   !strcmp(body.buf, "let x = 1;"), "GET /assets/app.js");
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ok(get(refused[i], &body) == 404, "GET %s: 404", refused[i]);
	ok(get("/api/v1/health", &body) == 200,
	   "the API is served beside the dashboard");
	strbuf_release(&body);
}

int main(void)
{
	struct api_opts o = { 0 };
	char path[PATH_MAX];
	struct api *api = NULL;

	if (!mkdtemp(dir))
		return 1;
	test_refused();

	put("index.html", "<p>dashboard</p>");
	snprintf(path, sizeof(path), "%s/assets", dir);
	mkdir(path, 0755);
	put("assets/app.js", "let x = 1;");
	put("assets/.hidden", "secret");
	put("assets/bad name.js", "odd");
	put("secret.txt", "secret");
	snprintf(path, sizeof(path), "%s/assets/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/assets/link.js", dir);
	if (symlink("../secret.txt", path))
		ok(0, "symlink");

	snprintf(path, sizeof(path), "%s/kregress.db", dir);
	o.listen = "127.0.0.1:0";
	o.db_path = path;
	o.web_dir = dir;
	if (api_start_opts(&o, &api)) {
		ok(0, "the server starts with the dashboard");
		return done_testing();
	}
	snprintf(server, sizeof(server), "http://127.0.0.1:%d",
		 api_port(api));
	test_served();
	api_stop(api);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		ok(0, "%s", path);
	return done_testing();
}
