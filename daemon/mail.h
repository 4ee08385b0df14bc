/*
 * mail.h - mail messages out of an mbox: the only GMime 3 user.
 *
 * An mbox (mboxo or mboxrd, as lore's t.mbox.gz and `git format-patch`
 * write it) or a single raw message is split into messages, one at a time,
 * so that memory stays proportional to the largest message plus what the
 * caller keeps.  Each message is parsed with GMime: RFC 2047 headers are
 * decoded to UTF-8, quoted-printable and base64 bodies are decoded to their
 * exact bytes, CRLF line endings become LF.  The result, struct mail, holds
 * plain C strings only, so nothing outside mail.c sees GMime.
 *
 * Bad input is data: a message that cannot be parsed, is too large or is
 * not mail at all is skipped and recorded in struct mail_box's skipped list
 * with its reason.  Only I/O errors and the box-wide caps (total bytes,
 * message count) fail the whole read.
 *
 * The other way, mail_compose() writes the report stage's messages: RFC
 * 2047 headers folded at 78 columns, a text/plain UTF-8 body.
 */
#ifndef KREGRESS_MAIL_H
#define KREGRESS_MAIL_H

#include <stdint.h>
#include <stdio.h>

struct strbuf;

/* Caps for untrusted input; 0 in a field means its default. */
struct mail_limits {
	size_t max_bytes;	   /* whole mbox; default 32 MiB */
	size_t max_messages;	   /* default 20000 */
	size_t max_message_bytes;  /* one message; default 8 MiB (skipped) */
	size_t max_references;	   /* kept per message; default 64 */
	int keep_raw;		   /* keep each message's bytes in ->raw */
};

#define MAIL_MAX_BYTES_DEFAULT		(32u << 20)
#define MAIL_MAX_MESSAGES_DEFAULT	20000u
#define MAIL_MAX_MESSAGE_BYTES_DEFAULT	(8u << 20)
#define MAIL_MAX_REFERENCES_DEFAULT	64u

struct mail {
	char *message_id;	/* without <>; "" if the mail had none */
	char *in_reply_to;	/* without <>; NULL if none */
	/*
	 * References, oldest first, without <>.  When the header holds more
	 * than max_references ids, the first (the thread root) and the
	 * newest ones are kept.
	 */
	char **references;
	size_t nr_references;
	char *subject;		/* decoded UTF-8, unfolded; "" if none */
	char *from_name;	/* decoded UTF-8; "" if none */
	char *from_email;	/* "" if none */
	/* The mailboxes of To and Cc, "Name <address>" (decoded UTF-8) or
	 * just the address, in header order. */
	char **recipients;
	size_t nr_recipients, alloc_recipients;
	int has_date;		/* 0: Date missing or unparsable */
	int64_t date;		/* Unix time, seconds */
	int tz_offset_min;	/* e.g. +0530 -> 330, -0700 -> -420 */
	/*
	 * The text of the message: its text/plain part (or the single part),
	 * plus any text/x-patch or text/x-diff attachment, transfer-decoded,
	 * converted to UTF-8 when a charset other than UTF-8/ASCII is
	 * declared, CRLF -> LF.  body[body_len] is NUL; body may contain
	 * other NULs (binary garbage), so use body_len.
	 */
	char *body;
	size_t body_len;
	size_t index;		/* 0-based position in the mbox */
	/*
	 * The message as it was in the mbox (mboxrd quoting undone, no
	 * "From " line, CRLF -> LF), when the limits asked for keep_raw;
	 * else NULL.
	 */
	char *raw;
	size_t raw_len;
};

/* A message that was not kept, and why. */
struct mail_skip {
	size_t index;		/* 0-based position in the mbox */
	char *message_id;	/* if one could be read, else NULL */
	char *reason;		/* "not a mail message (no header block)" */
};

/* Appends "message 3 <id> skipped: REASON" (1-based, as a user counts). */
void mail_skip_describe(const struct mail_skip *skip, struct strbuf *sb);

struct mail_box {
	struct mail **mails;
	size_t nr, alloc;
	struct mail_skip *skipped;
	size_t nr_skipped, alloc_skipped;
};

/* Frees a mail; accepts NULL. */
void mail_free(struct mail *m);

void mail_box_init(struct mail_box *box);
void mail_box_release(struct mail_box *box);

/*
 * Called once per message read, in mbox order.  m is owned by the callee
 * (free it with mail_free() or keep it); m is NULL when the message was
 * skipped and skip says why (borrowed, valid during the call only).
 * Return 0 to go on, -1 to stop the read (mail_read() then returns -1).
 */
typedef int (*mail_cb)(struct mail *m, const struct mail_skip *skip,
		       void *data);

/*
 * Reads every message of f (an mbox, or one message without a "From "
 * line) and calls cb for each.  Blocks on f.  Returns 0, or -1 (logged)
 * on an I/O error, when f is larger than max_bytes or holds more than
 * max_messages messages, or when cb returned -1.  name is used in
 * messages ("FILE" or a URL).
 */
int mail_read(FILE *f, const char *name, const struct mail_limits *lim,
	      mail_cb cb, void *data);

/* mail_read() collecting everything into box (which must be initialised). */
int mail_box_read(struct mail_box *box, FILE *f, const char *name,
		  const struct mail_limits *lim);

/* The same over a buffer in memory. */
int mail_box_read_buf(struct mail_box *box, const char *buf, size_t len,
		      const char *name, const struct mail_limits *lim);

/*
 * The content check every way in applies to an mbox before it is read:
 * the API to a submitted body, the fetch stage to what it fetched (for a
 * URL and for the list watcher's series alike).  buf[0..len) must not be
 * empty, must start with a "From " line or a header line, and must have
 * no NUL byte (mail has none, and one in a patch would cut C strings
 * short and reach libgit2).  0, or -1 with the reason appended to why
 * ("a NUL byte at line 17 (mail has none)").  Pure.
 */
int mail_box_check(const char *buf, size_t len, struct strbuf *why);

/* The same over a file; "-" is standard input. */
int mail_box_read_file(struct mail_box *box, const char *path,
		       const struct mail_limits *lim);

/*
 * Parses one message (no "From " separator line; mboxrd quoting already
 * undone).  Returns 0 and *out, or -1 with *reason (caller frees) when the
 * message is skipped; never logs.
 */
int mail_parse(const char *buf, size_t len, const struct mail_limits *lim,
	       struct mail **out, char **reason);

/*
 * Header helpers for the in-body "From:" and "Date:" lines of a patch
 * (git-am honours them): RFC 2047 decoding and RFC 5322 address and date
 * parsing, the same as for the mail's own headers.  Pure; never log.
 *
 * mail_parse_address() returns 0 with *name and *email (caller frees; ""
 * when absent), -1 when value holds no mailbox.
 * mail_parse_date() returns 0 with *date (Unix time) and *tz_offset_min,
 * -1 when value is not a date.
 */
int mail_parse_address(const char *value, char **name, char **email);
int mail_parse_date(const char *value, int64_t *date, int *tz_offset_min);

/*
 * The bare addresses of an address list ("A <a@x>, \"B, C\" <b@y>"),
 * groups flattened, in order: *emails (each and the array free()) has *n
 * entries and a NULL after them.  Pure.  -1 when value holds no mailbox.
 */
int mail_addresses(const char *value, char ***emails, size_t *n);

/* A message to write; every string is UTF-8. */
struct mail_out {
	const char *from;		/* "Name <address>" */
	const char *const *to;		/* NULL-terminated, may be empty */
	const char *const *cc;		/* NULL-terminated, or NULL */
	const char *subject;
	int64_t date;			/* Unix time; written in UTC */
	const char *message_id;		/* without <> */
	const char *in_reply_to;	/* without <>; NULL = none */
	const char *references;		/* without <>; NULL = none */
	const char *const *headers;	/* "Name: value" lines, or NULL */
	const char *body;		/* LF line ends */
};

/*
 * Writes m as an RFC 5322 message with LF line ends into out: From, To,
 * Cc, Subject (RFC 2047 when not ASCII), Date, Message-ID, In-Reply-To,
 * References, the extra headers, MIME-Version and a text/plain body
 * (charset utf-8, 7bit when ASCII, else 8bit).  Pure.  -1 with the
 * reason in err when an address or header cannot be used.
 */
int mail_compose(const struct mail_out *m, struct strbuf *out,
		 struct strbuf *err);

#endif
