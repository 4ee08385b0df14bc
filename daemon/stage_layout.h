/*
 * stage_layout.h - the layout control: the pipeline's stages between
 * analyze and report (layout.h says why a control, and how its kernels
 * are built).
 *
 * A series gets a control on an arch when one of the arch's as-built
 * comparisons is significant beyond the threshold (layout_wanted():
 * regression, improvement, likely-*) and stats.layout_control covers
 * the run's clock (layout_when_applies(): by default runs measured in
 * real time; instruction time does not see where code is placed).
 *
 *   layout-build (per arch)  base and patched again, aligned
 *                            (stage_build_layout())
 *   layout-run (per arch)    booted in a run of their own, the same plan,
 *                            design and hosts (stage_run_layout())
 *   layout-analyze           each of those comparisons against the
 *                            aligned run's comparison of the metric
 *                            (layout_decide()), recorded on it
 *                            (db_layout_store())
 *
 * A series with nothing to control passes the three stages without
 * work.  The control never fails a series for its own sake: aligned
 * kernels that do not build or boot leave the comparisons "unconfirmed"
 * with that reason and the series goes on to its report; a control not
 * made leaves layout NULL and says why in layout_reason.  Database
 * errors and host trouble are PIPELINE_RETRY, as in the stages it
 * reuses; a daemon stop is PIPELINE_INTERRUPTED.
 */
#ifndef KREGRESS_STAGE_LAYOUT_H
#define KREGRESS_STAGE_LAYOUT_H

#include "pipeline.h"

enum pipeline_result stage_layout_build(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out);
enum pipeline_result stage_layout_run(struct pipeline_ctx *ctx,
				      const struct job *job,
				      struct pipeline_outcome *out);
enum pipeline_result stage_layout_analyze(struct pipeline_ctx *ctx,
					  const struct job *job,
					  struct pipeline_outcome *out);

#endif
