/*
 * db_series.c - prepared-statement queries for the JSON API.
 *
 * Rows become JSON objects generically (db_json.c): each column's
 * declared name is the key, its SQLite storage class picks the JSON type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_json.h"
#include "db_series.h"
#include "db_versions.h"
#include "log.h"
#include "jobq.h"

/*
 * A boot that failed: finished, but not ok (the same rule as the
 * analysis in db_analyze.c).
 */
#define BOOT_FAILED "status NOT IN ('ok', 'running', 'queued')"

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
	struct sqlite3_stmt *st = NULL;
	long long sid;
	int ret = -1;

	if (db_begin(db))
		return -1;
	if (db_json_prepare(db, sql, &st))
		goto out;
	if (url)
		db_bind_text(st, 1, url);
	else
		db_bind_blob(st, 2, mbox, mbox_len);
	db_bind_int(st, 3, (long long)time(NULL));
	if (db_step_done(db, st, "db_series", "insert series"))
		goto out;
	sid = db_last_insert_id(db);
	/* The pipeline's first job (fetch), in this transaction. */
	if (jobq_enqueue(db, JOBQ_KIND_FIRST, sid, NULL, NULL))
		goto out;
	if (db_commit(db))
		goto out;
	*id = sid;
	ret = 0;
out:
	db_json_done(st);
	if (ret)
		db_rollback(db);
	return ret;
}

#define SERIES_LIST_COLUMNS \
	"id, subject, author, list, version, total, status, status_reason, " \
	"source_url, created_at, updated_at, " \
	"(SELECT name FROM tree WHERE tree.id = series.tree_id) AS tree, " \
	"(SELECT json_group_array(DISTINCT arch) FROM series_build " \
	" WHERE series_id = series.id) AS arches, " \
	"(SELECT json_group_object(verdict, n) FROM (SELECT verdict, " \
	" count(*) AS n FROM comparison WHERE series_id = series.id " \
	" GROUP BY verdict)) AS verdicts, " \
	"(SELECT json_group_object(verdict, n) FROM (SELECT verdict, " \
	" count(*) AS n FROM comparison WHERE series_id = series.id " \
	" AND is_primary GROUP BY verdict)) AS primary_verdicts"

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
		"(?6 IS NULL OR id > ?6) AND "
		"(?9 IS NULL OR tree_id IN (SELECT id FROM tree "
		" WHERE name = ?9)) AND "
		"(?10 IS NULL OR EXISTS (SELECT 1 FROM series_build sb "
		" WHERE sb.series_id = series.id AND sb.arch = ?10)) AND "
		"(?11 IS NULL OR EXISTS (SELECT 1 FROM comparison c "
		" WHERE c.series_id = series.id AND c.verdict = ?11)) "
		"ORDER BY id DESC LIMIT ?7 OFFSET ?8";
	static const char *const json[] = {
		"arches", "verdicts", "primary_verdicts", NULL,
	};
	struct sqlite3_stmt *st;

	if (db_json_prepare(db, sql, &st))
		return -1;
	if (f->status)
		db_bind_text(st, 1, f->status);
	if (f->list)
		db_bind_text(st, 2, f->list);
	if (f->author)
		db_bind_text(st, 3, f->author);
	if (f->q)
		db_bind_text(st, 4, f->q);
	if (f->before)
		db_bind_int(st, 5, f->before);
	if (f->after)
		db_bind_int(st, 6, f->after);
	db_bind_int(st, 7, (long long)f->limit + 1);
	db_bind_int(st, 8, f->offset);
	db_bind_text(st, 9, f->tree);
	db_bind_text(st, 10, f->arch);
	db_bind_text(st, 11, f->verdict);
	if (db_json_rows(db, st, json, items))
		return -1;
	*next_before = page_cut(*items, f->limit);
	return 0;
}

/* "problems": the text of one problem a line, as an array. */
static void problems_array(json_t *series)
{
	const char *text = json_string_value(json_object_get(series,
							     "problems"));
	json_t *a = json_array();
	const char *nl;

	while (text && *text) {
		nl = strchr(text, '\n');
		json_array_append_new(a, json_stringn(text, nl ?
				      (size_t)(nl - text) : strlen(text)));
		text = nl ? nl + 1 : "";
	}
	json_object_set_new(series, "problems", a);
}

static json_t *number_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/*
 * "since_previous": db_versions_since_previous() as JSON, null without a
 * previous version.
 */
static int since_previous(struct db *db, long long id, json_t *series)
{
	struct db_versions_since v;
	json_t *obj, *metrics;
	size_t i;

	if (db_versions_since_previous(db, id, &v)) {
		db_versions_since_release(&v);
		return -1;
	}
	if (!v.previous_id) {
		json_object_set_new(series, "since_previous", json_null());
		return 0;
	}
	metrics = json_array();
	for (i = 0; i < v.n; i++) {
		const struct db_versions_metric *m = &v.metrics[i];
		json_t *params = json_loads(m->params ? m->params : "{}",
					    JSON_DECODE_ANY, NULL);

		json_array_append_new(metrics, json_pack(
			"{s:s?, s:s?, s:s?, s:o, s:s?, s:s?, s:o, s:o, s:o, "
			"s:o, s:o, s:o, s:o, s:o}",
			"arch", m->arch, "workload", m->workload,
			"metric", m->metric,
			"params", params ? params : json_string(m->params),
			"unit", m->unit, "direction", m->direction,
			"verdict", str_or_null(m->verdict),
			"change_pct", number_or_null(m->change_pct),
			"ci_low_pct", number_or_null(m->ci_low_pct),
			"ci_high_pct", number_or_null(m->ci_high_pct),
			"previous_verdict", str_or_null(m->previous_verdict),
			"previous_change_pct",
			number_or_null(m->previous_change_pct),
			"previous_ci_low_pct",
			number_or_null(m->previous_ci_low_pct),
			"previous_ci_high_pct",
			number_or_null(m->previous_ci_high_pct)));
	}
	obj = json_pack("{s:I, s:i, s:s?, s:o}", "series_id",
			(json_int_t)v.previous_id, "version",
			v.previous_version, "status", v.previous_status,
			"metrics", metrics);
	json_object_set_new(series, "since_previous", obj);
	db_versions_since_release(&v);
	return 0;
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
		"updated_at, title, previous_id, (SELECT p.version FROM series "
		"p WHERE p.id = series.previous_id) AS previous_version, "
		"superseded_by, (SELECT n.version FROM series n WHERE n.id = "
		"series.superseded_by) AS superseded_by_version, problems "
		"FROM series WHERE id = ?1";
	static const struct {
		const char *key, *sql;
	} parts[] = {
		{ "patches",
		  "SELECT idx, msgid, subject, author, date, applied_commit, "
		  "apply_method, fingerprint FROM patch WHERE series_id = ?1 "
		  "ORDER BY idx" },
		{ "trailers",
		  "SELECT p.idx, t.name, t.value, t.message_id, "
		  "t.from_version, t.from_series FROM patch p JOIN "
		  "patch_trailer t ON t.patch_id = p.id WHERE p.series_id = ?1 "
		  "ORDER BY p.idx, t.id" },
		{ "jobs",
		  "SELECT id, kind, arch, state, attempts, max_attempts, "
		  "not_before, last_error, created_at, updated_at "
		  "FROM job WHERE series_id = ?1 ORDER BY id" },
		{ "builds",
		  "SELECT b.id, sb.side, b.commit_id, b.arch, b.status, "
		  "b.status_reason, b.duration_ms, "
		  "CASE WHEN sb.series_id IS NULL THEN b.cached "
		  "ELSE sb.cached END AS cached, "
		  "sb.duration_ms AS series_duration_ms, sb.layout, b.cold, "
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
		  "SELECT r.id, r.arch, r.accel, r.clock, r.layout, r.seed, "
		  "r.status, r.rounds, "
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
		  "AS analyzed, (SELECT count(*) FROM run_calibration "
		  "WHERE run_id = r.id) AS calibrations "
		  "FROM run r WHERE r.series_id = ?1 ORDER BY r.id" },
		{ "comparisons",
		  "SELECT c.arch, c.run_id, h.name AS host, c.workload, "
		  "c.metric, c.params, c.unit, c.direction, c.n_base, "
		  "c.n_new, c.median_base, c.median_new, c.change_pct, "
		  "c.ci_low_pct, c.ci_high_pct, c.p_value, c.p_adjusted, "
		  "c.p_holm, c.verdict, c.flags, c.is_primary, c.ci_level, "
		  "c.threshold_pct, c.calibration_id, c.layout, "
		  "c.layout_reason, c.verdict_as_built, c.layout_run_id, "
		  "c.layout_verdict, c.layout_change_pct, "
		  "c.layout_ci_low_pct, c.layout_ci_high_pct "
		  "FROM comparison c LEFT JOIN host h ON h.id = c.host_id "
		  "WHERE c.series_id = ?1 ORDER BY c.run_id, c.is_primary "
		  "DESC, c.id" },
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
	if (db_json_read_begin(db))
		return -1;
	if (db_json_rows_by_id(db, series_sql, id, &rows))
		goto out;
	series = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	if (!series) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (db_json_rows_by_id(db, parts[i].sql, id, &part))
			goto out;
		db_json_parse_member(part, "params");
		json_object_set_new(series, parts[i].key, part);
	}
	problems_array(series);
	if (since_previous(db, id, series))
		goto out;
	*out = series;
	series = NULL;
	ret = 0;
out:
	db_json_read_end(db);
	json_decref(series);
	return ret;
}

/* Whether series id exists: 0 and *exists, or -1 (logged). */
static int series_exists(struct db *db, long long id, int *exists)
{
	static const char sql[] = "SELECT 1 FROM series WHERE id = ?1";
	struct sqlite3_stmt *st;
	int rc;

	if (db_json_prepare(db, sql, &st))
		return -1;
	db_bind_int(st, 1, id);
	rc = db_row(db, st, "db_series", "series %lld", id);
	db_json_done(st);
	if (rc < 0)
		return -1;
	*exists = rc;
	return 0;
}

int db_series_read_begin(struct db *db, long long id, int *exists)
{
	if (db_json_read_begin(db))
		return -1;
	if (series_exists(db, id, exists)) {
		db_json_read_end(db);
		return -1;
	}
	return 0;
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
	struct sqlite3_stmt *st;
	int ret = -1, exists;

	*items = NULL;
	*next_after = 0;
	if (db_series_read_begin(db, series_id, &exists))
		return -1;
	if (!exists) {
		ret = 0;
		goto out;
	}
	if (db_json_prepare(db, sql, &st))
		goto out;
	db_bind_int(st, 1, series_id);
	if (f->run)
		db_bind_int(st, 2, f->run);
	if (f->workload)
		db_bind_text(st, 3, f->workload);
	if (f->metric)
		db_bind_text(st, 4, f->metric);
	db_bind_int(st, 5, f->after);
	db_bind_int(st, 6, (long long)f->limit + 1);
	if (db_json_rows(db, st, db_json_params, items))
		goto out;
	*next_after = page_cut(*items, f->limit);
	ret = 0;
out:
	db_json_read_end(db);
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
