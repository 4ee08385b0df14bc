/*
 * pipeline.c - runs claimed jobs through the stage table and keeps the
 * series state in step with the queue (see pipeline.h).
 *
 * The invariant: a series' status changes only in the same transaction as
 * the job that causes it, so after a crash at any instant either the job
 * is still leased (and recovery re-runs it) or its outcome, the series'
 * new status and the next job are all there.  Only the "running" status
 * set when a job starts is a transaction of its own; a crash after it
 * leaves the job leased, and re-running it sets the same status again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_pipeline.h"
#include "intake.h"
#include "jobq.h"
#include "log.h"
#include "pipeline.h"
#include "stage_analyze.h"
#include "stage_apply.h"
#include "stage_build.h"
#include "stage_run.h"

const struct pipeline_stage pipeline_stages[] = {
	{ "fetch", "fetching", "fetched", "fetch-failed", "apply",
	  intake_fetch_stage },
	{ "apply", "applying", "applied", "does-not-apply", "build",
	  stage_apply },
	{ "build", "building", "built", "build-failed", "run",
	  stage_build },
	{ "run", "running", "ran", "boot-failed", "analyze", stage_run },
	{ "analyze", "analyzing", "analyzed", "failed", "report",
	  stage_analyze },
	{ "report", "reporting", "done", "failed", NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

#define NOT_IMPLEMENTED "not implemented yet"

const char *pipeline_result_str(enum pipeline_result r)
{
	switch (r) {
	case PIPELINE_OK: return "ok";
	case PIPELINE_RETRY: return "retry";
	case PIPELINE_FAIL: return "failed";
	case PIPELINE_INTERRUPTED: return "interrupted";
	}
	return "?";
}

const struct pipeline_stage *
pipeline_stage_find(const struct pipeline_stage *table, const char *kind)
{
	const struct pipeline_stage *s;

	for (s = table ? table : pipeline_stages; s->kind; s++)
		if (!strcmp(s->kind, kind))
			return s;
	return NULL;
}

int pipeline_start(struct db *db, long long series_id, long long *job_id)
{
	return jobq_enqueue(db, pipeline_stages[0].kind, series_id, NULL,
			    job_id);
}

/* KREGRESS_TEST_STAGE_SLEEP: hold the lease a while; 1 if stopped. */
static int test_sleep(struct pipeline_ctx *ctx, const struct job *job)
{
	const char *env = getenv("KREGRESS_TEST_STAGE_SLEEP");
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	long ticks;

	if (!env || !*env)
		return 0;
	ticks = strtol(env, NULL, 10) * 10;
	log_info("pipeline", "job %lld: test hook: sleeping %s s", job->id,
		 env);
	while (ticks-- > 0) {
		if (ctx->stop && *ctx->stop)
			return 1;
		nanosleep(&tick, NULL);
	}
	return ctx->stop && *ctx->stop;
}

/* The outcome transaction of a job; 0 or -1 (rolled back, logged). */
static int record(struct pipeline_ctx *ctx, const struct job *job,
		  const struct pipeline_stage *st, enum pipeline_result r,
		  const char *fail_status, const char *reason)
{
	struct strbuf sr = STRBUF_INIT;
	struct db *db = ctx->db;
	int ret = -1;

	if (db_begin(db))
		return -1;
	switch (r) {
	case PIPELINE_OK:
		if (jobq_finish(db, job->id, ctx->owner))
			goto out;
		if (!job->series_id)
			break;
		if (db_pipeline_set_status(db, job->series_id, st->done,
					   NULL))
			goto out;
		if (st->next && jobq_enqueue(db, st->next, job->series_id,
					     NULL, NULL))
			goto out;
		break;
	case PIPELINE_FAIL:
		if (jobq_fail(db, job->id, ctx->owner, reason, 0))
			goto out;
		strbuf_addf(&sr, "%s: %s", job->kind, reason);
		if (job->series_id &&
		    db_pipeline_set_status(db, job->series_id, fail_status,
					   sr.buf))
			goto out;
		break;
	case PIPELINE_RETRY:
		if (jobq_fail(db, job->id, ctx->owner, reason, 1))
			goto out;
		if (!job->series_id)
			break;
		if (job->attempts >= job->max_attempts) {
			strbuf_addf(&sr, "%s: %s (after %d attempts)",
				    job->kind, reason, job->attempts);
			if (db_pipeline_set_status(db, job->series_id,
						   fail_status, sr.buf))
				goto out;
		} else {
			strbuf_addf(&sr, "%s: attempt %d of %d failed, "
				    "retrying: %s", job->kind, job->attempts,
				    job->max_attempts, reason);
			if (db_pipeline_set_status(db, job->series_id,
						   st ? st->running : "failed",
						   sr.buf))
				goto out;
		}
		break;
	case PIPELINE_INTERRUPTED:
		if (jobq_release(db, job->id, ctx->owner))
			goto out;
		break;
	}
	ret = db_commit(db);
out:
	if (ret)
		db_rollback(db);
	strbuf_release(&sr);
	return ret;
}

int pipeline_run_job(struct pipeline_ctx *ctx, const struct job *job)
{
	const struct pipeline_stage *st;
	struct pipeline_outcome out = { STRBUF_INIT, NULL };
	enum pipeline_result r;
	const char *fail_status;
	int ret = -1;

	st = pipeline_stage_find(ctx->stages, job->kind);
	if (!st) {
		strbuf_addf(&out.reason, "unknown job kind");
		r = PIPELINE_FAIL;
		fail_status = "failed";
		goto record;
	}
	if (job->series_id) {
		if (db_begin(ctx->db) ||
		    db_pipeline_set_status(ctx->db, job->series_id,
					   st->running, NULL) ||
		    db_commit(ctx->db)) {
			db_rollback(ctx->db);
			goto done;
		}
	}
	if (test_sleep(ctx, job)) {
		r = PIPELINE_INTERRUPTED;
	} else if (!st->run) {
		/* Not a stage failure: the series fails as a whole. */
		strbuf_addstr(&out.reason, NOT_IMPLEMENTED);
		r = PIPELINE_FAIL;
		out.fail_status = "failed";
	} else {
		r = st->run(ctx, job, &out);
		if (r != PIPELINE_OK && r != PIPELINE_INTERRUPTED &&
		    !out.reason.len)
			strbuf_addstr(&out.reason, "failed without a reason");
	}
	fail_status = out.fail_status ? out.fail_status : st->failed;
record:
	if (record(ctx, job, st, r, fail_status, out.reason.buf))
		goto done;
	if (r == PIPELINE_OK)
		log_info("pipeline", "job %lld: %s of series %lld done",
			 job->id, job->kind, job->series_id);
	else
		log_info("pipeline", "job %lld: %s of series %lld %s%s%s",
			 job->id, job->kind, job->series_id,
			 pipeline_result_str(r), out.reason.len ? ": " : "",
			 out.reason.buf);
	ret = r;
done:
	strbuf_release(&out.reason);
	return ret;
}

int pipeline_recover(struct db *db, const char *owner, int *released,
		     int *orphans)
{
	int n = 0, o = 0;

	if (db_begin(db))
		return -1;
	if (jobq_release_stale(db, owner, &n))
		goto fail;
	/*
	 * Orphans come from jobs failed by the release (or from a crash of
	 * an older version): look for them at start-up and when a sweep
	 * released something, not on every idle sweep of a big table.
	 */
	if ((owner || n) && db_pipeline_fail_orphans(db, &o))
		goto fail;
	if (db_commit(db))
		goto fail;
	if (released)
		*released = n;
	if (orphans)
		*orphans = o;
	return 0;
fail:
	db_rollback(db);
	return -1;
}
