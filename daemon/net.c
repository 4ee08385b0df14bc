/*
 * net.c - libcurl behind one interface (see net.h): transfers and URLs.
 *
 * Redirects are followed by hand, not by CURLOPT_FOLLOWLOCATION, so that
 * each target passes the request's check before it is requested: an
 * allowed host must not be able to bounce us into the operator's network.
 * One easy handle serves every hop of a request, so a redirect on the
 * same host reuses the connection.  The body is collected through a write
 * callback that stops the transfer once the cap is passed (curl hands it
 * decoded data, so a Content-Encoding bomb stops there too).
 *
 * URL normalisation goes through curl_url() twice: the first parse finds
 * the parts (curl decodes the host, lower-cases the scheme), the host and
 * the percent-encoding are normalised here, and the second parse of the
 * result removes the dot segments that decoding "%2e" exposed.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "alloc.h"
#include "log.h"
#include "net.h"

static pthread_once_t net_once = PTHREAD_ONCE_INIT;

static void net_setup(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* --- URLs --- */

static int is_unreserved(int c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Characters RFC 3986 lets stand raw in a path or query. */
static int may_stay_raw(int c)
{
	return is_unreserved(c) || (c && strchr(":/?#[]@!$&'()*+,;=", c));
}

static int hex_value(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* A path or query with its percent-encoding in normal form. */
static int percent_normalise(const char *in, struct strbuf *out,
			     const char **why)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)in; *p; p++) {
		int c = *p;

		if (c == '%') {
			if (!isxdigit(p[1]) || !isxdigit(p[2])) {
				*why = "a '%' not followed by two hex digits "
				       "in the URL";
				return -1;
			}
			c = hex_value(p[1]) * 16 + hex_value(p[2]);
			p += 2;
			if (is_unreserved(c)) {
				strbuf_addch(out, c);
				continue;
			}
		} else if (may_stay_raw(c)) {
			strbuf_addch(out, c);
			continue;
		}
		strbuf_addch(out, '%');
		strbuf_addch(out, hex[c >> 4]);
		strbuf_addch(out, hex[c & 15]);
	}
	return 0;
}

static int is_dot_piece(const char *s, size_t n)
{
	n = strcspn(s, ";") < n ? strcspn(s, ";") : n;
	return (n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2));
}

/*
 * 1 when a segment of path (normalised, so without real dot segments)
 * holds a dot segment once '%2F' or '%5C' are taken as separators or a
 * ";param" is cut off, as some servers do.
 */
static int hidden_dot_segment(const char *path)
{
	struct strbuf seg = STRBUF_INIT;
	const char *p = path, *end = path + strcspn(path, "?");
	int found = 0;

	while (p < end && !found) {
		size_t n = strcspn(p, "/?"), k;
		const char *s;

		strbuf_reset(&seg);
		for (k = 0; k < n; k++) {
			if (p[k] == '%' && n - k > 2) {
				strbuf_addch(&seg, hex_value(p[k + 1]) * 16 +
					     hex_value(p[k + 2]));
				k += 2;
			} else {
				strbuf_addch(&seg, p[k]);
			}
		}
		for (s = seg.buf; !found; s += k + 1) {
			k = strcspn(s, "/\\");
			found = is_dot_piece(s, k);
			if (!s[k])
				break;
		}
		p += n + 1;
	}
	strbuf_release(&seg);
	return found;
}

static const char *url_error(CURLUcode rc)
{
	switch (rc) {
	case CURLUE_BAD_SCHEME:
	case CURLUE_NO_SCHEME:
	case CURLUE_MALFORMED_INPUT:
		return "not an absolute URL (scheme://host/...)";
	case CURLUE_BAD_PORT_NUMBER:
		return "not a port number in the URL";
	default:
		return curl_url_strerror(rc);
	}
}

void net_url_release(struct net_url *u)
{
	free(u->url);
	free(u->scheme);
	free(u->host);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

/* curl_url_get() of a part that may be absent: NULL then. */
static char *url_part(CURLU *h, CURLUPart what, unsigned flags)
{
	char *v = NULL, *r;

	if (curl_url_get(h, what, &v, flags) != CURLUE_OK)
		return NULL;
	r = xstrdup(v ? v : "");
	curl_free(v);
	return r;
}

/*
 * Appends "userinfo@" as it stands in the URL (it is not normalised);
 * 1 when the URL has one.
 */
static int add_userinfo(CURLU *h, struct strbuf *sb)
{
	char *user = url_part(h, CURLUPART_USER, CURLU_URLENCODE);
	char *pass = url_part(h, CURLUPART_PASSWORD, CURLU_URLENCODE);
	char *opts = url_part(h, CURLUPART_OPTIONS, CURLU_URLENCODE);

	if (user || pass || opts)
		strbuf_addf(sb, "%s%s%s%s%s@", user ? user : "",
			    pass ? ":" : "", pass ? pass : "",
			    opts ? ";" : "", opts ? opts : "");
	free(user);
	free(pass);
	free(opts);
	return user || pass || opts;
}

int net_url_parse(const char *s, struct net_url *u, const char **why)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	char *scheme = NULL, *host = NULL, *port = NULL, *part = NULL;
	const unsigned char *p;
	CURLUcode rc;
	CURLU *h = NULL;
	size_t n;
	int ret = -1;

	memset(u, 0, sizeof(*u));
	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f) {
			*why = *p < 0x7f ? "control character or space in "
			       "the URL" : "a non-ASCII byte in the URL "
			       "(percent-encode it)";
			return -1;
		}
	pthread_once(&net_once, net_setup);
	h = alloc_check(curl_url(), "curl_url");
	rc = curl_url_set(h, CURLUPART_URL, s, CURLU_NON_SUPPORT_SCHEME);
	if (rc != CURLUE_OK) {
		*why = url_error(rc);
		goto out;
	}
	/*
	 * Rebuilt as text and parsed again: curl_url_set() of one part
	 * would lower-case the escapes, and the second parse removes the
	 * dot segments that decoding "%2e" exposed.
	 */
	scheme = url_part(h, CURLUPART_SCHEME, 0);
	strbuf_addf(&sb, "%s://", scheme ? scheme : "");
	u->userinfo = add_userinfo(h, &sb);
	host = url_part(h, CURLUPART_HOST, 0);
	if (host) {
		for (n = 0; host[n]; n++)
			host[n] = tolower((unsigned char)host[n]);
		if (n && host[n - 1] == '.')
			host[--n] = '\0';
		if (!n || host[n - 1] == '.' || host[0] == '.') {
			*why = "not a host name in the URL";
			goto out;
		}
		strbuf_addstr(&sb, host);
	}
	port = url_part(h, CURLUPART_PORT, 0);
	if (port)
		strbuf_addf(&sb, ":%s", port);
	part = url_part(h, CURLUPART_PATH, 0);
	if (percent_normalise(part ? part : "/", &sb, why))
		goto out;
	free(part);
	part = url_part(h, CURLUPART_QUERY, 0);
	if (part) {
		strbuf_addch(&sb, '?');
		if (percent_normalise(part, &sb, why))
			goto out;
	}
	if (curl_url_set(h, CURLUPART_URL, sb.buf,
			 CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
		*why = "not an absolute URL (scheme://host/...)";
		goto out;
	}
	u->url = url_part(h, CURLUPART_URL, CURLU_NO_DEFAULT_PORT);
	u->scheme = url_part(h, CURLUPART_SCHEME, 0);
	u->host = xstrdup(host ? host : "");
	free(part);
	part = url_part(h, CURLUPART_PATH, 0);
	strbuf_addstr(&path, part ? part : "/");
	free(part);
	part = url_part(h, CURLUPART_QUERY, 0);
	if (part)
		strbuf_addf(&path, "?%s", part);
	u->path = strbuf_detach(&path, NULL);
	if (!u->url || !u->scheme) {
		*why = "not an absolute URL (scheme://host/...)";
		goto out;
	}
	if (hidden_dot_segment(u->path)) {
		*why = "a dot segment behind an encoded '/' or '\\' in the "
		       "URL";
		goto out;
	}
	ret = 0;
out:
	if (ret)
		net_url_release(u);
	curl_url_cleanup(h);
	strbuf_release(&sb);
	strbuf_release(&path);
	free(scheme);
	free(host);
	free(port);
	free(part);
	return ret;
}

/* --- transfers --- */

const char *net_error_str(enum net_error e)
{
	switch (e) {
	case NET_OK:
		return "ok";
	case NET_REFUSED:
		return "refused";
	case NET_TOO_LARGE:
		return "too-large";
	case NET_REDIRECTS:
		return "redirects";
	case NET_TIMEOUT:
		return "timeout";
	case NET_UNREACHABLE:
		return "unreachable";
	case NET_TLS:
		return "tls";
	case NET_LOGIN:
		return "login";
	case NET_FAILED:
		return "failed";
	}
	return "unknown";
}

void net_response_init(struct net_response *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->body);
	strbuf_init(&r->headers);
}

void net_response_release(struct net_response *r)
{
	free(r->url);
	strbuf_release(&r->body);
	strbuf_release(&r->headers);
	net_response_init(r);
}

struct sink {
	struct strbuf *sb;
	size_t max;
	int too_large;
};

static size_t body_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

	if (s->sb->len + n > s->max) {
		s->too_large = 1;
		return 0;	/* makes curl stop with CURLE_WRITE_ERROR */
	}
	strbuf_add(s->sb, data, n);
	return n;
}

static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

	/* a new answer (after "100 Continue"): only the last one counts */
	if (n >= 5 && !memcmp(data, "HTTP/", 5))
		strbuf_reset(s->sb);
	return body_cb(data, size, nmemb, arg);
}

struct source {
	const char *p;
	size_t left;
	void (*done)(void *arg);	/* once, at the end of the body */
	void *done_arg;
};

static size_t read_cb(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct source *s = arg;
	size_t n = size * nmemb;

	if (!s->left && s->done) {
		s->done(s->done_arg);
		s->done = NULL;
	}
	if (n > s->left)
		n = s->left;
	memcpy(buf, s->p, n);
	s->p += n;
	s->left -= n;
	return n;
}

static enum net_error classify(CURLcode cc)
{
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return NET_TIMEOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		return NET_UNREACHABLE;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_USE_SSL_FAILED:
		return NET_TLS;
	case CURLE_LOGIN_DENIED:
	case CURLE_AUTH_ERROR:
		return NET_LOGIN;
	case CURLE_FILESIZE_EXCEEDED:
		return NET_TOO_LARGE;
	default:
		return NET_FAILED;
	}
}

/* Sets r->error and appends "url: what" to err; returns -1. */
static int fail(struct net_response *r, struct strbuf *err,
		enum net_error e, const char *url, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(struct net_response *r, struct strbuf *err,
		enum net_error e, const char *url, const char *fmt, ...)
{
	va_list ap;

	r->error = e;
	strbuf_addf(err, "%s: ", url);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static struct curl_slist *slist_add(struct curl_slist *l, const char *s)
{
	return alloc_check(curl_slist_append(l, s), "curl_slist_append");
}

int net_perform(const struct net_request *req, struct net_response *r,
		struct strbuf *err)
{
	size_t max = req->max_bytes ? req->max_bytes : NET_MAX_BYTES_DEFAULT;
	struct sink body = { &r->body, max, 0 };
	struct sink head = { &r->headers, NET_HEADERS_MAX, 0 };
	struct source src = { req->body, req->body_len, NULL, NULL };
	struct curl_slist *hdrs = NULL, *rcpt = NULL;
	const char *const *h;
	char errbuf[CURL_ERROR_SIZE];
	int smtp = req->mail_from != NULL, hops, ret = -1;
	char *cur = xstrdup(req->url);
	CURL *curl;

	pthread_once(&net_once, net_setup);
	r->status = 0;
	r->error = NET_OK;
	curl = curl_easy_init();
	if (!curl)
		die("net", "cannot initialise libcurl");
	for (h = req->headers; h && *h; h++)
		hdrs = slist_add(hdrs, *h);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR,
			 smtp ? "smtp,smtps" : "http,https");
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
			 (long)(req->connect_timeout_s > 0 ?
				req->connect_timeout_s : 10));
	curl_easy_setopt(curl, CURLOPT_TIMEOUT,
			 (long)(req->timeout_s > 0 ? req->timeout_s : 60));
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	/* never libcurl's default of writing to stdout, SMTP included */
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, body_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &head);
	if (smtp) {
		for (h = req->mail_rcpt; h && *h; h++)
			rcpt = slist_add(rcpt, *h);
		curl_easy_setopt(curl, CURLOPT_MAIL_FROM, req->mail_from);
		curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
		curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_cb);
		curl_easy_setopt(curl, CURLOPT_READDATA, &src);
		curl_easy_setopt(curl, CURLOPT_USE_SSL, req->require_tls ?
				 (long)CURLUSESSL_ALL : (long)CURLUSESSL_NONE);
	} else {
		curl_easy_setopt(curl, CURLOPT_USERAGENT, "kregress");
		/* Content-Encoding is decoded by curl itself */
		curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
		curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)max);
		if (req->body) {
			curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
			curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
					 (curl_off_t)req->body_len);
			/* no "Expect: 100-continue" round trip */
			hdrs = slist_add(hdrs, "Expect:");
		}
		if (req->method && strcmp(req->method,
					  req->body ? "POST" : "GET"))
			curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST,
					 req->method);
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	}
	if (req->username) {
		/* SMTP AUTH with its initial response: one round trip */
		curl_easy_setopt(curl, CURLOPT_SASL_IR, 1L);
		curl_easy_setopt(curl, CURLOPT_USERNAME, req->username);
		curl_easy_setopt(curl, CURLOPT_PASSWORD,
				 req->password ? req->password : "");
	}
	for (hops = 0;; hops++) {
		char *loc = NULL, *use = NULL;
		const char *why = NULL;
		CURLcode cc;

		if (req->check && req->check(req->check_arg, cur, &use, &why)) {
			fail(r, err, NET_REFUSED, cur, "refused: %s", why);
			goto out;
		}
		if (use) {
			free(cur);
			cur = use;
		}
		free(r->url);
		r->url = xstrdup(cur);
		strbuf_reset(&r->body);
		strbuf_reset(&r->headers);
		src.p = req->body;
		src.left = req->body_len;
		src.done = smtp ? req->body_sent : NULL;
		src.done_arg = req->body_sent_arg;
		errbuf[0] = '\0';
		curl_easy_setopt(curl, CURLOPT_URL, cur);
		cc = curl_easy_perform(curl);
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
		if (body.too_large || cc == CURLE_FILESIZE_EXCEEDED) {
			fail(r, err, NET_TOO_LARGE, cur, "larger than the "
			     "limit of %zu bytes", max);
			goto out;
		}
		if (head.too_large) {
			fail(r, err, NET_TOO_LARGE, cur, "headers larger than "
			     "%u bytes", NET_HEADERS_MAX);
			goto out;
		}
		if (cc != CURLE_OK) {
			fail(r, err, classify(cc), cur, "%s", errbuf[0] ?
			     errbuf : curl_easy_strerror(cc));
			goto out;
		}
		if (smtp || req->body || req->max_redirects <= 0 ||
		    r->status < 300 || r->status > 399 || r->status == 304)
			break;
		curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &loc);
		if (!loc) {
			fail(r, err, NET_FAILED, cur, "HTTP %ld without "
			     "Location", r->status);
			goto out;
		}
		if (hops >= req->max_redirects) {
			fail(r, err, NET_REDIRECTS, req->url, "more than %d "
			     "redirects", req->max_redirects);
			goto out;
		}
		use = xstrdup(loc);
		free(cur);
		cur = use;
	}
	ret = 0;
out:
	free(cur);
	curl_slist_free_all(hdrs);
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(curl);
	return ret;
}

char *net_response_header(const struct net_response *r, const char *name)
{
	size_t k = strlen(name);
	const char *p = r->headers.buf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n > k && p[k] == ':' && !strncasecmp(p, name, k)) {
			const char *v = p + k + 1, *e = p + n;

			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && isspace((unsigned char)e[-1]))
				e--;
			for (p = v; p < e; p++)
				if ((unsigned char)*p < ' ' && *p != '\t')
					return NULL;
			return xstrndup(v, (size_t)(e - v));
		}
		p += n + (p[n] == '\n');
	}
	return NULL;
}

void net_response_status(const struct net_response *r, struct strbuf *out)
{
	const char *p = r->headers.buf, *e;
	size_t i;

	strbuf_addf(out, "HTTP %ld", r->status);
	/* "HTTP/1.1 404 Not Found": the phrase after the code */
	p += strcspn(p, " \r\n");
	if (*p == ' ')
		p += 1 + strcspn(p + 1, " \r\n");
	if (*p != ' ')
		return;
	e = ++p;
	while (*e >= ' ' && *e < 0x7f && e - p < 64)
		e++;
	if (e == p)
		return;
	strbuf_addch(out, ' ');
	for (i = 0; p + i < e; i++)
		strbuf_addch(out, p[i]);
}
