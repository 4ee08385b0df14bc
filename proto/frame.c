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

int frame_json_str(char *out, size_t outsz, size_t *len, const char *s)
{
	char esc[8];

	if (put(out, outsz, len, "\"", 1))
		return -1;
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			esc[2] = 0;
		} else if (c < 0x20 || c >= 0x7f) {
			/* Bytes >= 0x80 as Latin-1: the output is ASCII and
			 * valid JSON whatever the input's encoding. */
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		} else {
			esc[0] = c;
			esc[1] = 0;
		}
		/* Leave room for the closing quote. */
		if (*len + strlen(esc) + 2 > outsz)
			break;
		put(out, outsz, len, esc, strlen(esc));
	}
	if (put(out, outsz, len, "\"", 1))
		return -1;
	return *s ? -1 : 0;
}
