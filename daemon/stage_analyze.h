/*
 * stage_analyze.h - the pipeline's analyze stage: a series' runs become
 * per-metric comparisons with verdicts.
 *
 * For every arch the series has runs of its own kernels for (layout
 * as-built; the layout control's are stage_layout.h's), the newest run
 * that finished
 * (status not 'running' and not 'interrupted': an interrupted run is
 * never analysed, its job's next attempt started a new one) is taken.
 * The samples of its boots with status 'ok' are grouped by (workload,
 * metric, params), each boot's iterations reduced to their median, and
 * base is compared with patched by stats.c with the configuration's
 * stats.threshold_pct, alpha and min_samples (analyze.c).  The p-values
 * of all metrics of the series, every arch together, are adjusted: Holm
 * into p_holm, stats.fdr_method into p_adjusted.  The verdict is stats.c's
 * for the metric at alpha; the adjusted values are reported beside it.
 * A run that recorded its adaptive design (run.alpha, max_per_side) is
 * tested at the alpha its last look had (analyze_set_final() over the
 * complete boots per round), not at the overall alpha: the runner spent
 * the rest on its earlier looks; the rows record that level (1 - alpha)
 * as ci_level, the level of their intervals.
 * All comparison rows of the series are then replaced in one transaction,
 * so running the stage again leaves one set of rows.
 *
 * Outcomes: PIPELINE_OK (series "analyzed", next "report") when at least
 * one arch gave comparisons (an arch that did not is logged; its run's
 * status and boot counts are in the API); PIPELINE_FAIL ("failed") when
 * none did, with one reason per arch, e.g. "x86_64: no complete boots on
 * the patched side (run 3 ended no-samples; 4 patched boots failed)";
 * PIPELINE_RETRY on a database error.
 */
#ifndef KREGRESS_STAGE_ANALYZE_H
#define KREGRESS_STAGE_ANALYZE_H

#include "analyze.h"
#include "pipeline.h"

struct config;
struct db_analyze_run;

/*
 * The statistics options (stats.threshold_pct, alpha, min_samples) and
 * p-value method (stats.fdr_method) of cfg, on stats.c's defaults; cfg
 * may be NULL.  What the stage tests with, and the dashboard's compare.
 */
void stage_analyze_options(const struct config *cfg, struct stats_opts *o,
			   enum analyze_fdr *fdr);

enum pipeline_result stage_analyze(struct pipeline_ctx *ctx,
				   const struct job *job,
				   struct pipeline_outcome *out);

/*
 * Reads and compares one arch's run r (db_analyze_runs()) into set (an
 * analyze_set_init()ed one), as the stage does: each metric at the
 * threshold and noise reference of its looks' calibrations, at the alpha
 * of its last look.  0, with the reason in reason when the run gives no
 * comparisons; -1 on a database error; -2 when stats.c refuses the
 * options (log_error_first() says why).
 */
int stage_analyze_run(struct pipeline_ctx *ctx,
		      const struct db_analyze_run *r, struct analyze_set *set,
		      const struct stats_opts *o, struct strbuf *reason);

#endif
