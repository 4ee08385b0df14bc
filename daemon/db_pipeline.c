/*
 * db_pipeline.c - series status rows for the pipeline (see db_pipeline.h).
 *
 * The final statuses are listed once here, in SQL: a series in one of
 * them is never moved again by recovery.
 */
#include <sqlite3.h>
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
	sqlite3_stmt *st = db_stmt(db, "UPDATE series SET status = ?1, "
				   "status_reason = ?2, updated_at = ?3 "
				   "WHERE id = ?4");
	int ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	if (reason)
		sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, (long long)time(NULL));
	sqlite3_bind_int64(st, 4, series_id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("pipeline", "series %lld: setting status %s: %s",
		      series_id, status, sqlite3_errmsg(db_sqlite(db)));
		goto out;
	}
	if (sqlite3_changes(db_sqlite(db)) != 1) {
		error("pipeline", "series %lld: no such series", series_id);
		goto out;
	}
	ret = 0;
out:
	sqlite3_reset(st);
	return ret;
}

int db_pipeline_get_status(struct db *db, long long series_id,
			   char **status, char **reason)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT status, status_reason "
				   "FROM series WHERE id = ?1");
	int rc, ret = -1;

	*status = *reason = NULL;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*status = db_column_strdup(st, 0);
		*reason = db_column_strdup(st, 1);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		error("pipeline", "series %lld: no such series", series_id);
	} else {
		error("pipeline", "series %lld: %s", series_id,
		      sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

int db_pipeline_is_final(struct db *db, long long series_id, int *final)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT status IN " FINAL_STATUSES
				   " FROM series WHERE id = ?1");
	int rc, ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*final = sqlite3_column_int(st, 0);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		error("pipeline", "series %lld: no such series", series_id);
	} else {
		error("pipeline", "series %lld: %s", series_id,
		      sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

int db_pipeline_active(struct db *db, long long series_id, const char *kind,
		       int *n)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT count(*) FROM job "
				   "WHERE series_id = ?1 AND state IN "
				   "('queued', 'running') AND "
				   "(?2 IS NULL OR kind = ?2)");
	int ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	db_bind_text_or_null(st, 2, kind);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*n = sqlite3_column_int(st, 0);
		ret = 0;
	} else {
		error("pipeline", "series %lld: counting jobs: %s", series_id,
		      sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

int db_pipeline_cancel(struct db *db, long long series_id, const char *why)
{
	sqlite3_stmt *st = db_stmt(db, "UPDATE job SET state = 'failed', "
				   "last_error = 'cancelled: ' || ?2, "
				   "updated_at = ?3 WHERE series_id = ?1 "
				   "AND state = 'queued'");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (long long)time(NULL));
	return db_step_done(db, st, "pipeline", "cancelling jobs");
}

int db_pipeline_fail_orphans(struct db *db, int *count)
{
	/* The newest failed job of the series, as a status reason. */
#define LAST_FAILED "(SELECT j.kind || ifnull(' ' || j.arch, '') || ': ' " \
	"|| ifnull(j.last_error, 'failed') FROM job j WHERE " \
	"j.series_id = series.id AND j.state = 'failed' ORDER BY j.id " \
	"DESC LIMIT 1)"
	sqlite3_stmt *st = db_stmt(db,
		"UPDATE series SET status = 'failed', status_reason = "
		LAST_FAILED ", updated_at = ?1 "
		"WHERE status NOT IN " FINAL_STATUSES " AND " LAST_FAILED
		" IS NOT NULL");
#undef LAST_FAILED
	sqlite3_stmt *cancel = db_stmt(db,
		"UPDATE job SET state = 'failed', last_error = 'cancelled: "
		"the series failed', updated_at = ?1 WHERE state = 'queued' "
		"AND series_id IN (SELECT id FROM series WHERE status IN "
		FINAL_STATUSES ")");
	long long now = (long long)time(NULL);
	int n;

	if (!st || !cancel)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	if (db_step_done(db, st, "pipeline", "failing orphaned series"))
		return -1;
	n = sqlite3_changes(db_sqlite(db));
	sqlite3_bind_int64(cancel, 1, now);
	if (db_step_done(db, cancel, "pipeline", "cancelling their jobs"))
		return -1;
	if (count)
		*count = n;
	return 0;
}
