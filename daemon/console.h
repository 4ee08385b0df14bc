/*
 * console.h - the receiving side of the guest result protocol: extracts
 * the framed records of one boot from its console log (see frame.h for
 * the line format and what the checksum covers).
 *
 * The log is untrusted bytes: kernel messages interleaved between and even
 * inside our lines, CR/LF noise, truncation (the guest hung or was
 * killed), lines from another boot or forged ones (a different nonce),
 * garbled lines, panics.  The parser never trusts a line whose checksum
 * does not match; it reports one status for the boot with a reason, and
 * the records only count as samples when the status is CONSOLE_COMPLETE.
 *
 * Pure: no I/O.  Uses jansson only to check that each record is a JSON
 * object with a known "type".
 */
#ifndef KREGRESS_CONSOLE_H
#define KREGRESS_CONSOLE_H

#include <stddef.h>

#define CONSOLE_LOG_MAX		(16u << 20)	/* bytes parsed at most */
#define CONSOLE_RECORDS_MAX	10000
#define CONSOLE_REASON_MAX	256

/* In order of precedence: the first that applies is the status. */
enum console_status {
	CONSOLE_PANIC,		/* "Kernel panic", "Oops:", "BUG:" ... */
	CONSOLE_GARBLED,	/* bad checksum, missing/conflicting seq */
	CONSOLE_INCOMPLETE,	/* no END line: truncated, hung, killed */
	CONSOLE_FAILED,		/* complete, but a failure record in it */
	CONSOLE_COMPLETE,	/* every record 0..count-1 and END */
};

struct console_record {
	unsigned long seq;
	char *json;		/* one JSON object, NUL-terminated */
	char type[16];		/* "sample", "failure" or "env" */
};

struct console_result {
	enum console_status status;
	char reason[CONSOLE_REASON_MAX];	/* "" when complete */
	struct console_record *records;	/* sorted by seq, no duplicates */
	size_t nrecords;
	int have_end;
	unsigned long end_count;	/* from the END line */
	size_t nforeign;	/* framed lines of another nonce, ignored */
	size_t nduplicates;	/* identical repeats, ignored */
	size_t nrepaired;	/* lines rejoined around a kernel message */
	size_t nfailures;	/* records of type "failure" */
};

const char *console_status_str(enum console_status status);

/*
 * Parses len bytes of console output for the boot with this nonce into
 * *res (initialised here; release with console_result_release()).
 * Returns 0 whatever the boot's outcome (see res->status and res->reason),
 * -1 only if the nonce itself is invalid (logged).  At most
 * CONSOLE_LOG_MAX bytes are read: output beyond that is treated as lost.
 */
int console_parse(const char *log, size_t len, const char *nonce,
		  struct console_result *res);

void console_result_release(struct console_result *res);

#endif
