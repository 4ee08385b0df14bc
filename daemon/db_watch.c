/*
 * db_watch.c - series rows of the list watcher (see db_watch.h).
 */
#include <sqlite3.h>
#include <time.h>

#include "db.h"
#include "db_watch.h"
#include "log.h"

int db_watch_series_known(struct db *db, const char *msgid, int version,
			  int *known)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT 1 FROM series WHERE msgid = ?1 "
				   "AND version = ?2 LIMIT 1");
	int rc, ret = -1;

	*known = 0;
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, version);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*known = 1;
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = 0;
	} else {
		error("watch", "<%s>: looking up the series: %s", msgid,
		      sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

int db_watch_series_add(struct db *db, const struct db_watch_series *s,
			long long *id)
{
	sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO series (msgid, list, subject, author, version, "
		"total, change_id, base_commit, source_url, status, "
		"status_reason, created_at, updated_at) VALUES (?1, ?2, ?3, "
		"?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)");
	int ret = -1;

	if (!st)
		return -1;
	db_bind_text_or_null(st, 1, s->msgid);
	db_bind_text_or_null(st, 2, s->list);
	db_bind_text_or_null(st, 3, s->subject);
	db_bind_text_or_null(st, 4, s->author);
	sqlite3_bind_int(st, 5, s->version);
	sqlite3_bind_int(st, 6, s->total);
	db_bind_text_or_null(st, 7, s->change_id);
	db_bind_text_or_null(st, 8, s->base_commit);
	db_bind_text_or_null(st, 9, s->source_url);
	db_bind_text_or_null(st, 10, s->status);
	db_bind_text_or_null(st, 11, s->reason);
	sqlite3_bind_int64(st, 12, (long long)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("watch", "<%s>: storing the series: %s", s->msgid,
		      sqlite3_errmsg(db_sqlite(db)));
		goto out;
	}
	*id = sqlite3_last_insert_rowid(db_sqlite(db));
	ret = 0;
out:
	sqlite3_reset(st);
	return ret;
}
