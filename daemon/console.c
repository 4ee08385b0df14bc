/*
 * console.c - console log parser for the guest result protocol.
 *
 * The log is cut into lines at '\n'; every '\r' is dropped (serial
 * consoles emit "\r\n", sometimes doubled, and a JSON record never holds
 * a raw CR).  A line containing FRAME_MAGIC is a frame from that point
 * on (a kernel message may precede it on the same line); any other text
 * is console noise, searched only for panic markers.
 *
 * A printk that lands in the middle of one of our lines splits it in
 * two: "<frame head><kernel message>\n<frame tail>".  When a frame of our
 * nonce fails its checksum, the parser tries every cut of the line joined
 * to the next line and accepts the one whose checksum matches; the text
 * cut out is treated as a kernel message.  The CRC makes a false repair
 * as unlikely as a garbled line passing (about one in 2^32 per try).
 * zlib's crc32_combine (through gzip.c) makes each try linear in the
 * line's length; the number of tries per log is capped.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "console.h"
#include "frame.h"
#include "gzip.h"
#include "log.h"

/* At most this many bad lines are searched for a repair (cost bound). */
#define REPAIR_TRIES_MAX 64

const char *console_status_str(enum console_status status)
{
	switch (status) {
	case CONSOLE_PANIC:
		return "panic";
	case CONSOLE_GARBLED:
		return "garbled";
	case CONSOLE_INCOMPLETE:
		return "incomplete";
	case CONSOLE_FAILED:
		return "failed";
	case CONSOLE_COMPLETE:
		return "complete";
	}
	return "?";
}

void console_result_release(struct console_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nrecords; i++)
		free(res->records[i].json);
	free(res->records);
	memset(res, 0, sizeof(*res));
}

struct line {
	char *s;
	size_t len;
	int terminated;		/* ended by '\n' (else: log cut here) */
};

struct parser {
	struct console_result *res;
	const char *nonce;
	size_t nonce_len;
	char panic[CONSOLE_REASON_MAX];
	char garbled[CONSOLE_REASON_MAX];
	size_t alloc;
	int repair_tries;
};

/* Copies text into a reason: UTF-8 stays, other bytes read \xNN. */
static void set_reason(char *dst, const char *prefix, const char *s,
		       size_t len)
{
	size_t n = strlen(prefix);

	if (dst[0])
		return;		/* the first reason is kept */
	memcpy(dst, prefix, n);
	frame_text(dst + n, CONSOLE_REASON_MAX - n, s, len);
}

static void check_panic(struct parser *p, const char *s, size_t len)
{
	static const char *const markers[] = {
		"Kernel panic", "Oops:", "BUG:", "kernel BUG at",
		"Unable to handle kernel", "general protection fault",
	};
	size_t i;

	for (i = 0; i < sizeof(markers) / sizeof(*markers); i++) {
		const char *m = memmem(s, len, markers[i],
				       strlen(markers[i]));

		if (m) {
			set_reason(p->panic, "kernel: ", m, s + len - m);
			return;
		}
	}
}

static int parse_ulong(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (!len || len > 9 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* 1 if the last word of frame is the CRC-32 of everything before it. */
static int crc_ok(const char *f, size_t len)
{
	unsigned long crc = 0;
	size_t i;

	if (len < 10 || f[len - 9] != ' ')
		return 0;
	for (i = len - 8; i < len; i++) {
		char c = f[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return 0;
		crc = crc << 4 | d;
	}
	return frame_crc32(0, f, len - 9) == crc;
}

/*
 * Tries to rejoin a frame split by a kernel message: head + next, for
 * every cut of the frame after the nonce.  On success the joined frame
 * replaces *f (in buf) and the cut-out text is checked for panics.
 */
static int repair(struct parser *p, const char *f, size_t flen,
		  const struct line *next, char *buf, size_t bufsz,
		  size_t *outlen)
{
	size_t start = strlen(FRAME_MAGIC) + p->nonce_len + 1, k, tail;
	unsigned long head, tail_crc, op, want;
	char *end;

	if (!next || p->repair_tries >= REPAIR_TRIES_MAX || flen < start ||
	    next->len < 10 || next->len > bufsz ||
	    next->s[next->len - 9] != ' ')
		return 0;
	want = strtoul(next->s + next->len - 8, &end, 16);
	if (end != next->s + next->len)
		return 0;
	p->repair_tries++;
	/*
	 * The checksum of head + tail for every cut k, in O(1) each:
	 * CRC(head) grows a byte at a time; zlib combines it with the
	 * CRC of the fixed tail.
	 */
	tail = next->len - 9;
	tail_crc = gzip_crc32(0, next->s, tail);
	op = gzip_crc32_combine_gen(tail);
	head = gzip_crc32(0, f, start);
	for (k = start; k <= flen && k + next->len <= bufsz; k++) {
		if (k > start)
			head = gzip_crc32(head, f + k - 1, 1);
		if (gzip_crc32_combine_op(head, tail_crc, op) != want)
			continue;
		memcpy(buf, f, k);
		memcpy(buf + k, next->s, next->len);
		if (!crc_ok(buf, k + next->len))
			continue;
		check_panic(p, f + k, flen - k);
		*outlen = k + next->len;
		return 1;
	}
	return 0;
}

static int add_record(struct parser *p, unsigned long seq, const char *json,
		      size_t len)
{
	struct console_result *res = p->res;
	struct console_record *r;
	size_t i;

	for (i = 0; i < res->nrecords; i++) {
		r = &res->records[i];
		if (r->seq != seq)
			continue;
		if (strlen(r->json) == len && !memcmp(r->json, json, len)) {
			res->nduplicates++;
			return 0;
		}
		if (!p->garbled[0])
			snprintf(p->garbled, sizeof(p->garbled),
				 "two different records with seq %lu", seq);
		return 0;
	}
	if (res->have_end) {
		set_reason(p->garbled, "record after END", "", 0);
		return 0;
	}
	if (res->nrecords == CONSOLE_RECORDS_MAX) {
		set_reason(p->garbled, "more records than the cap", "", 0);
		return 0;
	}
	ALLOC_GROW(res->records, res->nrecords + 1, p->alloc);
	r = &res->records[res->nrecords++];
	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->json = xstrndup(json, len);
	return 0;
}

/* Handles one checksummed frame of our nonce: "KREGRESS 1 N seq json c". */
static void take_frame(struct parser *p, const char *f, size_t len)
{
	size_t pos = strlen(FRAME_MAGIC) + p->nonce_len + 1;
	const char *word = f + pos, *sp;
	size_t body_end = len - 9;	/* before " crc" */
	unsigned long v;

	sp = memchr(word, ' ', body_end - pos);
	if (!sp) {
		set_reason(p->garbled, "frame without sequence: ", f, len);
		return;
	}
	if (sp - word == 3 && !memcmp(word, "END", 3)) {
		if (parse_ulong(sp + 1, f + body_end - sp - 1, &v)) {
			set_reason(p->garbled, "bad END line: ", f, len);
			return;
		}
		if (p->res->have_end && p->res->end_count != v) {
			set_reason(p->garbled, "two END lines", "", 0);
			return;
		}
		p->res->have_end = 1;
		p->res->end_count = v;
		return;
	}
	if (parse_ulong(word, sp - word, &v)) {
		set_reason(p->garbled, "bad sequence number: ", f, len);
		return;
	}
	add_record(p, v, sp + 1, f + body_end - sp - 1);
}

/* Returns 1 if next was consumed by a repair. */
static int take_line(struct parser *p, const struct line *l,
		     const struct line *next)
{
	static char buf[2 * FRAME_LINE_MAX];
	const char *f = memmem(l->s, l->len, FRAME_MAGIC, strlen(FRAME_MAGIC));
	size_t flen, rlen;

	if (!f) {
		check_panic(p, l->s, l->len);
		return 0;
	}
	check_panic(p, l->s, f - l->s);
	flen = l->s + l->len - f;
	if (flen < strlen(FRAME_MAGIC) + p->nonce_len + 1 ||
	    memcmp(f + strlen(FRAME_MAGIC), p->nonce, p->nonce_len) ||
	    f[strlen(FRAME_MAGIC) + p->nonce_len] != ' ') {
		p->res->nforeign++;
		return 0;
	}
	if (crc_ok(f, flen)) {
		take_frame(p, f, flen);
		return 0;
	}
	if (repair(p, f, flen, next, buf, sizeof(buf), &rlen)) {
		p->res->nrepaired++;
		take_frame(p, buf, rlen);
		return 1;
	}
	/* The last line of a cut log is lost, not garbled. */
	if (!l->terminated)
		return 0;
	set_reason(p->garbled, "bad checksum: ", f, flen > 80 ? 80 : flen);
	return 0;
}

/* Steps *s over the next line of [*s, end); 0 when there is none. */
static int next_line(char **s, char *end, struct line *l)
{
	if (*s >= end)
		return 0;
	l->s = *s;
	l->len = strnlen(*s, end - *s);
	l->terminated = *s + l->len < end;
	*s += l->len + 1;
	return 1;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct console_record *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Checks each record is a JSON object with a known type. */
static void check_records(struct parser *p)
{
	struct console_result *res = p->res;
	char failure[CONSOLE_REASON_MAX] = "";
	size_t i;

	for (i = 0; i < res->nrecords; i++) {
		struct console_record *r = &res->records[i];
		json_t *j = json_loads(r->json, JSON_REJECT_DUPLICATES, NULL);
		const char *type = json_string_value(json_object_get(j,
								     "type"));

		if (!json_is_object(j) || !type ||
		    (strcmp(type, "sample") && strcmp(type, "failure") &&
		     strcmp(type, "env"))) {
			if (!p->garbled[0])
				snprintf(p->garbled, sizeof(p->garbled),
				 "record %lu is not a known JSON record",
				 r->seq);
		} else {
			snprintf(r->type, sizeof(r->type), "%s", type);
		}
		if (type && !strcmp(type, "failure")) {
			const char *w = json_string_value(json_object_get(j,
								  "workload"));
			const char *why = json_string_value(json_object_get(j,
								    "reason"));

			res->nfailures++;
			if (!failure[0])
				snprintf(failure, sizeof(failure), "%s: %s",
					 w ? w : "?", why ? why : "?");
		}
		json_decref(j);
	}
	if (failure[0])
		set_reason(res->reason, "", failure, strlen(failure));
}

int console_parse(const char *log, size_t len, const char *nonce,
		  struct console_result *res)
{
	struct parser p = { .res = res, .nonce = nonce };
	struct line cur, next;
	char *copy, *s, *end;
	size_t i, n, w;
	int truncated = 0, have, have_next;

	memset(res, 0, sizeof(*res));
	if (!frame_nonce_valid(nonce))
		return error("console", "invalid nonce '%.70s'", nonce);
	p.nonce_len = strlen(nonce);
	if (len > CONSOLE_LOG_MAX) {
		len = CONSOLE_LOG_MAX;
		truncated = 1;
	}
	copy = xmalloc(len + 1);
	s = copy;
	/*
	 * Drop every CR; split at LF into NUL-separated lines.  A NUL byte
	 * in the log becomes 0x01, which fails any checksum.
	 */
	for (i = w = 0; i < len; i++)
		if (log[i] != '\r')
			copy[w++] = log[i] == '\n' ? 0 :
				    log[i] == 0 ? 1 : log[i];
	copy[w] = 0;
	end = copy + w;
	/* A one-line look-ahead lets a split frame be rejoined. */
	have = next_line(&s, end, &cur);
	while (have) {
		have_next = next_line(&s, end, &next);
		if (take_line(&p, &cur, have_next ? &next : NULL)) {
			have = next_line(&s, end, &cur);
			continue;
		}
		cur = next;
		have = have_next;
	}
	free(copy);

	if (res->nrecords)
		qsort(res->records, res->nrecords, sizeof(*res->records),
		      cmp_seq);
	check_records(&p);
	n = res->nrecords;
	if (!p.garbled[0] && res->have_end) {
		if (n && res->records[n - 1].seq >= res->end_count)
			snprintf(p.garbled, sizeof(p.garbled),
				 "record %lu beyond END %lu",
				 res->records[n - 1].seq, res->end_count);
		for (i = 0; i < n && !p.garbled[0]; i++)
			if (res->records[i].seq != i)
				snprintf(p.garbled, sizeof(p.garbled),
					 "record %zu lost", i);
		if (!p.garbled[0] && n != res->end_count)
			snprintf(p.garbled, sizeof(p.garbled),
				 "record %zu lost", n);
	}
	if (p.panic[0]) {
		res->status = CONSOLE_PANIC;
		strcpy(res->reason, p.panic);
	} else if (p.garbled[0]) {
		res->status = CONSOLE_GARBLED;
		strcpy(res->reason, p.garbled);
	} else if (!res->have_end) {
		res->status = CONSOLE_INCOMPLETE;
		snprintf(res->reason, sizeof(res->reason),
			 "no END line after %zu records%s", n,
			 truncated ? " (log larger than the cap)" : "");
	} else if (res->nfailures) {
		res->status = CONSOLE_FAILED;	/* reason set above */
	} else {
		res->status = CONSOLE_COMPLETE;
		res->reason[0] = 0;
	}
	return 0;
}
