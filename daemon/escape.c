/*
 * escape.c - control characters of untrusted text escaped for display
 * (see escape.h).
 *
 * The input is read as UTF-8 by the rules of RFC 3629 (table 3-7 of the
 * Unicode standard): the shortest form only, no surrogates, nothing past
 * U+10FFFF.  A byte that does not start a well-formed sequence is escaped
 * on its own and reading goes on at the next byte, so one bad byte never
 * swallows the characters after it.
 */
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "strbuf.h"

/*
 * The length of the well-formed UTF-8 sequence at p[0..n) and its code
 * point in *cp, or 0 when p does not start one.
 */
static size_t utf8_char(const unsigned char *p, size_t n, unsigned *cp)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		*cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		*cp = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;	/* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		*cp = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;	/* nothing past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		unsigned b = p[i];

		if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = (*cp << 6) | (b & 0x3f);
	}
	return len;
}

/* Code points escaped although well-formed: C1 and the bidi controls. */
static int escaped_cp(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The next piece of output for s[0..n): copied (returns its length, *out
 * NULL) or escaped (the escape written to esc, *out = esc).  *used
 * receives the input bytes it stands for.
 */
static size_t next_piece(const unsigned char *s, size_t n, char esc[8],
			 const char **out, size_t *used)
{
	unsigned cp;
	size_t k = utf8_char(s, n, &cp);

	if (!k) {
		*used = 1;
		*out = esc;
		return (size_t)snprintf(esc, 8, "\\x%02x", s[0]);
	}
	*used = k;
	if (cp < 0x20 || cp == 0x7f) {
		*out = esc;
		return (size_t)snprintf(esc, 8, "\\x%02x", cp);
	}
	if (escaped_cp(cp)) {
		*out = esc;
		return (size_t)snprintf(esc, 8, "\\u%04x", cp);
	}
	*out = NULL;
	return k;
}

size_t escape_text(char *dst, size_t size, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = 0, end = 0, pos = 0, used, k;
	int full = 0;
	const char *piece;
	char esc[8];

	while (pos < len) {
		k = next_piece(p + pos, len - pos, esc, &piece, &used);
		/* once a piece does not fit, nothing after it is written */
		if (!full && end + k < size) {
			memcpy(dst + end, piece ? piece : s + pos, k);
			end += k;
		} else {
			full = 1;
		}
		total += k;
		pos += used;
	}
	if (size)
		dst[end] = '\0';
	return total;
}

void escape_text_add(struct strbuf *sb, const char *s, size_t len)
{
	size_t n = escape_text(NULL, 0, s, len);

	strbuf_grow(sb, n + 1);
	escape_text(sb->buf + sb->len, n + 1, s, len);
	sb->len += n;
}

void escape_str_add(struct strbuf *sb, const char *s)
{
	if (s)
		escape_text_add(sb, s, strlen(s));
}

const char *escape_arg(const char *s)
{
	static __thread struct strbuf pool[ESCAPE_ARGS];
	static __thread unsigned next;
	struct strbuf *sb = &pool[next++ % ESCAPE_ARGS];

	if (!sb->alloc)
		strbuf_init(sb);
	strbuf_reset(sb);
	escape_str_add(sb, s);
	return sb->buf;
}

int escape_needed(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t pos = 0, used;
	const char *piece;
	char esc[8];

	while (pos < len) {
		next_piece(p + pos, len - pos, esc, &piece, &used);
		if (piece)
			return 1;
		pos += used;
	}
	return 0;
}
