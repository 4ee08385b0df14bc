/*
 * t-net.c - net.c against real servers on loopback: a small HTTP server
 * and a small SMTP server, each a thread of this test that records what
 * it was sent.  What a caller of the wrapper relies on: the body cap,
 * the headers and POST body sent, redirects followed only through the
 * check (a refused target is never requested), timeouts and unreachable
 * servers as a kind and a readable line, the status as "HTTP 404 Not
 * Found", a mail sent with its envelope and login, and URLs normalised.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"
#include "strbuf.h"
#include "tap.h"

struct server {
	int fd;			/* listening socket */
	int port;
	int smtp;		/* 0: HTTP, 1: SMTP */
	pthread_t thread;
	pthread_mutex_t lock;
	struct strbuf seen;	/* everything the clients sent */
};

static void server_saw(struct server *s, const char *data, size_t len)
{
	pthread_mutex_lock(&s->lock);
	strbuf_add(&s->seen, data, len);
	pthread_mutex_unlock(&s->lock);
}

static int server_has(struct server *s, const char *what)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = strstr(s->seen.buf, what) != NULL;
	pthread_mutex_unlock(&s->lock);
	return r;
}

static void say(int fd, const char *text)
{
	size_t n = strlen(text);

	while (n) {
		ssize_t w = write(fd, text, n);

		if (w <= 0)
			return;
		text += w;
		n -= (size_t)w;
	}
}

/* Reads into in until it holds end (or the peer is gone); 0 or -1. */
static int read_until(int fd, struct strbuf *in, const char *end)
{
	char buf[4096];

	while (!strstr(in->buf, end)) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			return -1;
		strbuf_add(in, buf, (size_t)n);
	}
	return 0;
}

static void http_answer(struct server *s, int fd)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	char path[256] = "";
	const char *cl;
	size_t head, want = 0;

	if (read_until(fd, &in, "\r\n\r\n"))
		goto out;
	head = (size_t)(strstr(in.buf, "\r\n\r\n") - in.buf) + 4;
	cl = strcasestr(in.buf, "\r\nContent-Length:");
	if (cl && cl < in.buf + head)
		want = strtoul(cl + 17, NULL, 10);
	while (in.len < head + want) {
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		strbuf_add(&in, buf, (size_t)n);
	}
	server_saw(s, in.buf, in.len);
	sscanf(in.buf, "%*s %255s", path);
	if (!strcmp(path, "/hello")) {
		strbuf_addstr(&out, "HTTP/1.1 200 OK\r\nETag: \"e1\"\r\n"
			      "Content-Length: 5\r\n\r\nHello");
	} else if (!strcmp(path, "/echo")) {
		strbuf_addf(&out, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
			    "\r\n%s", in.len, in.buf);
	} else if (!strcmp(path, "/big")) {
		strbuf_addstr(&out, "HTTP/1.1 200 OK\r\n\r\n");
		while (out.len < 3000)
			strbuf_addstr(&out, "0123456789");
	} else if (!strcmp(path, "/redirect")) {
		strbuf_addstr(&out, "HTTP/1.1 302 Found\r\nLocation: "
			      "/private/x\r\nContent-Length: 0\r\n\r\n");
	} else if (!strcmp(path, "/redirect-ok")) {
		strbuf_addstr(&out, "HTTP/1.1 301 Moved Permanently\r\n"
			      "Location: /hello\r\nContent-Length: 0\r\n\r\n");
	} else if (!strcmp(path, "/loop")) {
		strbuf_addstr(&out, "HTTP/1.1 302 Found\r\nLocation: /loop\r\n"
			      "Content-Length: 0\r\n\r\n");
	} else if (!strcmp(path, "/silent")) {
		/* say nothing until the client gives up */
		while (read(fd, path, sizeof(path)) > 0)
			;
		goto out;
	} else {
		strbuf_addstr(&out, "HTTP/1.1 404 Not Found\r\n"
			      "Content-Length: 0\r\n\r\n");
	}
	say(fd, out.buf);
out:
	strbuf_release(&in);
	strbuf_release(&out);
}

static void smtp_answer(struct server *s, int fd)
{
	struct strbuf in = STRBUF_INIT;

	say(fd, "220 fake ESMTP\r\n");
	for (;;) {
		char *line;

		strbuf_reset(&in);
		if (read_until(fd, &in, "\r\n"))
			break;
		server_saw(s, in.buf, in.len);
		line = in.buf;
		if (!strncasecmp(line, "EHLO", 4)) {
			say(fd, "250-fake\r\n250 AUTH PLAIN\r\n");
		} else if (!strncasecmp(line, "AUTH", 4)) {
			say(fd, "235 2.7.0 accepted\r\n");
		} else if (!strncasecmp(line, "RCPT TO:<nobody", 15)) {
			say(fd, "550 5.1.1 no such user\r\n");
		} else if (!strncasecmp(line, "DATA", 4)) {
			say(fd, "354 go on\r\n");
			strbuf_reset(&in);
			if (read_until(fd, &in, "\r\n.\r\n"))
				break;
			server_saw(s, in.buf, in.len);
			say(fd, "250 2.0.0 queued\r\n");
		} else if (!strncasecmp(line, "QUIT", 4)) {
			say(fd, "221 bye\r\n");
			break;
		} else {
			say(fd, "250 ok\r\n");
		}
	}
	strbuf_release(&in);
}

static void *server_main(void *arg)
{
	struct server *s = arg;
	int fd;

	while ((fd = accept(s->fd, NULL, NULL)) >= 0) {
		if (s->smtp)
			smtp_answer(s, fd);
		else
			http_answer(s, fd);
		close(fd);
	}
	return NULL;
}

static int server_start(struct server *s, int smtp)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	memset(s, 0, sizeof(*s));
	strbuf_init(&s->seen);
	pthread_mutex_init(&s->lock, NULL);
	s->smtp = smtp;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s->fd, 8) ||
	    getsockname(s->fd, (struct sockaddr *)&a, &len))
		return -1;
	s->port = ntohs(a.sin_port);
	return pthread_create(&s->thread, NULL, server_main, s) ? -1 : 0;
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);	/* wakes accept() */
	pthread_join(s->thread, NULL);
	close(s->fd);
	strbuf_release(&s->seen);
	pthread_mutex_destroy(&s->lock);
}

static char base[64];

static const char *at(const char *path)
{
	static char url[128];

	snprintf(url, sizeof(url), "%s%s", base, path);
	return url;
}

/* The test's check: refuses /private/, counts the URLs it saw. */
static int check_calls;

static int no_private(void *arg, const char *url, char **use,
		      const char **why)
{
	check_calls++;
	if (strstr(url, "/private/")) {
		*why = "private";
		return -1;
	}
	if (arg && strstr(url, "/rewrite")) {
		*use = strdup(at("/hello"));
		return 0;
	}
	return 0;
}

/* One request: the return of net_perform(), the response in r. */
static int perform(struct net_request *req, struct net_response *r,
		   struct strbuf *err)
{
	net_response_release(r);
	strbuf_reset(err);
	return net_perform(req, r, err);
}

static void test_http(struct server *srv)
{
	const char *headers[] = { "Authorization: Token abc123",
				  "Content-Type: application/json", NULL };
	struct strbuf err = STRBUF_INIT, status = STRBUF_INIT;
	struct net_request req = { 0 };
	struct net_response r;
	char *etag;
	int rc;

	net_response_init(&r);
	req.url = at("/hello");
	rc = perform(&req, &r, &err);
	ok(rc == 0 && r.status == 200 && !strcmp(r.body.buf, "Hello"),
	   "GET: status 200 and the body (%s)", err.buf);
	etag = net_response_header(&r, "etag");
	is_str(etag ? etag : "(none)", "\"e1\"", "a header of the answer");
	free(etag);
	net_response_status(&r, &status);
	is_str(status.buf, "HTTP 200 OK", "the status as a user reads it");

	req.url = at("/echo");
	req.method = "POST";
	req.headers = headers;
	req.body = "{\"state\":\"success\"}";
	req.body_len = strlen(req.body);
	rc = perform(&req, &r, &err);
	ok(rc == 0 && strstr(r.body.buf, "POST /echo HTTP/1.1\r\n") &&
	   strstr(r.body.buf, "\r\nAuthorization: Token abc123\r\n") &&
	   strstr(r.body.buf, "\r\nContent-Type: application/json\r\n") &&
	   strstr(r.body.buf, "\r\n\r\n{\"state\":\"success\"}"),
	   "POST: the request headers and the body were sent");
	ok(!strstr(r.body.buf, "Expect:"), "no Expect: 100-continue");
	memset(&req, 0, sizeof(req));

	req.url = at("/big");
	req.max_bytes = 1000;
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_TOO_LARGE && r.body.len <= 1000,
	   "an answer over the cap stops there (%s)",
	   net_error_str(r.error));
	ok(strstr(err.buf, "/big: larger than the limit of 1000 bytes") !=
	   NULL, "... saying so: %s", err.buf);
	req.max_bytes = 0;

	req.url = at("/nothing-here");
	rc = perform(&req, &r, &err);
	strbuf_reset(&status);
	net_response_status(&r, &status);
	ok(rc == 0 && r.status == 404, "a 404 is an answer");
	is_str(status.buf, "HTTP 404 Not Found", "... read with its phrase");
	net_response_release(&r);
	strbuf_release(&err);
	strbuf_release(&status);
}

static void test_redirects(struct server *srv)
{
	struct net_request req = { .check = no_private, .max_redirects = 3 };
	struct strbuf err = STRBUF_INIT;
	struct net_response r;
	int rc;

	net_response_init(&r);
	check_calls = 0;
	req.url = at("/redirect-ok");
	rc = perform(&req, &r, &err);
	ok(rc == 0 && r.status == 200 && !strcmp(r.body.buf, "Hello") &&
	   r.url && !strcmp(r.url, at("/hello")),
	   "a redirect is followed to its answer (%s)", r.url);
	is_int(check_calls, 2, "the check saw the URL and the target");

	req.url = at("/redirect");
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_REFUSED &&
	   strstr(err.buf, "/private/x: refused: private"),
	   "a target the check refuses fails: %s", err.buf);
	ok(!server_has(srv, "GET /private/"), "... and is never requested");

	req.url = at("/loop");
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_REDIRECTS &&
	   strstr(err.buf, "/loop: more than 3 redirects"),
	   "a loop stops: %s", err.buf);

	req.url = at("/rewrite-me");
	req.check_arg = &req;
	rc = perform(&req, &r, &err);
	ok(rc == 0 && r.status == 200 && !strcmp(r.body.buf, "Hello") &&
	   !server_has(srv, "/rewrite-me"),
	   "the URL requested is the one the check gave back");
	req.check_arg = NULL;

	req.max_redirects = 0;
	req.url = at("/redirect");
	rc = perform(&req, &r, &err);
	ok(rc == 0 && r.status == 302, "max_redirects 0: the 302 is the "
	   "answer");
	net_response_release(&r);
	strbuf_release(&err);
}

static void test_failures(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct net_request req = { .timeout_s = 1 };
	struct strbuf err = STRBUF_INIT;
	socklen_t len = sizeof(a);
	struct net_response r;
	char url[64];
	int fd, rc;

	net_response_init(&r);
	req.url = at("/silent");
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_TIMEOUT, "a server that says nothing: "
	   "timeout (%s)", err.buf);

	/* a port nobody listens on: bound, then closed */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(a.sin_port));
	req.url = url;
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_UNREACHABLE &&
	   !strncmp(err.buf, url, strlen(url)),
	   "nobody listening: unreachable, the URL named (%s)", err.buf);
	net_response_release(&r);
	strbuf_release(&err);
}

static void count_handed(void *arg)
{
	(*(int *)arg)++;
}

static void test_smtp(struct server *srv)
{
	const char *rcpt[] = { "a@example.org", NULL };
	const char *nobody[] = { "nobody@example.org", NULL };
	static const char mail[] =
		"From: kregress <bot@example.org>\r\n"
		"To: a@example.org\r\nSubject: [kregress] v2 of 3\r\n\r\n"
		"No regression.\r\n";
	struct net_request req = {
		.mail_from = "bot@example.org", .mail_rcpt = rcpt,
		.body = mail, .body_len = sizeof(mail) - 1,
		.username = "kregress", .password = "secret",
	};
	struct strbuf err = STRBUF_INIT;
	struct net_response r;
	char url[64];
	int rc, handed = 0;

	net_response_init(&r);
	snprintf(url, sizeof(url), "smtp://127.0.0.1:%d", srv->port);
	req.url = url;
	req.body_sent = count_handed;
	req.body_sent_arg = &handed;
	rc = perform(&req, &r, &err);
	ok(rc == 0 && r.status == 250, "a mail is sent (%s)", err.buf);
	is_int(handed, 1, "body_sent called once, the message handed over");
	ok(server_has(srv, "MAIL FROM:<bot@example.org>") &&
	   server_has(srv, "RCPT TO:<a@example.org>"), "... with its envelope");
	ok(server_has(srv, "AUTH PLAIN AGtyZWdyZXNzAHNlY3JldA=="),
	   "... after logging in");
	ok(server_has(srv, "Subject: [kregress] v2 of 3\r\n\r\nNo regression."),
	   "... and its text");

	req.mail_rcpt = nobody;
	handed = 0;
	rc = perform(&req, &r, &err);
	ok(rc == -1 && strstr(err.buf, "550"),
	   "a refused recipient fails with the server's code: %s", err.buf);
	is_int(handed, 0, "body_sent not called: the data never went out");

	req.mail_rcpt = rcpt;
	req.require_tls = 1;
	rc = perform(&req, &r, &err);
	ok(rc == -1 && r.error == NET_TLS,
	   "TLS required, no STARTTLS offered: refused (%s)", err.buf);
	net_response_release(&r);
	strbuf_release(&err);
}

static void test_urls(void)
{
	static const struct {
		const char *in, *url, *host;
	} t[] = {
		{ "HTTPS://LORE.Kernel.org:443/A/./b/../c#frag",
		  "https://lore.kernel.org/A/c", "lore.kernel.org" },
		{ "https://lore.kernel.org./all/%2e%2E/x%7e%2f?q=%41%3d",
		  "https://lore.kernel.org/x~%2F?q=A%3D", "lore.kernel.org" },
		{ "http://0x7f000001:8080/", "http://127.0.0.1:8080/",
		  "127.0.0.1" },
		{ "https://[::1]:443/x", "https://[::1]/x", "[::1]" },
		{ "smtp://Mail.Example.org:587", "smtp://mail.example.org:587/",
		  "mail.example.org" },
	};
	struct net_url u;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		why = NULL;
		if (!ok(net_url_parse(t[i].in, &u, &why) == 0, "parses: %s",
			t[i].in))
			continue;
		is_str(u.url, t[i].url, "normalised");
		is_str(u.host, t[i].host, "host");
		net_url_release(&u);
	}
	ok(net_url_parse("https://a@b.example/x?y", &u, &why) == 0 &&
	   u.userinfo && !strcmp(u.host, "b.example") &&
	   !strcmp(u.path, "/x?y"), "userinfo is flagged, path with query");
	net_url_release(&u);
	ok(net_url_parse("https://h/a%2F..%2Fb", &u, &why) == -1 &&
	   strstr(why, "encoded '/'"), "a hidden dot segment: %s", why);
	ok(net_url_parse("https://h:99999/", &u, &why) == -1,
	   "a bad port: %s", why);
}

int main(void)
{
	struct server http, smtp;

	if (!ok(server_start(&http, 0) == 0 && server_start(&smtp, 1) == 0,
		"loopback HTTP and SMTP servers"))
		return done_testing();
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", http.port);
	test_http(&http);
	test_redirects(&http);
	test_failures();
	test_smtp(&smtp);
	test_urls();
	server_stop(&http);
	server_stop(&smtp);
	return done_testing();
}
