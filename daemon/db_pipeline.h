/*
 * db_pipeline.h - the series state the pipeline keeps in SQLite.
 *
 * The pipeline (pipeline.c) decides; these functions only read and write
 * series.status and series.status_reason.  Each takes a struct db owned by
 * the calling thread, joins the caller's transaction when one is open, and
 * returns 0 or -1 (logged).
 */
#ifndef KREGRESS_DB_PIPELINE_H
#define KREGRESS_DB_PIPELINE_H

struct db;

/*
 * The final statuses, as an SQL list: a series in one of them is never
 * moved again, by a job's outcome or by recovery.  "superseded": a newer
 * version of the series came (db_versions.h).
 */
#define DB_PIPELINE_FINAL_STATUSES "('done', 'fetch-failed', " \
	"'incomplete', 'does-not-apply', 'build-failed', 'boot-failed', " \
	"'failed', 'superseded')"

/* Sets status and reason (NULL clears it); -1 if the series is missing. */
int db_pipeline_set_status(struct db *db, long long series_id,
			   const char *status, const char *reason);

/*
 * Reads status and reason (*reason NULL when none); the caller frees both.
 * -1 if the series does not exist.
 */
int db_pipeline_get_status(struct db *db, long long series_id,
			   char **status, char **reason);

/* *final = 1 when the series is in a final status (done or a failure):
 * nothing moves it any more.  -1 if the series does not exist. */
int db_pipeline_is_final(struct db *db, long long series_id, int *final);

/* *n = the series' jobs of kind (NULL: of any kind) that are queued or
 * running. */
int db_pipeline_active(struct db *db, long long series_id, const char *kind,
		       int *n);

/*
 * Fails every queued job of the series with "cancelled: <why>" (a job of
 * another arch failed the series); running ones finish on their own and
 * then find the series final.
 */
int db_pipeline_cancel(struct db *db, long long series_id, const char *why);

/*
 * Repairs series left behind by a dead daemon or by a per-arch job that
 * failed while another arch's job was still running: a series in a
 * non-final status with a failed job goes to "failed" with the newest
 * failed job's reason ("<kind> <arch>: <last_error>"), and the queued
 * jobs of every final series are cancelled, except report jobs (the
 * report of a failure, a released mail).  *count (optional) receives the
 * number of series changed.
 */
int db_pipeline_fail_orphans(struct db *db, int *count);

#endif
