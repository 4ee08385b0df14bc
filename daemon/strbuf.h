/*
 * strbuf.h - a growable, always NUL-terminated byte buffer.
 *
 * Used wherever text of unknown length is built or read: mail bodies, JSON
 * responses, console logs.  Allocation failure is an impossible state for
 * this daemon (it aborts through die()); input size caps are enforced by
 * the callers that read untrusted data, never here.
 */
#ifndef KREGRESS_STRBUF_H
#define KREGRESS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* NUL-terminated; "" (static) until first growth */
	size_t len;	/* bytes used, excluding the NUL */
	size_t alloc;	/* bytes allocated; 0 while buf is the static "" */
};

#define STRBUF_INIT { (char *)strbuf_empty, 0, 0 }
extern const char strbuf_empty[1];

void strbuf_init(struct strbuf *sb);
/* Frees the buffer and leaves sb as after strbuf_init(). */
void strbuf_release(struct strbuf *sb);
/* Returns the buffer, which the caller then owns; sb is re-initialised. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_reset(struct strbuf *sb);

/*
 * Reads the whole file at path into sb; "-" reads standard input.  -1 on
 * an error, or when the file is larger than max_bytes: the _why variant
 * appends the reason, naming the file, to why (nothing logged), the
 * other one logs it.
 */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes);
int strbuf_read_file_why(struct strbuf *sb, const char *path,
			 size_t max_bytes, struct strbuf *why);

#endif
