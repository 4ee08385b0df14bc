/*
 * jobq.c - the work queue in the SQLite job table.
 *
 * Claiming is one UPDATE ... WHERE id = (SELECT the job ready longest)
 * RETURNING, inside a BEGIN IMMEDIATE transaction: the write lock is taken
 * before the job is chosen, so two claimers (threads or processes) can
 * never pick the same row; the loser waits for the busy timeout and then
 * sees the job as running.  Every later step (heartbeat, finish, fail,
 * release) names the job *and* the lease owner, so a worker whose lease
 * was taken away (expired, released at start-up) cannot finish a job that
 * someone else now runs.
 *
 * "Ready longest" is the order of the job_ready index (state, not_before,
 * id), so a claim reads one index entry however long the queue is; a new
 * job's not_before is its enqueue time, so a retried job waits its turn
 * behind the jobs that became ready before it, and is not starved by them.
 *
 * Times are Unix seconds from jobq_now(), which tests can replace.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "jobq.h"
#include "log.h"

static int backoff_base_s = 30;
static int backoff_max_s = 3600;
static long long (*clock_fn)(void);

void jobq_set_backoff(int base_s, int max_s)
{
	backoff_base_s = base_s > 0 ? base_s : 1;
	backoff_max_s = max_s > backoff_base_s ? max_s : backoff_base_s;
}

void jobq_set_clock(long long (*now)(void))
{
	clock_fn = now;
}

static long long jobq_now(void)
{
	return clock_fn ? clock_fn() : (long long)time(NULL);
}

int jobq_backoff_s(int attempts)
{
	long long d = backoff_base_s;
	int i;

	for (i = 1; i < attempts && d < backoff_max_s; i++)
		d *= 2;
	return d < backoff_max_s ? (int)d : backoff_max_s;
}

void job_release(struct job *job)
{
	free(job->kind);
	free(job->arch);
	memset(job, 0, sizeof(*job));
}

/*
 * Our own transaction unless the caller has one open: *own says which, for
 * jq_end().
 */
static int jq_begin(struct db *db, int *own)
{
	*own = !db_in_transaction(db);
	return *own ? db_begin(db) : 0;
}

static int jq_end(struct db *db, int own, int ret)
{
	if (!own)
		return ret;
	if (ret)
		db_rollback(db);
	else if (db_commit(db))
		ret = -1;
	return ret;
}

/* sql must be a string constant: the statement is cached (db_stmt()). */
static int jq_prepare(struct db *db, const char *sql, struct sqlite3_stmt **st)
{
	*st = db_stmt(db, sql);
	return *st ? 0 : -1;
}

int jobq_enqueue(struct db *db, const char *kind, long long series_id,
		 const char *arch, long long *id)
{
	return jobq_enqueue_attempts(db, kind, series_id, arch,
				     JOBQ_MAX_ATTEMPTS, id);
}

int jobq_enqueue_attempts(struct db *db, const char *kind,
			  long long series_id, const char *arch,
			  int max_attempts, long long *id)
{
	struct sqlite3_stmt *st = NULL;
	long long now = jobq_now();
	int own, ret = -1;

	if (jq_begin(db, &own))
		return -1;
	if (jq_prepare(db, "INSERT INTO job (kind, series_id, arch, "
		       "max_attempts, not_before, created_at, updated_at) "
		       "VALUES (?1, ?2, ?3, ?5, ?4, ?4, ?4)",
		       &st))
		goto out;
	db_bind_int(st, 5, max_attempts > 0 ? max_attempts :
		    JOBQ_MAX_ATTEMPTS);
	db_bind_text(st, 1, kind);
	if (series_id)
		db_bind_int(st, 2, series_id);
	else
		db_bind_null(st, 2);
	db_bind_text(st, 3, arch);
	db_bind_int(st, 4, now);
	if (db_step_done(db, st, "jobq", "%s", kind))
		goto out;
	if (id)
		*id = db_last_insert_id(db);
	ret = 0;
out:
	db_reset(st);
	return jq_end(db, own, ret);
}

int jobq_claim(struct db *db, const char *owner, int lease_s,
	       struct job *job)
{
	struct sqlite3_stmt *st = NULL;
	long long now = jobq_now();
	int own, rc, ret = -1;

	memset(job, 0, sizeof(*job));
	if (jq_begin(db, &own))
		return -1;
	if (jq_prepare(db, "UPDATE job SET state = 'running', "
		       "attempts = attempts + 1, lease_owner = ?1, "
		       "lease_expires = ?2 + ?3, updated_at = ?2 "
		       "WHERE id = (SELECT id FROM job WHERE state = 'queued' "
		       "AND not_before <= ?2 ORDER BY not_before, id "
		       "LIMIT 1) "
		       "RETURNING id, kind, series_id, arch, attempts, "
		       "max_attempts", &st))
		goto out;
	db_bind_text(st, 1, owner);
	db_bind_int(st, 2, now);
	db_bind_int(st, 3, lease_s);
	rc = db_row(db, st, "jobq", "claim");
	if (rc <= 0) {
		ret = rc;
		goto out;
	}
	job->id = db_column_int64(st, 0);
	job->kind = db_column_strdup(st, 1);
	job->series_id = db_column_int64(st, 2);
	job->arch = db_column_strdup(st, 3);
	job->attempts = db_column_int(st, 4);
	job->max_attempts = db_column_int(st, 5);
	/* RETURNING rows are all computed by the first step; finish it. */
	if (db_step_done(db, st, "jobq", "claim")) {
		job_release(job);
		goto out;
	}
	ret = 1;
out:
	db_reset(st);
	if (jq_end(db, own, ret < 0 ? -1 : 0)) {
		job_release(job);
		return -1;
	}
	return ret;
}

/*
 * Runs an UPDATE on one leased job (?1 id, ?2 owner, ?3 now, ?4 extra)
 * and fails when the lease is no longer the owner's.
 */
static int jq_update_leased(struct db *db, const char *sql, long long id,
			    const char *owner, long long extra,
			    const char *text, const char *what)
{
	struct sqlite3_stmt *st = NULL;
	int own, ret = -1;

	if (jq_begin(db, &own))
		return -1;
	if (jq_prepare(db, sql, &st))
		goto out;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, owner);
	db_bind_int(st, 3, jobq_now());
	db_bind_int(st, 4, extra);
	db_bind_text(st, 5, text);
	if (db_step_done(db, st, "jobq", "%s", what))
		goto out;
	if (db_changes(db) != 1) {
		error("jobq", "job %lld: %s: not leased by %s", id, what,
		      owner);
		goto out;
	}
	ret = 0;
out:
	db_reset(st);
	return jq_end(db, own, ret);
}

#define LEASED "WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'"

int jobq_heartbeat(struct db *db, long long id, const char *owner,
		   int lease_s)
{
	return jq_update_leased(db, "UPDATE job SET lease_expires = ?3 + ?4, "
				"updated_at = ?3 " LEASED, id, owner, lease_s,
				NULL, "heartbeat");
}

int jobq_finish(struct db *db, long long id, const char *owner)
{
	return jq_update_leased(db, "UPDATE job SET state = 'done', "
				"lease_owner = NULL, lease_expires = NULL, "
				"updated_at = ?3 " LEASED, id, owner, 0, NULL,
				"finish");
}

int jobq_release(struct db *db, long long id, const char *owner)
{
	return jq_update_leased(db, "UPDATE job SET state = 'queued', "
				"attempts = max(attempts - 1, 0), "
				"not_before = ?3, lease_owner = NULL, "
				"lease_expires = NULL, updated_at = ?3 "
				LEASED, id, owner, 0, NULL, "release");
}

int jobq_fail(struct db *db, long long id, const char *owner,
	      const char *reason, int retry)
{
	struct sqlite3_stmt *st = NULL;
	int attempts, max_attempts, own, rc, ret = -1;

	if (jq_begin(db, &own))
		return -1;
	if (jq_prepare(db, "SELECT attempts, max_attempts FROM job " LEASED,
		       &st))
		goto out;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, owner);
	rc = db_row(db, st, "jobq", "job %lld: fail", id);
	if (!rc)
		error("jobq", "job %lld: fail: not leased by %s", id, owner);
	if (rc <= 0)
		goto out;
	attempts = db_column_int(st, 0);
	max_attempts = db_column_int(st, 1);
	db_reset(st);
	st = NULL;
	if (retry && attempts < max_attempts)
		ret = jq_update_leased(db, "UPDATE job SET state = 'queued', "
				       "not_before = ?3 + ?4, "
				       "lease_owner = NULL, "
				       "lease_expires = NULL, last_error = ?5, "
				       "updated_at = ?3 " LEASED, id, owner,
				       jobq_backoff_s(attempts), reason,
				       "fail");
	else
		ret = jq_update_leased(db, "UPDATE job SET state = 'failed', "
				       "lease_owner = NULL, "
				       "lease_expires = NULL, last_error = ?5, "
				       "updated_at = ?3 " LEASED, id, owner,
				       0, reason, "fail");
out:
	db_reset(st);
	return jq_end(db, own, ret);
}

int jobq_release_stale(struct db *db, const char *owner, int *released)
{
	/* ?1 owner (NULL: expired only), ?2 now */
	static const char *const sql[] = {
		"UPDATE job SET state = 'failed', last_error = 'lease lost "
		"on the last attempt (' || ifnull(lease_owner, '?') || ')', "
		"lease_owner = NULL, lease_expires = NULL, updated_at = ?2 "
		"WHERE state = 'running' AND attempts >= max_attempts AND "
		"((?1 IS NOT NULL AND lease_owner IS NOT ?1) OR "
		"lease_expires IS NULL OR lease_expires < ?2)",
		"UPDATE job SET state = 'queued', not_before = ?2, "
		"lease_owner = NULL, lease_expires = NULL, updated_at = ?2 "
		"WHERE state = 'running' AND "
		"((?1 IS NOT NULL AND lease_owner IS NOT ?1) OR "
		"lease_expires IS NULL OR lease_expires < ?2)",
	};
	struct sqlite3_stmt *st = NULL;
	long long now = jobq_now();
	int own, count = 0, ret = -1;
	size_t i;

	if (jq_begin(db, &own))
		return -1;
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		if (jq_prepare(db, sql[i], &st))
			goto out;
		db_bind_text(st, 1, owner);
		db_bind_int(st, 2, now);
		if (db_step_done(db, st, "jobq", "release stale leases"))
			goto out;
		count += db_changes(db);
		db_reset(st);
		st = NULL;
	}
	if (released)
		*released = count;
	ret = 0;
out:
	db_reset(st);
	return jq_end(db, own, ret);
}

int jobq_counts(struct db *db, struct jobq_counts *out)
{
	struct sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	if (jq_prepare(db, "SELECT state, count(*), sum(not_before <= ?1) "
		       "FROM job GROUP BY state", &st))
		return -1;
	db_bind_int(st, 1, jobq_now());
	while ((rc = db_row(db, st, "jobq", "counts")) > 0) {
		const char *state = db_column_text(st, 0);
		long long n = db_column_int64(st, 1);

		if (!state)
			continue;
		if (!strcmp(state, "queued")) {
			out->queued = n;
			out->ready = db_column_int64(st, 2);
		} else if (!strcmp(state, "running")) {
			out->running = n;
		} else if (!strcmp(state, "done")) {
			out->done = n;
		} else if (!strcmp(state, "failed")) {
			out->failed = n;
		}
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	db_reset(st);
	return ret;
}
