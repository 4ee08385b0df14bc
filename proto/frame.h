/*
 * frame.h - the guest result protocol of DESIGN.md section 5, sending side.
 *
 * A result is one console line
 *
 *	KREGRESS 1 <nonce> <seq> <json> <crc>
 *	KREGRESS 1 <nonce> END <count> <crc>
 *
 * where <crc> is the CRC-32 (IEEE 802.3, the one of zlib and gzip) of every
 * byte of the line before the single space that precedes it, i.e. of
 * "KREGRESS 1 <nonce> <seq> <json>", written as exactly 8 lower-case hex
 * digits.  The checksum therefore covers the nonce and the sequence number
 * too: a line cannot be moved to another boot or position unnoticed.
 * <seq> counts from 0 in decimal; <count> is the number of records before
 * END.  <json> is one JSON object on one line (no control characters).
 *
 * This file is pure (no I/O, no allocation, no library) so that the static
 * guest /init compiles it as it is; console.c is the receiving side.
 */
#ifndef KREGRESS_FRAME_H
#define KREGRESS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC		"KREGRESS 1 "
#define FRAME_NONCE_MAX		64	/* bytes, [A-Za-z0-9_-] */
#define FRAME_JSON_MAX		4000	/* bytes of one record's JSON */
#define FRAME_LINE_MAX		(FRAME_JSON_MAX + FRAME_NONCE_MAX + 64)

/* CRC-32 of len bytes, continuing from crc (start with 0). */
uint32_t frame_crc32(uint32_t crc, const void *data, size_t len);

/* 1 if nonce is 1..FRAME_NONCE_MAX bytes of [A-Za-z0-9_-], else 0. */
int frame_nonce_valid(const char *nonce);

/*
 * Writes the record line for json (with a trailing "\n") into out.
 * Returns its length, or -1 if the nonce is invalid, json is longer than
 * FRAME_JSON_MAX or contains a control character or is not "{...}", or
 * the line does not fit in outsz.
 */
int frame_record(char *out, size_t outsz, const char *nonce,
		 unsigned long seq, const char *json);

/* Writes the END line for count records, as frame_record(). */
int frame_end(char *out, size_t outsz, const char *nonce,
	      unsigned long count);

/*
 * The length of the UTF-8 character at s, which holds n bytes: 1 to 4
 * for a well-formed one (shortest form, not a UTF-16 surrogate, at most
 * U+10FFFF), its code point in *cp; 0 when s starts none (n is 0, or
 * s[0] is a byte no character starts with here).
 */
size_t frame_utf8(const char *s, size_t n, uint32_t *cp);

/*
 * Appends s as a JSON string (with quotes) to out, which holds *len bytes
 * of outsz.  Text that is UTF-8 stays that text, written as \uXXXX
 * escapes so that the result is ASCII; a byte that starts no character
 * becomes the four characters \xNN (JSON "\\xNN"), as the kernel's own
 * escaping prints a byte: the bytes "caf\xc3\xa9" read back as "caf" and
 * U+00E9, the bytes "caf\xe9" as the seven characters caf\xe9.  On overflow the string is cut
 * between characters and -1 returned; out stays NUL-terminated.
 */
int frame_json_str(char *out, size_t outsz, size_t *len, const char *s);

/*
 * Copies len bytes of console text s into dst (size bytes, NUL-terminated)
 * as one line for a reason: UTF-8 characters stay, control characters and
 * bytes that start no character become \xNN.  Cut between characters to
 * fit; returns the length written.
 */
size_t frame_text(char *dst, size_t size, const char *s, size_t len);

#endif
