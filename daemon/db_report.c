/*
 * db_report.c - the report stage's SQL (see db_report.h).
 *
 * db_report_load() copies what it reads into the struct's own strings, so
 * that the pure report.c can be handed plain structs; a read transaction
 * keeps the series, its runs and its comparisons one snapshot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "db.h"
#include "db_report.h"
#include "db_versions.h"
#include "jobq.h"
#include "log.h"
#include "stage_report.h"

/* --- loading -------------------------------------------------------------- */

/* A string kept by r: freed with it. */
static const char *kept(struct db_report *r, char *s)
{
	if (!s)
		return NULL;
	ALLOC_GROW(r->strs, r->nstrs + 1, r->astrs);
	r->strs[r->nstrs++] = s;
	return s;
}

/* A copy of column col kept by r; NULL for SQL NULL. */
static const char *keep(struct db_report *r, struct sqlite3_stmt *st, int col)
{
	return kept(r, db_column_strdup(st, col));
}

static double column_double(struct sqlite3_stmt *st, int col)
{
	return db_column_is_null(st, col) ? NAN :
	       db_column_double(st, col);
}

static int load_series(struct db *db, long long id, struct db_report *r)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT s.msgid, s.subject, s.author, s.source_url, s.version, "
		"s.total, s.status, s.status_reason, t.name, s.base_used, "
		"s.base_source, s.base_reason, s.apply_failed_patch, "
		"s.apply_failed_file, s.apply_failed_hunk, "
		"(SELECT subject FROM patch WHERE series_id = s.id AND "
		" idx = s.apply_failed_patch), s.list, "
		"(SELECT b.error_lines FROM series_build sb JOIN build b ON "
		" b.id = sb.build_id WHERE sb.series_id = s.id AND "
		" sb.layout = 'as-built' AND "
		" b.status NOT IN ('ok', 'queued', 'running') AND "
		" b.error_lines IS NOT NULL ORDER BY sb.side, sb.arch DESC "
		" LIMIT 1) "
		"FROM series s LEFT JOIN tree t ON t.id = s.tree_id "
		"WHERE s.id = ?1");
	struct report_series *s = &r->s;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	rc = db_row(db, st, "report", "series %lld: series", id);
	if (rc > 0) {
		s->id = id;
		s->msgid = keep(r, st, 0);
		s->subject = keep(r, st, 1);
		s->author = keep(r, st, 2);
		s->source_url = keep(r, st, 3);
		s->version = db_column_int(st, 4);
		s->total = db_column_int(st, 5);
		s->status = keep(r, st, 6);
		s->status_reason = keep(r, st, 7);
		s->tree = keep(r, st, 8);
		s->base = keep(r, st, 9);
		s->base_source = keep(r, st, 10);
		s->base_reason = keep(r, st, 11);
		s->apply_failed_patch = db_column_int(st, 12);
		s->apply_failed_file = keep(r, st, 13);
		s->apply_failed_hunk = keep(r, st, 14);
		s->apply_failed_subject = keep(r, st, 15);
		r->list = keep(r, st, 16);
		s->build_errors = keep(r, st, 17);
	}
	db_reset(st);
	if (!rc)
		return 1;
	return rc > 0 ? 0 : -1;
}

static int load_patches(struct db *db, long long id, struct db_report *r)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT idx, raw, length(raw) FROM "
				   "patch WHERE series_id = ?1 ORDER BY idx");
	size_t alloc = r->npatches;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	while ((rc = db_row(db, st, "report", "series %lld: patches",
			    id)) > 0) {
		struct db_report_patch *p;

		ALLOC_GROW(r->patches, r->npatches + 1, alloc);
		p = &r->patches[r->npatches++];
		memset(p, 0, sizeof(*p));
		p->idx = db_column_int(st, 0);
		p->raw = keep(r, st, 1);
		p->len = p->raw ? (size_t)db_column_int64(st, 2) : 0;
	}
	db_reset(st);
	return rc;
}

/* The runs the comparisons come from, x86_64 before arm64. */
static int load_runs(struct db *db, long long id, struct db_report *r)
{
#define FAILED "status NOT IN ('ok', 'running', 'queued')"
#define BOOTS(side, cond) "(SELECT count(*) FROM boot WHERE run_id = r.id " \
	"AND side = '" side "' AND " cond ")"
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT r.id, r.arch, r.accel, r.clock, r.status, r.plan, "
		"r.seed, r.rounds, " BOOTS("base", "status = 'ok'") ", "
		BOOTS("base", FAILED) ", " BOOTS("patched", "status = 'ok'")
		", " BOOTS("patched", FAILED) ", "
		"(SELECT CASE WHEN count(DISTINCT c.host_id) = 1 THEN "
		" min(h.name) END FROM comparison c JOIN host h ON "
		" h.id = c.host_id WHERE c.run_id = r.id), "
		"(SELECT CASE WHEN count(DISTINCT c.host_id) = 1 THEN "
		" min(h.cpu_model) END FROM comparison c JOIN host h ON "
		" h.id = c.host_id WHERE c.run_id = r.id), "
		"(SELECT coalesce(b.effective_config_hash, b.config_hash) "
		" FROM series_build sb JOIN build b ON b.id = sb.build_id "
		" WHERE sb.series_id = r.series_id AND sb.arch = r.arch AND "
		" sb.side = 'patched' AND sb.layout = r.layout) "
		"FROM run r WHERE r.id IN (SELECT DISTINCT run_id FROM "
		"comparison WHERE series_id = ?1) ORDER BY r.arch DESC, r.id");
#undef BOOTS
#undef FAILED
	size_t alloc = r->s.nruns;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	while ((rc = db_row(db, st, "report", "series %lld: runs",
			    id)) > 0) {
		struct report_run *u;

		ALLOC_GROW(r->runs, r->s.nruns + 1, alloc);
		u = &r->runs[r->s.nruns++];
		memset(u, 0, sizeof(*u));
		u->id = db_column_int64(st, 0);
		u->arch = keep(r, st, 1);
		u->accel = keep(r, st, 2);
		u->clock = keep(r, st, 3);
		u->status = keep(r, st, 4);
		u->plan = keep(r, st, 5);
		u->seed = db_column_int64(st, 6);
		u->rounds = db_column_int(st, 7);
		u->ok[0] = db_column_int(st, 8);
		u->failed[0] = db_column_int(st, 9);
		u->ok[1] = db_column_int(st, 10);
		u->failed[1] = db_column_int(st, 11);
		u->host = keep(r, st, 12);
		u->host_cpu = keep(r, st, 13);
		u->config_hash = keep(r, st, 14);
	}
	db_reset(st);
	r->s.runs = r->runs;
	return rc;
}

/* The published false alarms of the calibrations each run used. */
static int load_noise(struct db *db, struct db_report *r)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT count(DISTINCT c.id), coalesce(sum(m.comparisons), 0), "
		"coalesce(sum(m.false_alarms), 0), "
		"coalesce(sum(m.real_comparisons), 0), "
		"coalesce(sum(m.real_false_alarms), 0), max(c.target) "
		"FROM run_calibration rc JOIN calibration c ON "
		"c.id = rc.calibration_id JOIN calibration_metric m ON "
		"m.calibration_id = c.id WHERE rc.run_id = ?1");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < r->s.nruns; i++) {
		struct report_noise *n = &r->runs[i].noise;

		int rc;

		db_bind_int(st, 1, r->runs[i].id);
		rc = db_row_one(db, st, "report", "run", r->runs[i].id);
		if (!rc) {
			n->calibrations = db_column_int(st, 0);
			n->comparisons = db_column_int64(st, 1);
			n->false_alarms = db_column_int64(st, 2);
			n->real = db_column_int64(st, 3);
			n->real_false_alarms = db_column_int64(st, 4);
			n->target = column_double(st, 5);
		}
		db_reset(st);
		if (rc)
			return -1;
	}
	return 0;
}

/* The comparison rows of series id into *cmp (*n of them). */
static int load_comparisons(struct db *db, long long id,
			    struct db_report *r,
			    struct report_comparison **cmp, size_t *n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT arch, run_id, workload, metric, params, unit, "
		"direction, n_base, n_new, median_base, median_new, "
		"change_pct, ci_low_pct, ci_high_pct, ci_level, p_value, "
		"p_holm, verdict, flags, is_primary, threshold_pct, "
		"calibration_id, (SELECT m.cv FROM calibration_metric m "
		" WHERE m.calibration_id = c.calibration_id AND "
		" m.workload = c.workload AND m.metric = c.metric AND "
		" m.params = c.params), layout, layout_reason, "
		"verdict_as_built, layout_verdict, layout_change_pct, "
		"layout_ci_low_pct, layout_ci_high_pct FROM comparison c "
		"WHERE series_id = ?1 ORDER BY arch DESC, id");
	size_t alloc = *n;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	while ((rc = db_row(db, st, "report", "series %lld: comparisons",
			    id)) > 0) {
		struct report_comparison *c;

		ALLOC_GROW(*cmp, *n + 1, alloc);
		c = &(*cmp)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->arch = keep(r, st, 0);
		c->run_id = db_column_int64(st, 1);
		c->workload = keep(r, st, 2);
		c->metric = keep(r, st, 3);
		c->params = keep(r, st, 4);
		c->unit = keep(r, st, 5);
		c->direction = keep(r, st, 6);
		c->n_base = db_column_int64(st, 7);
		c->n_new = db_column_int64(st, 8);
		c->median_base = column_double(st, 9);
		c->median_new = column_double(st, 10);
		c->change_pct = column_double(st, 11);
		c->ci_low_pct = column_double(st, 12);
		c->ci_high_pct = column_double(st, 13);
		c->ci_level = column_double(st, 14);
		c->p = column_double(st, 15);
		c->p_holm = column_double(st, 16);
		c->verdict = keep(r, st, 17);
		c->flags = keep(r, st, 18);
		c->is_primary = db_column_int(st, 19);
		c->threshold_pct = column_double(st, 20);
		c->calibration_id = db_column_int64(st, 21);
		c->noise_cv = column_double(st, 22);
		c->layout = keep(r, st, 23);
		c->layout_reason = keep(r, st, 24);
		c->verdict_as_built = keep(r, st, 25);
		c->layout_verdict = keep(r, st, 26);
		c->layout_change_pct = column_double(st, 27);
		c->layout_ci_low_pct = column_double(st, 28);
		c->layout_ci_high_pct = column_double(st, 29);
	}
	db_reset(st);
	return rc;
}

/* A copy of v kept by r. */
static const char *keep_str(struct db_report *r, const char *v)
{
	return kept(r, v ? xstrdup(v) : NULL);
}

/*
 * The previous version's results (db_versions_since_previous(), the
 * link the fetch stage made), as comparison rows of its own.
 */
static int load_previous(struct db *db, long long id, struct db_report *r)
{
	struct db_versions_since since;
	size_t i, alloc = r->prev.ncmp;
	int ret = -1;

	if (db_versions_since_previous(db, id, &since))
		goto out;
	ret = 0;
	if (!since.previous_id)
		goto out;
	for (i = 0; i < since.n; i++) {
		const struct db_versions_metric *m = &since.metrics[i];
		struct report_comparison *c;

		if (!m->previous_verdict)
			continue;
		ALLOC_GROW(r->prev_cmp, r->prev.ncmp + 1, alloc);
		c = &r->prev_cmp[r->prev.ncmp++];
		memset(c, 0, sizeof(*c));
		c->arch = keep_str(r, m->arch);
		c->workload = keep_str(r, m->workload);
		c->metric = keep_str(r, m->metric);
		c->params = keep_str(r, m->params);
		c->unit = keep_str(r, m->unit ? m->unit : "");
		c->direction = keep_str(r, m->direction ? m->direction :
					"lower");
		c->verdict = keep_str(r, m->previous_verdict);
		c->flags = "";
		c->change_pct = m->previous_change_pct;
		c->ci_low_pct = m->previous_ci_low_pct;
		c->ci_high_pct = m->previous_ci_high_pct;
		c->median_base = c->median_new = c->p = c->p_holm = NAN;
		c->ci_level = c->threshold_pct = c->noise_cv = NAN;
	}
	r->prev.series_id = since.previous_id;
	r->prev.version = since.previous_version;
	r->prev.cmp = r->prev_cmp;
	r->s.prev = &r->prev;
out:
	db_versions_since_release(&since);
	return ret;
}

int db_report_load(struct db *db, long long series_id, struct db_report *r)
{
	struct sqlite3_stmt *begin = db_stmt(db, "BEGIN DEFERRED");
	int own = !db_in_transaction(db), ret = -1, rc;

	memset(r, 0, sizeof(*r));
	if (own && (!begin || db_step_done(db, begin, "report", "begin")))
		return -1;
	rc = load_series(db, series_id, r);
	if (rc) {
		ret = rc;
		goto out;
	}
	if (load_patches(db, series_id, r) || load_runs(db, series_id, r) ||
	    load_noise(db, r) ||
	    load_comparisons(db, series_id, r, &r->cmp, &r->s.ncmp) ||
	    load_previous(db, series_id, r))
		goto out;
	r->s.cmp = r->cmp;
	ret = 0;
out:
	if (own)
		db_rollback(db);
	if (ret)
		db_report_release(r);
	return ret;
}

void db_report_release(struct db_report *r)
{
	size_t i;

	for (i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->patches);
	free(r->runs);
	free(r->cmp);
	free(r->prev_cmp);
	memset(r, 0, sizeof(*r));
}

/* --- notifications -------------------------------------------------------- */

int db_report_add(struct db *db, const struct db_notification *n,
		  long long *id, int *added)
{
	struct sqlite3_stmt *ins = db_stmt(db,
		"INSERT INTO notification (series_id, version, kind, role, "
		"transport, recipients, message_id, subject, status, "
		"status_reason, message, created_at, updated_at) VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12) "
		"ON CONFLICT (series_id, kind, role, recipients) DO NOTHING");
	struct sqlite3_stmt *sel = db_stmt(db,
		"SELECT id FROM notification WHERE series_id = ?1 AND "
		"kind = ?2 AND role = ?3 AND recipients = ?4");
	int rc, ret = -1;

	if (!ins || !sel)
		return -1;
	db_bind_int(ins, 1, n->series_id);
	db_bind_int(ins, 2, n->version);
	db_bind_text(ins, 3, n->kind);
	db_bind_text(ins, 4, n->role);
	db_bind_text(ins, 5, n->transport);
	db_bind_text(ins, 6, n->recipients);
	db_bind_text(ins, 7, n->message_id);
	db_bind_text(ins, 8, n->subject);
	db_bind_text(ins, 9, n->status);
	db_bind_text(ins, 10, n->status_reason);
	db_bind_blob(ins, 11, n->message, n->message_len);
	db_bind_int(ins, 12, (long long)time(NULL));
	if (db_step_done(db, ins, "report", "adding a notification"))
		return -1;
	*added = db_changes(db) == 1;
	db_bind_int(sel, 1, n->series_id);
	db_bind_text(sel, 2, n->kind);
	db_bind_text(sel, 3, n->role);
	db_bind_text(sel, 4, n->recipients);
	rc = db_row(db, sel, "report", "series %lld: reading a notification "
		    "back", n->series_id);
	if (rc > 0) {
		*id = db_column_int64(sel, 0);
		ret = 0;
	} else if (!rc) {
		error("report", "series %lld: the notification is not there",
		      n->series_id);
	}
	db_reset(sel);
	return ret;
}

void db_report_rows_free(struct db_notification *rows, size_t n)
{
	size_t i;

	for (i = 0; rows && i < n; i++) {
		free((char *)rows[i].kind);
		free((char *)rows[i].role);
		free((char *)rows[i].transport);
		free((char *)rows[i].recipients);
		free((char *)rows[i].message_id);
		free((char *)rows[i].subject);
		free((char *)rows[i].status);
		free((char *)rows[i].status_reason);
		free((char *)rows[i].path);
		free((char *)rows[i].message);
	}
	free(rows);
}

int db_report_rows(struct db *db, long long series_id,
		   struct db_notification **rows, size_t *n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT id, version, kind, role, transport, recipients, "
		"message_id, subject, status, status_reason, path, message, "
		"length(message), attempts FROM notification "
		"WHERE series_id = ?1 ORDER BY id");
	struct db_notification *v = NULL;
	size_t count = 0, alloc = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	while ((rc = db_row(db, st, "report", "series %lld: notifications",
			    series_id)) > 0) {
		struct db_notification *r;

		ALLOC_GROW(v, count + 1, alloc);
		r = &v[count++];
		memset(r, 0, sizeof(*r));
		r->id = db_column_int64(st, 0);
		r->series_id = series_id;
		r->version = db_column_int(st, 1);
		r->kind = db_column_strdup(st, 2);
		r->role = db_column_strdup(st, 3);
		r->transport = db_column_strdup(st, 4);
		r->recipients = db_column_strdup(st, 5);
		r->message_id = db_column_strdup(st, 6);
		r->subject = db_column_strdup(st, 7);
		r->status = db_column_strdup(st, 8);
		r->status_reason = db_column_strdup(st, 9);
		r->path = db_column_strdup(st, 10);
		r->message = db_column_strdup(st, 11);
		r->message_len = (size_t)db_column_int64(st, 12);
		r->attempts = db_column_int(st, 13);
	}
	db_reset(st);
	if (rc < 0) {
		db_report_rows_free(v, count);
		return -1;
	}
	*rows = v;
	*n = count;
	return 0;
}

int db_report_set(struct db *db, long long id, const char *status,
		  const char *reason, int attempt, const char *path)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE notification SET status = ?2, status_reason = ?3, "
		"attempts = attempts + ?4, path = coalesce(?5, path), "
		"updated_at = ?6, sent_at = CASE WHEN ?2 IN ('sent', "
		"'written') THEN ?6 ELSE sent_at END WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, status);
	db_bind_text(st, 3, reason);
	db_bind_int(st, 4, attempt ? 1 : 0);
	db_bind_text(st, 5, path);
	db_bind_int(st, 6, (long long)time(NULL));
	return db_step_done(db, st, "report", "notification status");
}

int db_report_release_held(struct db *db, long long id, long long *series_id,
			   char **status)
{
	struct sqlite3_stmt *sel = db_stmt(db, "SELECT series_id, status FROM "
				    "notification WHERE id = ?1");
	struct sqlite3_stmt *upd = db_stmt(db,
		"UPDATE notification SET status = 'pending', status_reason = "
		"'released by a moderator', released_at = ?2, updated_at = ?2 "
		"WHERE id = ?1 AND status = 'held'");
	int rc, ret = -1;

	*series_id = 0;
	*status = NULL;
	if (!sel || !upd || db_begin(db))
		return -1;
	db_bind_int(sel, 1, id);
	rc = db_row(db, sel, "report", "notification %lld", id);
	if (rc > 0) {
		*series_id = db_column_int64(sel, 0);
		*status = db_column_strdup(sel, 1);
	}
	db_reset(sel);
	if (!rc) {
		ret = DB_REPORT_NOT_FOUND;
		goto out;
	}
	if (rc < 0)
		goto out;
	if (strcmp(*status, "held")) {
		ret = DB_REPORT_NOT_HELD;
		goto out;
	}
	db_bind_int(upd, 1, id);
	db_bind_int(upd, 2, (long long)time(NULL));
	if (db_step_done(db, upd, "report", "releasing") ||
	    jobq_enqueue_attempts(db, "report", *series_id, NULL,
				  STAGE_REPORT_ATTEMPTS, NULL) ||
	    db_commit(db))
		goto out;
	return DB_REPORT_RELEASED;
out:
	db_rollback(db);
	return ret;
}

int db_report_source(struct db *db, long long series_id, char **url)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT source_url FROM series "
				   "WHERE id = ?1");
	int rc;

	*url = NULL;
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	rc = db_row(db, st, "report", "series %lld: source", series_id);
	if (rc > 0)
		*url = db_column_strdup(st, 0);
	db_reset(st);
	return rc < 0 ? -1 : 0;
}

/* --- patchwork checks ----------------------------------------------------- */

int db_report_check_set(struct db *db, long long series_id,
			const char *api_url, long long patch_id,
			const char *context, const char *state,
			const char *description, const char *target_url)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO patchwork_check (series_id, api_url, patch_id, "
		"context, state, description, target_url, updated_at) VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
		"ON CONFLICT (series_id, patch_id, context) DO UPDATE SET "
		"state = excluded.state, description = excluded.description, "
		"target_url = excluded.target_url, updated_at = excluded."
		"updated_at WHERE excluded.state <> 'pending' OR "
		"patchwork_check.state = 'pending'");

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, api_url);
	db_bind_int(st, 3, patch_id);
	db_bind_text(st, 4, context);
	db_bind_text(st, 5, state);
	db_bind_text(st, 6, description);
	db_bind_text(st, 7, target_url);
	db_bind_int(st, 8, (long long)time(NULL));
	return db_step_done(db, st, "report", "patchwork check");
}

int db_report_checks_settle(struct db *db, long long series_id,
			    const char *desc)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE patchwork_check SET state = 'warning', description = "
		"?2, updated_at = ?3 WHERE series_id = ?1 AND state = "
		"'pending'");

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	db_bind_text(st, 2, desc);
	db_bind_int(st, 3, (long long)time(NULL));
	return db_step_done(db, st, "report", "settling checks");
}

int db_report_check_patches(struct db *db, long long series_id,
			    long long **ids, size_t *n)
{
	struct sqlite3_stmt *st = db_stmt(db, "SELECT DISTINCT patch_id FROM "
				   "patchwork_check WHERE series_id = ?1 "
				   "ORDER BY patch_id");
	size_t alloc = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	while ((rc = db_row(db, st, "report", "series %lld: checks",
			    series_id)) > 0) {
		ALLOC_GROW(*ids, *n + 1, alloc);
		(*ids)[(*n)++] = db_column_int64(st, 0);
	}
	db_reset(st);
	return rc;
}

void db_report_checks_free(struct db_check *rows, size_t n)
{
	size_t i;

	for (i = 0; rows && i < n; i++) {
		free(rows[i].api_url);
		free(rows[i].context);
		free(rows[i].state);
		free(rows[i].posted);
		free(rows[i].description);
		free(rows[i].target_url);
	}
	free(rows);
}

int db_report_checks_due(struct db *db, long long series_id,
			 struct db_check **rows, size_t *n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT id, patch_id, api_url, context, state, posted, "
		"description, target_url FROM patchwork_check WHERE "
		"series_id = ?1 AND posted IS NOT state ORDER BY id");
	size_t alloc = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	while ((rc = db_row(db, st, "report", "series %lld: checks due",
			    series_id)) > 0) {
		struct db_check *c;

		ALLOC_GROW(*rows, *n + 1, alloc);
		c = &(*rows)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->id = db_column_int64(st, 0);
		c->patch_id = db_column_int64(st, 1);
		c->api_url = db_column_strdup(st, 2);
		c->context = db_column_strdup(st, 3);
		c->state = db_column_strdup(st, 4);
		c->posted = db_column_strdup(st, 5);
		c->description = db_column_strdup(st, 6);
		c->target_url = db_column_strdup(st, 7);
	}
	db_reset(st);
	if (!rc)
		return 0;
	db_report_checks_free(*rows, *n);
	*rows = NULL;
	*n = 0;
	return -1;
}

int db_report_check_posted(struct db *db, long long id, const char *state,
			   const char *err)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE patchwork_check SET posted = CASE WHEN ?3 IS NULL "
		"THEN ?2 ELSE posted END, attempts = attempts + 1, "
		"last_error = ?3, updated_at = ?4 WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, state);
	db_bind_text(st, 3, err);
	db_bind_int(st, 4, (long long)time(NULL));
	return db_step_done(db, st, "report", "check posted");
}
