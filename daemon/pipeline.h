/*
 * pipeline.h - the series state machine of DESIGN.md §1.
 *
 * A series goes through the stages fetch -> apply -> build -> run ->
 * analyze -> report, each one a job kind in the queue.  pipeline_run_job()
 * runs one claimed job: it sets the series to the stage's running status,
 * calls the stage function, and records the outcome in ONE transaction:
 * job finished + series moved on + next stage enqueued, or job failed +
 * series in a failure status with its reason.  A stage without a function
 * yet fails its job permanently with "not implemented yet" and the series
 * goes to "failed" with "<stage>: not implemented yet": never a faked
 * success.
 *
 * Series statuses (series.status):
 *   queued -> fetching -> fetched -> applying -> applied -> building ->
 *   built -> running -> ran -> analyzing -> analyzed -> reporting -> done
 * and the failure statuses fetch-failed, incomplete, does-not-apply,
 * build-failed, boot-failed, failed, each with series.status_reason.
 *
 * A stage marked report_failure queues a report job when it fails for
 * good, in the same transaction: apply and build (1) when their failure
 * is the patch's result (does-not-apply, build-failed), run and analyze
 * (2) whatever the failure, since a run that started set the series'
 * patchwork checks pending.  The report stage mails the author of a
 * result and settles the checks; the series keeps its failure status.
 *
 * Build and run are per-arch stages: one job per configured arch
 * (job.arch), and each arch's run job is queued as soon as that arch's
 * build job is done, so x86_64 boots while arm64 still builds.  While
 * work is in flight the series shows the running status of the earliest
 * stage that still has a job; the last per-arch job to finish moves the
 * series to the next stage (analyze).  The first per-arch job that fails
 * fails the series and cancels the other arches' queued jobs; one still
 * running finishes, finds the series final and leaves it alone.
 *
 * Test hook: when the environment variable KREGRESS_TEST_STAGE_SLEEP is a
 * number of seconds, every job sleeps that long (while holding its lease)
 * before its stage runs, so that tests can kill the daemon mid-lease.
 */
#ifndef KREGRESS_PIPELINE_H
#define KREGRESS_PIPELINE_H

#include <signal.h>

#include "strbuf.h"

#include "config.h"

struct db;
struct job;

enum pipeline_result {
	PIPELINE_OK,		/* stage done: move on */
	PIPELINE_RETRY,		/* transient failure: retry with backoff */
	PIPELINE_FAIL,		/* permanent failure: series fails */
	PIPELINE_INTERRUPTED,	/* stopping: give the job back untouched */
};
const char *pipeline_result_str(enum pipeline_result r);

/* What a stage function reports besides its result. */
struct pipeline_outcome {
	struct strbuf reason;	/* why it failed; empty on success */
	const char *fail_status; /* NULL = the stage's failure status */
};

struct pipeline_ctx {
	struct db *db;			/* the worker's own connection */
	const struct config *cfg;	/* may be NULL in tests */
	const char *owner;		/* lease owner of the jobs */
	int lease_s;
	/* Set (to non-zero) by the daemon when it is stopping. */
	const volatile sig_atomic_t *stop;
	/* The stages to run: stages.h's table, or a test's own. */
	const struct pipeline_stage *stages;
};

/*
 * A stage function does the work of one job; it must not touch the job's
 * row (the pipeline does) and should return PIPELINE_INTERRUPTED soon
 * after *ctx->stop becomes set.
 */
typedef enum pipeline_result (*pipeline_stage_fn)(struct pipeline_ctx *ctx,
						  const struct job *job,
						  struct pipeline_outcome *out);

struct pipeline_stage {
	const char *kind;	/* job kind: "fetch", ... */
	const char *running;	/* series status while it runs */
	const char *done;	/* series status when it succeeded */
	const char *failed;	/* series status when it failed */
	const char *next;	/* next job kind, NULL = last stage */
	int per_arch;		/* one job per configured arch */
	pipeline_stage_fn run;	/* NULL = not implemented yet */
	int report_failure;	/* failing for good queues a report job:
				 * 1 on the stage's own failure status,
				 * 2 on any */
	int max_attempts;	/* of its jobs; 0 = JOBQ_MAX_ATTEMPTS */
};

/* The stage for a job kind in table (in pipeline order, terminated by a
 * NULL kind; the first kind is JOBQ_KIND_FIRST), or NULL. */
const struct pipeline_stage *
pipeline_stage_find(const struct pipeline_stage *table, const char *kind);

/*
 * The configured arch of a per-arch stage's job: 0 with *ac set (its
 * arch is (*ac)->arch), or -1 with the reason (no configuration, a job
 * without an arch because none is configured, or an arch no longer
 * configured).
 */
int pipeline_job_arch(const struct pipeline_ctx *ctx, const struct job *job,
		      const struct config_arch_cfg **ac,
		      struct strbuf *reason);

/*
 * Runs a job claimed by ctx->owner and records its outcome (see above).
 * Returns the stage's result, or -1 (logged) when the outcome could not
 * be recorded (the job keeps its lease and is recovered later).
 */
int pipeline_run_job(struct pipeline_ctx *ctx, const struct job *job);

/*
 * Start-up recovery, in one transaction: releases every lease not held by
 * owner (jobq_release_stale()) and fails the series whose last job can no
 * longer run.  owner NULL is the periodic sweep: only expired leases, and
 * the series check only when a lease was released.  *released and
 * *orphans (optional) receive the counts.
 */
int pipeline_recover(struct db *db, const char *owner, int *released,
		     int *orphans);

#endif
