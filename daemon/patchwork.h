/*
 * patchwork.h - the parts of patchwork's REST API the report stage uses,
 * through net.c: the patches of a series, and a check posted on a patch
 * (POST /api/patches/ID/checks/ with "Authorization: Token ...").
 *
 * Every call blocks for at most its timeouts, follows no redirect (a
 * token is never sent anywhere but the configured instance) and caps the
 * answer.  Failures come back as one line in err, nothing is logged.
 */
#ifndef KREGRESS_PATCHWORK_H
#define KREGRESS_PATCHWORK_H

#include <stddef.h>

struct strbuf;

/*
 * The API root of a series' API URL: "https://pw.example/api/1.3/" of
 * "https://pw.example/api/1.3/series/42/" (also without a version).  Pure.
 * 0, or -1 when url is not such a URL.
 */
int patchwork_api_url(const char *url, struct strbuf *out);

/*
 * The ids of the series' patches, in the series' order: GET series_url,
 * patchwork's JSON, its "patches": [{"id": N}, ...].  *ids (free()) has
 * *n entries.  0, or -1 with the reason.
 */
int patchwork_series_patches(const char *series_url, long long **ids,
			     size_t *n, struct strbuf *err);

struct patchwork_check {
	const char *state;		/* pending, success, warning, fail */
	const char *context;		/* "kregress-x86_64" */
	const char *target_url;		/* NULL = none */
	const char *description;	/* NULL = none */
};

/*
 * Posts check c on patch patch_id of the instance whose API root is
 * api_url, with token.  0 when patchwork answered 2xx; -1 with the
 * reason ("HTTP 403 Forbidden: ...").
 */
int patchwork_check_post(const char *api_url, const char *token,
			 long long patch_id, const struct patchwork_check *c,
			 struct strbuf *err);

#endif
