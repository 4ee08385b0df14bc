/*
 * db_watch.c - series rows of the list watcher (see db_watch.h).
 */
#include <stdlib.h>
#include <time.h>

#include "alloc.h"
#include "db.h"
#include "db_watch.h"
#include "log.h"

int db_watch_series_known(struct db *db, const char *msgid, int version,
			  int *known)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT 1 FROM series WHERE msgid = ?1 "
		"AND version = ?2 LIMIT 1");
	int rc;

	*known = 0;
	if (!st)
		return -1;
	db_bind_text(st, 1, msgid);
	db_bind_int(st, 2, version);
	rc = db_row(db, st, "watch", "<%s>: looking up the series", msgid);
	db_reset(st);
	if (rc < 0)
		return -1;
	*known = rc;
	return 0;
}

int db_watch_series_add(struct db *db, const struct db_watch_series *s,
			long long *id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO series (msgid, list, subject, author, version, "
		"total, change_id, base_commit, source_url, status, "
		"status_reason, created_at, updated_at) VALUES (?1, ?2, ?3, "
		"?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)");
	int ret = -1;

	if (!st)
		return -1;
	db_bind_text(st, 1, s->msgid);
	db_bind_text(st, 2, s->list);
	db_bind_text(st, 3, s->subject);
	db_bind_text(st, 4, s->author);
	db_bind_int(st, 5, s->version);
	db_bind_int(st, 6, s->total);
	db_bind_text(st, 7, s->change_id);
	db_bind_text(st, 8, s->base_commit);
	db_bind_text(st, 9, s->source_url);
	db_bind_text(st, 10, s->status);
	db_bind_text(st, 11, s->reason);
	db_bind_int(st, 12, (long long)time(NULL));
	if (db_step_done(db, st, "watch", "<%s>: storing the series",
			 s->msgid))
		goto out;
	*id = db_last_insert_id(db);
	ret = 0;
out:
	db_reset(st);
	return ret;
}

int db_watch_pending_add(struct db *db, const char *list, const char *thread,
			 const char *url, long long now)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO watch_pending (list, thread, url, first_seen, "
		"last_checked) VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (list, "
		"thread) DO UPDATE SET url = excluded.url, last_checked = "
		"excluded.last_checked");

	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	db_bind_text(st, 2, thread);
	db_bind_text(st, 3, url);
	db_bind_int(st, 4, now);
	return db_step_done(db, st, "watch", "%s", thread);
}

int db_watch_pending_first_seen(struct db *db, const char *list,
				const char *thread, long long *first_seen)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT first_seen FROM watch_pending "
		"WHERE list = ?1 AND thread = ?2");
	int rc;

	*first_seen = 0;
	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	db_bind_text(st, 2, thread);
	rc = db_row(db, st, "watch", "<%s>: reading its wait", thread);
	if (rc > 0)
		*first_seen = db_column_int64(st, 0);
	db_reset(st);
	return rc < 0 ? -1 : 0;
}

int db_watch_pending_remove(struct db *db, const char *list,
			    const char *thread)
{
	struct sqlite3_stmt *st = db_stmt(db, "DELETE FROM watch_pending WHERE "
				   "list = ?1 AND thread = ?2");

	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	db_bind_text(st, 2, thread);
	return db_step_done(db, st, "watch", "%s", thread);
}

int db_watch_pending_list(struct db *db, const char *list,
			  struct db_watch_pending **out, size_t *n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT thread, url, first_seen FROM "
		"watch_pending WHERE list = ?1 ORDER BY "
		"first_seen, thread");
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	while ((rc = db_row(db, st, "watch", "list %s: the waiting threads",
			    list)) > 0) {
		struct db_watch_pending *p;

		ALLOC_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		p->thread = db_column_strdup(st, 0);
		p->url = db_column_strdup(st, 1);
		p->first_seen = db_column_int64(st, 2);
	}
	db_reset(st);
	if (rc < 0) {
		db_watch_pending_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
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
