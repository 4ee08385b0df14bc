/*
 * t-fetch.c - the pure parts of fetch.c: which URLs are allowed (before
 * any request is made) and what a pasted URL is resolved to.  The network
 * side is tested through a real server in tests/integration/t-intake.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "tap.h"

static void test_check(void)
{
	const char *allow[] = { "https://lore.kernel.org/",
				"https://patchwork.kernel.org/api",
				"http://127.0.0.1:8000/lkml/", NULL };
	const char *none[] = { NULL };
	struct fetch_options fo;
	static const struct {
		const char *url;
		int ok;
		const char *why;
	} t[] = {
		{ "https://lore.kernel.org/linux-mm/x@y/", 0, NULL },
		{ "https://patchwork.kernel.org/api/series/1/", 0, NULL },
		{ "https://patchwork.kernel.org/api", 0, NULL },
		{ "https://patchwork.kernel.org/apix/", -1,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org.evil.example/x/", -1,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org@evil.example/x/", -1,
		  "no host, or user information, in the URL" },
		{ "https://evil.example/https://lore.kernel.org/", -1,
		  "not in the URL allowlist" },
		{ "http://127.0.0.1:8000/lkml/x@y/", 0, NULL },
		{ "http://127.0.0.1:8001/lkml/x@y/", -1,
		  "not in the URL allowlist" },
		{ "http://lore.kernel.org/linux-mm/x/", -1,
		  "plain http:// is only allowed on loopback" },
		{ "file:///etc/passwd", -1, "only https:// URLs are fetched" },
		{ "gopher://lore.kernel.org/", -1,
		  "only https:// URLs are fetched" },
		{ "https://lore.kernel.org/a b/", -1,
		  "control character or space in the URL" },
		{ "https://lore.kernel.org/a\r\nX: y/", -1,
		  "control character or space in the URL" },
	};
	const char *why;
	size_t i;

	fetch_options_init(&fo);
	fo.allow = allow;
	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char shown[128];
		size_t k;
		int r;

		/* no raw CR/LF in a TAP line */
		for (k = 0; t[i].url[k] && k < sizeof(shown) - 1; k++)
			shown[k] = (unsigned char)t[i].url[k] < ' ' ? '?' :
				   t[i].url[k];
		shown[k] = '\0';
		why = NULL;
		r = fetch_url_check(t[i].url, &fo, &why);
		if (t[i].ok == 0)
			ok(r == 0, "allowed: %s", shown);
		else
			ok(r == -1 && why && !strcmp(why, t[i].why),
			   "refused: %s (%s)", shown, why ? why : "?");
	}
	fo.allow = none;
	ok(fetch_url_check("https://lore.kernel.org/x/", &fo, &why) == -1 &&
	   !strcmp(why, "no URL allowlist is configured"),
	   "an empty allowlist refuses everything");
	fo.allow = NULL;
	ok(fetch_url_check("https://lore.kernel.org/x/", &fo, &why) == -1,
	   "no allowlist refuses everything");
}

static void test_resolve(void)
{
	static const struct {
		const char *url;
		const char *want;
		enum fetch_kind kind;
	} t[] = {
		{ "https://lore.kernel.org/linux-mm/20240604-1-a@b.com/",
		  "https://lore.kernel.org/linux-mm/20240604-1-a@b.com/t.mbox.gz",
		  FETCH_MBOX },
		{ "https://lore.kernel.org/linux-mm/20240604-1-a@b.com",
		  "https://lore.kernel.org/linux-mm/20240604-1-a@b.com/t.mbox.gz",
		  FETCH_MBOX },
		{ "https://lore.kernel.org/all/x@y/T/#u",
		  "https://lore.kernel.org/all/x@y/t.mbox.gz", FETCH_MBOX },
		{ "https://lore.kernel.org/all/x@y/t.mbox.gz",
		  "https://lore.kernel.org/all/x@y/t.mbox.gz", FETCH_MBOX },
		{ "https://lore.kernel.org/all/x@y/raw",
		  "https://lore.kernel.org/all/x@y/raw", FETCH_MESSAGE },
		{ "https://patchwork.kernel.org/api/1.3/series/42/",
		  "https://patchwork.kernel.org/api/1.3/series/42/",
		  FETCH_PATCHWORK },
		{ "https://patchwork.kernel.org/series/42/mbox/",
		  "https://patchwork.kernel.org/series/42/mbox/", FETCH_MBOX },
	};
	enum fetch_kind kind;
	char *out;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		out = NULL;
		ok(fetch_resolve(t[i].url, &out, &kind) == 0 && out &&
		   !strcmp(out, t[i].want) && kind == t[i].kind,
		   "%s -> %s (%s)", t[i].url, out ? out : "(null)",
		   fetch_kind_str(kind));
		free(out);
	}
	ok(fetch_resolve("https://lore.kernel.org/linux-mm/", &out, &kind) ==
	   -1, "a list URL is no message");
	ok(fetch_resolve("https://lore.kernel.org/", &out, &kind) == -1,
	   "a host alone is no message");
	ok(fetch_is_url("https://x/") && fetch_is_url("file:///x") &&
	   !fetch_is_url("series.mbox") && !fetch_is_url("./a://b") &&
	   !fetch_is_url("-"), "URLs and file names told apart");
}

int main(void)
{
	test_check();
	test_resolve();
	return done_testing();
}
