/*
 * t-fetch.c - the pure part of fetch.c: what a pasted URL is resolved
 * to.  Which URLs are allowed is t-allowlist.c; the network side is
 * tested through a real server in tests/integration/t-intake.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "tap.h"

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
	test_resolve();
	return done_testing();
}
