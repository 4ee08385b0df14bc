/*
 * db_apply.c - the apply stage's SQL (see db_apply.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apply.h"
#include "config.h"
#include "db.h"
#include "db_apply.h"
#include "log.h"

/* Steps a statement that returns no row; 0 or -1 logged. */
static int step_done(struct db *db, struct sqlite3_stmt *st, long long id)
{
	return db_step_done(db, st, "apply", "series %lld", id);
}

static int store_tree(struct db *db, long long id,
		      const struct config_tree *t)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO tree (name, path, branch, "
		"created_at) VALUES (?1, ?2, ?3, ?4) "
		"ON CONFLICT (name) DO UPDATE SET "
		"path = excluded.path, "
		"branch = excluded.branch");

	if (!st)
		return -1;
	db_bind_text(st, 1, t->name);
	db_bind_text(st, 2, t->path);
	db_bind_text(st, 3, t->branch ? t->branch : "master");
	db_bind_int(st, 4, (long long)time(NULL));
	if (step_done(db, st, id))
		return -1;
	st = db_stmt(db, "UPDATE series SET tree_id = (SELECT id FROM tree "
		     "WHERE name = ?1) WHERE id = ?2");
	if (!st)
		return -1;
	db_bind_text(st, 1, t->name);
	db_bind_int(st, 2, id);
	return step_done(db, st, id);
}

int db_apply_store(struct db *db, long long id, const struct config_tree *t,
		   const struct apply_base *base, const char *base_reason,
		   const struct apply_result *res, const int *idx)
{
	struct sqlite3_stmt *st;
	size_t i;

	if (store_tree(db, id, t))
		return -1;
	st = db_stmt(db, "UPDATE patch SET applied_commit = NULL, "
		     "apply_method = NULL WHERE series_id = ?1");
	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	if (step_done(db, st, id))
		return -1;
	st = db_stmt(db, "UPDATE series SET base_used = ?1, base_source = ?2, "
		     "base_reason = ?3, apply_failed_patch = ?4, "
		     "apply_failed_file = ?5, apply_failed_hunk = ?6, "
		     "updated_at = ?7 WHERE id = ?8");
	if (!st)
		return -1;
	db_bind_text(st, 1, base->oid);
	db_bind_text(st, 2, apply_base_source_str(base->source));
	db_bind_text(st, 3, base_reason);
	if (res->status != APPLY_OK) {
		db_bind_int(st, 4, (long long)res->failed_patch);
		db_bind_text(st, 5, res->failed_file);
		db_bind_text(st, 6, res->failed_hunk);
	} else {
		db_bind_null(st, 4);
		db_bind_null(st, 5);
		db_bind_null(st, 6);
	}
	db_bind_int(st, 7, (long long)time(NULL));
	db_bind_int(st, 8, id);
	if (step_done(db, st, id))
		return -1;
	for (i = 0; i < res->n_commits; i++) {
		st = db_stmt(db, "UPDATE patch SET applied_commit = ?1, "
			     "apply_method = ?2 WHERE series_id = ?3 AND "
			     "idx = ?4");
		if (!st)
			return -1;
		db_bind_text(st, 1, res->commits[i].oid);
		db_bind_text(st, 2, apply_method_str(res->commits[i].method));
		db_bind_int(st, 3, id);
		db_bind_int(st, 4, idx[i]);
		if (step_done(db, st, id))
			return -1;
		if (db_changes(db) != 1)
			return error("apply", "series %lld: no patch row %d",
				     id, idx[i]);
	}
	return 0;
}
