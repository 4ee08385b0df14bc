/*
 * db_build.c - the build stage's SQL (see db_build.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "db.h"
#include "db_build.h"
#include "log.h"

void db_build_source_release(struct db_build_source *src)
{
	free(src->tree_path);
	free(src->base);
	free(src->head);
	memset(src, 0, sizeof(*src));
}

int db_build_source(struct db *db, long long id,
		    struct db_build_source *src)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT s.tree_id, t.path, s.base_used, "
		" (SELECT p.applied_commit FROM patch p "
		"  WHERE p.series_id = s.id AND p.idx > 0 "
		"  ORDER BY p.idx DESC LIMIT 1) "
		"FROM series s LEFT JOIN tree t ON t.id = s.tree_id "
		"WHERE s.id = ?1");
	int ret = -1;

	memset(src, 0, sizeof(*src));
	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	if (!db_row_one(db, st, "build", "series", id)) {
		src->tree_id = db_column_int64(st, 0);
		src->tree_path = db_column_strdup(st, 1);
		src->base = db_column_strdup(st, 2);
		src->head = db_column_strdup(st, 3);
		ret = 0;
	}
	db_reset(st);
	return ret;
}

/*
 * A build row's record ends with db_build_finish(), the only writer of
 * duration_ms; from then on nothing changes it (db_build.h).
 */
#define BUILD_OPEN "duration_ms IS NULL"

int db_build_start(struct db *db, long long series_id, long long tree_id,
		   const char *commit, const char *arch,
		   const char *config_key, enum layout layout,
		   const char *side, long long *build_id)
{
	struct sqlite3_stmt *st;
	int rc;

	st = db_stmt(db, "INSERT INTO build (tree_id, commit_id, arch, "
		     "config_hash, status, started_at) "
		     "VALUES (?1, ?2, ?3, ?4, 'building', ?5) "
		     "ON CONFLICT (commit_id, arch, config_hash) DO UPDATE "
		     "SET status = 'building', status_reason = NULL, "
		     "started_at = ?5, objects_compiled = NULL, "
		     "objects_expected = NULL WHERE build." BUILD_OPEN);
	if (!st)
		return -1;
	if (tree_id)
		db_bind_int(st, 1, tree_id);
	else
		db_bind_null(st, 1);
	db_bind_text(st, 2, commit);
	db_bind_text(st, 3, arch);
	db_bind_text(st, 4, config_key);
	db_bind_int(st, 5, (long long)time(NULL));
	if (db_step_done(db, st, "build", "build row"))
		return -1;
	st = db_stmt(db, "SELECT id FROM build WHERE commit_id = ?1 AND "
		     "arch = ?2 AND config_hash = ?3");
	if (!st)
		return -1;
	db_bind_text(st, 1, commit);
	db_bind_text(st, 2, arch);
	db_bind_text(st, 3, config_key);
	rc = db_row(db, st, "build", "build row of %s %s", commit, arch);
	if (rc > 0)
		*build_id = db_column_int64(st, 0);
	db_reset(st);
	if (!rc)
		error("build", "build row of %s %s: not written", commit,
		      arch);
	if (rc <= 0)
		return -1;
	st = db_stmt(db, "INSERT OR REPLACE INTO series_build (series_id, "
		     "build_id, arch, side, layout) VALUES (?1, ?2, ?3, ?4, "
		     "?5)");
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_int(st, 2, *build_id);
	db_bind_text(st, 3, arch);
	db_bind_text(st, 4, side);
	db_bind_text(st, 5, layout_str(layout));
	return db_step_done(db, st, "build", "series_build row");
}

int db_build_progress(struct db *db, long long build_id, int compiled,
		      int expected)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE build SET objects_compiled = "
		"?2, objects_expected = ?3 WHERE id = ?1 AND " BUILD_OPEN);

	if (!st)
		return -1;
	db_bind_int(st, 1, build_id);
	db_bind_int(st, 2, compiled);
	if (expected > 0)
		db_bind_int(st, 3, expected);
	else
		db_bind_null(st, 3);
	return db_step_done(db, st, "build", "build progress");
}

static void bind_text_or_null(struct sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		db_bind_text_copy(st, i, s);
	else
		db_bind_null(st, i);
}

int db_build_finish(struct db *db, long long build_id, long long series_id,
		    const char *side, const struct build_result *res)
{
	struct strbuf log = STRBUF_INIT;
	struct sqlite3_stmt *st;
	int ret;

	st = db_stmt(db, "UPDATE series_build SET cached = ?4, "
		     "duration_ms = ?5 WHERE series_id = ?1 AND build_id = ?2 "
		     "AND side = ?3");
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_int(st, 2, build_id);
	db_bind_text(st, 3, side);
	db_bind_int(st, 4, res->cached);
	db_bind_int(st, 5, (long long)(res->duration_s * 1000));
	if (db_step_done(db, st, "build", "series build result"))
		return -1;
	st = db_stmt(db, "UPDATE build SET status = ?2, status_reason = ?3, "
		     "log_path = ?4, image_path = ?5, duration_ms = ?6, "
		     "effective_config_hash = ?7, cached = ?8, cold = ?9, "
		     "objects_compiled = ?10, warnings = ?11, "
		     "new_warnings = ?12, new_warning_lines = ?13, "
		     "error_lines = ?14, dropped_options = ?15, cpu_ms = ?16, "
		     "artefact_dir = ?17 WHERE id = ?1 AND " BUILD_OPEN);
	if (!st)
		return -1;
	if (res->dir)
		strbuf_addf(&log, "%s/build.log", res->dir);
	db_bind_int(st, 1, build_id);
	db_bind_text(st, 2, build_status_str(res->status));
	bind_text_or_null(st, 3, res->reason);
	bind_text_or_null(st, 4, log.len ? log.buf : NULL);
	bind_text_or_null(st, 5, res->image);
	db_bind_int(st, 6, (long long)(res->duration_s * 1000));
	bind_text_or_null(st, 7, res->config_hash);
	db_bind_int(st, 8, res->cached);
	db_bind_int(st, 9, res->cold);
	db_bind_int(st, 10, res->compiled);
	db_bind_int(st, 11, res->warnings);
	if (res->new_warnings >= 0)
		db_bind_int(st, 12, res->new_warnings);
	else
		db_bind_null(st, 12);
	bind_text_or_null(st, 13, res->new_warning_lines.buf);
	bind_text_or_null(st, 14, res->error_lines.buf);
	bind_text_or_null(st, 15, res->dropped.buf);
	db_bind_int(st, 16, (long long)(res->cpu_s * 1000));
	bind_text_or_null(st, 17, res->dir);
	ret = db_step_done(db, st, "build", "build result");
	strbuf_release(&log);
	return ret;
}

int db_build_error(struct db *db, long long build_id, const char *reason)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE build SET status = 'failed', "
		"status_reason = ?2 WHERE id = ?1 AND " BUILD_OPEN);

	if (!st)
		return -1;
	db_bind_int(st, 1, build_id);
	bind_text_or_null(st, 2, reason);
	return db_step_done(db, st, "build", "build error");
}

int db_build_interrupted(struct db *db, long long build_id)
{
	struct sqlite3_stmt *st = db_stmt(db, "UPDATE build SET status = "
				   "'interrupted', status_reason = 'stopped "
				   "with the daemon; built again when it "
				   "starts' WHERE id = ?1 AND " BUILD_OPEN);

	if (!st)
		return -1;
	db_bind_int(st, 1, build_id);
	return db_step_done(db, st, "build", "build interrupted");
}
