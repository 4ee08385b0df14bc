/*
 * db_calib_json.c - a host's calibrations as the API serves them (see
 * db_calib_json.h): the newest done one per (arch, accel, clock, plan)
 * with its metrics and published false alarms, and the newest of any
 * status; one metric's noise on an arch's hosts for the trends.
 */
#include "db.h"
#include "db_calib_json.h"
#include "db_json.h"

/* The published false alarms of one current calibration (see the .h). */
static int published(struct db *db, json_t *cal)
{
	static const char sim_sql[] =
		"SELECT c.target, sum(m.comparisons) AS comparisons, "
		"sum(m.false_alarms) AS false_alarms, "
		"max(CAST(m.false_alarms AS REAL) / "
		"    max(m.comparisons, 1)) AS max_rate, "
		"sum(m.false_alarms > c.target * m.comparisons) AS "
		"metrics_over_target FROM calibration c JOIN "
		"calibration_metric m ON m.calibration_id = c.id "
		"WHERE c.id = ?1";
	static const char real_sql[] =
		"SELECT coalesce(sum(m.real_comparisons), 0) AS comparisons, "
		"coalesce(sum(m.real_false_alarms), 0) AS false_alarms, "
		"count(DISTINCT c.id) AS calibrations "
		"FROM calibration x JOIN calibration c ON "
		"c.host_id = x.host_id AND c.arch = x.arch AND "
		"c.accel = x.accel AND c.clock = x.clock AND c.plan = x.plan "
		"AND c.status = 'done' AND c.id <= x.id "
		"JOIN calibration_metric m ON m.calibration_id = c.id "
		"WHERE x.id = ?1";
	json_int_t id = json_integer_value(json_object_get(cal, "id"));
	json_t *sim = NULL, *real = NULL, *s, *r;

	if (db_json_rows_by_id(db, sim_sql, id, &sim) ||
	    db_json_rows_by_id(db, real_sql, id, &real)) {
		json_decref(sim);
		return -1;
	}
	s = json_array_get(sim, 0);
	r = json_array_get(real, 0);
	json_object_set_new(cal, "false_alarms", json_pack(
		"{s:O,s:{s:O,s:O,s:O,s:O},s:O}", "target",
		json_object_get(s, "target"), "simulated", "comparisons",
		json_object_get(s, "comparisons"), "false_alarms",
		json_object_get(s, "false_alarms"), "max_rate",
		json_object_get(s, "max_rate"), "metrics_over_target",
		json_object_get(s, "metrics_over_target"), "real", r));
	json_decref(sim);
	json_decref(real);
	return 0;
}

int db_calib_host_json(struct db *db, long long host_id, json_t **out)
{
	static const char current_sql[] =
		"SELECT c.id, c.arch, c.accel, c.clock, c.plan, c.guest, "
		"c.reason, c.build_id, b.commit_id AS base_commit, c.seed, "
		"c.boots_per_side, c.budget, c.alpha, c.threshold_pct, "
		"c.min_samples, c.simulations, c.target, c.boot_ms, "
		"c.started_at, c.finished_at FROM calibration c "
		"LEFT JOIN build b ON b.id = c.build_id WHERE c.id IN "
		"(SELECT max(id) FROM calibration WHERE host_id = ?1 AND "
		" status = 'done' GROUP BY arch, accel, clock, plan) "
		"ORDER BY c.arch DESC, c.clock, c.id";
	static const char metrics_sql[] =
		"SELECT workload, metric, params, unit, direction, "
		"is_primary, n, median, cv, comparisons, false_alarms, "
		"significant, stop_mean, real_comparisons, real_false_alarms, "
		"real_verdict, resolve_pct, alarm_pct, threshold_pct, "
		"detectable_pct FROM calibration_metric "
		"WHERE calibration_id = ?1 ORDER BY workload, metric, params";
	static const char last_sql[] =
		"SELECT id, status, status_reason, reason, arch, clock, "
		"started_at, finished_at FROM calibration WHERE host_id = ?1 "
		"ORDER BY id DESC LIMIT 1";
	json_t *current = NULL, *last = NULL, *c, *metrics;
	size_t i;

	*out = NULL;
	if (db_json_rows_by_id(db, current_sql, host_id, &current) ||
	    db_json_rows_by_id(db, last_sql, host_id, &last))
		goto fail;
	json_array_foreach(current, i, c) {
		if (db_json_rows_by_id(db, metrics_sql, json_integer_value(
				       json_object_get(c, "id")), &metrics))
			goto fail;
		db_json_parse_member(metrics, "params");
		json_object_set_new(c, "metrics", metrics);
		if (published(db, c))
			goto fail;
	}
	if (json_array_size(last))
		*out = json_pack("{s:o,s:O}", "current", current, "last",
				 json_array_get(last, 0));
	else
		json_decref(current);
	json_decref(last);
	return 0;
fail:
	json_decref(current);
	json_decref(last);
	return -1;
}

int db_calib_noise_json(struct db *db, const char *arch, const char *host,
			const char *workload, const char *metric,
			json_t **out)
{
	static const char sql[] =
		"SELECT c.id AS calibration, h.name AS host, c.arch, c.accel, "
		"c.clock, c.plan, m.params, m.unit, m.direction, "
		"m.is_primary, m.n, m.median, m.cv, m.resolve_pct, "
		"m.alarm_pct, m.threshold_pct, m.detectable_pct, "
		"c.boots_per_side, c.build_id, b.commit_id AS base_commit, "
		"c.started_at, c.finished_at FROM calibration c "
		"JOIN host h ON h.id = c.host_id "
		"JOIN calibration_metric m ON m.calibration_id = c.id "
		"LEFT JOIN build b ON b.id = c.build_id "
		"WHERE c.id IN (SELECT max(x.id) FROM calibration x "
		" JOIN host xh ON xh.id = x.host_id WHERE x.arch = ?1 AND "
		" x.status = 'done' AND (?2 IS NULL OR xh.name = ?2) "
		" GROUP BY x.host_id, x.accel, x.clock, x.plan) "
		"AND m.workload = ?3 AND m.metric = ?4 "
		"ORDER BY h.name, c.clock, c.id DESC, m.params LIMIT ?5";
	struct sqlite3_stmt *st = NULL;
	json_t *rows = json_array();
	int ret = -1;

	*out = NULL;
	if (db_json_prepare(db, sql, &st))
		goto out;
	db_bind_text(st, 1, arch);
	db_bind_text(st, 2, host);
	db_bind_text(st, 3, workload);
	db_bind_text(st, 4, metric);
	db_bind_int(st, 5, DB_CALIB_NOISE_MAX);
	if (db_json_collect(db, st, rows))
		goto out;
	db_json_parse_member(rows, "params");
	if (json_array_size(rows)) {
		*out = rows;
		rows = NULL;
	}
	ret = 0;
out:
	db_json_done(st);
	json_decref(rows);
	return ret;
}
