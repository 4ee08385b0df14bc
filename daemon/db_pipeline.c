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

#define FINAL_STATUSES "('done', 'fetch-failed', 'incomplete', " \
	"'does-not-apply', 'build-failed', 'boot-failed', 'failed')"

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

int db_pipeline_fail_orphans(struct db *db, int *count)
{
	sqlite3_stmt *st = db_stmt(db,
		"UPDATE series SET status = 'failed', status_reason = ("
		"  SELECT j.kind || ': ' || ifnull(j.last_error, 'failed') "
		"  FROM job j WHERE j.series_id = series.id "
		"  ORDER BY j.id DESC LIMIT 1), updated_at = ?1 "
		"WHERE status NOT IN " FINAL_STATUSES " AND ("
		"  SELECT j.state FROM job j WHERE j.series_id = series.id "
		"  ORDER BY j.id DESC LIMIT 1) = 'failed' "
		"AND NOT EXISTS (SELECT 1 FROM job j WHERE "
		"  j.series_id = series.id AND j.state IN "
		"  ('queued', 'running'))");
	int ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (long long)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("pipeline", "failing orphaned series: %s",
		      sqlite3_errmsg(db_sqlite(db)));
		goto out;
	}
	if (count)
		*count = sqlite3_changes(db_sqlite(db));
	ret = 0;
out:
	sqlite3_reset(st);
	return ret;
}
