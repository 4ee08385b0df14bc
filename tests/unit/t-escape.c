/*
 * t-escape.c - what escape.h promises: control characters, C1, bidi
 * controls and malformed UTF-8 come out as printable ASCII; everything
 * else, byte for byte as it was.  And log lines carry their messages so
 * escaped: one message, one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "strbuf.h"
#include "tap.h"

static void check(const char *in, size_t len, const char *want,
		  const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	escape_text_add(&sb, in, len);
	is_str(sb.buf, want, "%s", what);
	is_int(escape_needed(in, len), strcmp(sb.buf, in) != 0 ||
	       strlen(in) != len, "%s: escape_needed agrees", what);
	strbuf_release(&sb);
}

#define CHECK(lit, want, what) check(lit, sizeof(lit) - 1, want, what)

/* Only printable ASCII and multi-byte UTF-8 leave escape_text(). */
static int clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int main(void)
{
	char buf[64], line[512];
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int fd, saved, i;
	size_t n;

	CHECK("[PATCH v2 1/3] mm: faster clear_page()",
	      "[PATCH v2 1/3] mm: faster clear_page()", "plain ASCII as it is");
	CHECK("J\xc3\xb6rg M\xc3\xbcller \xe2\x80\x94 \xf0\x9f\x90\xa7",
	      "J\xc3\xb6rg M\xc3\xbcller \xe2\x80\x94 \xf0\x9f\x90\xa7",
	      "UTF-8 (2, 3 and 4 bytes) as it is");
	CHECK("a\\x1b b", "a\\x1b b", "a backslash is not doubled");
	CHECK("\x1b[2J\x1b[Hseries 1: done", "\\x1b[2J\\x1b[Hseries 1: done",
	      "ESC: a Subject cannot clear the screen");
	CHECK("a\r\nBcc: x@y", "a\\x0d\\x0aBcc: x@y",
	      "CR LF: no new header, no new line");
	CHECK("a\tb\x7f", "a\\x09b\\x7f", "tab and DEL");
	CHECK("a\0b", "a\\x00b", "NUL");
	CHECK("\xc2\x9b" "2J", "\\u009b2J", "C1 CSI (U+009B) as \\u009b");
	CHECK("abc\xe2\x80\xae" "cba", "abc\\u202ecba",
	      "RIGHT-TO-LEFT OVERRIDE");
	CHECK("\xe2\x81\xa6x\xe2\x81\xa9\xd8\x9c\xe2\x80\x8f",
	      "\\u2066x\\u2069\\u061c\\u200f", "isolates and marks");
	CHECK("\x9b" "2J", "\\x9b2J", "a stray 8-bit CSI byte");
	CHECK("\xc0\xaf", "\\xc0\\xaf", "overlong '/'");
	CHECK("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate");
	CHECK("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "past U+10FFFF");
	CHECK("x\xe2\x80", "x\\xe2\\x80", "a sequence cut short");
	CHECK("\xe2\x80" "abc", "\\xe2\\x80abc",
	      "a bad byte does not swallow what follows");

	n = escape_text(buf, 5, "ab\x1b" "cdef", 7);
	is_int((long long)n, 10, "escape_text returns the whole length");
	is_str(buf, "ab", "a piece that does not fit is left out whole");
	n = escape_text(NULL, 0, "\x1b", 1);
	is_int((long long)n, 4, "size 0: only the length");
	n = escape_text(buf, 5, "\x1b", 1);
	is_str(buf, "\\x1b", "an exact fit");

	/* every byte value, alone and in pairs: nothing unsafe leaves */
	for (i = 0; i < 256 * 256; i++) {
		char in[2] = { (char)(i >> 8), (char)i };

		strbuf_reset(&sb);
		escape_text_add(&sb, in, 2);
		if (!clean(sb.buf) || sb.len > 2 * ESCAPE_MAX_PER_BYTE)
			break;
	}
	is_int(i, 256 * 256, "all 65536 byte pairs: printable, within "
	       "ESCAPE_MAX_PER_BYTE");

	/* a log line with a hostile subject: one line, escaped */
	f = tmpfile();
	fflush(stderr);
	saved = dup(2);
	fd = fileno(f);
	dup2(fd, 2);
	log_info("intake", "series 7: %s", "evil\x1b[2J\nkregressd: ready");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(line, 1, sizeof(line) - 1, f);
	line[n] = '\0';
	fclose(f);
	is_str(line, "intake: series 7: evil\\x1b[2J\\x0akregressd: ready\n",
	       "a log message is one line, its controls escaped");

	log_error_reset();
	is_str(log_error_first(), "no cause was logged",
	       "no error since the reset");
	f = fopen("/dev/null", "w");
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(f), 2);
	error("fetch", "http://x/: HTTP %d Not Found", 404);
	error("intake", "a consequence");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	is_str(log_error_first(), "http://x/: HTTP 404 Not Found",
	       "log_error_first(): the first error since the reset");
	strbuf_release(&sb);
	return done_testing();
}
