/*
 * frame.c - formatting of framed result lines (see frame.h).
 *
 * Compiled into libkregress and, unchanged, into the static guest /init:
 * it must not use anything beyond the C library.
 */
#include <stdio.h>
#include <string.h>

#include "frame.h"

uint32_t frame_crc32(uint32_t crc, const void *data, size_t len)
{
	static uint32_t table[256];
	const unsigned char *p = data;
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

int frame_nonce_valid(const char *nonce)
{
	size_t n = 0;

	for (; nonce[n]; n++) {
		char c = nonce[n];

		if (n >= FRAME_NONCE_MAX)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return 0;
	}
	return n > 0;
}

static int json_line_valid(const char *json)
{
	size_t n = strlen(json), i;

	if (n < 2 || n > FRAME_JSON_MAX || json[0] != '{' ||
	    json[n - 1] != '}')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)json[i] < 0x20 || json[i] == 0x7f)
			return 0;
	return 1;
}

/* Appends " <crc>\n" for the len bytes already in out. */
static int add_crc(char *out, size_t outsz, int len)
{
	int n;

	if (len < 0 || (size_t)len >= outsz)
		return -1;
	n = snprintf(out + len, outsz - len, " %08x\n",
		     (unsigned)frame_crc32(0, out, len));
	if (n < 0 || (size_t)n >= outsz - len)
		return -1;
	return len + n;
}

int frame_record(char *out, size_t outsz, const char *nonce,
		 unsigned long seq, const char *json)
{
	if (!frame_nonce_valid(nonce) || !json_line_valid(json))
		return -1;
	return add_crc(out, outsz, snprintf(out, outsz, FRAME_MAGIC "%s %lu %s",
					    nonce, seq, json));
}

int frame_end(char *out, size_t outsz, const char *nonce,
	      unsigned long count)
{
	if (!frame_nonce_valid(nonce))
		return -1;
	return add_crc(out, outsz, snprintf(out, outsz, FRAME_MAGIC "%s END %lu",
					    nonce, count));
}

static int put(char *out, size_t outsz, size_t *len, const char *s,
	       size_t n)
{
	if (*len + n + 1 > outsz)
		return -1;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
	return 0;
}

size_t frame_utf8(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c, min;
	size_t len, i;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2, c = p[0] & 0x1f, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3, c = p[0] & 0x0f, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;	/* a continuation byte, 0xc0, 0xc1, >= 0xf5 */
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and beyond U+10FFFF are not
	 * characters. */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

int frame_json_str(char *out, size_t outsz, size_t *len, const char *s)
{
	size_t left = strlen(s), k;
	char esc[16];
	uint32_t c;

	if (put(out, outsz, len, "\"", 1))
		return -1;
	for (; left; s += k, left -= k) {
		k = frame_utf8(s, left, &c);
		if (!k) {
			/* No character: the text "\xNN", as the kernel's
			 * own escaping (%*pE) prints a byte. */
			k = 1;
			snprintf(esc, sizeof(esc), "\\\\x%02x",
				 (unsigned char)*s);
		} else if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			esc[2] = 0;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)c);
		} else if (c < 0x80) {
			esc[0] = (char)c;
			esc[1] = 0;
		} else if (c < 0x10000) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)c);
		} else {
			/* Beyond the BMP: a UTF-16 surrogate pair. */
			c -= 0x10000;
			snprintf(esc, sizeof(esc), "\\u%04x\\u%04x",
				 (unsigned)(0xd800 + (c >> 10)),
				 (unsigned)(0xdc00 + (c & 0x3ff)));
		}
		/* Leave room for the closing quote. */
		if (*len + strlen(esc) + 2 > outsz)
			break;
		put(out, outsz, len, esc, strlen(esc));
	}
	if (put(out, outsz, len, "\"", 1))
		return -1;
	return left ? -1 : 0;
}

size_t frame_text(char *dst, size_t size, const char *s, size_t len)
{
	size_t n = 0, k;
	char esc[8];
	uint32_t c;

	if (!size)
		return 0;
	for (; len; s += k, len -= k) {
		k = frame_utf8(s, len, &c);
		if (k && c >= 0x20 && c != 0x7f) {
			if (n + k >= size)
				break;
			memcpy(dst + n, s, k);
			n += k;
			continue;
		}
		k = 1;
		snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*s);
		if (n + 4 >= size)
			break;
		memcpy(dst + n, esc, 4);
		n += 4;
	}
	dst[n] = 0;
	return n;
}
