/*
 * fuzz-http.c - libFuzzer harness over the API server's request handling
 * (http.c): each input is written as it is to a real server on loopback,
 * through libmicrohttpd, so that the router's target splitting and
 * decoding, the framing checks and the body cap all see it.  The
 * handlers check what the server promises them: no control character in
 * a path parameter, never more body than the cap.  Run by
 * `make check-fuzz`.
 *
 * Each input is followed by a last request asking to close: libmicrohttpd
 * 0.9.75 notices a client's end of stream only at its next read, which
 * after a complete request may come at the idle timeout.  (An input that
 * ends inside a long body still waits for the 2 s header deadline.)
 * The harness shuts its side first, so each connection leaves a
 * TIME_WAIT on the client's port for 60 s: at 3,700 inputs a second that
 * would use up the 28,000 ephemeral ports of one source address within
 * 8 s wherever tcp_tw_reuse is off, so each connection comes from the
 * next address of 127.1.0.0/16.
 *
 * http.c reaches the database only through http_db(), which these
 * handlers never call: db_open() and db_close() are stubs here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "db.h"
#include "http.h"
#include "http_json.h"
#include "log.h"

#define BODY_MAX	4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int db_open(const char *path, struct db **out)
{
	return -1;
}

void db_close(struct db *db)
{
}

static int port;

static void check_params(struct http_request *req, int n)
{
	const unsigned char *p;
	int i;

	for (i = 0; i < n; i++)
		for (p = (const unsigned char *)http_param(req, i); *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				abort();
}

static void one_param(struct http_request *req, void *arg)
{
	check_params(req, 1);
	http_reply_json(req, 200, json_pack("{s:s}", "id",
					    http_param(req, 0)));
}

static void body_len(struct http_request *req, void *arg)
{
	size_t len;

	http_body(req, &len);
	if (len > BODY_MAX)
		abort();
	http_reply_json(req, 202, json_pack("{s:I}", "len", (json_int_t)len));
}

static void start(void)
{
	struct http_opts o = {
		.listen = "127.0.0.1:0", .body_max = BODY_MAX, .threads = 2,
		.header_timeout_s = 2, .idle_timeout_s = 2,
	};
	struct http_server *srv;

	signal(SIGPIPE, SIG_IGN);
	log_set_level(LOG_LEVEL_ERROR);
	if (http_server_new(&o, &srv) ||
	    http_route_add(srv, "GET", "/api/v1/series/{id}", one_param,
			   NULL) ||
	    http_route_add(srv, "GET", "/api/v1/series/{id}/samples",
			   one_param, NULL) ||
	    http_route_add(srv, "POST", "/api/v1/series", body_len, NULL) ||
	    http_server_start(srv))
		abort();
	port = http_server_port(srv);	/* the server lives until exit */
}

/* A socket call of the harness failed: say which and why, then crash. */
static _Noreturn void socket_call_failed(const char *call)
{
	fprintf(stderr, "fuzz-http: %s: %m\n", call);
	abort();
}

/* Binds fd to the next loopback source address, its port left to connect. */
static void bind_next_source(int fd)
{
	static uint32_t n;
	struct sockaddr_in src = { .sin_family = AF_INET };
	int one = 1;

	src.sin_addr.s_addr = htonl(0x7f010000 | (n++ % 0xffff + 1));
	if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one,
		       sizeof(one)))
		socket_call_failed("setsockopt IP_BIND_ADDRESS_NO_PORT");
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)))
		socket_call_failed("bind");
}

/*
 * Connects fd to sa.  A signal (libFuzzer's timers) can interrupt a
 * blocking connect(), which then goes on by itself: wait until fd is
 * writable and take its outcome from SO_ERROR.
 */
static void connect_to(int fd, const struct sockaddr_in *sa)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err;

	if (!connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		return;
	if (errno != EINTR)
		socket_call_failed("connect");
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			socket_call_failed("poll");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		socket_call_failed("getsockopt SO_ERROR");
	errno = err;
	if (err)
		socket_call_failed("connect");
}

/* Sends all of len bytes unless the server closes first. */
static void send_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n <= 0)
			return;
		p += n;
		len -= n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char last[] = "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n"
				   "Connection: close\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { 5, 0 };
	char buf[4096];
	int fd;

	if (!port)
		start();
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		socket_call_failed("socket");
	bind_next_source(fd);
	connect_to(fd, &sa);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send_all(fd, data, size);
	send_all(fd, last, strlen(last));
	shutdown(fd, SHUT_WR);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
