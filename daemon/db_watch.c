/*
 * db_watch.c - series rows of the list watcher (see db_watch.h).
 */
#include <sqlite3.h>
#include <stdlib.h>
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

int db_watch_pending_add(struct db *db, const char *list, const char *thread,
			 const char *url, long long now)
{
	sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO watch_pending (list, thread, url, first_seen, "
		"last_checked) VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (list, "
		"thread) DO UPDATE SET url = excluded.url, last_checked = "
		"excluded.last_checked");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, thread, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, url, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now);
	return db_step_done(db, st, "watch", thread);
}

int db_watch_pending_first_seen(struct db *db, const char *list,
				const char *thread, long long *first_seen)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT first_seen FROM watch_pending "
				   "WHERE list = ?1 AND thread = ?2");
	int rc;

	*first_seen = 0;
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, thread, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*first_seen = sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("watch", "<%s>: reading its wait: %s", thread,
			     sqlite3_errmsg(db_sqlite(db)));
	return 0;
}

int db_watch_pending_remove(struct db *db, const char *list,
			    const char *thread)
{
	sqlite3_stmt *st = db_stmt(db, "DELETE FROM watch_pending WHERE "
				   "list = ?1 AND thread = ?2");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, thread, -1, SQLITE_STATIC);
	return db_step_done(db, st, "watch", thread);
}

int db_watch_pending_list(struct db *db, const char *list,
			  struct db_watch_pending **out, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT thread, url, first_seen FROM "
				   "watch_pending WHERE list = ?1 ORDER BY "
				   "first_seen, thread");
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_watch_pending *p;

		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*out = realloc(*out, alloc * sizeof(**out));
			if (!*out)
				die("watch", "out of memory");
		}
		p = &(*out)[(*n)++];
		p->thread = db_column_strdup(st, 0);
		p->url = db_column_strdup(st, 1);
		p->first_seen = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		db_watch_pending_free(*out, *n);
		*out = NULL;
		*n = 0;
		return error("watch", "list %s: the waiting threads: %s", list,
			     sqlite3_errmsg(db_sqlite(db)));
	}
	return 0;
}

void db_watch_pending_free(struct db_watch_pending *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].thread);
		free(p[i].url);
	}
	free(p);
}
