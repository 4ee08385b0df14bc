/*
 * db_run.c - the run stage's SQL (see db_run.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_run.h"
#include "log.h"
#include "sample.h"

void db_run_images_release(struct db_run_images *im)
{
	free(im->image[0]);
	free(im->image[1]);
	memset(im, 0, sizeof(*im));
}

int db_run_images(struct db *db, long long series_id, const char *arch,
		  enum layout layout, struct db_run_images *im)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT sb.side = 'patched', b.id, b.image_path "
		"FROM series_build sb JOIN build b ON b.id = sb.build_id "
		"WHERE sb.series_id = ?1 AND sb.arch = ?2 AND sb.layout = ?3 "
		"AND b.status = 'ok' AND b.image_path IS NOT NULL");
	int rc;

	memset(im, 0, sizeof(*im));
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, arch);
	db_bind_text(st, 3, layout_str(layout));
	while ((rc = db_row(db, st, "run", "series %lld: images",
			    series_id)) > 0) {
		int side = db_column_int(st, 0);

		im->build_id[side] = db_column_int64(st, 1);
		free(im->image[side]);
		im->image[side] = db_column_strdup(st, 2);
	}
	db_reset(st);
	if (rc < 0) {
		db_run_images_release(im);
		return -1;
	}
	if (!im->image[0] || !im->image[1]) {
		db_run_images_release(im);
		return 1;
	}
	return 0;
}

void db_run_host_release(struct db_run_host *h)
{
	free(h->accel);
	memset(h, 0, sizeof(*h));
}

int db_run_host_sync(struct db *db, const char *name, const char *uri,
		     const char *arch, const char *accel, int capacity,
		     struct db_run_host *h)
{
	/* A probe stays valid while the host is the same machine. */
	struct sqlite3_stmt *up = db_stmt(db,
		"INSERT INTO host (name, uri, arch, accel, capacity) "
		"VALUES (?1, ?2, ?3, ?4, ?5) "
		"ON CONFLICT (name) DO UPDATE SET "
		" accel = CASE WHEN ?4 <> 'auto' THEN ?4 "
		"  WHEN uri = ?2 AND arch = ?3 THEN accel ELSE 'auto' END, "
		" probed_at = CASE WHEN uri = ?2 AND arch = ?3 "
		"  THEN probed_at END, "
		" uri = ?2, arch = ?3, capacity = ?5");
	struct sqlite3_stmt *sel;
	int rc;

	memset(h, 0, sizeof(*h));
	if (!up)
		return -1;
	db_bind_text(up, 1, name);
	db_bind_text(up, 2, uri);
	db_bind_text(up, 3, arch);
	db_bind_text(up, 4, accel);
	db_bind_int(up, 5, capacity);
	if (db_step_done(db, up, "run", "%s", name))
		return -1;
	sel = db_stmt(db, "SELECT id, accel, coalesce(probed_at, 0), "
		      "healthy FROM host WHERE name = ?1");
	if (!sel)
		return -1;
	db_bind_text(sel, 1, name);
	rc = db_row(db, sel, "run", "host %s", name);
	if (rc > 0) {
		h->id = db_column_int64(sel, 0);
		h->accel = db_column_strdup(sel, 1);
		h->probed_at = db_column_int64(sel, 2);
		h->healthy = db_column_int(sel, 3);
	}
	db_reset(sel);
	if (!rc)
		error("run", "host %s: not written", name);
	return rc > 0 ? 0 : -1;
}

int db_run_host_probed(struct db *db, long long host_id, const char *accel,
		       const char *cpu_model, unsigned int cpus,
		       unsigned long long memory_mib, const char *reason)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE host SET accel = coalesce(?2, accel), "
		"healthy = ?2 IS NOT NULL, health_reason = ?3, "
		"cpu_model = ?4, cpus = ?5, memory_mib = ?6, probed_at = ?7 "
		"WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, host_id);
	db_bind_text(st, 2, accel);
	db_bind_text(st, 3, accel ? NULL : reason);
	db_bind_text(st, 4, cpu_model);
	db_bind_int(st, 5, (int)cpus);
	db_bind_int(st, 6, (long long)memory_mib);
	db_bind_int(st, 7, (long long)time(NULL));
	return db_step_done(db, st, "run", "host probe");
}

int db_run_hosts_stale(struct db *db)
{
	return db_exec(db, "UPDATE host SET probed_at = NULL");
}

int db_run_host_unhealthy(struct db *db, long long host_id,
			  const char *reason)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE host SET healthy = 0, health_reason = ?2, "
		"probed_at = NULL WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, host_id);
	db_bind_text(st, 2, reason);
	return db_step_done(db, st, "run", "host health");
}

int db_run_interrupt(struct db *db, long long series_id, const char *arch,
		     int *n)
{
	struct sqlite3_stmt *boots = db_stmt(db,
		"UPDATE boot SET status = 'interrupted', status_reason = "
		"'the daemon stopped during the boot' "
		"WHERE status = 'running' AND run_id IN "
		"(SELECT id FROM run WHERE series_id = ?1 AND arch = ?2 "
		" AND status = 'running')");
	struct sqlite3_stmt *runs = db_stmt(db,
		"UPDATE run SET status = 'interrupted', finished_at = ?3 "
		"WHERE series_id = ?1 AND arch = ?2 AND status = 'running'");

	if (!boots || !runs || db_begin(db))
		return -1;
	db_bind_int(boots, 1, series_id);
	db_bind_text(boots, 2, arch);
	if (db_step_done(db, boots, "run", "interrupted boots"))
		goto fail;
	if (n)
		*n = db_changes(db);
	db_bind_int(runs, 1, series_id);
	db_bind_text(runs, 2, arch);
	db_bind_int(runs, 3, (long long)time(NULL));
	if (db_step_done(db, runs, "run", "interrupted runs"))
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}

int db_run_start(struct db *db, const struct db_run_design *d,
		 long long *run_id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO run (series_id, arch, accel, clock, seed, plan, "
		"started_at, alpha, max_per_side, layout) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");

	if (!st)
		return -1;
	db_bind_int(st, 1, d->series_id);
	db_bind_text(st, 2, d->arch);
	db_bind_text(st, 3, d->accel);
	db_bind_text(st, 4, d->clock);
	db_bind_int(st, 5, (long long)d->seed);
	db_bind_text(st, 6, d->plan);
	db_bind_int(st, 7, (long long)time(NULL));
	db_bind_double(st, 8, d->alpha);
	db_bind_int(st, 9, (int)d->max_per_side);
	db_bind_text(st, 10, layout_str(d->layout));
	if (db_step_done(db, st, "run", "run row"))
		return -1;
	*run_id = db_last_insert_id(db);
	return 0;
}

int db_run_finish(struct db *db, long long run_id, const char *status,
		  unsigned int rounds)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE run SET status = ?2, rounds = ?3, finished_at = ?4 "
		"WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, run_id);
	db_bind_text(st, 2, status);
	db_bind_int(st, 3, (int)rounds);
	db_bind_int(st, 4, (long long)time(NULL));
	return db_step_done(db, st, "run", "run result");
}

int db_run_boot_start(struct db *db, const struct db_run_boot *b)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO boot (series_id, build_id, host_id, side, seq, "
		"status, console_path, run_id, round, attempt, nonce, "
		"started_at, calibration_id) VALUES (?1, ?2, ?3, ?4, ?5, "
		"'running', ?6, ?7, ?8, ?9, ?10, ?11, ?12)");

	if (!st)
		return -1;
	db_bind_id_or_null(st, 1, b->series_id);
	db_bind_int(st, 2, b->build_id);
	db_bind_id_or_null(st, 3, b->host_id);
	db_bind_text(st, 4, b->side);
	db_bind_int(st, 5, (int)b->seq);
	db_bind_text(st, 6, b->console_path);
	db_bind_id_or_null(st, 7, b->run_id);
	db_bind_int(st, 8, (int)b->round);
	db_bind_int(st, 9, b->attempt);
	db_bind_text(st, 10, b->nonce);
	db_bind_int(st, 11, (long long)time(NULL));
	db_bind_id_or_null(st, 12, b->calibration_id);
	return db_step_done(db, st, "run", "boot row");
}

static int insert_samples(struct db *db, long long boot_id,
			  const struct sample *s, size_t n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO sample (boot_id, workload, metric, params, "
		"iteration, value, unit, direction, is_primary) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < n; i++) {
		db_bind_int(st, 1, boot_id);
		db_bind_text(st, 2, s[i].workload);
		db_bind_text(st, 3, s[i].metric);
		db_bind_text(st, 4, s[i].params);
		db_bind_int(st, 5, s[i].iteration);
		db_bind_double(st, 6, s[i].value);
		db_bind_text(st, 7, s[i].unit);
		db_bind_text(st, 8, s[i].direction ==
			     STATS_HIGHER_IS_BETTER ? "higher" : "lower");
		db_bind_int(st, 9, s[i].primary);
		if (db_step_done(db, st, "run", "sample row"))
			return -1;
	}
	return 0;
}

int db_run_boot_finish(struct db *db, const char *nonce, const char *status,
		       const char *reason, const char *domain,
		       long long duration_ms, const struct sample *samples,
		       size_t n)
{
	struct sqlite3_stmt *up = db_stmt(db,
		"UPDATE boot SET status = ?2, status_reason = ?3, "
		"domain = ?4, duration_ms = ?5 WHERE nonce = ?1 "
		"RETURNING id");
	long long boot_id = 0;
	int rc;

	if (!up || db_begin(db))
		return -1;
	db_bind_text(up, 1, nonce);
	db_bind_text(up, 2, status);
	db_bind_text(up, 3, reason);
	db_bind_text(up, 4, domain);
	db_bind_int(up, 5, duration_ms);
	/* RETURNING: the update is complete once the rows are read. */
	while ((rc = db_row(db, up, "run", "boot %s", nonce)) > 0)
		boot_id = db_column_int64(up, 0);
	db_reset(up);
	if (rc < 0)
		goto fail;
	if (!boot_id) {
		error("run", "boot %s: no such boot", nonce);
		goto fail;
	}
	if (insert_samples(db, boot_id, samples, n))
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return -1;
}
