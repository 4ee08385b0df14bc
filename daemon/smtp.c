/*
 * smtp.c - mail to an SMTP server (see smtp.h).  The transfer itself is
 * net.c's; this file turns the message into CRLF lines and the outcome
 * into sent, retry or refused.
 */
#include <string.h>

#include "net.h"
#include "smtp.h"
#include "strbuf.h"

/* The message with every bare LF made CRLF. */
static void to_crlf(const char *p, size_t len, struct strbuf *out)
{
	size_t i;

	strbuf_grow(out, len + len / 32);
	for (i = 0; i < len; i++) {
		if (p[i] == '\n' && (!i || p[i - 1] != '\r'))
			strbuf_addch(out, '\r');
		strbuf_addch(out, p[i]);
	}
}

enum smtp_result smtp_send(const struct smtp_server *srv, const char *from,
			   const char *const *rcpt, const char *message,
			   size_t len, void (*handed)(void *arg), void *arg,
			   struct strbuf *err)
{
	struct strbuf wire = STRBUF_INIT;
	struct net_request req = { 0 };
	struct net_response r;
	enum smtp_result res = SMTP_SENT;

	to_crlf(message, len, &wire);
	req.url = srv->url;
	req.body = wire.buf;
	req.body_len = wire.len;
	req.mail_from = from;
	req.mail_rcpt = rcpt;
	req.username = srv->user;
	req.password = srv->password;
	req.require_tls = srv->require_tls;
	req.timeout_s = srv->timeout_s;
	req.body_sent = handed;
	req.body_sent_arg = arg;
	net_response_init(&r);
	/* A refused login or STARTTLS is the configuration's to fix: the
	 * mail waits for it. */
	if (net_perform(&req, &r, err))
		res = r.error == NET_FAILED && r.status >= 500 &&
		      r.status <= 599 ? SMTP_REFUSED : SMTP_RETRY;
	net_response_release(&r);
	strbuf_release(&wire);
	return res;
}
