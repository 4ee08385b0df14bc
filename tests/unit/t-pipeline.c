/*
 * t-pipeline.c - the series state machine: stages not implemented fail
 * honestly, a successful stage moves the series on and enqueues the next
 * one atomically, permanent and transient failures give the right status
 * and reason, an interrupted job is given back, and start-up recovery
 * fails series whose job can no longer run.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "db_pipeline.h"
#include "jobq.h"
#include "pipeline.h"
#include "stages.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-pipeline.XXXXXX";

/*
 * The real table with no stage implemented: the state machine is tested
 * on its own, whatever stages are wired into stage_table.
 */
/* The real table without stage code, NULL-terminated (room to spare). */
#define NSTAGES 16
static struct pipeline_stage unimpl[NSTAGES];

static long long new_series(struct db *db)
{
	db_exec(db, "INSERT INTO series (subject, created_at, updated_at) "
		"VALUES ('[PATCH] mm: test', 0, 0)");
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

static int claim_run(struct pipeline_ctx *ctx, const char *kind)
{
	struct job j;
	int r;

	if (jobq_claim(ctx->db, ctx->owner, 60, &j) != 1)
		return -100;
	if (strcmp(j.kind, kind)) {
		diag("claimed %s, expected %s", j.kind, kind);
		job_release(&j);
		return -101;
	}
	r = pipeline_run_job(ctx, &j);
	job_release(&j);
	return r;
}

static enum pipeline_result stage_ok(struct pipeline_ctx *ctx,
				     const struct job *job,
				     struct pipeline_outcome *out)
{
	return PIPELINE_OK;
}

static enum pipeline_result stage_no_apply(struct pipeline_ctx *ctx,
					   const struct job *job,
					   struct pipeline_outcome *out)
{
	strbuf_addstr(&out->reason, "patch 2/3 (mm/memory.c): hunk #1 "
		      "failed");
	return PIPELINE_FAIL;
}

static enum pipeline_result stage_flaky(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out)
{
	strbuf_addstr(&out->reason, "lore.kernel.org: HTTP 503");
	return PIPELINE_RETRY;
}

static enum pipeline_result stage_incomplete(struct pipeline_ctx *ctx,
					     const struct job *job,
					     struct pipeline_outcome *out)
{
	strbuf_addstr(&out->reason, "2 of 3 patches");
	out->fail_status = "incomplete";
	return PIPELINE_FAIL;
}

static void test_table(void)
{
	const struct pipeline_stage *s;
	const char *chain[] = { "fetch", "apply", "build", "run", "analyze",
				"layout-build", "layout-run",
				"layout-analyze", "report" };
	const size_t last = sizeof(chain) / sizeof(chain[0]) - 1;
	size_t i;

	for (i = 0; i <= last; i++) {
		s = pipeline_stage_find(stage_table, chain[i]);
		if (!ok(s != NULL, "stage %s exists", chain[i]))
			return;
		is_str(s->next, i < last ? chain[i + 1] : NULL, "%s is "
		       "followed by %s", chain[i],
		       i < last ? chain[i + 1] : "nothing");
	}
	ok(pipeline_stage_find(stage_table, "layout-build")->per_arch &&
	   pipeline_stage_find(stage_table, "layout-run")->per_arch &&
	   !pipeline_stage_find(stage_table, "layout-analyze")->per_arch,
	   "the layout control builds and boots per arch, and answers for "
	   "the series");
	ok(pipeline_stage_find(stage_table, "fetch")->run != NULL,
	   "fetch is implemented");
	ok(pipeline_stage_find(stage_table, "apply")->run != NULL,
	   "apply is implemented");
	ok(pipeline_stage_find(stage_table, "build")->run != NULL,
	   "build is implemented");
	ok(pipeline_stage_find(stage_table, "run")->run != NULL,
	   "run is implemented");
	ok(pipeline_stage_find(stage_table, "report")->run != NULL,
	   "report is implemented");
	ok(pipeline_stage_find(stage_table, "bogus") == NULL, "unknown kind");
	is_str(pipeline_stage_find(stage_table, "report")->done, "done",
	       "report ends in done");
}

static void test_not_implemented(struct pipeline_ctx *ctx)
{
	long long sid = new_series(ctx->db), jid;

	ok(jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, &jid) == 0, "series started");
	is_int(claim_run(ctx, "fetch"), PIPELINE_FAIL,
	       "unimplemented fetch fails");
	is_str(q_state(ctx->db, sid), "failed|fetch: not implemented yet",
	       "series failed with the stage's reason");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE id = %lld AND "
		     "state = 'failed' AND last_error = 'not implemented yet'",
		     jid), 1, "job failed with \"not implemented yet\"");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld", sid), 1, "no further job queued");
	is_int(q_int(ctx->db, "SELECT attempts FROM job WHERE id = %lld", jid),
	       1, "not retried");
}

static void test_flow(struct pipeline_ctx *ctx)
{
	struct pipeline_stage t[NSTAGES];
	long long sid;

	memcpy(t, unimpl, sizeof(t));
	t[0].run = stage_ok;
	t[1].run = stage_no_apply;
	ctx->stages = t;

	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	is_int(claim_run(ctx, "fetch"), PIPELINE_OK, "fetch succeeds");
	is_str(q_state(ctx->db, sid), "fetched|", "series fetched");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'apply' AND state = 'queued'", sid), 1,
	       "apply queued");
	is_int(claim_run(ctx, "apply"), PIPELINE_FAIL, "apply fails");
	is_str(q_state(ctx->db, sid), "does-not-apply|apply: patch 2/3 "
	       "(mm/memory.c): hunk #1 failed", "does-not-apply with the "
	       "reason");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'build'", sid), 0, "no build queued");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'report' AND state = 'queued'", sid), 1,
	       "a report job queued: the author is told");
	is_int(claim_run(ctx, "report"), PIPELINE_FAIL, "(not implemented "
	       "in this table)");
	is_str(q_state(ctx->db, sid), "does-not-apply|apply: patch 2/3 "
	       "(mm/memory.c): hunk #1 failed", "the report job leaves the "
	       "failure status alone");

	/* A stage may pick its own failure status. */
	t[0].run = stage_incomplete;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	is_int(claim_run(ctx, "fetch"), PIPELINE_FAIL, "incomplete series");
	is_str(q_state(ctx->db, sid), "incomplete|fetch: 2 of 3 patches",
	       "status chosen by the stage");

	/* Apply succeeds but enqueuing build fails: nothing is recorded. */
	t[0].run = stage_ok;
	t[1].run = stage_ok;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	db_exec(ctx->db, "CREATE TRIGGER no_build BEFORE INSERT ON job "
		"WHEN NEW.kind = 'build' BEGIN "
		"SELECT RAISE(ABORT, 'injected failure'); END");
	is_int(claim_run(ctx, "apply"), -1, "outcome cannot be recorded");
	is_str(q_state(ctx->db, sid), "applying|", "series not moved "
	       "on");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'apply' AND state = 'running'", sid), 1,
	       "apply job still leased, not finished");
	ok(!db_in_transaction(ctx->db), "transaction rolled back");
	db_exec(ctx->db, "DROP TRIGGER no_build");

	/* The stages after apply are not implemented: run stops there. */
	db_exec(ctx->db, "UPDATE job SET state = 'done' WHERE kind = 'apply' "
		"AND state = 'running'");
	db_exec(ctx->db, "UPDATE job SET state = 'failed' WHERE state = "
		"'queued'");
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	claim_run(ctx, "apply");
	is_str(q_state(ctx->db, sid), "applied|", "applied");
	is_int(claim_run(ctx, "build"), PIPELINE_FAIL, "build not "
	       "implemented");
	is_str(q_state(ctx->db, sid), "failed|build: not implemented yet",
	       "series failed at build");
	ctx->stages = unimpl;
}

static long long fake_now = 2000000000;

static long long fake_clock(void)
{
	return fake_now;
}

static void test_retry(struct pipeline_ctx *ctx)
{
	struct pipeline_stage t[NSTAGES];
	long long sid;
	int i;

	memcpy(t, unimpl, sizeof(t));
	t[0].run = stage_flaky;
	ctx->stages = t;
	jobq_set_clock(fake_clock);
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	is_int(claim_run(ctx, "fetch"), PIPELINE_RETRY, "transient failure");
	is_str(q_state(ctx->db, sid), "fetching|fetch: attempt 1 of 5 "
	       "failed, retrying: lore.kernel.org: HTTP 503",
	       "series still fetching, with the retry reason");
	for (i = 2; i <= 5; i++) {
		fake_now += 3600;
		is_int(claim_run(ctx, "fetch"), PIPELINE_RETRY, "attempt %d",
		       i);
	}
	is_str(q_state(ctx->db, sid), "fetch-failed|fetch: "
	       "lore.kernel.org: HTTP 503 (after 5 attempts)",
	       "attempts used up: fetch-failed");
	fake_now += 100000;
	is_int(claim_run(ctx, "fetch"), -100, "no more attempts");
	jobq_set_clock(NULL);
	ctx->stages = unimpl;
}

static void test_interrupt_and_recover(struct pipeline_ctx *ctx)
{
	static volatile sig_atomic_t stop = 1;
	struct job j;
	long long sid, sid2, jid;
	int released = -1, orphans = -1;

	/* Stopping while the test hook sleeps gives the job back. */
	setenv("KREGRESS_TEST_STAGE_SLEEP", "5", 1);
	ctx->stop = &stop;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, &jid);
	is_int(claim_run(ctx, "fetch"), PIPELINE_INTERRUPTED, "interrupted");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE id = %lld AND "
		     "state = 'queued' AND attempts = 0", jid), 1,
	       "job queued again, attempt not counted");
	unsetenv("KREGRESS_TEST_STAGE_SLEEP");
	ctx->stop = NULL;

	/* A dead daemon "old" held this job and a single-attempt one. */
	jobq_claim(ctx->db, "old", 60, &j);
	job_release(&j);
	sid2 = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid2, NULL, &jid);
	q_int(ctx->db, "UPDATE job SET max_attempts = 1 WHERE id = %lld", jid);
	jobq_claim(ctx->db, "old", 60, &j);
	job_release(&j);
	db_pipeline_set_status(ctx->db, sid2, "fetching", NULL);
	ok(pipeline_recover(ctx->db, ctx->owner, &released, &orphans) == 0,
	   "recovery");
	is_int(released, 2, "two leases released");
	is_int(orphans, 1, "one series could not continue");
	is_str(q_state(ctx->db, sid2), "failed|fetch: lease lost 1 time "
	       "(its daemon stopped while running it; last old)",
	       "its series failed with the reason");
	is_int(claim_run(ctx, "fetch"), PIPELINE_FAIL, "the other job runs "
	       "again");
	is_str(q_state(ctx->db, sid), "failed|fetch: not implemented yet",
	       "and reaches its honest end");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld", sid), 1, "still one job for the series");

	/* Unknown kinds fail rather than loop. */
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, "frobnicate", sid, NULL, NULL);
	is_int(claim_run(ctx, "frobnicate"), PIPELINE_FAIL,
	       "unknown kind fails");
	is_str(q_state(ctx->db, sid), "failed|frobnicate: unknown job "
	       "kind", "with a reason");
}

/* Claims the next job, which must be kind for arch, into *j. */
static int claim_arch(struct pipeline_ctx *ctx, const char *kind,
		      const char *arch, struct job *j)
{
	if (jobq_claim(ctx->db, ctx->owner, 60, j) != 1)
		return -1;
	if (strcmp(j->kind, kind) || !j->arch || strcmp(j->arch, arch)) {
		diag("claimed %s %s, expected %s %s", j->kind,
		     j->arch ? j->arch : "-", kind, arch);
		job_release(j);
		return -1;
	}
	return 0;
}

static int run_claimed(struct pipeline_ctx *ctx, struct job *j)
{
	int r = pipeline_run_job(ctx, j);

	job_release(j);
	return r;
}

static enum pipeline_result stage_build_fails(struct pipeline_ctx *ctx,
					      const struct job *job,
					      struct pipeline_outcome *out)
{
	strbuf_addf(&out->reason, "%s: mm/memory.c:12: error: expected ';'",
		    job->arch);
	return PIPELINE_FAIL;
}

/*
 * Build and run go per arch: each arch's run starts when its build is
 * done, analyze when the last arch's run is; a failing arch fails the
 * series and cancels what the other arch has queued.
 */
static void test_per_arch(struct pipeline_ctx *ctx)
{
	struct pipeline_stage t[NSTAGES];
	struct config cfg;
	struct job bx, ba, rx, ra;
	long long sid;
	int released = -1, orphans = -1;

	memset(&cfg, 0, sizeof(cfg));
	cfg.arches[arch_index(arch_find("x86_64"))].arch = arch_find("x86_64");
	cfg.arches[arch_index(arch_find("arm64"))].arch = arch_find("arm64");
	ctx->cfg = &cfg;
	memcpy(t, unimpl, sizeof(t));
	t[0].run = t[1].run = t[2].run = t[3].run = stage_ok;
	ctx->stages = t;
	db_exec(ctx->db, "UPDATE job SET state = 'failed' WHERE state IN "
		"('queued', 'running')");

	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	is_int(claim_run(ctx, "apply"), PIPELINE_OK, "applied");
	is_str(q_str(ctx->db, "SELECT group_concat(kind || ' ' || arch, ', ') "
		     "FROM job WHERE series_id = %lld AND state = 'queued'",
		     sid), "build x86_64, build arm64",
	       "one build job per configured arch");
	is_str(q_state(ctx->db, sid), "applied|", "applied");
	ok(claim_arch(ctx, "build", "x86_64", &bx) == 0 &&
	   claim_arch(ctx, "build", "arm64", &ba) == 0, "both builds claimed");
	is_int(run_claimed(ctx, &bx), PIPELINE_OK, "x86_64 built");
	is_str(q_str(ctx->db, "SELECT group_concat(kind || ' ' || arch, ', ') "
		     "FROM job WHERE series_id = %lld AND state = 'queued'",
		     sid), "run x86_64",
	       "x86_64's run is queued while arm64 still builds");
	is_str(q_state(ctx->db, sid), "building|",
	       "the series shows its earliest stage in flight");
	ok(claim_arch(ctx, "run", "x86_64", &rx) == 0, "x86_64 run claimed");
	is_int(run_claimed(ctx, &rx), PIPELINE_OK, "x86_64 ran");
	is_str(q_state(ctx->db, sid), "building|", "still building");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'analyze'", sid), 0,
	       "no analysis while arm64 builds");
	is_int(run_claimed(ctx, &ba), PIPELINE_OK, "arm64 built");
	is_str(q_state(ctx->db, sid), "running|", "now the series runs");
	ok(claim_arch(ctx, "run", "arm64", &ra) == 0, "arm64 run claimed");
	is_int(run_claimed(ctx, &ra), PIPELINE_OK, "arm64 ran");
	is_str(q_state(ctx->db, sid), "ran|", "the last run moves it on");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'analyze' AND arch IS NULL AND state = "
		     "'queued'", sid), 1, "one analysis for the series");
	db_exec(ctx->db, "UPDATE job SET state = 'done' WHERE kind = "
		"'analyze'");

	/* x86_64's patched kernel does not build while arm64 builds. */
	t[2].run = stage_build_fails;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	claim_run(ctx, "apply");
	ok(claim_arch(ctx, "build", "x86_64", &bx) == 0, "x86_64 claimed");
	ok(claim_arch(ctx, "build", "arm64", &ba) == 0, "arm64 claimed");
	is_int(run_claimed(ctx, &bx), PIPELINE_FAIL, "x86_64 fails");
	is_str(q_state(ctx->db, sid), "build-failed|build: x86_64: "
	       "mm/memory.c:12: error: expected ';'", "the series failed "
	       "with x86_64's reason");
	t[2].run = stage_ok;
	is_int(run_claimed(ctx, &ba), PIPELINE_OK, "arm64's build ends");
	is_str(q_state(ctx->db, sid), "build-failed|build: x86_64: "
	       "mm/memory.c:12: error: expected ';'", "and leaves the failed "
	       "series as it was");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'run'", sid), 0, "no run is queued");
	is_int(q_int(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld AND kind = 'report' AND state = 'queued'", sid), 1,
	       "one report job for the build failure, queued after the "
	       "cancelling");
	db_exec(ctx->db, "UPDATE job SET state = 'done' WHERE kind = "
		"'report'");

	/* A queued arch is cancelled when the other fails. */
	t[2].run = stage_build_fails;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	claim_run(ctx, "apply");
	ok(claim_arch(ctx, "build", "x86_64", &bx) == 0, "x86_64 claimed");
	run_claimed(ctx, &bx);
	is_str(q_str(ctx->db, "SELECT state || ': ' || last_error FROM job "
		     "WHERE series_id = %lld AND arch = 'arm64'", sid),
	       "failed: cancelled: build: x86_64: mm/memory.c:12: error: "
	       "expected ';'", "the other arch's queued build is cancelled");
	db_exec(ctx->db, "UPDATE job SET state = 'done' WHERE kind = "
		"'report'");

	/* A dead daemon's arch job that lost its last attempt. */
	t[2].run = stage_ok;
	sid = new_series(ctx->db);
	jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, sid, NULL, NULL);
	claim_run(ctx, "fetch");
	claim_run(ctx, "apply");
	db_exec(ctx->db, "UPDATE job SET leases_lost = max_attempts - 1 "
		"WHERE kind = 'build' AND arch = 'x86_64' AND state = "
		"'queued'");
	jobq_claim(ctx->db, "old", 60, &bx);
	job_release(&bx);
	ok(pipeline_recover(ctx->db, ctx->owner, &released, &orphans) == 0,
	   "recovery");
	is_str(q_state(ctx->db, sid), "failed|build x86_64: lease lost 5 "
	       "times (its daemon stopped while running it; last old)",
	       "the series failed, naming the arch");
	is_str(q_str(ctx->db, "SELECT state FROM job WHERE series_id = %lld "
		     "AND arch = 'arm64'", sid), "failed",
	       "and its other arch's job is cancelled");
	ctx->cfg = NULL;
	ctx->stages = unimpl;
}

int main(void)
{
	struct pipeline_ctx ctx = { .owner = "test", .lease_s = 60 };
	char path[128], cmd[160];
	size_t i;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/p.db", dir);
	if (!ok(db_open(path, &ctx.db) == 0, "open"))
		return done_testing();
	test_table();
	for (i = 0; stage_table[i].kind && i + 1 < NSTAGES; i++) {
		unimpl[i] = stage_table[i];
		unimpl[i].run = NULL;
	}
	ctx.stages = unimpl;
	test_not_implemented(&ctx);
	test_flow(&ctx);
	test_retry(&ctx);
	test_interrupt_and_recover(&ctx);
	test_per_arch(&ctx);
	db_close(ctx.db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
