/*
 * db_analyze.c - the analyze stage's SQL (see db_analyze.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "db.h"
#include "db_analyze.h"
#include "log.h"

void db_analyze_runs_free(struct db_analyze_run *runs, size_t n)
{
	size_t i;

	for (i = 0; runs && i < n; i++) {
		free(runs[i].arch);
		free(runs[i].status);
		free(runs[i].looks);
	}
	free(runs);
}

/* The looks of run r, as the runner took them after each round. */
static int read_looks(struct db *db, struct db_analyze_run *r)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT sum(side = 'base'), sum(side = 'patched') FROM boot "
		"WHERE run_id = ?1 AND status = 'ok' AND round IS NOT NULL "
		"GROUP BY round ORDER BY round");
	size_t base = 0, patched = 0;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, r->id);
	while ((rc = db_row(db, st, "analyze", "run %lld: rounds",
			    r->id)) > 0) {
		base += (size_t)db_column_int64(st, 0);
		patched += (size_t)db_column_int64(st, 1);
		if (!base || !patched)
			continue;	/* the runner stops; no look */
		ALLOC_GROW(r->looks, r->nlooks + 1, r->alloc_looks);
		r->looks[r->nlooks++] = base < patched ? base : patched;
	}
	db_reset(st);
	return rc;
}

int db_analyze_runs(struct db *db, long long series_id,
		    enum layout layout, struct db_analyze_run **runs,
		    size_t *n)
{
	/* A boot that failed: finished, but not ok. */
#define FAILED "status NOT IN ('ok', 'running', 'queued')"
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT a.arch, r.id, r.status, "
		" (SELECT CASE WHEN count(DISTINCT host_id) = 1 "
		"  THEN min(host_id) END FROM boot "
		"  WHERE run_id = r.id AND status = 'ok'), "
		" (SELECT count(*) FROM boot WHERE run_id = r.id AND "
		"  side = 'base' AND status = 'ok'), "
		" (SELECT count(*) FROM boot WHERE run_id = r.id AND "
		"  side = 'patched' AND status = 'ok'), "
		" (SELECT count(*) FROM boot WHERE run_id = r.id AND "
		"  side = 'base' AND " FAILED "), "
		" (SELECT count(*) FROM boot WHERE run_id = r.id AND "
		"  side = 'patched' AND " FAILED "), "
		" (SELECT count(*) FROM run WHERE series_id = ?1 AND "
		"  layout = ?2 AND arch = a.arch AND "
		"  status IN ('running', 'interrupted')), "
		" coalesce(r.alpha, 0), coalesce(r.max_per_side, 0), "
		" r.clock = 'instructions' "
		"FROM (SELECT DISTINCT arch FROM run WHERE series_id = ?1 "
		" AND layout = ?2) a "
		"LEFT JOIN run r ON r.id = (SELECT id FROM run "
		" WHERE series_id = ?1 AND layout = ?2 AND arch = a.arch AND "
		" status NOT IN ('running', 'interrupted') "
		" ORDER BY id DESC LIMIT 1) "
		"ORDER BY a.arch DESC");
#undef FAILED
	struct db_analyze_run *v = NULL, *r;
	size_t count = 0, alloc = 0, i;
	int rc, ret = -1;

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, layout_str(layout));
	while ((rc = db_row(db, st, "analyze", "series %lld: runs",
			    series_id)) > 0) {
		ALLOC_GROW(v, count + 1, alloc);
		r = &v[count++];
		memset(r, 0, sizeof(*r));
		r->arch = db_column_strdup(st, 0);
		r->id = db_column_int64(st, 1);
		r->status = db_column_strdup(st, 2);
		r->host_id = db_column_int64(st, 3);
		r->ok[0] = db_column_int(st, 4);
		r->ok[1] = db_column_int(st, 5);
		r->failed[0] = db_column_int(st, 6);
		r->failed[1] = db_column_int(st, 7);
		r->ignored = db_column_int(st, 8);
		r->alpha = db_column_double(st, 9);
		r->max_per_side = (size_t)db_column_int64(st, 10);
		r->repeatable = db_column_int(st, 11);
	}
	if (rc < 0) {
		db_analyze_runs_free(v, count);
		goto out;
	}
	db_reset(st);
	for (i = 0; i < count; i++)
		if (v[i].id && read_looks(db, &v[i])) {
			db_analyze_runs_free(v, count);
			return -1;
		}
	*runs = v;
	*n = count;
	ret = 0;
out:
	db_reset(st);
	return ret;
}

int db_analyze_samples(struct db *db, long long run_id,
		       int (*fn)(void *arg, const struct db_analyze_sample *s),
		       void *arg)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT s.workload, s.metric, s.params, s.unit, s.direction, "
		"b.side = 'patched', s.boot_id, s.value, s.is_primary "
		"FROM boot b JOIN sample s ON s.boot_id = b.id "
		"WHERE b.run_id = ?1 AND b.status = 'ok' "
		"ORDER BY s.workload, s.metric, s.params, s.boot_id, "
		"s.iteration, s.id");
	struct db_analyze_sample s;
	int rc, ret = -1;

	if (!st)
		return -1;
	db_bind_int(st, 1, run_id);
	while ((rc = db_row(db, st, "analyze", "run %lld: samples",
			    run_id)) > 0) {
		s.workload = db_column_text(st, 0);
		s.metric = db_column_text(st, 1);
		s.params = db_column_text(st, 2);
		s.unit = db_column_text(st, 3);
		s.direction = db_column_text(st, 4);
		s.patched = db_column_int(st, 5);
		s.boot_id = db_column_int64(st, 6);
		s.value = db_column_double(st, 7);
		s.primary = db_column_int(st, 8);
		/* The columns are NOT NULL; a NULL here is out of memory. */
		if (!s.workload || !s.metric || !s.params || !s.unit ||
		    !s.direction) {
			error("analyze", "run %lld: a sample without a name",
			      run_id);
			goto out;
		}
		if (fn(arg, &s)) {
			ret = 1;
			goto out;
		}
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	db_reset(st);
	return ret;
}

int db_analyze_store(struct db *db, long long series_id,
		     const struct db_comparison *rows, size_t n)
{
	struct sqlite3_stmt *del, *ins;
	size_t i;

	if (db_begin(db))
		return -1;
	del = db_stmt(db, "DELETE FROM comparison WHERE series_id = ?1");
	if (!del)
		goto fail;
	db_bind_int(del, 1, series_id);
	if (db_step_done(db, del, "analyze", "delete comparisons"))
		goto fail;
	ins = db_stmt(db, "INSERT INTO comparison (series_id, arch, run_id, "
		      "host_id, workload, metric, params, unit, direction, "
		      "n_base, n_new, median_base, median_new, change_pct, "
		      "ci_low_pct, ci_high_pct, p_value, p_adjusted, p_holm, "
		      "verdict, flags, is_primary, ci_level, threshold_pct, "
		      "calibration_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
		      "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
		      "?19, ?20, ?21, ?22, ?23, ?24, ?25)");
	if (!ins)
		goto fail;
	for (i = 0; i < n; i++) {
		const struct db_comparison *c = &rows[i];

		db_bind_int(ins, 1, series_id);
		db_bind_text(ins, 2, c->arch);
		db_bind_int(ins, 3, c->run_id);
		if (c->host_id)
			db_bind_int(ins, 4, c->host_id);
		else
			db_bind_null(ins, 4);
		db_bind_text(ins, 5, c->workload);
		db_bind_text(ins, 6, c->metric);
		db_bind_text(ins, 7, c->params);
		db_bind_text(ins, 8, c->unit);
		db_bind_text(ins, 9, c->direction);
		db_bind_int(ins, 10, c->n_base);
		db_bind_int(ins, 11, c->n_new);
		db_bind_real(ins, 12, c->median_base);
		db_bind_real(ins, 13, c->median_new);
		db_bind_real(ins, 14, c->change_pct);
		db_bind_real(ins, 15, c->ci_low_pct);
		db_bind_real(ins, 16, c->ci_high_pct);
		db_bind_real(ins, 17, c->p_value);
		db_bind_real(ins, 18, c->p_adjusted);
		db_bind_real(ins, 19, c->p_holm);
		db_bind_text(ins, 20, c->verdict);
		db_bind_text(ins, 21, c->flags);
		db_bind_int(ins, 22, c->is_primary);
		db_bind_real(ins, 23, c->ci_level);
		db_bind_real(ins, 24, c->threshold_pct);
		db_bind_id_or_null(ins, 25, c->calibration_id);
		if (db_step_done(db, ins, "analyze", "insert comparison"))
			goto fail;
	}
	if (db_commit(db))
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}
