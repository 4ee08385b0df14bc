/*
 * db_report.h - the report stage's SQL (schema/0010_report.sql): what a
 * report is made from, the notification rows that make a mail go out
 * once, and the patchwork checks.
 *
 * Each function takes the calling thread's struct db, joins the caller's
 * transaction when one is open, and returns 0 or -1 (logged as
 * "report: ...") unless stated otherwise.
 */
#ifndef KREGRESS_DB_REPORT_H
#define KREGRESS_DB_REPORT_H

#include <stddef.h>

#include "report.h"

struct db;

/* One message of the series as stored (patch.raw). */
struct db_report_patch {
	int idx;		/* 0 = the cover letter */
	const char *raw;
	size_t len;
};

/* Everything the report of a series is made from; every string owned. */
struct db_report {
	struct report_series s;	/* points into the arrays below */
	const char *list;	/* series.list, or NULL */
	struct db_report_patch *patches;
	size_t npatches;
	struct report_run *runs;
	struct report_comparison *cmp;
	struct report_previous prev;
	struct report_comparison *prev_cmp;
	char **strs;		/* what the const char * above point to */
	size_t nstrs, astrs;
};

/*
 * Reads series_id with its patches, the runs its comparisons come from
 * (boot counts, host, the patched build's .config hash, the false alarms
 * of the A/A calibrations they used), its comparison rows (with each
 * one's threshold and its calibration's CV), and the previous version's
 * results (db_versions_since_previous(): the version the fetch stage
 * linked it to): 0, 1 when there is no such series, -1 on a database
 * error.  In one read snapshot.
 */
int db_report_load(struct db *db, long long series_id, struct db_report *r);
void db_report_release(struct db_report *r);

/* One notification row. */
struct db_notification {
	long long id, series_id;
	int version;
	const char *kind;	/* report_kind_str() */
	const char *role;	/* "public" or "moderation" */
	const char *transport;	/* "smtp" or "outbox" */
	const char *recipients;	/* "A <a@x>, b@y" */
	const char *message_id;
	const char *subject;
	const char *status;	/* see schema/0010_report.sql */
	const char *status_reason;
	const char *path;	/* the .eml file, or NULL */
	const char *message;	/* the whole RFC 5322 text */
	size_t message_len;
	int attempts;
};

/*
 * Adds n (its id, attempts and path ignored) unless the series already
 * has a row of the same kind, role and recipients; *id receives the
 * row's id either way, *added 1 when this call wrote it.
 */
int db_report_add(struct db *db, const struct db_notification *n,
		  long long *id, int *added);

/* The series' rows in id order; free with db_report_rows_free(). */
int db_report_rows(struct db *db, long long series_id,
		   struct db_notification **rows, size_t *n);
void db_report_rows_free(struct db_notification *rows, size_t n);

/*
 * Sets a row's status and reason (NULL clears it), counting an attempt
 * when attempt is set, the file when path is not NULL, and sent_at when
 * the status is sent or written.
 */
int db_report_set(struct db *db, long long id, const char *status,
		  const char *reason, int attempt, const char *path);

enum db_report_release {
	DB_REPORT_RELEASED,
	DB_REPORT_NOT_FOUND,
	DB_REPORT_NOT_HELD,	/* *status says what it is */
};

/*
 * A moderator releases held notification id: in one transaction it
 * becomes pending and a report job of its series is queued.  Returns
 * the outcome, or -1 on a database error.  *series_id and *status
 * (caller frees; NULL when not found) say which series and what the row
 * was.
 */
int db_report_release_held(struct db *db, long long id, long long *series_id,
			   char **status);

/* The source URL of a series (caller frees; NULL for a submitted mbox). */
int db_report_source(struct db *db, long long series_id, char **url);

/* One patchwork check row. */
struct db_check {
	long long id, patch_id;
	char *api_url, *context, *state, *posted, *description, *target_url;
};

/*
 * Records what the check of (patch, context) should say: a new row, or
 * the state of the existing one, except that a final state (success,
 * warning, fail) is never replaced by pending.
 */
int db_report_check_set(struct db *db, long long series_id,
			const char *api_url, long long patch_id,
			const char *context, const char *state,
			const char *description, const char *target_url);

/* Every pending check of the series becomes a warning with desc (a
 * series that will not be reported on). */
int db_report_checks_settle(struct db *db, long long series_id,
			    const char *desc);

/* The patch ids the series' checks have (distinct, ascending). */
int db_report_check_patches(struct db *db, long long series_id,
			    long long **ids, size_t *n);

/* The checks of the series whose posted state is not their state. */
int db_report_checks_due(struct db *db, long long series_id,
			 struct db_check **rows, size_t *n);
void db_report_checks_free(struct db_check *rows, size_t n);

/* After a POST: posted = state on success (err NULL), else the error. */
int db_report_check_posted(struct db *db, long long id, const char *state,
			   const char *err);

#endif
