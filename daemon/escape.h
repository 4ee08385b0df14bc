/*
 * escape.h - text from mail made safe to show: on a terminal, in a log
 * line, in a mail header, in any one-line field.  Pure, no allocation but
 * the strbuf's.
 *
 * The database keeps what was sent (a Subject whose RFC 2047 words decode
 * to ESC, CR or LF is stored so); whatever shows such text escapes it
 * with these functions, so that a Subject can neither drive a terminal
 * (clear the screen, move the cursor, forge a status line), nor start a
 * new log line or mail header, nor reverse the direction of what follows.
 *
 * Escaped, each as a sequence of printable ASCII:
 *   - C0 controls U+0000..U+001F (tab, LF, CR and ESC among them) and
 *     DEL: "\x1b", "\x0a", ...;
 *   - C1 controls U+0080..U+009F (U+009B is CSI, ESC [, on terminals
 *     that read 8-bit controls): "\u009b";
 *   - the bidirectional marks, embeddings, overrides and isolates
 *     (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069: "Trojan
 *     Source"): "\u202e";
 *   - every byte that is not part of well-formed UTF-8 (a stray
 *     continuation byte, an overlong form, a surrogate, past U+10FFFF, a
 *     sequence cut short): "\xNN" per byte.
 * Everything else is copied as it is: printable ASCII (the backslash
 * too: the escaping is for safety, not reversible) and well-formed UTF-8.
 * Text that needs no escaping comes out unchanged, byte for byte.
 */
#ifndef KREGRESS_ESCAPE_H
#define KREGRESS_ESCAPE_H

#include <stddef.h>

struct strbuf;

/* The most bytes one input byte can become ("\xNN"). */
#define ESCAPE_MAX_PER_BYTE	4

/*
 * Writes s[0..len) escaped into dst (at most size bytes, always
 * NUL-terminated when size > 0; a character is never cut in half) and
 * returns the length the whole escaped text has, as snprintf() does: the
 * output was complete when that is below size.  dst may be NULL when
 * size is 0.  len * ESCAPE_MAX_PER_BYTE + 1 bytes are always enough.
 * Safe in any thread; allocates nothing (log.c uses it).
 */
size_t escape_text(char *dst, size_t size, const char *s, size_t len);

/* Appends s[0..len) escaped to sb. */
void escape_text_add(struct strbuf *sb, const char *s, size_t len);

/* Appends the C string s escaped to sb (nothing for NULL). */
void escape_str_add(struct strbuf *sb, const char *s);

/*
 * The C string s escaped, for a printf() argument of the CLI's output:
 * the text lives in one of ESCAPE_ARGS buffers of the calling thread,
 * used in turn, so that one printf() may take up to ESCAPE_ARGS of them.
 * NULL gives "".  The buffers are kept for the thread's life.
 */
#define ESCAPE_ARGS	8
const char *escape_arg(const char *s);

/* 1 when s[0..len) has something escape_text() would escape, else 0. */
int escape_needed(const char *s, size_t len);

#endif
