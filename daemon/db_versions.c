/*
 * db_versions.c - versions of one series in SQLite (see db_versions.h).
 *
 * "The same series" is one SQL condition, SAME_SERIES, used by every
 * query here, so linking, superseding and the newer-version check agree
 * on it.  The metric comparison is a full outer join of two versions'
 * comparison rows written as a LEFT JOIN plus the previous version's rows
 * that the newer one lacks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "db.h"
#include "db_pipeline.h"
#include "db_versions.h"
#include "log.h"
#include "series.h"
#include "strbuf.h"

/* o and s are versions of one series (schema/0008_versions.sql). */
#define SAME_SERIES(o, s)						\
	"(" o ".id <> " s ".id AND ((" s ".change_id IS NOT NULL AND "	\
	o ".change_id IS NOT NULL AND " o ".change_id = " s ".change_id) " \
	"OR ((" s ".change_id IS NULL OR " o ".change_id IS NULL) AND "	\
	o ".title = " s ".title AND " o ".author_email = "		\
	s ".author_email)))"


int db_versions_link(struct db *db, long long id, long long *previous_id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE series SET previous_id = (SELECT o.id FROM series o "
		"WHERE " SAME_SERIES("o", "series") " AND o.version < "
		"series.version ORDER BY o.version DESC, o.id DESC LIMIT 1) "
		"WHERE id = ?1 RETURNING previous_id");
	struct sqlite3_stmt *newer = db_stmt(db,
		"UPDATE series AS n SET previous_id = ?1 FROM series s WHERE "
		"s.id = ?1 AND " SAME_SERIES("n", "s") " AND n.version > "
		"s.version AND (n.previous_id IS NULL OR (SELECT p.version "
		"FROM series p WHERE p.id = n.previous_id) < s.version)");
	long long prev = 0;
	int rc;

	if (!st || !newer)
		return -1;
	db_bind_int(st, 1, id);
	/* RETURNING: the update is complete once the rows are read. */
	while ((rc = db_row(db, st, "versions", "series %lld: linking",
			    id)) > 0)
		prev = db_column_int64(st, 0);
	db_reset(st);
	if (rc < 0)
		return -1;
	db_bind_int(newer, 1, id);
	if (db_step_done(db, newer, "versions", "linking newer versions"))
		return -1;
	if (previous_id)
		*previous_id = prev;
	return 0;
}

int db_versions_carry_trailers(struct db *db, long long id, int *n)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT OR IGNORE INTO patch_trailer (patch_id, name, value, "
		"message_id, from_version, from_series) SELECT np.id, t.name, "
		"t.value, t.message_id, coalesce(t.from_version, ps.version), "
		"coalesce(t.from_series, ps.id) FROM patch np "
		"JOIN series s ON s.id = np.series_id "
		"JOIN series ps ON ps.id = s.previous_id "
		"JOIN patch op ON op.series_id = ps.id AND op.idx > 0 AND "
		"op.fingerprint = np.fingerprint "
		"JOIN patch_trailer t ON t.patch_id = op.id "
		"WHERE np.series_id = ?1 AND np.idx > 0 ORDER BY np.idx, t.id");

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	if (db_step_done(db, st, "versions", "carrying trailers over"))
		return -1;
	if (n)
		*n = db_changes(db);
	return 0;
}

int db_versions_trailers_load(struct db *db, long long id,
			      const struct series *s)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT p.idx, t.name, t.value, t.message_id, t.from_version "
		"FROM patch p JOIN patch_trailer t ON t.patch_id = p.id "
		"WHERE p.series_id = ?1 AND t.from_series IS NOT NULL "
		"ORDER BY p.idx, t.id");
	size_t i;
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	while ((rc = db_row(db, st, "versions", "series %lld: trailers",
			    id)) > 0) {
		int idx = db_column_int(st, 0);

		for (i = 0; i < s->nr_patches; i++)
			if (s->patches[i]->index == idx)
				series_patch_add_trailer(s->patches[i],
					db_column_text(st, 1),
					db_column_text(st, 2),
					db_column_text(st, 3),
					db_column_int(st, 4));
	}
	db_reset(st);
	return rc;
}

int db_versions_newer(struct db *db, long long id, long long *newer_id,
		      int *newer_version)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT o.id, o.version FROM series s JOIN series o ON "
		SAME_SERIES("o", "s") " AND o.version > s.version AND "
		"o.status NOT IN ('queued', 'fetching', 'fetch-failed', "
		"'incomplete', 'superseded') WHERE s.id = ?1 "
		"ORDER BY o.version DESC, o.id DESC LIMIT 1");
	int rc;

	*newer_id = 0;
	*newer_version = 0;
	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	rc = db_row(db, st, "versions", "series %lld: newer versions", id);
	if (rc > 0) {
		*newer_id = db_column_int64(st, 0);
		*newer_version = db_column_int(st, 1);
	}
	db_reset(st);
	return rc < 0 ? -1 : 0;
}

int db_versions_superseded_by(struct db *db, long long id, long long newer_id)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE series SET superseded_by = ?2 "
		"WHERE id = ?1");

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, newer_id);
	return db_step_done(db, st, "versions", "recording the newer version");
}

int db_versions_supersede(struct db *db, long long id, int *n)
{
	/* the older versions to supersede, once, for both statements */
#define OLDER "SELECT o.id FROM series s JOIN series o ON "		\
	SAME_SERIES("o", "s") " AND o.version < s.version AND "	\
	"o.status NOT IN " DB_PIPELINE_FINAL_STATUSES " WHERE s.id = ?1"
	struct sqlite3_stmt *jobs = db_stmt(db,
		"UPDATE job SET state = 'failed', last_error = 'cancelled: "
		"superseded by v' || (SELECT version FROM series WHERE id = ?1) "
		"|| ' (series ' || ?1 || ')', updated_at = ?2 WHERE state = "
		"'queued' AND series_id IN (" OLDER ")");
	struct sqlite3_stmt *rows = db_stmt(db,
		"UPDATE series SET status = 'superseded', status_reason = "
		"'superseded by v' || (SELECT version FROM series WHERE id = ?1) "
		"|| ' (series ' || ?1 || ')', superseded_by = ?1, updated_at = "
		"?2 WHERE id IN (" OLDER ")");
#undef OLDER
	long long now = (long long)time(NULL);

	if (!jobs || !rows)
		return -1;
	db_bind_int(jobs, 1, id);
	db_bind_int(jobs, 2, now);
	if (db_step_done(db, jobs, "versions", "cancelling superseded jobs"))
		return -1;
	db_bind_int(rows, 1, id);
	db_bind_int(rows, 2, now);
	if (db_step_done(db, rows, "versions", "superseding older versions"))
		return -1;
	if (n)
		*n = db_changes(db);
	return 0;
}

static char *text(struct sqlite3_stmt *st, int col)
{
	return db_column_strdup(st, col);
}

static double number(struct sqlite3_stmt *st, int col)
{
	return db_column_is_null(st, col) ? NAN :
	       db_column_double(st, col);
}

int db_versions_since_previous(struct db *db, long long series_id,
			       struct db_versions_since *out)
{
	struct sqlite3_stmt *prev = db_stmt(db,
		"SELECT p.id, p.version, p.status FROM series s JOIN series p "
		"ON p.id = s.previous_id WHERE s.id = ?1");
	/* the newest analysed run per arch of a series: ?n */
#define CMP(n) "(SELECT * FROM comparison c WHERE c.series_id = " n	\
	" AND (c.run_id IS NULL OR c.run_id = (SELECT max(run_id) FROM " \
	"comparison WHERE series_id = " n " AND arch = c.arch)))"
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT cur.arch, cur.workload, cur.metric, cur.params, "
		"cur.unit, cur.direction, cur.verdict, cur.change_pct, "
		"cur.ci_low_pct, cur.ci_high_pct, pre.verdict, pre.change_pct, "
		"pre.ci_low_pct, pre.ci_high_pct FROM " CMP("?1") " cur "
		"LEFT JOIN " CMP("?2") " pre USING (arch, workload, metric, "
		"params) UNION ALL SELECT pre.arch, pre.workload, pre.metric, "
		"pre.params, pre.unit, pre.direction, NULL, NULL, NULL, NULL, "
		"pre.verdict, pre.change_pct, pre.ci_low_pct, pre.ci_high_pct "
		"FROM " CMP("?2") " pre WHERE NOT EXISTS (SELECT 1 FROM "
		CMP("?1") " cur WHERE cur.arch = pre.arch AND cur.workload = "
		"pre.workload AND cur.metric = pre.metric AND cur.params = "
		"pre.params) ORDER BY 1, 2, 3, 4");
#undef CMP
	size_t alloc = 0;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	if (!prev || !st)
		return -1;
	db_bind_int(prev, 1, series_id);
	rc = db_row(db, prev, "versions", "series %lld: previous version",
		    series_id);
	if (rc > 0) {
		out->previous_id = db_column_int64(prev, 0);
		out->previous_version = db_column_int(prev, 1);
		out->previous_status = text(prev, 2);
	}
	db_reset(prev);
	if (rc < 0)
		return -1;
	if (!out->previous_id)
		return 0;
	db_bind_int(st, 1, series_id);
	db_bind_int(st, 2, out->previous_id);
	while ((rc = db_row(db, st, "versions", "series %lld: comparisons "
			    "since v%d", series_id,
			    out->previous_version)) > 0) {
		struct db_versions_metric *m;

		ALLOC_GROW(out->metrics, out->n + 1, alloc);
		m = &out->metrics[out->n++];
		m->arch = text(st, 0);
		m->workload = text(st, 1);
		m->metric = text(st, 2);
		m->params = text(st, 3);
		m->unit = text(st, 4);
		m->direction = text(st, 5);
		m->verdict = text(st, 6);
		m->change_pct = number(st, 7);
		m->ci_low_pct = number(st, 8);
		m->ci_high_pct = number(st, 9);
		m->previous_verdict = text(st, 10);
		m->previous_change_pct = number(st, 11);
		m->previous_ci_low_pct = number(st, 12);
		m->previous_ci_high_pct = number(st, 13);
	}
	if (!rc)
		ret = 0;
	db_reset(st);
	return ret;
}

void db_versions_since_release(struct db_versions_since *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct db_versions_metric *m = &s->metrics[i];

		free(m->arch);
		free(m->workload);
		free(m->metric);
		free(m->params);
		free(m->unit);
		free(m->direction);
		free(m->verdict);
		free(m->previous_verdict);
	}
	free(s->metrics);
	free(s->previous_status);
	memset(s, 0, sizeof(*s));
}
