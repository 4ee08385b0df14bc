/*
 * stage_analyze.c - the analyze stage of the pipeline (see
 * stage_analyze.h).  No SQL here (db_analyze.c, db_calib.c) and no
 * statistics (analyze.c, stats.c, calib.c): this file chooses the runs,
 * gives each the thresholds and noise references of the calibrations
 * its looks used, says why one cannot be analysed, and turns results
 * into rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "analyze.h"
#include "calib.h"
#include "config.h"
#include "db_analyze.h"
#include "db_calib.h"
#include "jobq.h"
#include "log.h"
#include "options.h"
#include "stage_analyze.h"
#include "strbuf.h"

/* What the sample callback needs. */
struct feed {
	struct analyze_set *set;
	struct strbuf err;
};

static int feed_sample(void *arg, const struct db_analyze_sample *s)
{
	struct feed *f = arg;

	return analyze_add(f->set, s->workload, s->metric, s->params, s->unit,
			   s->direction, s->primary, s->patched ?
			   ANALYZE_PATCHED : ANALYZE_BASE, s->boot_id,
			   s->value, &f->err);
}

void stage_analyze_options(const struct config *cfg, struct stats_opts *o,
			   enum analyze_fdr *fdr)
{
	options_stats(cfg, o);
	/* Not stored in a comparison row: no need to spend the time. */
	o->bootstrap = 0;
	*fdr = ANALYZE_FDR_BH;
	if (cfg && cfg->stats.fdr_method &&
	    analyze_fdr_parse(cfg->stats.fdr_method, fdr))
		log_warn("analyze", "stats.fdr_method '%s' unknown: using bh",
			 cfg->stats.fdr_method);
}

/*
 * Why a run cannot give comparisons before its samples are read, into
 * reason ("" if it can).
 */
static void unusable(const struct db_analyze_run *r, struct strbuf *reason)
{
	if (!r->id) {
		strbuf_addf(reason, "%s: no finished run (%d interrupted or "
			    "still running)", r->arch, r->ignored);
		return;
	}
	if (r->ok[0] && r->ok[1])
		return;
	strbuf_addf(reason, "%s: no complete boots on %s (run %lld ended "
		    "%s; ", r->arch, !r->ok[0] && !r->ok[1] ? "either side" :
		    !r->ok[0] ? "the base side" : "the patched side", r->id,
		    r->status ? r->status : "?");
	if (!r->ok[0] && !r->ok[1])
		strbuf_addf(reason, "%d base and %d patched boots failed)",
			    r->failed[0], r->failed[1]);
	else
		strbuf_addf(reason, "%d %s boots failed)",
			    r->failed[r->ok[0] ? 1 : 0],
			    r->ok[0] ? "patched" : "base");
}

static double pct(double fraction)
{
	return isfinite(fraction) ? fraction * 100 : NAN;
}

/* The comparison rows of the usable runs; *n of them. */
static struct db_comparison *rows_of(const struct db_analyze_run *runs,
				     const struct analyze_set *sets,
				     size_t nruns, size_t *n)
{
	struct db_comparison *rows, *c;
	size_t i, j, total = 0;

	for (i = 0; i < nruns; i++)
		total += sets[i].n;
	rows = xcalloc(total + 1, sizeof(*rows));
	c = rows;
	for (i = 0; i < nruns; i++)
		for (j = 0; j < sets[i].n; j++, c++) {
			const struct analyze_metric *m = &sets[i].m[j];
			const struct stats_result *r = &m->r;

			c->arch = runs[i].arch;
			c->run_id = runs[i].id;
			c->host_id = runs[i].host_id;
			c->workload = m->workload;
			c->metric = m->metric;
			c->params = m->params;
			c->unit = m->unit;
			c->direction = analyze_direction_str(m->direction);
			c->is_primary = m->primary;
			c->n_base = r->n_base;
			c->n_new = r->n_new;
			c->median_base = r->center_base;
			c->median_new = r->center_new;
			c->change_pct = pct(r->change);
			c->ci_low_pct = pct(r->ci_lo);
			c->ci_high_pct = pct(r->ci_hi);
			c->ci_level = 1 - r->alpha;
			c->p_value = r->p;
			c->p_adjusted = m->p_adjusted;
			c->p_holm = m->p_holm;
			c->verdict = stats_verdict_str(r->verdict);
			c->flags = analyze_flags_str(r->flags);
			c->threshold_pct = m->threshold * 100;
			c->calibration_id = m->calibration_id;
		}
	*n = total;
	return rows;
}

int stage_analyze_run(struct pipeline_ctx *ctx,
		      const struct db_analyze_run *r, struct analyze_set *set,
		      const struct stats_opts *o, struct strbuf *reason)
{
	struct feed f = { set, STRBUF_INIT };
	struct stats_opts ro = *o;
	struct calib_table calib;
	int rc;

	unusable(r, reason);
	if (reason->len)
		return 0;
	rc = db_analyze_samples(ctx->db, r->id, feed_sample, &f);
	if (rc > 0)
		strbuf_addf(reason, "%s: run %lld: %s", r->arch, r->id,
			    f.err.buf);
	strbuf_release(&f.err);
	if (rc)
		return rc < 0 ? -1 : 0;
	analyze_set_finish(set);
	if (!set->n) {
		strbuf_addf(reason, "%s: the complete boots of run %lld gave "
			    "no samples", r->arch, r->id);
		return 0;
	}
	ro.repeatable = r->repeatable;
	/* An adaptive run is tested as its last look tested it, each
	 * metric at the threshold and noise reference its looks had. */
	calib_table_init(&calib);
	if (db_calib_for_run(ctx->db, r->id, &calib)) {
		calib_table_release(&calib);
		return -1;
	}
	set->calib = &calib;
	rc = analyze_set_final(set, &ro, r->alpha, r->max_per_side,
			       r->looks, r->nlooks) ? -2 : 0;
	set->calib = NULL;
	calib_table_release(&calib);
	return rc;
}

enum pipeline_result stage_analyze(struct pipeline_ctx *ctx,
				   const struct job *job,
				   struct pipeline_outcome *out)
{
	struct db_analyze_run *runs = NULL;
	struct analyze_set *sets = NULL;
	struct db_comparison *rows = NULL;
	struct strbuf skipped = STRBUF_INIT, why = STRBUF_INIT;
	enum pipeline_result res = PIPELINE_FAIL;
	struct stats_opts o;
	enum analyze_fdr fdr;
	size_t nruns = 0, nrows, i, usable = 0;
	int rc;

	if (ctx->stop && *ctx->stop)
		return PIPELINE_INTERRUPTED;
	stage_analyze_options(ctx->cfg, &o, &fdr);
	if (db_analyze_runs(ctx->db, job->series_id, LAYOUT_AS_BUILT, &runs,
			    &nruns)) {
		strbuf_addstr(&out->reason, "the runs cannot be read");
		return PIPELINE_RETRY;
	}
	if (!nruns) {
		strbuf_addstr(&out->reason, "the series has no run to "
			      "analyze");
		goto out;
	}
	sets = xcalloc(nruns, sizeof(*sets));
	for (i = 0; i < nruns; i++) {
		struct db_analyze_run *r = &runs[i];

		analyze_set_init(&sets[i]);
		strbuf_reset(&why);
		log_error_reset();
		rc = stage_analyze_run(ctx, r, &sets[i], &o, &why);
		if (rc == -1) {
			strbuf_addf(&out->reason, "%s: the samples of run %lld "
				    "cannot be read", r->arch, r->id);
			res = PIPELINE_RETRY;
		} else if (rc == -2) {
			strbuf_addf(&out->reason, "the comparison failed: %s",
				    log_error_first());
		} else if (why.len) {
			/* An unusable arch gives no rows. */
			strbuf_addf(&skipped, "%s%s", skipped.len ? "; " : "",
				    why.buf);
			analyze_set_release(&sets[i]);
		} else {
			usable++;
		}
		if (rc < 0)
			goto out;
	}
	if (!usable) {
		strbuf_addstr(&out->reason, skipped.buf);
		goto out;
	}
	analyze_adjust(sets, nruns, fdr);
	rows = rows_of(runs, sets, nruns, &nrows);
	if (db_analyze_store(ctx->db, job->series_id, rows, nrows)) {
		strbuf_addstr(&out->reason, "the comparisons cannot be "
			      "stored");
		res = PIPELINE_RETRY;
		goto out;
	}
	log_info("analyze", "series %lld: %zu comparisons", job->series_id,
		 nrows);
	if (skipped.len)
		log_warn("analyze", "series %lld: not analyzed: %s",
			 job->series_id, skipped.buf);
	res = PIPELINE_OK;
out:
	for (i = 0; sets && i < nruns; i++)
		analyze_set_release(&sets[i]);
	free(sets);
	free(rows);
	db_analyze_runs_free(runs, nruns);
	strbuf_release(&skipped);
	strbuf_release(&why);
	return res;
}
