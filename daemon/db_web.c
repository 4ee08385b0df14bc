/*
 * db_web.c - the dashboard's queries (see db_web.h).
 *
 * Per-boot values go through analyze.c's set, the code the analysis
 * itself reduces a boot's iterations with, so that what the dashboard
 * plots is what the verdict was computed from; the set keeps the boot of
 * each value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>


#include "analyze.h"
#include "db.h"
#include "db_calib_json.h"
#include "db_json.h"
#include "db_series.h"
#include "db_web.h"
#include "log.h"
#include "stats.h"
#include "strbuf.h"

/*
 * Reads a statement whose columns are (boot id, patched 0/1, workload,
 * metric, params, unit, direction, is_primary, value), ordered by
 * workload, metric, params, boot, into set.  0, or -1 (logged).
 */
static int feed_read(struct db *db, struct sqlite3_stmt *st,
		     struct analyze_set *set)
{
	struct strbuf err = STRBUF_INIT;
	int rc, ret = -1;

	while ((rc = db_row(db, st, "db_web", "samples")) > 0) {
		long long boot = db_column_int64(st, 0);
		int side = db_column_int(st, 1) ? 1 : 0;

#define TEXT(i) (db_column_text(st, (i)) ?: "")
		if (analyze_add(set, TEXT(2), TEXT(3), TEXT(4), TEXT(5),
				TEXT(6), db_column_int(st, 7),
				side ? ANALYZE_PATCHED : ANALYZE_BASE, boot,
				db_column_double(st, 8), &err)) {
			error("db_web", "samples: %s", err.buf);
			goto out;
		}
#undef TEXT
	}
	if (rc < 0)
		goto out;
	analyze_set_finish(set);
	ret = 0;
out:
	strbuf_release(&err);
	return ret;
}

static json_t *side_json(const double *v, const long long *ids, size_t n)
{
	json_t *boots = json_array(), *values = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		json_array_append_new(boots, json_integer(ids[i]));
		json_array_append_new(values, json_real(v[i]));
	}
	return json_pack("{s:o,s:o}", "boots", boots, "values", values);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *pct_or_null(double fraction)
{
	return real_or_null(100 * fraction);
}

/* What stats.c said of a metric, with the keys of a comparison row. */
static json_t *result_json(const struct stats_result *r)
{
	return json_pack("{s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s,s:s?}",
		"n_base", (json_int_t)r->n_base, "n_new", (json_int_t)r->n_new,
		"median_base", real_or_null(r->center_base),
		"median_new", real_or_null(r->center_new),
		"change_pct", pct_or_null(r->change),
		"ci_low_pct", pct_or_null(r->ci_lo),
		"ci_high_pct", pct_or_null(r->ci_hi),
		"p_value", real_or_null(r->p),
		"verdict", stats_verdict_str(r->verdict),
		"flags", analyze_flags_str(r->flags), "test", r->test);
}

/*
 * The metrics of a read feed as the API serves them; with compared, each
 * with its "comparison" (analyze_set_compare() has run).
 */
static json_t *feed_metrics(const struct analyze_set *set, int compared)
{
	json_t *out = json_array();
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct analyze_metric *m = &set->m[i];
		json_t *params;

		params = json_loads(m->params, JSON_DECODE_ANY, NULL);
		json_array_append_new(out, json_pack(
			"{s:s,s:s,s:o,s:s,s:s,s:b,s:o,s:o,s:o?}",
			"workload", m->workload, "metric", m->metric,
			"params", params ? params : json_string(m->params),
			"unit", m->unit,
			"direction", analyze_direction_str(m->direction),
			"is_primary", m->primary,
			"base", side_json(m->v[0], m->boot[0], m->n[0]),
			"patched", side_json(m->v[1], m->boot[1], m->n[1]),
			"comparison", compared ? result_json(&m->r) : NULL));
	}
	return out;
}

/*
 * The metrics of a prepared, bound feed statement (see feed_read()),
 * each tested with o unless o is NULL.
 */
static int feed_metrics_of(struct db *db, struct sqlite3_stmt *st,
			   const struct stats_opts *o, json_t **out)
{
	struct analyze_set set;
	int ret = -1;

	analyze_set_init(&set);
	if (!feed_read(db, st, &set) &&
	    (!o || !analyze_set_compare(&set, o))) {
		*out = feed_metrics(&set, o != NULL);
		ret = 0;
	}
	analyze_set_release(&set);
	return ret;
}

#define FEED_COLUMNS \
	"b.id, b.side = 'patched', s.workload, s.metric, s.params, s.unit, " \
	"s.direction, s.is_primary, s.value "
#define FEED_ORDER "ORDER BY s.workload, s.metric, s.params, b.id, " \
	"s.iteration"

/* The metrics of run_id's complete boots into *out. */
static int run_metrics(struct db *db, long long run_id, json_t **out)
{
	static const char sql[] =
		"SELECT " FEED_COLUMNS "FROM boot b JOIN sample s ON "
		"s.boot_id = b.id WHERE b.run_id = ?1 AND b.status = 'ok' "
		FEED_ORDER;
	struct sqlite3_stmt *st;
	int ret;

	if (db_json_prepare(db, sql, &st))
		return -1;
	db_bind_int(st, 1, run_id);
	ret = feed_metrics_of(db, st, NULL, out);
	db_json_done(st);
	return ret;
}

int db_web_run(struct db *db, long long run_id, json_t **out)
{
	static const char run_sql[] =
		"SELECT id, series_id, arch, accel, clock, CAST(seed AS TEXT) "
		"AS seed, plan, status, "
		"rounds, started_at, finished_at, alpha, max_per_side "
		"FROM run WHERE id = ?1";
	static const char boots_sql[] =
		"SELECT b.id, b.side, b.seq, b.round, b.attempt, b.status, "
		"b.status_reason, h.name AS host, b.build_id AS build, "
		"b.duration_ms, b.started_at, "
		"b.console_path IS NOT NULL AS console "
		"FROM boot b LEFT JOIN host h ON h.id = b.host_id "
		"WHERE b.run_id = ?1 ORDER BY b.seq, b.id";
	json_t *rows = NULL, *run = NULL, *part;
	int ret = -1;

	*out = NULL;
	if (db_json_read_begin(db))
		return -1;
	if (db_json_rows_by_id(db, run_sql, run_id, &rows))
		goto out;
	run = json_incref(json_array_get(rows, 0));
	if (!run) {
		ret = 0;
		goto out;
	}
	if (db_json_rows_by_id(db, boots_sql, run_id, &part))
		goto out;
	json_object_set_new(run, "boots", part);
	if (run_metrics(db, run_id, &part))
		goto out;
	json_object_set_new(run, "metrics", part);
	*out = run;
	run = NULL;
	ret = 0;
out:
	db_json_read_end(db);
	json_decref(rows);
	json_decref(run);
	return ret;
}

int db_web_trends(struct db *db, const struct db_web_trend_filter *f,
		  json_t **out, int *more, json_t **noise)
{
	static const char sql[] =
		"SELECT c.run_id AS run, c.series_id AS series, s.subject, "
		"s.base_used AS base_commit, r.started_at, h.name AS host, "
		"r.accel, r.plan, r.clock, c.params, c.unit, c.direction, "
		"c.n_base, c.median_base, c.n_new, c.median_new, c.change_pct, "
		"c.verdict, c.is_primary "
		"FROM comparison c JOIN run r ON r.id = c.run_id "
		"JOIN series s ON s.id = c.series_id "
		"LEFT JOIN host h ON h.id = c.host_id "
		"WHERE s.tree_id IN (SELECT id FROM tree WHERE name = ?1) "
		"AND c.arch = ?2 AND c.workload = ?3 AND c.metric = ?4 AND "
		"(?5 IS NULL OR h.name = ?5) "
		"ORDER BY r.started_at DESC, c.id DESC LIMIT ?6";
	struct sqlite3_stmt *st = NULL;
	json_t *rows = json_array();
	int ret = -1;

	if (db_json_read_begin(db))
		goto out;
	if (db_json_prepare(db, sql, &st))
		goto out;
	db_bind_text(st, 1, f->tree);
	db_bind_text(st, 2, f->arch);
	db_bind_text(st, 3, f->workload);
	db_bind_text(st, 4, f->metric);
	db_bind_text(st, 5, f->host);
	db_bind_int(st, 6, (long long)f->limit + 1);
	if (db_json_collect(db, st, rows))
		goto out;
	*more = json_array_size(rows) > (size_t)f->limit;
	if (*more)
		json_array_remove(rows, f->limit);
	db_json_parse_member(rows, "params");
	db_json_done(st);
	st = NULL;
	if (db_calib_noise_json(db, f->arch, f->host, f->workload, f->metric,
				noise))
		goto out;
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	db_json_done(st);
	db_json_read_end(db);
	json_decref(rows);
	return ret;
}

int db_web_hosts(struct db *db, json_t **out)
{
	static const char sql[] =
		"SELECT h.id, h.name, h.uri, h.arch, h.accel, h.capacity, "
		"h.healthy, h.health_reason, h.probed_at, h.cpu_model, "
		"h.cpus, h.memory_mib, "
		"(SELECT count(*) FROM boot WHERE host_id = h.id AND "
		" status = 'running') AS running, "
		"(SELECT count(*) FROM boot WHERE host_id = h.id) AS boots, "
		"NULL AS calibration "
		"FROM host h ORDER BY h.name";
	struct sqlite3_stmt *st;
	json_t *rows = NULL, *h, *cal;
	size_t i;
	int ret = -1;

	if (db_json_read_begin(db))
		goto out;
	if (db_json_prepare(db, sql, &st) ||
	    db_json_rows(db, st, NULL, &rows))
		goto out;
	json_array_foreach(rows, i, h) {
		if (db_calib_host_json(db, json_integer_value(
				       json_object_get(h, "id")), &cal))
			goto out;
		json_object_set_new(h, "calibration", cal ? cal : json_null());
	}
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	db_json_read_end(db);
	json_decref(rows);
	return ret;
}

/* The metrics of one compare group (see db_web_compare()). */
static int compare_metrics(struct db *db, long long a, long long b,
			   const struct stats_opts *o, json_t *group,
			   json_t **out)
{
	/* A side's newest boots of the group: an index range each. */
#define SIDE(n) \
	"b.id IN (SELECT b2.id FROM boot b2 JOIN run r2 ON " \
	"r2.id = b2.run_id WHERE b2.build_id = ?" #n " AND " \
	"b2.status = 'ok' AND b2.host_id IS ?3 AND r2.plan = ?4 AND " \
	"r2.clock = ?5 ORDER BY b2.id DESC LIMIT ?6)"
	static const char sql[] =
		"SELECT b.id, b.build_id = ?2, s.workload, s.metric, "
		"s.params, s.unit, s.direction, s.is_primary, s.value "
		"FROM boot b JOIN sample s ON s.boot_id = b.id WHERE "
		"(" SIDE(1) " OR " SIDE(2) ") " FEED_ORDER;
#undef SIDE
	json_t *host = json_object_get(group, "host_id");
	struct sqlite3_stmt *st;
	int ret;

	if (db_json_prepare(db, sql, &st))
		return -1;
	db_bind_int(st, 1, a);
	db_bind_int(st, 2, b);
	if (json_is_integer(host))
		db_bind_int(st, 3, json_integer_value(host));
	db_bind_text(st, 4,
		     json_string_value(json_object_get(group, "plan")));
	db_bind_text(st, 5,
		     json_string_value(json_object_get(group, "clock")));
	db_bind_int(st, 6, DB_WEB_COMPARE_BOOTS);
	ret = feed_metrics_of(db, st, o, out);
	db_json_done(st);
	return ret;
}

int db_web_compare(struct db *db, long long a, long long b,
		   const struct stats_opts *o, json_t **out)
{
	static const char build_sql[] =
		"SELECT b.id, b.commit_id, b.arch, b.config_hash, b.status, "
		"t.name AS tree, "
		"(SELECT group_concat(series_id || ':' || side) FROM "
		" series_build WHERE build_id = b.id) AS series_sides "
		"FROM build b LEFT JOIN tree t ON t.id = b.tree_id "
		"WHERE b.id = ?1";
	static const char groups_sql[] =
		"SELECT bo.host_id, h.name AS host, r.plan, r.clock, "
		"sum(bo.build_id = ?1) AS boots_a, "
		"sum(bo.build_id = ?2) AS boots_b "
		"FROM boot bo JOIN run r ON r.id = bo.run_id "
		"LEFT JOIN host h ON h.id = bo.host_id "
		"WHERE bo.build_id IN (?1, ?2) AND bo.status = 'ok' "
		"GROUP BY bo.host_id, r.plan, r.clock "
		"HAVING boots_a > 0 AND boots_b > 0 ORDER BY h.name, r.clock";
	json_t *ra = NULL, *rb = NULL, *groups = json_array(), *g, *metrics;
	struct sqlite3_stmt *st = NULL;
	size_t i;
	int ret = -1;

	*out = NULL;
	if (db_json_read_begin(db))
		goto out;
	if (db_json_rows_by_id(db, build_sql, a, &ra) ||
	    db_json_rows_by_id(db, build_sql, b, &rb))
		goto out;
	if (!json_array_size(ra) || !json_array_size(rb)) {
		ret = 0;
		goto out;
	}
	if (db_json_prepare(db, groups_sql, &st))
		goto out;
	db_bind_int(st, 1, a);
	db_bind_int(st, 2, b);
	if (db_json_collect(db, st, groups))
		goto out;
	db_json_done(st);
	st = NULL;
	json_array_foreach(groups, i, g) {
		if (compare_metrics(db, a, b, o, g, &metrics))
			goto out;
		json_object_set_new(g, "metrics", metrics);
	}
	*out = json_pack("{s:O,s:O,s:O,s:i}", "a", json_array_get(ra, 0),
			 "b", json_array_get(rb, 0), "groups", groups,
			 "boots_max", DB_WEB_COMPARE_BOOTS);
	ret = 0;
out:
	db_json_done(st);
	db_json_read_end(db);
	json_decref(ra);
	json_decref(rb);
	json_decref(groups);
	return ret;
}

int db_web_console(struct db *db, long long boot_id, int *found,
		   char **path, int *finished)
{
	static const char sql[] =
		"SELECT console_path, status NOT IN ('queued', 'running') "
		"FROM boot WHERE id = ?1";
	struct sqlite3_stmt *st;
	int rc;

	*found = 0;
	*path = NULL;
	if (db_json_prepare(db, sql, &st))
		return -1;
	db_bind_int(st, 1, boot_id);
	rc = db_row(db, st, "db_web", "boot %lld", boot_id);
	if (rc > 0) {
		*found = 1;
		*path = db_column_strdup(st, 0);
		*finished = db_column_int(st, 1);
	}
	db_json_done(st);
	return rc < 0 ? -1 : 0;
}

int db_web_notifications(struct db *db, long long series_id, json_t **out)
{
	/* Every column, so that what the report stage adds shows. */
	static const char sql[] =
		"SELECT * FROM notification WHERE series_id = ?1 ORDER BY id";
	json_t *rows = NULL, *row;
	size_t i;
	int ret = -1, exists;

	*out = NULL;
	if (db_series_read_begin(db, series_id, &exists))
		return -1;
	if (!exists) {
		ret = 0;
		goto out;
	}
	if (db_json_rows_by_id(db, sql, series_id, &rows))
		goto out;
	json_array_foreach(rows, i, row)
		json_object_del(row, "message");
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	db_json_read_end(db);
	json_decref(rows);
	return ret;
}

int db_web_facets(struct db *db, json_t **out)
{
	static const struct {
		const char *key, *sql;
	} parts[] = {
		{ "statuses", "SELECT DISTINCT status AS v FROM series "
			      "ORDER BY 1" },
		{ "lists", "SELECT DISTINCT list AS v FROM series WHERE "
			   "list IS NOT NULL ORDER BY 1" },
		{ "trees", "SELECT name AS v FROM tree ORDER BY 1" },
		{ "arches", "SELECT DISTINCT arch AS v FROM build ORDER BY 1" },
		{ "verdicts", "SELECT DISTINCT verdict AS v FROM comparison "
			      "ORDER BY 1" },
		{ "hosts", "SELECT name AS v FROM host ORDER BY 1" },
	};
	static const char metrics_sql[] =
		"SELECT DISTINCT workload, metric FROM comparison ORDER BY 1, 2";
	json_t *facets = json_object(), *rows = NULL, *vals, *row;
	struct sqlite3_stmt *st;
	size_t i, j;
	int ret = -1;

	if (db_json_read_begin(db))
		goto out;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (db_json_prepare(db, parts[i].sql, &st) ||
		    db_json_rows(db, st, NULL, &rows))
			goto out;
		vals = json_array();
		json_array_foreach(rows, j, row)
			json_array_append(vals, json_object_get(row, "v"));
		json_object_set_new(facets, parts[i].key, vals);
		json_decref(rows);
		rows = NULL;
	}
	if (db_json_prepare(db, metrics_sql, &st) ||
	    db_json_rows(db, st, NULL, &rows))
		goto out;
	json_object_set_new(facets, "metrics", rows);
	rows = NULL;
	*out = facets;
	facets = NULL;
	ret = 0;
out:
	db_json_read_end(db);
	json_decref(rows);
	json_decref(facets);
	return ret;
}
