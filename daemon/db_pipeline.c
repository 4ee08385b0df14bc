/*
 * db_pipeline.c - series status rows for the pipeline (see db_pipeline.h).
 *
 * The final statuses are listed once here, in SQL: a series in one of
 * them is never moved again by recovery.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_pipeline.h"
#include "log.h"

#define FINAL_STATUSES DB_PIPELINE_FINAL_STATUSES

int db_pipeline_set_status(struct db *db, long long series_id,
			   const char *status, const char *reason)
{
	struct sqlite3_stmt *st = db_stmt(db, "UPDATE series SET status = ?1, "
				   "status_reason = ?2, updated_at = ?3 "
				   "WHERE id = ?4");

	if (!st)
		return -1;
	db_bind_text(st, 1, status);
	db_bind_text(st, 2, reason);
	db_bind_int(st, 3, (long long)time(NULL));
	db_bind_int(st, 4, series_id);
	if (db_step_done(db, st, "pipeline", "series %lld: setting status %s",
			 series_id, status))
		return -1;
	if (db_changes(db) != 1)
		return error("pipeline", "series %lld: no such series",
			     series_id);
	return 0;
}

int db_pipeline_get_status(struct db *db, long long series_id,
			   char **status, char **reason)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT status, status_reason "
				   "FROM series WHERE id = ?1");
	int ret = -1;

	*status = *reason = NULL;
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	if (!db_row_one(db, st, "pipeline", "series", series_id)) {
		*status = db_column_strdup(st, 0);
		*reason = db_column_strdup(st, 1);
		ret = 0;
	}
	db_reset(st);
	return ret;
}

int db_pipeline_is_final(struct db *db, long long series_id, int *final)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT status IN " FINAL_STATUSES
				   " FROM series WHERE id = ?1");
	int ret = -1;

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	if (!db_row_one(db, st, "pipeline", "series", series_id)) {
		*final = db_column_int(st, 0);
		ret = 0;
	}
	db_reset(st);
	return ret;
}

int db_pipeline_active(struct db *db, long long series_id, const char *kind,
		       int *n)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT count(*) FROM job "
				   "WHERE series_id = ?1 AND state IN "
				   "('queued', 'running') AND "
				   "(?2 IS NULL OR kind = ?2)");
	int ret = -1;

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, kind);
	if (db_row(db, st, "pipeline", "series %lld: counting jobs",
		   series_id) > 0) {
		*n = db_column_int(st, 0);
		ret = 0;
	}
	db_reset(st);
	return ret;
}

int db_pipeline_cancel(struct db *db, long long series_id, const char *why)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE job SET state = 'failed', "
		"last_error = 'cancelled: ' || ?2, "
		"updated_at = ?3 WHERE series_id = ?1 "
		"AND state = 'queued'");

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, why);
	db_bind_int(st, 3, (long long)time(NULL));
	return db_step_done(db, st, "pipeline", "cancelling jobs");
}

int db_pipeline_fail_orphans(struct db *db, int *count)
{
	/* The newest failed job of the series, as a status reason. */
#define LAST_FAILED "(SELECT j.kind || ifnull(' ' || j.arch, '') || ': ' " \
	"|| ifnull(j.last_error, 'failed') FROM job j WHERE " \
	"j.series_id = series.id AND j.state = 'failed' ORDER BY j.id " \
	"DESC LIMIT 1)"
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE series SET status = 'failed', status_reason = "
		LAST_FAILED ", updated_at = ?1 "
		"WHERE status NOT IN " FINAL_STATUSES " AND " LAST_FAILED
		" IS NOT NULL");
#undef LAST_FAILED
	/* A report job is how a final series' author is told: it stays. */
	struct sqlite3_stmt *cancel = db_stmt(db,
		"UPDATE job SET state = 'failed', last_error = 'cancelled: "
		"the series failed', updated_at = ?1 WHERE state = 'queued' "
		"AND kind <> 'report' AND series_id IN (SELECT id FROM series "
		"WHERE status IN " FINAL_STATUSES ")");
	long long now = (long long)time(NULL);
	int n;

	if (!st || !cancel)
		return -1;
	db_bind_int(st, 1, now);
	if (db_step_done(db, st, "pipeline", "failing orphaned series"))
		return -1;
	n = db_changes(db);
	db_bind_int(cancel, 1, now);
	if (db_step_done(db, cancel, "pipeline", "cancelling their jobs"))
		return -1;
	if (count)
		*count = n;
	return 0;
}
