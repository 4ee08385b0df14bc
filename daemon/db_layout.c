/*
 * db_layout.c - the layout control's SQL (see db_layout.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "db.h"
#include "db_layout.h"
#include "layout.h"

void db_layout_rows_release(struct db_layout_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		struct db_layout_row *r = &rows->v[i];

		free(r->arch);
		free(r->workload);
		free(r->metric);
		free(r->params);
		free(r->verdict);
		free(r->clock);
	}
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

int db_layout_pending(struct db *db, long long series_id, const char *arch,
		      struct db_layout_rows *rows)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT c.id, c.arch, c.workload, c.metric, c.params, "
		"c.verdict, r.clock FROM comparison c "
		"JOIN run r ON r.id = c.run_id "
		"WHERE c.series_id = ?1 AND (?2 IS NULL OR c.arch = ?2) AND "
		"r.layout = 'as-built' AND c.layout IS NULL AND "
		"c.layout_reason IS NULL ORDER BY c.arch DESC, c.id");
	int rc;

	if (!st)
		return -1;
	db_bind_int(st, 1, series_id);
	if (arch)
		db_bind_text(st, 2, arch);
	else
		db_bind_null(st, 2);
	while ((rc = db_row(db, st, "layout", "series %lld: comparisons",
			    series_id)) > 0) {
		struct db_layout_row *r;

		if (!layout_wanted(db_column_text(st, 5)))
			continue;
		ALLOC_GROW(rows->v, rows->n + 1, rows->alloc);
		r = &rows->v[rows->n++];
		r->id = db_column_int64(st, 0);
		r->arch = db_column_strdup(st, 1);
		r->workload = db_column_strdup(st, 2);
		r->metric = db_column_strdup(st, 3);
		r->params = db_column_strdup(st, 4);
		r->verdict = db_column_strdup(st, 5);
		r->clock = db_column_strdup(st, 6);
	}
	db_reset(st);
	if (rc < 0)
		db_layout_rows_release(rows);
	return rc < 0 ? -1 : 0;
}

int db_layout_store(struct db *db, long long id,
		    const struct db_layout_result *r)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"UPDATE comparison SET layout = ?2, layout_reason = ?3, "
		"layout_run_id = ?4, layout_verdict = ?5, "
		"layout_change_pct = ?6, layout_ci_low_pct = ?7, "
		"layout_ci_high_pct = ?8, "
		"verdict_as_built = CASE WHEN ?2 = 'layout-sensitive' "
		" THEN verdict END, "
		"verdict = CASE WHEN ?2 = 'layout-sensitive' "
		" THEN 'layout-sensitive' ELSE verdict END "
		"WHERE id = ?1 AND layout IS NULL");

	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	if (r->outcome)
		db_bind_text(st, 2, r->outcome);
	else
		db_bind_null(st, 2);
	if (r->reason)
		db_bind_text_copy(st, 3, r->reason);
	else
		db_bind_null(st, 3);
	db_bind_id_or_null(st, 4, r->run_id);
	if (r->verdict)
		db_bind_text(st, 5, r->verdict);
	else
		db_bind_null(st, 5);
	db_bind_real(st, 6, r->change_pct);
	db_bind_real(st, 7, r->ci_low_pct);
	db_bind_real(st, 8, r->ci_high_pct);
	return db_step_done(db, st, "layout", "comparison %lld", id);
}
