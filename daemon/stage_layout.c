/*
 * stage_layout.c - the layout control's stages (see stage_layout.h).
 * No SQL here (db_layout.c), no statistics (layout.c decides); the
 * builds, boots and comparisons are the stages' own code, for the
 * aligned kernels.
 */
#include <math.h>
#include <string.h>

#include "analyze.h"
#include "config.h"
#include "db_analyze.h"
#include "db_layout.h"
#include "jobq.h"
#include "layout.h"
#include "log.h"
#include "stage_analyze.h"
#include "stage_build.h"
#include "stage_layout.h"
#include "stage_run.h"
#include "strbuf.h"

/*
 * Records the same answer on every row: no control (outcome NULL) or
 * unconfirmed, with why.  -1 on a database error.
 */
static int store_all(struct pipeline_ctx *ctx,
		     const struct db_layout_rows *rows, const char *outcome,
		     const char *why)
{
	struct db_layout_result r = { outcome, why, 0, NULL, NAN, NAN, NAN };
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (db_layout_store(ctx->db, rows->v[i].id, &r))
			return -1;
	return 0;
}

/*
 * The comparisons of the job's arch the control is to check, and whether
 * it is to be made: 1 (rows to check), 0 (nothing to do: none, or the
 * control does not cover their clock, which is then recorded on them),
 * -1 on a database error.
 */
static int pending(struct pipeline_ctx *ctx, const struct job *job,
		   struct db_layout_rows *rows)
{
	enum layout_when when = ctx->cfg ? ctx->cfg->stats.layout_control :
				LAYOUT_WHEN_REAL_TIME;
	const char *why;

	if (db_layout_pending(ctx->db, job->series_id, job->arch, rows))
		return -1;
	if (!rows->n)
		return 0;
	if (layout_when_applies(when, rows->v[0].clock, &why))
		return 1;
	log_info("layout", "series %lld: %s: no layout control: %s",
		 job->series_id, job->arch, why);
	return store_all(ctx, rows, NULL, why) ? -1 : 0;
}

/*
 * A build or run of the control that failed for good (a failure, or a
 * retryable one on the job's last attempt): its comparisons are
 * unconfirmed with what (the step) and the stage's reason, and the
 * series goes on.  Anything else is passed through.
 */
static enum pipeline_result settle(struct pipeline_ctx *ctx,
				   const struct job *job,
				   const struct db_layout_rows *rows,
				   const char *what, enum pipeline_result r,
				   struct pipeline_outcome *out)
{
	struct strbuf why = STRBUF_INIT;

	if (r == PIPELINE_RETRY && job->attempts < job->max_attempts)
		return r;
	if (r != PIPELINE_FAIL && r != PIPELINE_RETRY)
		return r;
	strbuf_addf(&why, "the aligned kernels %s: %s", what,
		    out->reason.buf);
	if (r == PIPELINE_RETRY)
		strbuf_addf(&why, " (after %d attempts)", job->attempts);
	log_warn("layout", "series %lld: %s: %s", job->series_id, job->arch,
		 why.buf);
	r = store_all(ctx, rows, layout_outcome_str(LAYOUT_UNCONFIRMED),
		      why.buf) ? PIPELINE_RETRY : PIPELINE_OK;
	strbuf_release(&why);
	strbuf_reset(&out->reason);
	out->fail_status = NULL;
	if (r == PIPELINE_RETRY)
		strbuf_addstr(&out->reason, "the layout results cannot be "
			      "stored");
	return r;
}

/* Runs step for the job's arch when it has comparisons to check. */
static enum pipeline_result per_arch(struct pipeline_ctx *ctx,
				     const struct job *job,
				     struct pipeline_outcome *out,
				     const char *what,
				     enum pipeline_result (*step)(
					struct pipeline_ctx *,
					const struct job *, enum layout,
					struct pipeline_outcome *))
{
	struct db_layout_rows rows = { NULL, 0, 0 };
	enum pipeline_result r;
	int rc;

	if (!job->arch) {
		strbuf_addstr(&out->reason, "a layout job without an arch");
		return PIPELINE_FAIL;
	}
	rc = pending(ctx, job, &rows);
	if (rc <= 0) {
		db_layout_rows_release(&rows);
		if (rc < 0)
			strbuf_addstr(&out->reason, "the comparisons cannot "
				      "be read");
		return rc < 0 ? PIPELINE_RETRY : PIPELINE_OK;
	}
	r = settle(ctx, job, &rows, what,
		   step(ctx, job, LAYOUT_ALIGNED, out), out);
	db_layout_rows_release(&rows);
	return r;
}

enum pipeline_result stage_layout_build(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out)
{
	return per_arch(ctx, job, out, "did not build", stage_build_layout);
}

enum pipeline_result stage_layout_run(struct pipeline_ctx *ctx,
				      const struct job *job,
				      struct pipeline_outcome *out)
{
	return per_arch(ctx, job, out, "did not give a run",
			stage_run_layout);
}

static double pct(double fraction)
{
	return isfinite(fraction) ? fraction * 100 : NAN;
}

static const struct analyze_metric *metric_of(const struct analyze_set *set,
					      const struct db_layout_row *row)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct analyze_metric *m = &set->m[i];

		if (!strcmp(m->workload, row->workload) &&
		    !strcmp(m->metric, row->metric) &&
		    !strcmp(m->params, row->params))
			return m;
	}
	return NULL;
}

/* What the aligned run says of one comparison, into *res (why: its
 * reason's storage). */
static void result_of(const struct db_analyze_run *run,
		      const struct analyze_metric *m,
		      const struct db_layout_row *row,
		      struct db_layout_result *res, struct strbuf *why)
{
	enum layout_outcome o;

	memset(res, 0, sizeof(*res));
	res->run_id = run->id;
	res->change_pct = res->ci_low_pct = res->ci_high_pct = NAN;
	if (!m || !m->compared) {
		strbuf_addf(why, "the aligned run %lld has no samples of it",
			    run->id);
		res->outcome = layout_outcome_str(LAYOUT_UNCONFIRMED);
		res->reason = why->buf;
		return;
	}
	res->verdict = stats_verdict_str(m->r.verdict);
	res->change_pct = pct(m->r.change);
	res->ci_low_pct = pct(m->r.ci_lo);
	res->ci_high_pct = pct(m->r.ci_hi);
	o = layout_decide(row->verdict, res->verdict);
	res->outcome = layout_outcome_str(o);
	if (o == LAYOUT_UNCONFIRMED) {
		strbuf_addf(why, "the aligned run %lld is %s after %zu and "
			    "%zu boots", run->id, res->verdict, m->r.n_base,
			    m->r.n_new);
		res->reason = why->buf;
	}
}

/*
 * Answers the rows of one arch (rows->v[from..to)) from that arch's
 * aligned run (NULL when there is none).  -1 on a database error, -2
 * when stats.c refuses the options.
 */
static int answer_arch(struct pipeline_ctx *ctx,
		       const struct db_analyze_run *run,
		       const struct db_layout_rows *rows, size_t from,
		       size_t to, const struct stats_opts *o)
{
	struct db_layout_rows part = { rows->v + from, to - from, 0 };
	struct strbuf why = STRBUF_INIT;
	struct analyze_set set;
	struct db_layout_result res;
	size_t i;
	int rc = 0;

	analyze_set_init(&set);
	if (!run)
		strbuf_addf(&why, "%s: the aligned kernels have no run",
			    rows->v[from].arch);
	else
		rc = stage_analyze_run(ctx, run, &set, o, &why);
	if (rc)
		goto out;
	if (why.len) {
		/* The run gave no comparisons: why says why. */
		rc = store_all(ctx, &part,
			       layout_outcome_str(LAYOUT_UNCONFIRMED),
			       why.buf);
		goto out;
	}
	for (i = from; !rc && i < to; i++) {
		strbuf_reset(&why);
		result_of(run, metric_of(&set, &rows->v[i]), &rows->v[i],
			  &res, &why);
		rc = db_layout_store(ctx->db, rows->v[i].id, &res);
	}
out:
	analyze_set_release(&set);
	strbuf_release(&why);
	return rc;
}

static const struct db_analyze_run *run_of(const struct db_analyze_run *runs,
					   size_t n, const char *arch)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(runs[i].arch, arch))
			return &runs[i];
	return NULL;
}

enum pipeline_result stage_layout_analyze(struct pipeline_ctx *ctx,
					  const struct job *job,
					  struct pipeline_outcome *out)
{
	struct db_layout_rows rows = { NULL, 0, 0 };
	struct db_analyze_run *runs = NULL;
	enum pipeline_result r = PIPELINE_RETRY;
	struct stats_opts o;
	enum analyze_fdr fdr;
	size_t nruns = 0, from, to;
	int rc = 0;

	if (ctx->stop && *ctx->stop)
		return PIPELINE_INTERRUPTED;
	stage_analyze_options(ctx->cfg, &o, &fdr);
	if (db_layout_pending(ctx->db, job->series_id, NULL, &rows) ||
	    db_analyze_runs(ctx->db, job->series_id, LAYOUT_ALIGNED, &runs,
			    &nruns)) {
		strbuf_addstr(&out->reason, "the comparisons or runs cannot "
			      "be read");
		goto out;
	}
	for (from = 0; !rc && from < rows.n; from = to) {
		for (to = from + 1; to < rows.n &&
		     !strcmp(rows.v[to].arch, rows.v[from].arch); to++)
			;
		log_error_reset();
		rc = answer_arch(ctx, run_of(runs, nruns, rows.v[from].arch),
				 &rows, from, to, &o);
	}
	if (rc == -2) {
		strbuf_addf(&out->reason, "the comparison failed: %s",
			    log_error_first());
		r = PIPELINE_FAIL;
	} else if (rc) {
		strbuf_addstr(&out->reason, "the layout results cannot be "
			      "stored");
	} else {
		log_info("layout", "series %lld: %zu comparison%s answered",
			 job->series_id, rows.n, rows.n == 1 ? "" : "s");
		r = PIPELINE_OK;
	}
out:
	db_layout_rows_release(&rows);
	db_analyze_runs_free(runs, nruns);
	return r;
}
