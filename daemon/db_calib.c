/*
 * db_calib.c - the SQL of A/A calibrations (see db_calib.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "db.h"
#include "db_calib.h"
#include "db_json.h"
#include "log.h"
#include "sample.h"

int db_calib_start(struct db *db, const struct db_calib_design *d,
		   long long *id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO calibration (host_id, arch, accel, clock, plan, "
		"build_id, reason, seed, boots_per_side, alpha, budget, "
		"threshold_pct, min_samples, simulations, target, started_at) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		"?13, ?14, ?15, ?16)");

	if (!st)
		return -1;
	db_bind_int(st, 1, d->host_id);
	db_bind_text(st, 2, d->arch);
	db_bind_text(st, 3, d->accel);
	db_bind_text(st, 4, d->clock);
	db_bind_text(st, 5, d->plan);
	db_bind_int(st, 6, d->build_id);
	db_bind_text(st, 7, d->reason);
	db_bind_int(st, 8, (long long)(d->seed & INT64_MAX));
	db_bind_int(st, 9, (int)d->boots_per_side);
	db_bind_double(st, 10, d->alpha);
	db_bind_int(st, 11, (int)d->budget);
	db_bind_double(st, 12, d->threshold_pct);
	db_bind_int(st, 13, (int)d->min_samples);
	db_bind_int(st, 14, (int)d->simulations);
	db_bind_double(st, 15, d->target);
	db_bind_int(st, 16, (long long)time(NULL));
	if (db_step_done(db, st, "calibrate", "calibration row"))
		return -1;
	*id = db_last_insert_id(db);
	return 0;
}

/* A fraction as a percentage column; NAN is NULL. */
static void bind_pct(struct sqlite3_stmt *st, int i, double fraction)
{
	db_bind_real(st, i, fraction * 100);
}

static int insert_metrics(struct db *db, long long id,
			  const struct calib_data *d,
			  const struct calib_result *r)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO calibration_metric (calibration_id, workload, "
		"metric, params, unit, direction, is_primary, n, median, cv, "
		"comparisons, false_alarms, significant, stop_mean, "
		"real_comparisons, real_false_alarms, real_verdict, "
		"resolve_pct, alarm_pct, threshold_pct, detectable_pct) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		"?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < d->nm; i++) {
		const struct calib_metric *m = &d->m[i];

		db_bind_int(st, 1, id);
		db_bind_text(st, 2, m->workload);
		db_bind_text(st, 3, m->metric);
		db_bind_text(st, 4, m->params);
		db_bind_text(st, 5, m->unit);
		db_bind_text(st, 6, m->direction == STATS_HIGHER_IS_BETTER
				  ? "higher" : "lower");
		db_bind_int(st, 7, m->primary);
		db_bind_int(st, 8, (long long)r[i].n);
		db_bind_real(st, 9, r[i].median);
		db_bind_real(st, 10, r[i].cv);
		db_bind_int(st, 11, (long long)r[i].comparisons);
		db_bind_int(st, 12, (long long)r[i].false_alarms);
		db_bind_int(st, 13, (long long)r[i].significant);
		db_bind_real(st, 14, r[i].stop_mean);
		db_bind_int(st, 15, (long long)r[i].real_comparisons);
		db_bind_int(st, 16, (long long)r[i].real_false_alarms);
		db_bind_text(st, 17, r[i].have_real ?
				     stats_verdict_str(r[i].real_verdict) :
				     NULL);
		bind_pct(st, 18, r[i].resolve);
		bind_pct(st, 19, r[i].alarm);
		bind_pct(st, 20, r[i].threshold);
		bind_pct(st, 21, r[i].detectable);
		if (db_step_done(db, st, "calibrate", "metric row"))
			return -1;
	}
	return 0;
}

int db_calib_done(struct db *db, long long id, const struct calib_data *d,
		  const struct calib_result *r, double boot_ms)
{
	struct sqlite3_stmt *st;

	if (db_begin(db))
		return -1;
	if (insert_metrics(db, id, d, r))
		goto fail;
	st = db_stmt(db, "UPDATE calibration SET status = 'done', "
		     "boot_ms = ?2, finished_at = ?3 WHERE id = ?1");
	if (!st)
		goto fail;
	db_bind_int(st, 1, id);
	if (isfinite(boot_ms))
		db_bind_int(st, 2, (long long)boot_ms);
	else
		db_bind_null(st, 2);
	db_bind_int(st, 3, (long long)time(NULL));
	if (db_step_done(db, st, "calibrate", "calibration done"))
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int db_calib_end(struct db *db, long long id, const char *status,
		 const char *reason)
{
	struct sqlite3_stmt *boots = db_stmt(db,
		"UPDATE boot SET status = 'interrupted', status_reason = "
		"'the calibration ended during the boot' "
		"WHERE calibration_id = ?1 AND status = 'running'");
	struct sqlite3_stmt *cal = db_stmt(db,
		"UPDATE calibration SET status = ?2, status_reason = ?3, "
		"finished_at = ?4 WHERE id = ?1");

	if (!boots || !cal || db_begin(db))
		return -1;
	db_bind_int(boots, 1, id);
	if (db_step_done(db, boots, "calibrate", "interrupted boots"))
		goto fail;
	db_bind_int(cal, 1, id);
	db_bind_text(cal, 2, status);
	db_bind_text(cal, 3, reason);
	db_bind_int(cal, 4, (long long)time(NULL));
	if (db_step_done(db, cal, "calibrate", "calibration end"))
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int db_calib_interrupt(struct db *db, const char *arch, int *n)
{
	struct sqlite3_stmt *boots = db_stmt(db,
		"UPDATE boot SET status = 'interrupted', status_reason = "
		"'the daemon stopped during the boot' "
		"WHERE status = 'running' AND calibration_id IN "
		"(SELECT id FROM calibration WHERE arch = ?1 AND "
		" status = 'running')");
	struct sqlite3_stmt *cal = db_stmt(db,
		"UPDATE calibration SET status = 'interrupted', status_reason "
		"= 'the daemon stopped during it', finished_at = ?2 "
		"WHERE arch = ?1 AND status = 'running'");

	if (!boots || !cal || db_begin(db))
		return -1;
	db_bind_text(boots, 1, arch);
	if (db_step_done(db, boots, "calibrate", "interrupted boots"))
		goto fail;
	db_bind_text(cal, 1, arch);
	db_bind_int(cal, 2, (long long)time(NULL));
	if (db_step_done(db, cal, "calibrate", "interrupted calibrations"))
		goto fail;
	if (n)
		*n = db_changes(db);
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int db_calib_state(struct db *db, long long host_id, const char *arch,
		   const char *accel, const char *clock, const char *plan,
		   struct db_calib_state *out)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT EXISTS (SELECT 1 FROM calibration WHERE host_id = ?1 "
		" AND status = 'done'), "
		" d.build_id, d.finished_at, "
		" (SELECT CASE WHEN status = 'failed' THEN finished_at END "
		"  FROM calibration WHERE host_id = ?1 AND arch = ?2 AND "
		"  accel = ?3 AND clock = ?4 AND plan = ?5 "
		"  ORDER BY id DESC LIMIT 1) "
		"FROM (SELECT 1) LEFT JOIN (SELECT build_id, finished_at "
		" FROM calibration WHERE host_id = ?1 AND arch = ?2 AND "
		" accel = ?3 AND clock = ?4 AND plan = ?5 AND "
		" status = 'done' ORDER BY id DESC LIMIT 1) d");
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	db_bind_int(st, 1, host_id);
	db_bind_text(st, 2, arch);
	db_bind_text(st, 3, accel);
	db_bind_text(st, 4, clock);
	db_bind_text(st, 5, plan);
	rc = db_row_one(db, st, "calibrate", "host", host_id);
	if (!rc) {
		out->host_known = db_column_int(st, 0);
		out->plan_known = !db_column_is_null(st, 1);
		out->build_id = db_column_int64(st, 1);
		out->finished_at = db_column_int64(st, 2);
		out->failed_at = db_column_int64(st, 3);
	}
	db_reset(st);
	return rc;
}

int db_calib_base(struct db *db, const char *arch, long long *build_id,
		  char **image)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT b.id, b.image_path FROM build b WHERE b.arch = ?1 AND "
		"b.status = 'ok' AND b.image_path IS NOT NULL AND EXISTS "
		"(SELECT 1 FROM series_build sb WHERE sb.build_id = b.id AND "
		" sb.side = 'base') ORDER BY b.id DESC LIMIT 1");
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, arch);
	rc = db_row(db, st, "calibrate", "%s: base", arch);
	if (rc > 0) {
		*build_id = db_column_int64(st, 0);
		*image = db_column_strdup(st, 1);
	}
	db_reset(st);
	return rc < 0 ? -1 : !rc;
}

int db_calib_build_of(struct db *db, const char *image, long long *build_id)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT id FROM build WHERE "
				   "image_path = ?1 AND status = 'ok' "
				   "ORDER BY id DESC LIMIT 1");
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, image);
	rc = db_row(db, st, "calibrate", "%s: build", image);
	if (rc > 0)
		*build_id = db_column_int64(st, 0);
	db_reset(st);
	return rc < 0 ? -1 : !rc;
}

int db_calib_idle(struct db *db, int idle_s, int *idle)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT NOT EXISTS (SELECT 1 FROM job WHERE kind != "
		"'calibrate' AND (state IN ('queued', 'running') OR "
		"updated_at > ?1))");
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, (long long)time(NULL) - idle_s);
	rc = db_row(db, st, "calibrate", "idle");
	if (rc > 0)
		*idle = db_column_int(st, 0);
	db_reset(st);
	return rc > 0 ? 0 : -1;
}

int db_calib_queue(struct db *db, const char *arch, int *queued)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO job (kind, arch, created_at, updated_at) "
		"SELECT 'calibrate', ?1, ?2, ?2 WHERE NOT EXISTS (SELECT 1 "
		"FROM job WHERE kind = 'calibrate' AND arch = ?1 AND "
		"state IN ('queued', 'running'))");

	if (!st)
		return -1;
	db_bind_text(st, 1, arch);
	db_bind_int(st, 2, (long long)time(NULL));
	if (db_step_done(db, st, "calibrate", "queue"))
		return -1;
	*queued = db_changes(db) > 0;
	return 0;
}

int db_calib_link_run(struct db *db, long long run_id,
		      const long long *host_ids, size_t n, const char *arch,
		      const char *accel, const char *clock, const char *plan)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT OR IGNORE INTO run_calibration (run_id, "
		"calibration_id) SELECT ?1, id FROM calibration WHERE "
		"host_id = ?2 AND arch = ?3 AND accel = ?4 AND clock = ?5 AND "
		"plan = ?6 AND status = 'done' ORDER BY id DESC LIMIT 1");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < n; i++) {
		db_bind_int(st, 1, run_id);
		db_bind_int(st, 2, host_ids[i]);
		db_bind_text(st, 3, arch);
		db_bind_text(st, 4, accel);
		db_bind_text(st, 5, clock);
		db_bind_text(st, 6, plan);
		if (db_step_done(db, st, "calibrate", "run link"))
			return -1;
	}
	return 0;
}

int db_calib_for_run(struct db *db, long long run_id, struct calib_table *t)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT m.calibration_id, m.workload, m.metric, m.params, "
		"max(coalesce(m.resolve_pct, 0), coalesce(m.alarm_pct, 0)), "
		"m.cv, m.n, m.false_alarms > c.target * m.comparisons OR "
		"m.real_false_alarms > 0 "
		"FROM run_calibration rc JOIN calibration c ON "
		"c.id = rc.calibration_id JOIN calibration_metric m ON "
		"m.calibration_id = c.id WHERE rc.run_id = ?1 "
		"ORDER BY m.calibration_id");
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, run_id);
	while ((rc = db_row(db, st, "calibrate", "run %lld: calibrations",
			    run_id)) > 0) {
		struct sample k = {
			.workload = (char *)db_column_text(st, 1),
			.metric = (char *)db_column_text(st, 2),
			.params = (char *)db_column_text(st, 3),
		};
		struct calib_entry e;

		if (!k.workload || !k.metric || !k.params)
			continue;
		e.key = sample_key(&k);
		e.calibration_id = db_column_int64(st, 0);
		e.floor = db_column_double(st, 4) / 100;
		e.cv = db_column_is_null(st, 5) ? 0 : db_column_double(st, 5);
		e.n = (size_t)db_column_int64(st, 6);
		e.failed = db_column_int(st, 7);
		calib_table_add(t, &e);
		free(e.key);
	}
	db_reset(st);
	return rc;
}

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
		"SELECT c.id, c.arch, c.accel, c.clock, c.plan, c.reason, "
		"c.build_id, b.commit_id AS base_commit, c.seed, "
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
