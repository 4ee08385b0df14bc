/*
 * pipeline.c - runs claimed jobs through the stage table it is handed
 * (pipeline_ctx.stages; the daemon's is stages.c) and keeps the series
 * state in step with the queue (see pipeline.h).
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

#include "config.h"
#include "db.h"
#include "db_pipeline.h"
#include "jobq.h"
#include "log.h"
#include "pipeline.h"

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

	for (s = table; s->kind; s++)
		if (!strcmp(s->kind, kind))
			return s;
	return NULL;
}

/* Queues a job of kind with the attempts its stage in table has. */
static int enqueue_in(const struct pipeline_stage *table, struct db *db,
		      const char *kind, long long series_id, const char *arch)
{
	const struct pipeline_stage *st = pipeline_stage_find(table, kind);

	return jobq_enqueue_attempts(db, kind, series_id, arch,
				     st && st->max_attempts ?
				     st->max_attempts : JOBQ_MAX_ATTEMPTS,
				     NULL);
}

int pipeline_job_arch(const struct pipeline_ctx *ctx, const struct job *job,
		      const struct config_arch_cfg **ac, struct strbuf *reason)
{
	const struct arch *a;

	if (!ctx->cfg) {
		strbuf_addstr(reason, "no configuration");
		return -1;
	}
	if (!job->arch) {
		strbuf_addstr(reason, "no arch configured (arches of the "
			      "configuration is empty)");
		return -1;
	}
	a = arch_find(job->arch);
	*ac = a ? config_arch_get(ctx->cfg, a) : NULL;
	if (!*ac) {
		strbuf_addf(reason, "%s: not an arch of the configuration "
			    "any more", job->arch);
		return -1;
	}
	return 0;
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

/*
 * The status of a series while its work is in flight: the running status
 * of the earliest stage that has a queued or running job (x86_64 may be
 * booting while arm64 still builds: the series is "building").
 */
static int set_progress(struct pipeline_ctx *ctx, long long series_id)
{
	const struct pipeline_stage *s;
	int n;

	for (s = ctx->stages; s->kind; s++) {
		if (db_pipeline_active(ctx->db, series_id, s->kind, &n))
			return -1;
		if (n)
			return db_pipeline_set_status(ctx->db, series_id,
						      s->running, NULL);
	}
	return 0;
}

/* Queues stage st for every configured arch (one job without an arch
 * when none is: the stage then fails it with the reason). */
static int enqueue_arches(struct pipeline_ctx *ctx,
			  const struct pipeline_stage *st, long long series_id)
{
	const struct arch *a;
	int n = 0;

	for (a = arch_table; ctx->cfg && a->name; a++) {
		if (!config_arch_get(ctx->cfg, a))
			continue;
		if (enqueue_in(ctx->stages, ctx->db, st->kind, series_id,
			       a->name))
			return -1;
		n++;
	}
	return n ? 0 : enqueue_in(ctx->stages, ctx->db, st->kind, series_id,
				  NULL);
}

/*
 * A job of stage st is done: move the series on.  A per-arch job hands
 * its arch to the next per-arch stage; the last per-arch job of a series
 * (none of any kind left queued or running) moves the series to the next
 * stage that is not per arch.
 */
static int advance(struct pipeline_ctx *ctx, const struct job *job,
		   const struct pipeline_stage *st)
{
	const struct pipeline_stage *next = st->next ?
		pipeline_stage_find(ctx->stages, st->next) : NULL;
	long long sid = job->series_id;
	int active;

	if (job->arch && next && next->per_arch)
		return enqueue_in(ctx->stages, ctx->db, next->kind, sid,
				  job->arch) || set_progress(ctx, sid);
	if (job->arch) {
		if (db_pipeline_active(ctx->db, sid, NULL, &active))
			return -1;
		if (active)
			return set_progress(ctx, sid);
	}
	if (db_pipeline_set_status(ctx->db, sid, st->done, NULL))
		return -1;
	if (!st->next)
		return 0;
	if (next && next->per_arch)
		return enqueue_arches(ctx, next, sid);
	return enqueue_in(ctx->stages, ctx->db, st->next, sid, NULL);
}

/* The series fails: its reason, and the other arches' queued jobs go. */
static int fail_series(struct pipeline_ctx *ctx, const struct job *job,
		       const char *status, const char *reason)
{
	return db_pipeline_set_status(ctx->db, job->series_id, status,
				      reason) ||
	       db_pipeline_cancel(ctx->db, job->series_id, reason);
}

/*
 * A stage failed for good: a report job tells the author of a result
 * (does-not-apply, build-failed, boot-failed: the stage's own failure
 * status), and, once runs have started (report_failure 2), settles the
 * patchwork checks they set pending.  Not for a stage without code.
 */
static int report_failure(struct pipeline_ctx *ctx, const struct job *job,
			  const struct pipeline_stage *st,
			  const char *fail_status)
{
	if (!st || !st->run || !st->report_failure ||
	    (st->report_failure == 1 && strcmp(fail_status, st->failed)) ||
	    !pipeline_stage_find(ctx->stages, "report"))
		return 0;
	return enqueue_in(ctx->stages, ctx->db, "report", job->series_id,
			  NULL);
}

/* The outcome transaction of a job; 0 or -1 (rolled back, logged). */
static int record(struct pipeline_ctx *ctx, const struct job *job,
		  const struct pipeline_stage *st, enum pipeline_result r,
		  const char *fail_status, const char *reason)
{
	struct strbuf sr = STRBUF_INIT;
	struct db *db = ctx->db;
	int ret = -1, final = 0;

	if (db_begin(db))
		return -1;
	/* Another arch's job may have failed the series meanwhile: then
	 * this job's outcome is its own, and the series stays as it is. */
	if (job->series_id && r != PIPELINE_INTERRUPTED &&
	    db_pipeline_is_final(db, job->series_id, &final))
		goto out;
	switch (r) {
	case PIPELINE_OK:
		if (jobq_finish(db, job->id, ctx->owner))
			goto out;
		if (job->series_id && !final && advance(ctx, job, st))
			goto out;
		break;
	case PIPELINE_FAIL:
		if (jobq_fail(db, job->id, ctx->owner, reason, 0))
			goto out;
		strbuf_addf(&sr, "%s: %s", job->kind, reason);
		if (job->series_id && !final &&
		    (fail_series(ctx, job, fail_status, sr.buf) ||
		     report_failure(ctx, job, st, fail_status)))
			goto out;
		break;
	case PIPELINE_RETRY:
		if (jobq_fail(db, job->id, ctx->owner, reason, 1))
			goto out;
		if (!job->series_id || final)
			break;
		if (job->attempts >= job->max_attempts) {
			strbuf_addf(&sr, "%s: %s (after %d attempts)",
				    job->kind, reason, job->attempts);
			if (fail_series(ctx, job, fail_status, sr.buf) ||
			    report_failure(ctx, job, st, fail_status))
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
		int final = 0;

		if (db_begin(ctx->db) ||
		    db_pipeline_is_final(ctx->db, job->series_id, &final) ||
		    (!final && set_progress(ctx, job->series_id)) ||
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
		log_info("pipeline", "job %lld: %s%s%s of series %lld done",
			 job->id, job->kind, job->arch ? " " : "",
			 job->arch ? job->arch : "", job->series_id);
	else
		log_info("pipeline", "job %lld: %s%s%s of series %lld %s%s%s",
			 job->id, job->kind, job->arch ? " " : "",
			 job->arch ? job->arch : "", job->series_id,
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
