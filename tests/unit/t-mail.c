/*
 * t-mail.c - mbox splitting and message parsing (mail.c) on the fixtures
 * of tests/fixtures/mail/ and on hostile input made here; a report
 * message written by mail_compose() and read back.
 */
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "strbuf.h"
#include "tap.h"

static char fixture_dir[4096];

static const char *fixture(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	return path;
}

static int read_fixture(struct mail_box *box, const char *name)
{
	mail_box_init(box);
	return mail_box_read_file(box, fixture(name), NULL);
}

static int read_buf(struct mail_box *box, const char *buf, size_t len,
		    const struct mail_limits *lim)
{
	mail_box_init(box);
	return mail_box_read_buf(box, buf, len, "test", lim);
}

static void test_format_patch(void)
{
	struct mail_box box;
	const struct mail *m;

	is_int(read_fixture(&box, "v2-series.mbox"), 0, "v2-series.mbox reads");
	is_int(box.nr, 4, "cover letter and three patches");
	is_int(box.nr_skipped, 0, "nothing skipped");
	if (box.nr < 2)
		goto out;
	m = box.mails[1];
	is_str(m->subject, "[PATCH v2 1/3] mm: clear huge pages in forward order",
	       "subject");
	is_str(m->from_name, "J\xc3\xb6rg M\xc3\xbcller",
	       "RFC 2047 encoded author name decoded to UTF-8");
	is_str(m->from_email, "joerg.mueller@example.org", "author email");
	ok(m->has_date, "has a date");
	is_int(m->date, 1717744500, "Date: Fri, 7 Jun 2024 09:15:00 +0200");
	is_int(m->tz_offset_min, 120, "timezone +0200 is 120 minutes");
	ok(m->in_reply_to && !strncmp(m->in_reply_to, "cover.", 6),
	   "In-Reply-To is the cover letter, without <>");
	is_int(m->nr_references, 1, "one reference");
	ok(!strchr(m->message_id, '<'), "Message-ID without <>");
	ok(strstr(m->body, "\ndiff --git a/mm/memory.c b/mm/memory.c\n") != NULL,
	   "body holds the diff");
	ok(!strstr(m->body, "From 0d939c7"), "separator line not in the body");
	is_int(box.mails[3]->body[box.mails[3]->body_len - 1], '\n',
	       "last message body ends with a newline");
	ok(!strstr(box.mails[0]->body, "\n\n\nFrom "), "no separator leaks");
out:
	mail_box_release(&box);
}

static void test_encodings(void)
{
	struct mail_box box;
	const struct mail *m;

	is_int(read_fixture(&box, "qp-patch.mbox"), 0, "qp-patch.mbox reads");
	is_int(box.nr, 1, "one message");
	if (box.nr == 1) {
		m = box.mails[0];
		is_str(m->subject,
		       "[PATCH v2 1/3] mm: clear huge pages in forward order",
		       "base64 encoded-word subject decoded");
		is_str(m->from_name, "J\xc3\xb6rg M\xc3\xbcller",
		       "Q encoded-word with underscores decoded");
		ok(strstr(m->body, "unsigned long addr = addr_hint &") != NULL,
		   "=3D decoded to =");
		ok(!strstr(m->body, "=3D") && !strstr(m->body, "=\n"),
		   "no quoted-printable escapes or soft breaks left");
		ok(strstr(m->body, "(measured: see the cover letter; the target "
			  "subpage is no longer cleared last).") != NULL,
		   "a line split by soft line breaks is whole again");
	}
	mail_box_release(&box);

	is_int(read_fixture(&box, "base64-crlf.mbox"), 0,
	       "base64-crlf.mbox reads");
	is_int(box.nr, 1, "one message");
	if (box.nr == 1) {
		m = box.mails[0];
		ok(!memchr(m->body, '\r', m->body_len), "CRLF became LF");
		ok(strstr(m->body, "+static bool is_folio_zero_filled(struct "
			  "folio *folio)\n") != NULL, "base64 body decoded");
		ok(strstr(m->subject, "zero-filled") != NULL,
		   "CRLF headers read");
	}
	mail_box_release(&box);
}

static void test_mboxrd(void)
{
	struct mail_box box;

	is_int(read_fixture(&box, "mboxrd.mbox"), 0, "mboxrd.mbox reads");
	is_int(box.nr, 1, "a body line \"From the ...\" does not split");
	if (box.nr == 1) {
		ok(!strncmp(box.mails[0]->body,
			    "From the first version on, the comment said so.\n",
			    48), ">From unquoted to From");
		ok(strstr(box.mails[0]->body,
			  "\n>From a quoted mail, one level.\n") != NULL,
		   ">>From unquoted to >From");
	}
	mail_box_release(&box);
}

static void test_not_mail(void)
{
	static const char text[] = "This is not a mail message.\n"
				   "Just some lines of prose.\n";
	static const char sep_only[] = "From x@y Thu Jan  1 00:00:00 1970\n";
	struct mail_box box;
	unsigned char *junk;
	size_t i;

	is_int(read_buf(&box, text, sizeof(text) - 1, NULL), 0,
	       "prose reads without error");
	is_int(box.nr, 0, "no message from prose");
	is_int(box.nr_skipped, 1, "prose is skipped");
	if (box.nr_skipped)
		ok(strstr(box.skipped[0].reason, "not a mail message") != NULL,
		   "with the reason: %s", box.skipped[0].reason);
	mail_box_release(&box);

	is_int(read_buf(&box, "", 0, NULL), 0, "empty input reads");
	is_int(box.nr + box.nr_skipped, 0, "no message in empty input");
	mail_box_release(&box);

	is_int(read_buf(&box, sep_only, sizeof(sep_only) - 1, NULL), 0,
	       "a lone separator reads");
	is_int(box.nr, 0, "and gives no message");
	mail_box_release(&box);

	/* binary garbage, including NULs and "From " lines */
	junk = malloc(1 << 18);
	srand(42);
	for (i = 0; i < 1 << 18; i++)
		junk[i] = (unsigned char)(rand() >> 7);
	memcpy(junk, "From a b 1:2\n", 13);
	memcpy(junk + 5000, "\n\nFrom a b 1:2\nSubject: x\n\n\0\0", 30);
	is_int(read_buf(&box, (char *)junk, 1 << 18, NULL), 0,
	       "binary garbage reads without error");
	diag("garbage: %zu messages, %zu skipped", box.nr, box.nr_skipped);
	ok(box.nr + box.nr_skipped >= 1, "garbage gives messages or skips");
	mail_box_release(&box);
	free(junk);
}

static void test_limits(void)
{
	struct mail_limits lim = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct mail_box box;

	is_int(strbuf_read_file(&sb, fixture("v2-series.mbox"), 1 << 20), 0,
	       "read fixture");
	lim.max_bytes = 1000;
	is_int(read_buf(&box, sb.buf, sb.len, &lim), -1,
	       "an mbox over max_bytes fails");
	mail_box_release(&box);
	lim.max_bytes = 0;
	lim.max_messages = 2;
	is_int(read_buf(&box, sb.buf, sb.len, &lim), -1,
	       "an mbox over max_messages fails");
	mail_box_release(&box);
	lim.max_messages = 0;
	lim.max_message_bytes = 1600;
	is_int(read_buf(&box, sb.buf, sb.len, &lim), 0,
	       "messages over max_message_bytes do not fail the read");
	ok(box.nr_skipped >= 1 && box.nr >= 1, "big ones skipped (%zu), "
	   "small ones kept (%zu)", box.nr_skipped, box.nr);
	if (box.nr_skipped)
		ok(strstr(box.skipped[0].reason, "exceeds the limit") != NULL,
		   "reason: %s", box.skipped[0].reason);
	mail_box_release(&box);
	{
		static const char bad[] = "From a b 0:0\n>>> not a header\n"
			"Message-ID: <named@x>\n\nbody\n";
		lim.max_message_bytes = 0;
		is_int(read_buf(&box, bad, sizeof(bad) - 1, &lim), 0,
		       "a message without a header block reads");
		ok(box.nr == 0 && box.nr_skipped == 1 &&
		   box.skipped[0].message_id &&
		   !strcmp(box.skipped[0].message_id, "named@x"),
		   "it is skipped and named by its Message-ID");
	}
	mail_box_release(&box);
	strbuf_release(&sb);
}

static void test_deep_references(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail_box box;
	int i;

	strbuf_addstr(&sb, "From: a <a@b.c>\nSubject: Re: x\n"
		      "Message-ID: <leaf@x>\nReferences:");
	for (i = 0; i < 5000; i++)
		strbuf_addf(&sb, " <r%d@x>\n", i);
	strbuf_addstr(&sb, "In-Reply-To: <r4999@x>\n\nbody\n");
	is_int(read_buf(&box, sb.buf, sb.len, NULL), 0,
	       "5000 References read");
	is_int(box.nr, 1, "one message");
	if (box.nr == 1) {
		const struct mail *m = box.mails[0];

		is_int(m->nr_references, MAIL_MAX_REFERENCES_DEFAULT,
		       "references capped");
		is_str(m->references[0], "r0@x", "the root is kept");
		is_str(m->references[m->nr_references - 1], "r4999@x",
		       "the newest is kept");
		is_str(m->in_reply_to, "r4999@x", "In-Reply-To");
	}
	mail_box_release(&box);
	strbuf_release(&sb);
}

static void test_broken(void)
{
	static const char bad[] =
		"From x@y Thu Jan  1 00:00:00 1970\n"
		"From: =?UTF-8?B?!!!not-base64?= <a@b.c>\n"
		"Subject: =?x-unknown-charset?Q?caf=E9?= =?UTF-8?Q?broken\n"
		"Message-ID: <broken-1@x>\n"
		"Date: Someday, 99 Foo 20245 99:99:99 +9999\n"
		"Content-Type: text/plain; charset=x-no-such-charset\n"
		"Content-Transfer-Encoding: base64\n"
		"\n"
		"%%%% this is not base64 ####\n"
		"\n"
		"From x@y Thu Jan  1 00:00:00 1970\n"
		"From: a <a@b.c>\n"
		"Subject: qp\n"
		"Message-ID: <broken-2@x>\n"
		"Content-Type: multipart/mixed; boundary=\"never\"\n"
		"Content-Transfer-Encoding: quoted-printable\n"
		"\n"
		"=ZZ=\n=4\n"
		"\n"
		"From x@y Thu Jan  1 00:00:00 1970\n"
		"Subject: no blank line before the next separator\n"
		"From x@y Thu Jan  1 00:00:00 1970\n";
	struct mail_box box;

	is_int(read_buf(&box, bad, sizeof(bad) - 1, NULL), 0,
	       "broken encodings read without error");
	is_int(box.nr, 3, "three messages (the last separator, without a "
	       "blank line before it, is body text)");
	if (box.nr >= 1) {
		ok(!box.mails[0]->has_date, "a nonsense Date is no date");
		is_str(box.mails[0]->message_id, "broken-1@x", "Message-ID");
	}
	mail_box_release(&box);
}

static void test_deep_mime(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail_box box;
	int i;

	strbuf_addstr(&sb, "From: a <a@b.c>\nSubject: deep\n"
		      "Message-ID: <deep@x>\nMIME-Version: 1.0\n");
	for (i = 0; i < 20000; i++)
		strbuf_addf(&sb, "Content-Type: multipart/mixed; "
			    "boundary=\"b%d\"\n\n--b%d\n", i, i);
	strbuf_addstr(&sb, "Content-Type: text/plain\n\nhello\n");
	is_int(read_buf(&box, sb.buf, sb.len, NULL), 0,
	       "20,000 nested multiparts read");
	ok(box.nr == 0 && box.nr_skipped == 1 &&
	   strstr(box.skipped[0].reason, "multipart parts"),
	   "skipped before GMime: %s", box.nr_skipped ?
	   box.skipped[0].reason : "(kept)");
	mail_box_release(&box);
	strbuf_release(&sb);
}

static void test_helpers(void)
{
	char *name, *email;
	int64_t t;
	int tz;

	is_int(mail_parse_address("=?UTF-8?Q?J=C3=B6rg?= <j@x.org>", &name,
				  &email), 0, "address parses");
	is_str(name, "J\xc3\xb6rg", "name decoded");
	is_str(email, "j@x.org", "email");
	free(name);
	free(email);
	is_int(mail_parse_address("", &name, &email), -1, "empty address");
	is_int(mail_parse_date("Thu, 21 Jan 2021 22:21:51 +0530", &t, &tz), 0,
	       "date parses");
	is_int(t, 1611247911, "unix time");
	is_int(tz, 330, "+0530 is 330 minutes");
	is_int(mail_parse_date("Tue, 4 Jun 2024 10:00:00 -0700", &t, &tz), 0,
	       "negative offset");
	is_int(tz, -420, "-0700 is -420 minutes");
}

static void test_compose(void)
{
	const char *to[] = { "Patch Author <author@example.org>", NULL };
	const char *cc[] = { "linux-mm@kvack.org, \"Doe, Jane\" <jane@x.org>",
			     NULL };
	const char *hdr[] = { "X-Kregress-Series: 12", NULL };
	struct mail_out o = {
		.from = "kregress <bot@kregress.example>", .to = to, .cc = cc,
		.subject = "[kregress regression] Re: [PATCH v2 0/2] mm: "
			   "zéro pages — a title long enough to be folded "
			   "by the header writer",
		.date = 1796132719, .message_id = "kregress.x.v2.1@kregress."
						  "example",
		.in_reply_to = "cover.1.git.author@example.org",
		.references = "cover.1.git.author@example.org",
		.headers = hdr, .body = "Regression: ä line\n",
	};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct mail_limits lim = { 0 };
	struct mail *m = NULL;
	char *why = NULL, **addrs = NULL;
	size_t i, n = 0;

	ok(mail_compose(&o, &out, &err) == 0, "composed (%s)", err.buf);
	ok(widest_line(out.buf) <= 78, "headers folded: no line over 78 (%zu)",
	   widest_line(out.buf));
	ok(strstr(out.buf, "Content-Type: text/plain; charset=utf-8\n") &&
	   strstr(out.buf, "Content-Transfer-Encoding: 8bit\n") &&
	   strstr(out.buf, "MIME-Version: 1.0\n"), "plain text, UTF-8, 8bit");
	ok(strstr(out.buf, "=?") != NULL, "the UTF-8 subject RFC 2047-encoded");
	ok(mail_parse(out.buf, out.len, &lim, &m, &why) == 0, "parsed back");
	if (m) {
		is_str(m->subject, o.subject, "subject read back as written");
		is_str(m->in_reply_to, "cover.1.git.author@example.org",
		       "In-Reply-To");
		ok(m->nr_references == 1, "References");
		is_str(m->message_id, o.message_id, "Message-ID");
		is_str(m->from_email, "bot@kregress.example", "From");
		ok(m->nr_recipients == 3 &&
		   !strcmp(m->recipients[2], "Doe, Jane <jane@x.org>"),
		   "To and Cc, a quoted comma kept in its name");
		is_str(m->body, "Regression: ä line\n", "the body");
		ok(m->has_date && m->date == 1796132719, "Date");
	}
	mail_free(m);
	ok(mail_addresses(cc[0], &addrs, &n) == 0 && n == 2 &&
	   !strcmp(addrs[1], "jane@x.org"), "mail_addresses: bare addresses");
	for (i = 0; i < n; i++)
		free(addrs[i]);
	free(addrs);
	strbuf_reset(&out);
	strbuf_reset(&err);
	o.subject = "x\nBcc: victim@example.org";
	ok(mail_compose(&o, &out, &err) == -1, "a line break in a header is "
	   "refused (%s)", err.buf);
	free(why);
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/mail",
		 src ? src : ".");
	test_format_patch();
	test_encodings();
	test_mboxrd();
	test_not_mail();
	test_limits();
	test_deep_references();
	test_broken();
	test_deep_mime();
	test_helpers();
	test_compose();
	return done_testing();
}
