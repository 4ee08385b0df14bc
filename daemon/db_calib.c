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
#include "log.h"
#include "sample.h"

int db_calib_start(struct db *db, const struct db_calib_design *d,
		   long long *id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO calibration (host_id, arch, accel, clock, plan, "
		"build_id, reason, seed, boots_per_side, alpha, budget, "
		"threshold_pct, min_samples, simulations, target, started_at, "
		"guest) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
		"?12, ?13, ?14, ?15, ?16, ?17)");

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
	db_bind_text(st, 17, d->guest);
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

int db_calib_state(struct db *db, long long host_id,
		   const struct db_calib_key *key, struct db_calib_state *out)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT EXISTS (SELECT 1 FROM calibration WHERE host_id = ?1 "
		" AND status = 'done'), "
		" d.build_id, d.finished_at, d.guest = ?6, "
		" (SELECT CASE WHEN status = 'failed' THEN finished_at END "
		"  FROM calibration WHERE host_id = ?1 AND arch = ?2 AND "
		"  accel = ?3 AND clock = ?4 AND plan = ?5 "
		"  ORDER BY id DESC LIMIT 1) "
		"FROM (SELECT 1) LEFT JOIN (SELECT build_id, finished_at, guest "
		" FROM calibration WHERE host_id = ?1 AND arch = ?2 AND "
		" accel = ?3 AND clock = ?4 AND plan = ?5 AND "
		" status = 'done' ORDER BY id DESC LIMIT 1) d");
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	db_bind_int(st, 1, host_id);
	db_bind_text(st, 2, key->arch);
	db_bind_text(st, 3, key->accel);
	db_bind_text(st, 4, key->clock);
	db_bind_text(st, 5, key->plan);
	db_bind_text(st, 6, key->guest);
	rc = db_row_one(db, st, "calibrate", "host", host_id);
	if (!rc) {
		out->host_known = db_column_int(st, 0);
		out->plan_known = !db_column_is_null(st, 1);
		out->build_id = db_column_int64(st, 1);
		out->finished_at = db_column_int64(st, 2);
		out->same_guest = db_column_int(st, 3);
		out->failed_at = db_column_int64(st, 4);
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
		" sb.side = 'base' AND sb.layout = 'as-built') ORDER BY b.id DESC LIMIT 1");
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
		      const long long *host_ids, size_t n,
		      const struct db_calib_key *key)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT OR IGNORE INTO run_calibration (run_id, "
		"calibration_id) SELECT ?1, id FROM calibration WHERE "
		"host_id = ?2 AND arch = ?3 AND accel = ?4 AND clock = ?5 AND "
		"plan = ?6 AND guest = ?7 AND status = 'done' "
		"ORDER BY id DESC LIMIT 1");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < n; i++) {
		db_bind_int(st, 1, run_id);
		db_bind_int(st, 2, host_ids[i]);
		db_bind_text(st, 3, key->arch);
		db_bind_text(st, 4, key->accel);
		db_bind_text(st, 5, key->clock);
		db_bind_text(st, 6, key->plan);
		db_bind_text(st, 7, key->guest);
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
