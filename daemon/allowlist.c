/*
 * allowlist.c - URL allowlist matching on normalised URLs (see
 * allowlist.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "allowlist.h"
#include "log.h"
#include "net.h"

static int is_loopback(const char *host)
{
	return !strcmp(host, "127.0.0.1") || !strcmp(host, "[::1]") ||
	       !strcmp(host, "localhost");
}

/* 1 when the normalised url starts with the prefix p at a boundary. */
static int under(const char *url, const char *p)
{
	size_t n = strlen(p);

	if (!n || strncmp(url, p, n))
		return 0;
	return p[n - 1] == '/' || !url[n] || url[n] == '/' || url[n] == '?';
}

int allowlist_check(const char *const *allow, const char *url,
		    char **normalised, const char **why)
{
	const char *const *a;
	struct net_url u;
	int ret = -1;

	if (net_url_parse(url, &u, why))
		return -1;
	if (strcmp(u.scheme, "https") && strcmp(u.scheme, "http")) {
		*why = "only https:// URLs are fetched";
		goto out;
	}
	if (u.userinfo || !*u.host) {
		*why = "no host, or user information, in the URL";
		goto out;
	}
	if (!strcmp(u.scheme, "http") && !is_loopback(u.host)) {
		*why = "plain http:// is only allowed on loopback";
		goto out;
	}
	if (!allow || !allow[0]) {
		*why = "no URL allowlist is configured";
		goto out;
	}
	for (a = allow; *a && ret; a++) {
		struct net_url p;
		const char *ignored;

		if (net_url_parse(*a, &p, &ignored))
			continue;
		/*
		 * "https://x" is "https://x/" once normalised, so it cannot
		 * match "https://x.evil.example/"
		 */
		if (under(u.url, p.url))
			ret = 0;
		net_url_release(&p);
	}
	if (ret) {
		*why = "not in the URL allowlist";
		goto out;
	}
	if (normalised) {
		*normalised = xstrdup(u.url);
	}
out:
	net_url_release(&u);
	return ret;
}
