/*
 * db_series.h - the queries behind the JSON API: submitting a series and
 * reading series, their patches, jobs, progress and comparisons.
 *
 * Every query is a prepared statement with bound parameters.  Reads
 * return jansson values shaped as the API serves them (column name =
 * JSON key), so api.c only adds envelopes.
 */
#ifndef KREGRESS_DB_SERIES_H
#define KREGRESS_DB_SERIES_H

#include <stddef.h>

#include <jansson.h>

struct db;

/*
 * Stores a submitted series (url, or else the mbox of mbox_len bytes) in
 * state "queued" and queues its "fetch" job, in one transaction: either
 * both rows exist afterwards or neither.  *id receives the series id.
 */
int db_series_submit(struct db *db, const char *url, const char *mbox,
		     size_t mbox_len, long long *id);

struct series_filter {
	const char *status;	/* exact; NULL = any */
	const char *list;	/* exact; NULL = any */
	const char *author;	/* substring, case-insensitive; NULL = any */
	const char *q;		/* subject substring, case-insensitive */
	const char *tree;	/* tree name, exact; NULL = any */
	const char *arch;	/* built for this arch; NULL = any */
	const char *verdict;	/* some comparison has it; NULL = any */
	long long before;	/* id < before; 0 = no bound */
	long long after;	/* id > after; 0 = no bound */
	long long offset;	/* rows to skip */
	int limit;		/* rows to return, > 0 */
};

/*
 * The matching series, newest (highest id) first, as a JSON array in
 * *items (caller owns it); each with its "tree", "arches" and the counts
 * of its comparisons' verdicts, all and primary ("verdicts",
 * "primary_verdicts": {"no-change": 28, ...}).  *next_before is the id to pass as "before"
 * for the next page, or 0 when this page is the last.
 */
int db_series_list(struct db *db, const struct series_filter *f,
		   json_t **items, long long *next_before);

/*
 * One series with "patches" (with their fingerprints), "trailers" (per
 * patch idx; from_version/from_series when carried over), "jobs",
 * "builds", "boots" (counts by side and status), "runs" (arch, accel,
 * seed, status, rounds, boots ok and failed per side, whether the
 * analysis used it), "comparisons" (one per run and metric; "params" as
 * a JSON object), "notifications" (the report mails and their delivery
 * status), "checks" (patchwork), "problems" (what the fetch stage found
 * in the thread), its versions ("previous_id"/"previous_version",
 * "superseded_by"/"superseded_by_version") and "since_previous" (null,
 * or the previous version's series_id, version, status and "metrics":
 * each metric's verdict and change next to the previous version's, see
 * db_versions_since_previous()).  *out is NULL when there is no such
 * series; caller owns *out.
 */
int db_series_get(struct db *db, long long id, json_t **out);

/*
 * Begins a read transaction (db_json_read_begin()) and says whether
 * series id exists in it: 0 and *exists (end it with
 * db_json_read_end()), or -1 (logged) with none open.
 */
int db_series_read_begin(struct db *db, long long id, int *exists);

struct sample_filter {
	long long run;		/* run id; 0 = every run */
	const char *workload;	/* exact; NULL = any */
	const char *metric;	/* exact; NULL = any */
	long long after;	/* sample id > after; 0 = from the start */
	int limit;		/* rows to return, > 0 */
};

/*
 * The raw samples of a series in id order, as a JSON array in *items
 * (caller owns it): id, boot, run, arch, side, workload, metric, params
 * (a JSON object), iteration, value, unit, direction.  *items is NULL
 * when there is no such series.  *next_after is the id to pass as
 * "after" for the next page, or 0 when this page is the last.
 */
int db_series_samples(struct db *db, long long series_id,
		      const struct sample_filter *f, json_t **items,
		      long long *next_after);

/* Tunes a connection of an API worker thread (memory-mapped reads). */
int db_series_reader_setup(struct db *db);

#endif
