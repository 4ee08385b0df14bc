/*
 * db_apply.c - the apply stage's SQL (see db_apply.h).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apply.h"
#include "config.h"
#include "db.h"
#include "db_apply.h"
#include "log.h"

void db_apply_source_release(struct db_apply_source *src)
{
	free(src->list);
	free(src->mbox);
	memset(src, 0, sizeof(*src));
}

int db_apply_source(struct db *db, long long id,
		    struct db_apply_source *src)
{
	sqlite3_stmt *st = db_stmt(db, "SELECT list, mbox, version, total "
				   "FROM series WHERE id = ?1");
	int rc, ret = -1;

	memset(src, 0, sizeof(*src));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *list = sqlite3_column_text(st, 0);
		const void *mbox = sqlite3_column_blob(st, 1);
		int n = sqlite3_column_bytes(st, 1);

		if (list && !(src->list = strdup((const char *)list)))
			die("apply", "out of memory");
		if (mbox) {
			src->mbox = malloc((size_t)n + 1);
			if (!src->mbox)
				die("apply", "out of memory");
			memcpy(src->mbox, mbox, (size_t)n);
			src->mbox[n] = '\0';
			src->mbox_len = (size_t)n;
		}
		src->version = sqlite3_column_int(st, 2);
		src->total = sqlite3_column_int(st, 3);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		error("apply", "series %lld: no such series", id);
	} else {
		error("apply", "series %lld: %s", id,
		      sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Steps a statement that returns no row; 0 or -1 logged. */
static int step_done(struct db *db, sqlite3_stmt *st, long long id)
{
	int ret = 0;

	if (sqlite3_step(st) != SQLITE_DONE) {
		ret = error("apply", "series %lld: %s", id,
			    sqlite3_errmsg(db_sqlite(db)));
	}
	sqlite3_reset(st);
	return ret;
}

static int store_tree(struct db *db, long long id,
		      const struct config_tree *t)
{
	sqlite3_stmt *st = db_stmt(db, "INSERT INTO tree (name, path, branch, "
				   "created_at) VALUES (?1, ?2, ?3, ?4) "
				   "ON CONFLICT (name) DO UPDATE SET "
				   "path = excluded.path, "
				   "branch = excluded.branch");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->branch ? t->branch : "master", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (long long)time(NULL));
	if (step_done(db, st, id))
		return -1;
	st = db_stmt(db, "UPDATE series SET tree_id = (SELECT id FROM tree "
		     "WHERE name = ?1) WHERE id = ?2");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	return step_done(db, st, id);
}

int db_apply_store(struct db *db, long long id, const struct config_tree *t,
		   const struct apply_base *base, const char *base_reason,
		   const struct apply_result *res, const int *idx)
{
	sqlite3_stmt *st;
	size_t i;

	if (store_tree(db, id, t))
		return -1;
	st = db_stmt(db, "UPDATE patch SET applied_commit = NULL, "
		     "apply_method = NULL WHERE series_id = ?1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (step_done(db, st, id))
		return -1;
	st = db_stmt(db, "UPDATE series SET base_used = ?1, base_source = ?2, "
		     "base_reason = ?3, apply_failed_patch = ?4, "
		     "apply_failed_file = ?5, apply_failed_hunk = ?6, "
		     "updated_at = ?7 WHERE id = ?8");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, base->oid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, apply_base_source_str(base->source), -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 3, base_reason, -1, SQLITE_STATIC);
	if (res->status != APPLY_OK) {
		sqlite3_bind_int64(st, 4, (long long)res->failed_patch);
		bind_opt(st, 5, res->failed_file);
		bind_opt(st, 6, res->failed_hunk);
	} else {
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 6);
	}
	sqlite3_bind_int64(st, 7, (long long)time(NULL));
	sqlite3_bind_int64(st, 8, id);
	if (step_done(db, st, id))
		return -1;
	for (i = 0; i < res->n_commits; i++) {
		st = db_stmt(db, "UPDATE patch SET applied_commit = ?1, "
			     "apply_method = ?2 WHERE series_id = ?3 AND "
			     "idx = ?4");
		if (!st)
			return -1;
		sqlite3_bind_text(st, 1, res->commits[i].oid, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 2,
				  apply_method_str(res->commits[i].method),
				  -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, id);
		sqlite3_bind_int(st, 4, idx[i]);
		if (step_done(db, st, id))
			return -1;
		if (sqlite3_changes(db_sqlite(db)) != 1)
			return error("apply", "series %lld: no patch row %d",
				     id, idx[i]);
	}
	return 0;
}
