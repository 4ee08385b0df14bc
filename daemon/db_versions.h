/*
 * db_versions.h - versions of one series followed over time: v1, v2, v3
 * of a series linked in SQLite, a newer complete version superseding an
 * older one, trailers of unchanged patches carried over, and what
 * changed since the previous version's results.
 *
 * Two series rows are versions of one series when they share a change-id
 * or, when either lacks one, their title and author address (b4's rule;
 * schema/0008_versions.sql).  The fetch stage (stage_fetch.c) calls link,
 * carry and supersede after storing a parsed revision; the API, `kregress
 * status`/`results` and the report read db_versions_since_previous().
 * Functions join the caller's transaction when one is open and return 0
 * or -1 (logged).
 */
#ifndef KREGRESS_DB_VERSIONS_H
#define KREGRESS_DB_VERSIONS_H

#include <stddef.h>

struct db;
struct series;

/*
 * Links series id to the nearest lower version of the same series
 * (series.previous_id; NULL when there is none), and the newer versions
 * whose previous is lower than id to id.  *previous_id (optional) gets
 * the link, 0 for none.
 */
int db_versions_link(struct db *db, long long id, long long *previous_id);

/*
 * Copies to each patch of series id the trailers of the patch with the
 * same fingerprint in its previous version (own or carried there), with
 * from_series and from_version saying where they were given.  *n
 * (optional) gets how many were added.
 */
int db_versions_carry_trailers(struct db *db, long long id, int *n);

/*
 * Adds to the patches of s (the revision stored for series id) the
 * trailers carried over from earlier versions' rows, so that the commits
 * the apply stage makes have them (series_patch_add_trailer()).
 */
int db_versions_trailers_load(struct db *db, long long id,
			      const struct series *s);

/*
 * The newest version above series id that was fetched complete (its
 * status past fetching, not fetch-failed, incomplete or superseded):
 * *newer_id (0 when none) and *newer_version.
 */
int db_versions_newer(struct db *db, long long id, long long *newer_id,
		      int *newer_version);

/* Records that series id is superseded by newer_id (superseded_by). */
int db_versions_superseded_by(struct db *db, long long id, long long newer_id);

/*
 * Series id, complete, supersedes every lower version whose work is not
 * done (a status that is not final): status "superseded" with reason
 * "superseded by vN (series ID)", superseded_by = id, and its queued jobs
 * failed with "cancelled: " and that reason.  A job of it still running
 * finishes and finds the series final (pipeline.h).  *n (optional) gets
 * how many were superseded.
 */
int db_versions_supersede(struct db *db, long long id, int *n);

/*
 * "What changed since the previous version", per metric.  Contract, for
 * the API (db_series.c), `kregress results` and the report stage:
 *  - the previous version is series.previous_id (db_versions_link());
 *    without one, previous_id is 0 and there are no metrics;
 *  - each series contributes its comparisons of the newest analysed run
 *    per arch; a metric is (arch, workload, metric, params) and appears
 *    once, in that order, with this version's verdict and change next to
 *    the previous version's; a side that lacks the metric has verdict
 *    NULL and NAN numbers;
 *  - strings are owned by *out; release it with db_versions_since_release()
 *    whatever the result.
 * One read; the caller's transaction makes it one snapshot with its other
 * reads.
 */
struct db_versions_metric {
	char *arch, *workload, *metric;
	char *params;		/* JSON object text, "{}" for none */
	char *unit;
	char *direction;	/* "lower" or "higher": which is better */
	char *verdict;		/* this version's; NULL: no such metric */
	double change_pct, ci_low_pct, ci_high_pct;	/* NAN when NULL */
	char *previous_verdict;	/* the previous version's; NULL: none */
	double previous_change_pct, previous_ci_low_pct, previous_ci_high_pct;
};

struct db_versions_since {
	long long previous_id;	/* 0: no previous version */
	int previous_version;
	char *previous_status;	/* its series.status */
	struct db_versions_metric *metrics;
	size_t n;
};

int db_versions_since_previous(struct db *db, long long series_id,
			       struct db_versions_since *out);
void db_versions_since_release(struct db_versions_since *s);

#endif
