/*
 * smtp.h - a composed mail handed to an SMTP server, through net.c.
 *
 * smtp:// (STARTTLS when the server offers it, or required), smtps://,
 * AUTH with a user and password.  The message goes out with CRLF line
 * ends (dot-stuffing is libcurl's).  What the answer means for a retry is
 * decided here once: a 5xx to the envelope or the data refuses the mail
 * for good; anything else that fails (no connection, a timeout, TLS, a
 * refused login, a 4xx) is worth another attempt later.
 */
#ifndef KREGRESS_SMTP_H
#define KREGRESS_SMTP_H

#include <stddef.h>

struct strbuf;

enum smtp_result {
	SMTP_SENT,		/* the server accepted the mail */
	SMTP_RETRY,		/* a transient failure: try again later */
	SMTP_REFUSED,		/* a permanent refusal (5xx) */
};

struct smtp_server {
	const char *url;	/* smtp://host:port or smtps://... */
	const char *user;	/* NULL = no AUTH */
	const char *password;
	int require_tls;	/* smtp://: refuse to go on without STARTTLS */
	int timeout_s;		/* the whole transaction; 0 = 60 */
};

/*
 * Sends message (len bytes, LF or CRLF line ends) with envelope sender
 * from to every address of rcpt (NULL-terminated, bare addresses).
 * handed(arg), when not NULL, is called once the whole message has been
 * handed over and before the server's answer is read: a process that
 * dies after it cannot know whether the mail was accepted.  Blocks for at
 * most the timeout.  The reason of a failure ("smtp://...: ...") is
 * appended to err; nothing is logged.
 */
enum smtp_result smtp_send(const struct smtp_server *srv, const char *from,
			   const char *const *rcpt, const char *message,
			   size_t len, void (*handed)(void *arg), void *arg,
			   struct strbuf *err);

#endif
