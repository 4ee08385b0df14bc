/*
 * net.h - requests to other servers, and the URLs they go to: the one
 * libcurl wrapper.
 *
 * fetch.c (mail from lore and patchwork), client.c (the CLI's API calls)
 * and the mail and patchwork code sit on net_perform(): one blocking
 * transfer (HTTP(S), or SMTP(S) when the request has an envelope) with a
 * capped response body, connect and total timeouts, TLS peer and host
 * verification, and redirects followed here one by one, so that the
 * caller's check sees every URL before it is requested.  A failure comes
 * back as one line a user can read that names the URL ("URL: larger than
 * the limit of N bytes", "URL: Failed to connect to ..."), and as a kind
 * the caller can act on; never as a libcurl code.
 *
 * URLs are parsed and normalised with libcurl's URL API, the parser the
 * transfer itself uses, so that the URL a caller checks is the URL that
 * is requested.
 */
#ifndef KREGRESS_NET_H
#define KREGRESS_NET_H

#include <stddef.h>

#include "strbuf.h"

#define NET_MAX_BYTES_DEFAULT	(32u << 20)
#define NET_HEADERS_MAX		(64u << 10)

/* A parsed, normalised absolute URL; every string is owned. */
struct net_url {
	char *url;		/* normalised, see net_url_parse() */
	char *scheme;		/* lower case: "https" */
	char *host;		/* lower case, no trailing dot; "" if none;
				 * an IPv6 address in brackets */
	char *path;		/* from its '/', query included */
	int userinfo;		/* 1: the URL names a user or password */
};

/*
 * Parses s, an absolute URL, and normalises it as RFC 3986 section 6
 * does: scheme and host in lower case, the host's trailing dot and a
 * default port (":443" on https) dropped, percent-encoded unreserved
 * characters decoded and every other escape in upper case, bytes that
 * may not appear raw percent-encoded, "." and ".." segments removed (an
 * encoded dot is a dot), the fragment dropped (it is never sent).  Pure.
 *
 * Returns 0 and fills *u (net_url_release()), or -1 with *why (a static
 * string) for what cannot be a URL we request: a control character,
 * space or non-ASCII byte, no scheme, a bad port or host, a '%' not
 * followed by two hex digits, or a dot segment that an encoded '/' or
 * '\' (or a ";param") would let a server see ("a%2F..").
 */
int net_url_parse(const char *s, struct net_url *u, const char **why);
void net_url_release(struct net_url *u);

enum net_error {
	NET_OK,
	NET_REFUSED,		/* the request's check refused a URL */
	NET_TOO_LARGE,		/* the answer passed max_bytes */
	NET_REDIRECTS,		/* more than max_redirects */
	NET_TIMEOUT,
	NET_UNREACHABLE,	/* no such host, connection refused */
	NET_TLS,		/* certificate, handshake, STARTTLS */
	NET_LOGIN,		/* the server refused the credentials */
	NET_FAILED,		/* anything else */
};

const char *net_error_str(enum net_error e);

struct net_request {
	const char *url;
	const char *method;	/* NULL: GET, or POST when body is set */
	/* "Name: value" lines, NULL-terminated; NULL = none */
	const char *const *headers;
	/* the POST body, or the message an SMTP request sends; NULL = none */
	const void *body;
	size_t body_len;
	size_t max_bytes;	/* answer body, decoded; 0 = the default */
	int connect_timeout_s;	/* 0 = 10 */
	int timeout_s;		/* each request (hop); 0 = 60 */
	/*
	 * 3xx answers to a request without a body that are followed; past
	 * it the request fails (NET_REDIRECTS).  0: a 3xx is the answer.
	 */
	int max_redirects;
	/*
	 * Called with every URL before it is requested: url itself, then
	 * each redirect target (absolute).  Returns 0 to go on, with *use
	 * set to a malloc'd URL to request instead (or left NULL), or -1
	 * with *why (static) to refuse: net_perform() then fails with
	 * NET_REFUSED and nothing is sent.  NULL: every URL is requested.
	 */
	int (*check)(void *arg, const char *url, char **use,
		     const char **why);
	void *check_arg;
	/*
	 * SMTP (smtp://, smtps://): set mail_from to send body as a mail
	 * (CRLF line ends, dot-stuffing is libcurl's) to mail_rcpt.
	 */
	const char *mail_from;	/* envelope sender, no angle brackets */
	const char *const *mail_rcpt;	/* NULL-terminated */
	/*
	 * SMTP: called once, when libcurl has taken the last byte of body
	 * and before it ends the data and reads the server's answer: from
	 * then on the server may accept the mail even if this process
	 * dies.  NULL = not needed.
	 */
	void (*body_sent)(void *arg);
	void *body_sent_arg;
	const char *username;	/* SMTP AUTH; NULL = none */
	const char *password;
	int require_tls;	/* smtp://: fail unless STARTTLS succeeds */
};

struct net_response {
	long status;		/* HTTP status; SMTP's last reply code */
	char *url;		/* the URL of the last request made */
	struct strbuf body;	/* decoded (Content-Encoding) */
	struct strbuf headers;	/* header lines of the (last) answer */
	enum net_error error;	/* NET_OK when net_perform() returned 0 */
};

void net_response_init(struct net_response *r);
void net_response_release(struct net_response *r);

/*
 * Performs req; blocks for at most the timeouts of each hop.  Returns 0
 * when an answer came, whatever its HTTP status (the caller judges it),
 * or when the server accepted the mail; -1 with r->error set and one
 * line "URL: reason" (no newline, not logged: the caller logs it with
 * its context) appended to err.  r holds what arrived either way.
 */
int net_perform(const struct net_request *req, struct net_response *r,
		struct strbuf *err);

/*
 * The value of the answer's header name (case-insensitive), spaces
 * trimmed, malloc'd; NULL when the answer has none, or one with a
 * control character in it.
 */
char *net_response_header(const struct net_response *r, const char *name);

/*
 * Appends the answer's status as a user reads it: "HTTP 404 Not Found"
 * (the server's reason phrase, printable ASCII only), "HTTP 500".
 */
void net_response_status(const struct net_response *r, struct strbuf *out);

#endif
