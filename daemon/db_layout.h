/*
 * db_layout.h - the layout control's SQL (schema/0014_layout.sql): the
 * as-built comparisons it is to check, and what it found.  Its builds
 * and run are db_build.h's and db_run.h's with layout "aligned".
 *
 * Each function takes the calling thread's struct db and returns 0 or -1
 * (logged as "layout: ...").
 */
#ifndef KREGRESS_DB_LAYOUT_H
#define KREGRESS_DB_LAYOUT_H

#include <stddef.h>

struct db;

/* An as-built comparison the control is to check. */
struct db_layout_row {
	long long id;		/* comparison.id */
	char *arch, *workload, *metric, *params, *verdict;
	char *clock;		/* of its run: "real" or "instructions" */
};

struct db_layout_rows {
	struct db_layout_row *v;
	size_t n, alloc;
};

/*
 * The comparisons of series_id (of arch; NULL: every arch) that no
 * control has answered yet (layout and layout_reason NULL) and whose
 * verdict layout_wanted() accepts, into rows (empty on entry), by arch
 * then id.
 */
int db_layout_pending(struct db *db, long long series_id, const char *arch,
		      struct db_layout_rows *rows);
void db_layout_rows_release(struct db_layout_rows *rows);

/* What the control says of one comparison. */
struct db_layout_result {
	const char *outcome;	/* layout_outcome_str(); NULL: no control */
	const char *reason;	/* why not, or why unconfirmed; may be NULL */
	long long run_id;	/* the aligned run; 0 = none */
	const char *verdict;	/* the control's verdict; NULL = none */
	double change_pct, ci_low_pct, ci_high_pct;	/* NAN = none */
};

/*
 * Records r on comparison id.  A layout-sensitive outcome makes the
 * comparison's verdict "layout-sensitive", and verdict_as_built keeps
 * the verdict it had.
 */
int db_layout_store(struct db *db, long long id,
		    const struct db_layout_result *r);

#endif
