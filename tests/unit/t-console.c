/*
 * t-console.c - the result framing (frame.c) and the console parser
 * (console.c) against clean, interleaved, truncated, garbled, forged,
 * duplicated and panicking console logs.
 */
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "frame.h"
#include "gzip.h"
#include "strbuf.h"
#include "tap.h"

#define NONCE "n0nce-A_1"

static const char *const recs[] = {
	"{\"type\":\"env\",\"release\":\"6.1\"}",
	"{\"type\":\"sample\",\"workload\":\"mremap\",\"metric\":\"move_pud\","
	"\"value\":15089}",
	"{\"type\":\"sample\",\"workload\":\"mremap\",\"metric\":\"move_pud\","
	"\"value\":14056}",
};

/* Appends the framed record seq of recs (or END when seq == 3). */
static void add_frame(struct strbuf *sb, const char *nonce, int seq)
{
	char line[FRAME_LINE_MAX];
	int n = seq < 3 ? frame_record(line, sizeof(line), nonce, seq,
				       recs[seq]) :
		frame_end(line, sizeof(line), nonce, 3);

	strbuf_add(sb, line, n);
}

static void clean_log(struct strbuf *sb)
{
	int i;

	strbuf_addstr(sb, "[    0.000000] Linux version 6.1\n");
	for (i = 0; i <= 3; i++)
		add_frame(sb, NONCE, i);
	strbuf_addstr(sb, "[    2.5] reboot: Power down\n");
}

static enum console_status parse(const struct strbuf *sb,
				 struct console_result *res)
{
	console_result_release(res);
	if (console_parse(sb->buf, sb->len, NONCE, res))
		return -1;
	return res->status;
}

/* Replaces the first occurrence of from by to. */
static void replace(struct strbuf *sb, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	char *p = strstr(sb->buf, from);

	if (!p)
		return;
	strbuf_add(&out, sb->buf, p - sb->buf);
	strbuf_addstr(&out, to);
	strbuf_addstr(&out, p + strlen(from));
	strbuf_release(sb);
	*sb = out;
}

/*
 * What the host reads back: a guest's failure reason, escaped by
 * frame_json_str() as /init does, parsed by console.c, and a panic line
 * of the console kept as the reason.
 */
static void json_round_trip(void)
{
	struct console_result res = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char line[FRAME_LINE_MAX], json[256];
	size_t n;
	int len;

	n = 0;
	strcpy(json, "{\"type\":\"failure\",\"workload\":\"mremap\",\"reason\":");
	n = strlen(json);
	frame_json_str(json, sizeof(json) - 1, &n, "caf\xc3\xa9 \xff");
	strcat(json, "}");
	len = frame_record(line, sizeof(line), NONCE, 0, json);
	strbuf_add(&sb, line, len);
	len = frame_end(line, sizeof(line), NONCE, 1);
	strbuf_add(&sb, line, len);
	is_int(parse(&sb, &res), CONSOLE_FAILED, "a failure record: failed");
	is_str(res.reason, "mremap: caf\xc3\xa9 \\xff",
	       "its reason reads back as the guest's UTF-8, the bad byte "
	       "as \\xff: %s", res.reason);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "[    1.0] Kernel panic - not syncing: caf\xc3\xa9 "
		      "\x1b\xff\n");
	is_int(parse(&sb, &res), CONSOLE_PANIC, "a panic line");
	is_str(res.reason, "kernel: Kernel panic - not syncing: caf\xc3\xa9 "
	       "\\x1b\\xff", "its UTF-8 stays, the escape and the bad byte "
	       "read \\xNN");
	console_result_release(&res);
	strbuf_release(&sb);
}

static void test_frame(void)
{
	char line[FRAME_LINE_MAX], big[FRAME_JSON_MAX + 10];
	const char *s = "KREGRESS 1 abc 0 {\"a\":1}";
	size_t n = 0;
	char json[64];

	is_int(frame_crc32(0, "123456789", 9), 0xcbf43926,
	       "CRC-32 check value");
	is_int(frame_crc32(0, s, strlen(s)),
	       gzip_crc32(0, s, strlen(s)),
	       "frame_crc32 equals zlib's crc32");
	frame_record(line, sizeof(line), "abc", 0, "{\"a\":1}");
	snprintf(json, sizeof(json), "%s %08lx\n", s,
		 gzip_crc32(0, s, strlen(s)));
	is_str(line, json, "record line: text, space, 8 hex digits of CRC");
	ok(frame_record(line, sizeof(line), "a b", 0, "{}") < 0,
	   "nonce with a blank refused");
	ok(frame_record(line, sizeof(line), "", 0, "{}") < 0,
	   "empty nonce refused");
	ok(frame_record(line, sizeof(line), "abc", 0, "[1]") < 0,
	   "non-object refused");
	ok(frame_record(line, sizeof(line), "abc", 0, "{\"a\":\"\n\"}") < 0,
	   "control character refused");
	memset(big, 'x', sizeof(big));
	big[0] = '{';
	big[sizeof(big) - 2] = '}';
	big[sizeof(big) - 1] = 0;
	ok(frame_record(line, sizeof(line), "abc", 0, big) < 0,
	   "record over FRAME_JSON_MAX refused");
	ok(frame_record(line, 20, "abc", 0, "{\"a\":1}") < 0,
	   "too small buffer refused");
	frame_json_str(json, sizeof(json), &n, "a\"b\\c\n\x01");
	is_str(json, "\"a\\\"b\\\\c\\u000a\\u0001\"", "JSON string escaping");
	n = 0;
	n = 0;
	frame_json_str(json, sizeof(json), &n, "caf\xc3\xa9");
	is_str(json, "\"caf\\u00e9\"", "UTF-8 text stays that text: "
	       "caf\\u00e9, ASCII output");
	n = 0;
	frame_json_str(json, sizeof(json), &n, "\xe2\x82\xac \xf0\x9f\x98\x80");
	is_str(json, "\"\\u20ac \\ud83d\\ude00\"",
	       "three- and four-byte characters (a surrogate pair)");
	n = 0;
	frame_json_str(json, sizeof(json), &n, "caf\xe9\xff");
	is_str(json, "\"caf\\\\xe9\\\\xff\"",
	       "bytes that are not UTF-8 read \\xNN");
	n = 0;
	frame_json_str(json, sizeof(json), &n,
		       "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xc3");
	is_str(json, "\"\\\\xc0\\\\xaf|\\\\xed\\\\xa0\\\\x80|"
	       "\\\\xf4\\\\x90\\\\x80\\\\x80|\\\\xc3\"",
	       "overlong, surrogate, beyond U+10FFFF, cut: bytes, not text");
	json_round_trip();
	n = 0;
	ok(frame_json_str(json, 8, &n, "abcdefghij") < 0 &&
	   !strcmp(json, "\"abcde\""), "JSON string cut to fit: %s", json);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT, tmp = STRBUF_INIT;
	struct console_result res = { 0 };
	char line[FRAME_LINE_MAX];
	int i, n;

	test_frame();

	clean_log(&sb);
	is_int(parse(&sb, &res), CONSOLE_COMPLETE, "clean log is complete");
	is_int(res.nrecords, 3, "three records");
	is_str(res.records[1].json, recs[1], "record JSON kept verbatim");
	is_str(res.records[0].type, "env", "record type");
	is_str(res.reason, "", "no reason");

	console_result_release(&res);
	ok(console_parse(sb.buf, sb.len, "bad nonce", &res) == -1,
	   "invalid expected nonce is an error");

	/* CR/LF noise and kernel lines between ours. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "\r\n\r\r\n");
	for (i = 0; i <= 3; i++) {
		strbuf_addstr(&sb, "[    1.0] random: crng init done\r\n");
		add_frame(&sb, NONCE, i);
		sb.len--;
		strbuf_addstr(&sb, "\r\r\n");
	}
	is_int(parse(&sb, &res), CONSOLE_COMPLETE,
	       "interleaved kernel lines and CR noise: complete");
	is_int(res.nrecords, 3, "all three records");

	/* A kernel message on the same line before our frame. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "[    1.0] zram0: detected capacity ");
	for (i = 0; i <= 3; i++)
		add_frame(&sb, NONCE, i);
	is_int(parse(&sb, &res), CONSOLE_COMPLETE,
	       "frame after a kernel message on one line");

	/* A printk in the middle of a record line. */
	strbuf_reset(&sb);
	add_frame(&sb, NONCE, 0);
	add_frame(&tmp, NONCE, 1);
	strbuf_add(&sb, tmp.buf, 40);
	strbuf_addstr(&sb, "[    1.5] EXT4-fs (vda): mounted\r\n");
	strbuf_addstr(&sb, tmp.buf + 40);
	add_frame(&sb, NONCE, 2);
	add_frame(&sb, NONCE, 3);
	is_int(parse(&sb, &res), CONSOLE_COMPLETE,
	       "printk inside a record line is cut out");
	is_int(res.nrepaired, 1, "one line repaired");
	is_str(res.records[1].json, recs[1], "repaired record intact");

	/* A panic message spliced into a line is still seen. */
	strbuf_reset(&sb);
	strbuf_add(&sb, tmp.buf, 40);
	strbuf_addstr(&sb, "[    1.5] Kernel panic - not syncing: oops\n");
	strbuf_addstr(&sb, tmp.buf + 40);
	is_int(parse(&sb, &res), CONSOLE_PANIC,
	       "panic inside a record line detected");

	/* Truncation: no END. */
	strbuf_reset(&sb);
	for (i = 0; i < 3; i++)
		add_frame(&sb, NONCE, i);
	is_int(parse(&sb, &res), CONSOLE_INCOMPLETE, "no END: incomplete");
	ok(strstr(res.reason, "no END") != NULL, "reason: %s", res.reason);
	/* Cut in the middle of the last line: lost, not garbled. */
	sb.len -= 20;
	sb.buf[sb.len] = 0;
	is_int(parse(&sb, &res), CONSOLE_INCOMPLETE,
	       "log cut mid-line: incomplete");
	is_int(res.nrecords, 2, "two whole records before the cut");
	is_int(parse(&tmp, &res), CONSOLE_INCOMPLETE, "one record only");
	strbuf_reset(&tmp);
	is_int(parse(&tmp, &res), CONSOLE_INCOMPLETE, "empty log");

	/* Garbled: one flipped character. */
	strbuf_reset(&sb);
	clean_log(&sb);
	replace(&sb, "15089", "15088");
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "flipped digit: garbled");
	ok(strstr(res.reason, "checksum") != NULL, "reason: %s", res.reason);
	strbuf_reset(&sb);
	clean_log(&sb);
	replace(&sb, " END 3 ", " END 4 ");
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "altered END: garbled");

	/* Forged or foreign lines: another nonce, with a valid CRC. */
	strbuf_reset(&sb);
	add_frame(&sb, "other", 0);
	clean_log(&sb);
	n = frame_record(line, sizeof(line), "other", 3,
			 "{\"type\":\"sample\",\"value\":1}");
	strbuf_add(&sb, line, n);
	add_frame(&sb, "other", 3);
	is_int(parse(&sb, &res), CONSOLE_COMPLETE,
	       "lines of another nonce ignored");
	is_int(res.nforeign, 3, "three foreign lines counted");
	strbuf_reset(&sb);
	for (i = 0; i <= 3; i++)
		add_frame(&sb, "other", i);
	is_int(parse(&sb, &res), CONSOLE_INCOMPLETE,
	       "only another boot's output: incomplete");
	/* Our nonce, but the forger cannot compute... a wrong CRC. */
	strbuf_reset(&sb);
	clean_log(&sb);
	strbuf_addstr(&sb, "KREGRESS 1 " NONCE " 3 {\"type\":\"sample\"} "
		      "00000000\n");
	is_int(parse(&sb, &res), CONSOLE_GARBLED,
	       "our nonce with a bad CRC: garbled");

	/* Duplicates and gaps. */
	strbuf_reset(&sb);
	add_frame(&sb, NONCE, 0);
	add_frame(&sb, NONCE, 1);
	add_frame(&sb, NONCE, 1);
	add_frame(&sb, NONCE, 2);
	add_frame(&sb, NONCE, 3);
	is_int(parse(&sb, &res), CONSOLE_COMPLETE,
	       "identical duplicate tolerated");
	is_int(res.nduplicates, 1, "duplicate counted");
	is_int(res.nrecords, 3, "kept once");
	strbuf_reset(&sb);
	clean_log(&sb);
	n = frame_record(line, sizeof(line), NONCE, 1,
			 "{\"type\":\"sample\",\"value\":2}");
	strbuf_add(&sb, line, n);
	is_int(parse(&sb, &res), CONSOLE_GARBLED,
	       "two different records with one seq: garbled");
	strbuf_reset(&sb);
	add_frame(&sb, NONCE, 0);
	add_frame(&sb, NONCE, 2);
	add_frame(&sb, NONCE, 3);
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "missing seq: garbled");
	ok(strstr(res.reason, "record 1 lost") != NULL, "reason: %s",
	   res.reason);
	strbuf_reset(&sb);
	add_frame(&sb, NONCE, 0);
	add_frame(&sb, NONCE, 1);
	add_frame(&sb, NONCE, 3);
	add_frame(&sb, NONCE, 2);
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "record after END");

	/* Panics. */
	strbuf_reset(&sb);
	clean_log(&sb);
	strbuf_addstr(&sb, "[    3.0] BUG: kernel NULL pointer dereference\n");
	is_int(parse(&sb, &res), CONSOLE_PANIC, "BUG: after END is a panic");
	ok(strstr(res.reason, "NULL pointer") != NULL, "reason: %s",
	   res.reason);
	strbuf_reset(&sb);
	add_frame(&sb, NONCE, 0);
	strbuf_addstr(&sb, "[    1.0] Internal error: Oops: 96000004\n");
	is_int(parse(&sb, &res), CONSOLE_PANIC, "arm64 Oops");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "Kernel panic - not syncing: No working init\n");
	is_int(parse(&sb, &res), CONSOLE_PANIC, "panic before any record");

	/* A failure record makes the boot failed, with its reason. */
	strbuf_reset(&sb);
	n = frame_record(line, sizeof(line), NONCE, 0,
			 "{\"type\":\"failure\",\"workload\":\"mremap\","
			 "\"reason\":\"region did not move\"}");
	strbuf_add(&sb, line, n);
	n = frame_end(line, sizeof(line), NONCE, 1);
	strbuf_add(&sb, line, n);
	is_int(parse(&sb, &res), CONSOLE_FAILED, "failure record: failed");
	is_str(res.reason, "mremap: region did not move", "failure reason");
	is_int(res.nfailures, 1, "one failure");

	/* Records that are not known JSON objects. */
	strbuf_reset(&sb);
	n = frame_record(line, sizeof(line), NONCE, 0, "{not json}");
	strbuf_add(&sb, line, n);
	n = frame_end(line, sizeof(line), NONCE, 1);
	strbuf_add(&sb, line, n);
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "non-JSON record: garbled");
	strbuf_reset(&sb);
	n = frame_record(line, sizeof(line), NONCE, 0, "{\"type\":\"x\"}");
	strbuf_add(&sb, line, n);
	n = frame_end(line, sizeof(line), NONCE, 1);
	strbuf_add(&sb, line, n);
	is_int(parse(&sb, &res), CONSOLE_GARBLED, "unknown type: garbled");

	/* Binary junk, NUL bytes, a huge line, leading zeros. */
	strbuf_reset(&sb);
	strbuf_add(&sb, "\0\xff\x01junk KREGRESS 1 ", 18);
	strbuf_addstr(&sb, "\n");
	for (i = 0; i < 100000; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, "\nKREGRESS 1 " NONCE " 00 {} 12345678\n");
	strbuf_addstr(&sb, "KREGRESS 1 " NONCE);
	strbuf_add(&sb, "\0", 1);
	clean_log(&sb);
	n = parse(&sb, &res);
	ok(n == CONSOLE_GARBLED, "junk with our nonce and bad CRC: garbled "
	   "(%s: %s)", console_status_str(n), res.reason);

	/* Many long bad lines of our nonce: repair tries are bounded. */
	strbuf_reset(&sb);
	for (i = 0; i < 3000; i++) {
		strbuf_addstr(&sb, "KREGRESS 1 " NONCE " 0 {");
		for (n = 0; n < 3000; n++)
			strbuf_addch(&sb, 'a' + (i + n) % 26);
		strbuf_addstr(&sb, "} 0badc0de\n");
	}
	is_int(parse(&sb, &res), CONSOLE_GARBLED,
	       "3000 long bad lines: garbled (and finished)");

	/* Over the size cap: what lies beyond is lost. */
	strbuf_reset(&sb);
	for (i = 0; i < 3; i++)
		add_frame(&sb, NONCE, i);
	strbuf_grow(&sb, CONSOLE_LOG_MAX);
	memset(sb.buf + sb.len, '.', CONSOLE_LOG_MAX);
	sb.len += CONSOLE_LOG_MAX;
	sb.buf[sb.len] = 0;
	add_frame(&sb, NONCE, 3);
	is_int(parse(&sb, &res), CONSOLE_INCOMPLETE, "END beyond the cap");
	ok(strstr(res.reason, "cap") != NULL, "reason: %s", res.reason);

	console_result_release(&res);
	console_result_release(NULL);
	strbuf_release(&sb);
	strbuf_release(&tmp);
	return done_testing();
}
