/*
 * allowlist.h - which URLs kregress may fetch: the one check that the
 * API's submissions, `series parse --allow`, the fetch stage, the list
 * watcher and every redirect they meet go through.
 *
 * The URL and the prefixes are normalised first (net_url_parse(): case
 * of scheme and host, dot segments, percent-encoding, default ports), so
 * "https://lore.kernel.org/lkml/../private/" is matched as the
 * "https://lore.kernel.org/private/" it fetches, and the caller requests
 * the normalised URL it was given back: what was checked is what is
 * requested.  Pure (no I/O).
 */
#ifndef KREGRESS_ALLOWLIST_H
#define KREGRESS_ALLOWLIST_H

/*
 * 0 when url may be fetched under allow, a NULL-terminated list of URL
 * prefixes ("https://lore.kernel.org/"), with *normalised (malloc'd, the
 * URL to request) when normalised is not NULL; else -1 with *why (a
 * static string).  A URL is allowed when its normalised form starts
 * with a normalised prefix at a boundary ('/', '?' or the end follows,
 * unless the prefix ends in '/').  NULL or empty allow: every URL is
 * refused.  Refused whatever the prefixes: a URL that does not parse,
 * one that is not https://, user information ("https://a@b/"), and plain
 * http:// unless the host is loopback (127.0.0.1, [::1], localhost) and
 * allowed by a prefix (for tests).
 */
int allowlist_check(const char *const *allow, const char *url,
		    char **normalised, const char **why);

#endif
