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

/* Sets status and reason (NULL clears it); -1 if the series is missing. */
int db_pipeline_set_status(struct db *db, long long series_id,
			   const char *status, const char *reason);

/*
 * Reads status and reason (*reason NULL when none); the caller frees both.
 * -1 if the series does not exist.
 */
int db_pipeline_get_status(struct db *db, long long series_id,
			   char **status, char **reason);

/*
 * Repairs series left behind by a dead daemon: a series in a non-final
 * status whose last job has failed and that has no queued or running job
 * goes to "failed" with that job's reason ("<kind>: <last_error>").
 * *count (optional) receives the number of series changed.
 */
int db_pipeline_fail_orphans(struct db *db, int *count);

#endif
