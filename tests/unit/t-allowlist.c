/*
 * t-allowlist.c - which URLs may be fetched, decided before any request
 * is made, on normalised URLs: the tricks that got past a match on the
 * raw text (dot segments, encoded dots, an encoded slash) are refused,
 * the spellings of an allowed URL (case, trailing dot, :443) allowed, and
 * the URL given back to request is the normalised one.  Requests through
 * a real server are tests/integration/t-intake.sh's.
 */
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "tap.h"

static void test_check(void)
{
	const char *allow[] = { "https://lore.kernel.org/",
				"https://patchwork.kernel.org/api",
				"http://127.0.0.1:8000/lkml/", NULL };
	const char *none[] = { NULL };
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
		r = allowlist_check(allow, t[i].url, NULL, &why);
		if (t[i].ok == 0)
			ok(r == 0, "allowed: %s", shown);
		else
			ok(r == -1 && why && !strcmp(why, t[i].why),
			   "refused: %s (%s)", shown, why ? why : "?");
	}
	ok(allowlist_check(none, "https://lore.kernel.org/x/", NULL, &why) ==
	   -1 &&
	   !strcmp(why, "no URL allowlist is configured"),
	   "an empty allowlist refuses everything");
	ok(allowlist_check(NULL, "https://lore.kernel.org/x/", NULL, &why) ==
	   -1,
	   "no allowlist refuses everything");
}


/* The shown form of a URL: no raw control byte in a TAP line. */
static const char *shown(const char *url)
{
	static char buf[160];
	size_t k;

	for (k = 0; url[k] && k < sizeof(buf) - 1; k++)
		buf[k] = (unsigned char)url[k] < ' ' ||
			 (unsigned char)url[k] >= 0x7f ? '?' : url[k];
	buf[k] = '\0';
	return buf;
}

static void test_normalised(void)
{
	const char *allow[] = { "https://lore.kernel.org/lkml/",
				"http://localhost:8000/lkml/", NULL };
	static const struct {
		const char *url;
		const char *want;	/* NULL: refused with why */
		const char *why;
	} t[] = {
		/* issue 15: the fetch resolves dot segments, so must we */
		{ "https://lore.kernel.org/lkml/../private/x/", NULL,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org/lkml/x/../../private/", NULL,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org/lkml/%2e%2e/private/", NULL,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org/lkml/%2E./private/", NULL,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org/lkml/..%2Fprivate/", NULL,
		  "a dot segment behind an encoded '/' or '\\' in the URL" },
		{ "https://lore.kernel.org/lkml/..%5cprivate/", NULL,
		  "a dot segment behind an encoded '/' or '\\' in the URL" },
		{ "https://lore.kernel.org/lkml/..\\private/", NULL,
		  "a dot segment behind an encoded '/' or '\\' in the URL" },
		{ "https://lore.kernel.org/lkml/..;x/private/", NULL,
		  "a dot segment behind an encoded '/' or '\\' in the URL" },
		{ "https://lore.kernel.org@evil.example/lkml/", NULL,
		  "no host, or user information, in the URL" },
		{ "https://lore.kernel.org%2F@evil.example/lkml/", NULL,
		  "no host, or user information, in the URL" },
		{ "https://:@lore.kernel.org/lkml/x/", NULL,
		  "no host, or user information, in the URL" },
		{ "https://lore.kernel.org:8443/lkml/x/", NULL,
		  "not in the URL allowlist" },
		{ "https://lore.kernel.org../lkml/x/", NULL,
		  "not a host name in the URL" },
		{ "https://lore.kernel.org/lkml/%zz/", NULL,
		  "a '%' not followed by two hex digits in the URL" },
		{ "https://lore.kernel.org/lkml/\xc3\xa9/", NULL,
		  "a non-ASCII byte in the URL (percent-encode it)" },
		{ "lore.kernel.org/lkml/x/", NULL,
		  "not an absolute URL (scheme://host/...)" },
		{ "http://localhost:8000/lkml/../private/", NULL,
		  "not in the URL allowlist" },
		/* spellings of an allowed URL, requested as normalised */
		{ "HTTPS://LORE.Kernel.ORG/lkml/x@y/",
		  "https://lore.kernel.org/lkml/x@y/", NULL },
		{ "https://lore.kernel.org./lkml/x@y/",
		  "https://lore.kernel.org/lkml/x@y/", NULL },
		{ "https://lore.kernel.org:443/lkml/x@y/",
		  "https://lore.kernel.org/lkml/x@y/", NULL },
		{ "https://lore.kernel.org/lkml/./a/../x@y/#u",
		  "https://lore.kernel.org/lkml/x@y/", NULL },
		{ "https://lore.kernel.org/%6ckml/x%40y/?q=%7e%2f",
		  "https://lore.kernel.org/lkml/x%40y/?q=~%2F", NULL },
		{ "https://lore.kernel.org/lkml/a%2fb@c/",
		  "https://lore.kernel.org/lkml/a%2Fb@c/", NULL },
		{ "http://LOCALHOST.:8000/lkml/x/",
		  "http://localhost:8000/lkml/x/", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		const char *why = NULL;
		char *norm = NULL;
		int r = allowlist_check(allow, t[i].url, &norm, &why);

		if (t[i].want)
			ok(r == 0 && norm && !strcmp(norm, t[i].want),
			   "allowed: %s -> %s", shown(t[i].url),
			   norm ? norm : why);
		else
			ok(r == -1 && why && !strcmp(why, t[i].why),
			   "refused: %s (%s)", shown(t[i].url),
			   why ? why : norm);
		free(norm);
	}
}

static void test_prefixes(void)
{
	const char *spelt[] = { "HTTPS://Lore.Kernel.Org:443/lkml/../lkml/",
				NULL };
	const char *bare[] = { "https://lore.kernel.org", NULL };
	const char *why;

	ok(allowlist_check(spelt, "https://lore.kernel.org/lkml/x/", NULL,
			   &why) == 0, "a prefix is normalised too");
	ok(allowlist_check(spelt, "https://lore.kernel.org/lkmlx/", NULL,
			   &why) == -1, "... and still ends at its '/'");
	ok(allowlist_check(bare, "https://lore.kernel.org/lkml/x/", NULL,
			   &why) == 0, "a prefix without a path is the host");
	ok(allowlist_check(bare, "https://lore.kernel.org.evil.example/x/",
			   NULL, &why) == -1, "... and only that host");
}

int main(void)
{
	test_check();
	test_normalised();
	test_prefixes();
	return done_testing();
}
