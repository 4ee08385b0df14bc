/*
 * db_series.c - prepared-statement queries for the JSON API.
 *
 * Rows become JSON objects generically: each column's declared name is
 * the key, its SQLite storage class picks the JSON type.  Text that is not
 * valid UTF-8 (mail headers can hold anything) is served with the bad
 * bytes replaced by '?' rather than failing the whole response.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "db.h"
#include "db_series.h"
#include "log.h"
#include "pipeline.h"
#include "log.h"

/*
 * sql must be a string constant: the statement is cached on the
 * connection (db_stmt()) and handed back with done().
 */
static int prepare(struct db *db, const char *sql, sqlite3_stmt **st)
{
	*st = db_stmt(db, sql);
	return *st ? 0 : -1;
}

/* Resets a cached statement so that it holds no read snapshot. */
static void done(sqlite3_stmt *st)
{
	if (st)
		sqlite3_reset(st);
}

static json_t *text_value(const char *text, int len)
{
	json_t *v;
	char *copy;
	int i;

	v = json_stringn(text, len);
	if (v)
		return v;
	copy = malloc(len + 1);
	if (!copy)
		die("db_series", "out of memory");
	for (i = 0; i < len; i++)
		copy[i] = (unsigned char)text[i] < 0x80 && text[i] ?
			  text[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

static json_t *row_object(sqlite3_stmt *st)
{
	json_t *obj = json_object();
	int i, n = sqlite3_column_count(st);

	for (i = 0; i < n; i++) {
		json_t *v;

		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = json_integer(sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_real(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			v = text_value((const char *)sqlite3_column_text(st, i),
				       sqlite3_column_bytes(st, i));
			break;
		default:	/* NULL; blobs are never selected */
			v = json_null();
		}
		json_object_set_new(obj, sqlite3_column_name(st, i), v);
	}
	return obj;
}

/*
 * A read transaction: the parts of one answer come from one snapshot,
 * and the WAL read lock is taken once instead of once per statement.
 */
static int read_begin(struct db *db)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(db, "BEGIN DEFERRED", &st))
		return -1;
	rc = sqlite3_step(st);
	done(st);
	if (rc != SQLITE_DONE)
		return error("db_series", "begin: %s",
			     sqlite3_errmsg(db_sqlite(db)));
	return 0;
}

static void read_end(struct db *db)
{
	sqlite3_stmt *st;

	if (!prepare(db, "COMMIT", &st)) {
		sqlite3_step(st);
		done(st);
	}
	/* A read-only transaction cannot fail to end; make sure. */
	db_rollback(db);
}

/* Runs a prepared, bound statement and collects its rows into *rows. */
static int collect(struct db *db, sqlite3_stmt *st, json_t *rows)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(rows, row_object(st));
	if (rc != SQLITE_DONE)
		return error("db_series", "query: %s",
			     sqlite3_errmsg(db_sqlite(db)));
	return 0;
}

/*
 * A boot that failed: finished, but not ok (the same rule as the
 * analysis in db_analyze.c).
 */
#define BOOT_FAILED "status NOT IN ('ok', 'running', 'queued')"

/*
 * The "params" of each row (JSON text in the database) as the JSON value
 * it holds; text that does not parse stays text.
 */
static void params_objects(json_t *rows)
{
	json_t *row, *text, *value;
	size_t i;

	json_array_foreach(rows, i, row) {
		text = json_object_get(row, "params");
		if (!json_is_string(text))
			continue;
		value = json_loads(json_string_value(text), JSON_DECODE_ANY,
				   NULL);
		if (value)
			json_object_set_new(row, "params", value);
	}
}

/* One query with a single id parameter, its rows as an array in *out. */
static int rows_by_id(struct db *db, const char *sql, long long id,
		      json_t **out)
{
	sqlite3_stmt *st = NULL;
	json_t *rows = json_array();
	int ret = -1;

	if (prepare(db, sql, &st))
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if (collect(db, st, rows))
		goto out;
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	json_decref(rows);
	done(st);
	return ret;
}

/*
 * A page was read with limit + 1 rows: drops the extra row and returns
 * the "id" of the page's last row as the cursor of the next page, or 0
 * when there is no next page.
 */
static long long page_cut(json_t *rows, int limit)
{
	size_t n = json_array_size(rows);

	if (n <= (size_t)limit)
		return 0;
	json_array_remove(rows, n - 1);
	return json_integer_value(json_object_get(json_array_get(rows,
						  n - 2), "id"));
}

int db_series_submit(struct db *db, const char *url, const char *mbox,
		     size_t mbox_len, long long *id)
{
	static const char sql[] =
		"INSERT INTO series (source_url, mbox, status, created_at, "
		"updated_at) VALUES (?1, ?2, 'queued', ?3, ?3)";
	sqlite3_stmt *st = NULL;
	long long sid;
	int ret = -1;

	if (db_begin(db))
		return -1;
	if (prepare(db, sql, &st))
		goto out;
	if (url)
		sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	else
		sqlite3_bind_blob64(st, 2, mbox, mbox_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (long long)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("db_series", "insert series: %s",
		      sqlite3_errmsg(db_sqlite(db)));
		goto out;
	}
	sid = sqlite3_last_insert_rowid(db_sqlite(db));
	/* The pipeline's first stage (fetch), in this transaction. */
	if (pipeline_start(db, sid, NULL))
		goto out;
	if (db_commit(db))
		goto out;
	*id = sid;
	ret = 0;
out:
	done(st);
	if (ret)
		db_rollback(db);
	return ret;
}

#define SERIES_LIST_COLUMNS \
	"id, subject, author, list, version, total, status, status_reason, " \
	"source_url, created_at, updated_at"

int db_series_list(struct db *db, const struct series_filter *f,
		   json_t **items, long long *next_before)
{
	/*
	 * One statement for every combination of filters: an absent filter
	 * is bound to NULL and its condition is then true.  The status index
	 * serves the common "status=" query; everything else walks ids
	 * downwards from the cursor and stops after limit + 1 rows.
	 */
	static const char sql[] =
		"SELECT " SERIES_LIST_COLUMNS " FROM series WHERE "
		"(?1 IS NULL OR status = ?1) AND "
		"(?2 IS NULL OR list = ?2) AND "
		"(?3 IS NULL OR instr(lower(author), lower(?3)) > 0) AND "
		"(?4 IS NULL OR instr(lower(subject), lower(?4)) > 0) AND "
		"(?5 IS NULL OR id < ?5) AND "
		"(?6 IS NULL OR id > ?6) "
		"ORDER BY id DESC LIMIT ?7 OFFSET ?8";
	sqlite3_stmt *st = NULL;
	json_t *rows = json_array();
	int ret = -1;

	if (prepare(db, sql, &st))
		goto out;
	if (f->status)
		sqlite3_bind_text(st, 1, f->status, -1, SQLITE_STATIC);
	if (f->list)
		sqlite3_bind_text(st, 2, f->list, -1, SQLITE_STATIC);
	if (f->author)
		sqlite3_bind_text(st, 3, f->author, -1, SQLITE_STATIC);
	if (f->q)
		sqlite3_bind_text(st, 4, f->q, -1, SQLITE_STATIC);
	if (f->before)
		sqlite3_bind_int64(st, 5, f->before);
	if (f->after)
		sqlite3_bind_int64(st, 6, f->after);
	sqlite3_bind_int64(st, 7, (long long)f->limit + 1);
	sqlite3_bind_int64(st, 8, f->offset);
	if (collect(db, st, rows))
		goto out;

	*next_before = page_cut(rows, f->limit);
	*items = rows;
	rows = NULL;
	ret = 0;
out:
	json_decref(rows);
	done(st);
	return ret;
}

int db_series_get(struct db *db, long long id, json_t **out)
{
	static const char series_sql[] =
		"SELECT id, msgid, list, subject, author, version, total, "
		"change_id, base_commit, source_url, length(mbox) AS "
		"mbox_bytes, tree_id, (SELECT name FROM tree WHERE "
		"tree.id = series.tree_id) AS tree, base_used, base_source, "
		"base_reason, apply_failed_patch, apply_failed_file, "
		"apply_failed_hunk, status, status_reason, created_at, "
		"updated_at FROM series WHERE id = ?1";
	static const struct {
		const char *key, *sql;
	} parts[] = {
		{ "patches",
		  "SELECT idx, msgid, subject, author, date, applied_commit, "
		  "apply_method FROM patch WHERE series_id = ?1 ORDER BY idx" },
		{ "jobs",
		  "SELECT id, kind, arch, state, attempts, max_attempts, "
		  "not_before, last_error, created_at, updated_at "
		  "FROM job WHERE series_id = ?1 ORDER BY id" },
		{ "builds",
		  "SELECT b.id, sb.side, b.commit_id, b.arch, b.status, "
		  "b.status_reason, b.duration_ms, b.cached, b.cold, "
		  "b.objects_compiled, b.objects_expected, b.warnings, "
		  "b.new_warnings, b.new_warning_lines, b.error_lines, "
		  "b.dropped_options, b.log_path, b.image_path "
		  "FROM build b LEFT JOIN series_build sb ON "
		  "sb.build_id = b.id AND sb.series_id = ?1 WHERE b.id IN "
		  "(SELECT build_id FROM series_build WHERE series_id = ?1 "
		  "UNION SELECT build_id FROM boot WHERE series_id = ?1) "
		  "ORDER BY b.id" },
		{ "boots",
		  "SELECT side, status, count(*) AS n FROM boot "
		  "WHERE series_id = ?1 GROUP BY side, status "
		  "ORDER BY side, status" },
		{ "runs",
		  "SELECT r.id, r.arch, r.accel, r.clock, r.seed, r.status, "
		  "r.rounds, "
		  "r.started_at, r.finished_at, "
		  "(SELECT count(*) FROM boot WHERE run_id = r.id AND "
		  " side = 'base' AND status = 'ok') AS base_ok, "
		  "(SELECT count(*) FROM boot WHERE run_id = r.id AND "
		  " side = 'base' AND " BOOT_FAILED ") AS base_failed, "
		  "(SELECT count(*) FROM boot WHERE run_id = r.id AND "
		  " side = 'patched' AND status = 'ok') AS patched_ok, "
		  "(SELECT count(*) FROM boot WHERE run_id = r.id AND "
		  " side = 'patched' AND " BOOT_FAILED ") AS patched_failed, "
		  "EXISTS (SELECT 1 FROM comparison WHERE run_id = r.id) "
		  "AS analyzed "
		  "FROM run r WHERE r.series_id = ?1 ORDER BY r.id" },
		{ "comparisons",
		  "SELECT c.arch, c.run_id, h.name AS host, c.workload, "
		  "c.metric, c.params, c.unit, c.direction, c.n_base, "
		  "c.n_new, c.median_base, c.median_new, c.change_pct, "
		  "c.ci_low_pct, c.ci_high_pct, c.p_value, c.p_adjusted, "
		  "c.p_holm, c.verdict, c.flags, c.is_primary, c.ci_level "
		  "FROM comparison c LEFT JOIN host h ON h.id = c.host_id "
		  "WHERE c.series_id = ?1 ORDER BY c.id" },
		{ "notifications",
		  "SELECT id, kind, role, transport, recipients, message_id, "
		  "subject, status, status_reason, attempts, path, "
		  "length(message) AS bytes, created_at, sent_at, released_at "
		  "FROM notification WHERE series_id = ?1 ORDER BY id" },
		{ "checks",
		  "SELECT patch_id, context, state, posted, description, "
		  "attempts, last_error FROM patchwork_check "
		  "WHERE series_id = ?1 ORDER BY id" },
	};
	json_t *rows = NULL, *series = NULL, *part;
	size_t i;
	int ret = -1;

	*out = NULL;
	if (read_begin(db))
		return -1;
	if (rows_by_id(db, series_sql, id, &rows))
		goto out;
	series = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	if (!series) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (rows_by_id(db, parts[i].sql, id, &part))
			goto out;
		params_objects(part);
		json_object_set_new(series, parts[i].key, part);
	}
	*out = series;
	series = NULL;
	ret = 0;
out:
	read_end(db);
	json_decref(series);
	return ret;
}

int db_series_samples(struct db *db, long long series_id,
		      const struct sample_filter *f, json_t **items,
		      long long *next_after)
{
	/* Keyset paging on the sample id: each page is an index range. */
	static const char sql[] =
		"SELECT s.id, s.boot_id AS boot, b.run_id AS run, r.arch, "
		"b.side, s.workload, s.metric, s.params, s.iteration, "
		"s.value, s.unit, s.direction "
		"FROM boot b JOIN sample s ON s.boot_id = b.id "
		"LEFT JOIN run r ON r.id = b.run_id "
		"WHERE b.series_id = ?1 AND "
		"(?2 IS NULL OR b.run_id = ?2) AND "
		"(?3 IS NULL OR s.workload = ?3) AND "
		"(?4 IS NULL OR s.metric = ?4) AND s.id > ?5 "
		"ORDER BY s.id LIMIT ?6";
	static const char exists_sql[] =
		"SELECT id FROM series WHERE id = ?1";
	sqlite3_stmt *st = NULL;
	json_t *rows = NULL;
	int ret = -1;

	*items = NULL;
	*next_after = 0;
	if (read_begin(db))
		return -1;
	if (rows_by_id(db, exists_sql, series_id, &rows))
		goto out;
	if (!json_array_size(rows)) {
		ret = 0;
		goto out;
	}
	json_array_clear(rows);
	if (prepare(db, sql, &st))
		goto out;
	sqlite3_bind_int64(st, 1, series_id);
	if (f->run)
		sqlite3_bind_int64(st, 2, f->run);
	if (f->workload)
		sqlite3_bind_text(st, 3, f->workload, -1, SQLITE_STATIC);
	if (f->metric)
		sqlite3_bind_text(st, 4, f->metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, f->after);
	sqlite3_bind_int64(st, 6, (long long)f->limit + 1);
	if (collect(db, st, rows))
		goto out;
	*next_after = page_cut(rows, f->limit);
	params_objects(rows);
	*items = rows;
	rows = NULL;
	ret = 0;
out:
	done(st);
	read_end(db);
	json_decref(rows);
	return ret;
}

int db_series_reader_setup(struct db *db)
{
	/*
	 * API threads only read, mostly: map the file instead of copying
	 * pages into each connection's private cache with pread().
	 */
	return db_exec(db, "PRAGMA mmap_size = 268435456");
}
