/*
 * stages.c - the stage table (see stages.h): each stage's job kind, the
 * series statuses while it runs, when done and on failure, the next kind,
 * whether it runs once per arch, its function (NULL: not written), when
 * its failure queues a report job, and its jobs' attempts.
 */
#include "calibrate.h"
#include "jobq.h"
#include "stage_analyze.h"
#include "stage_apply.h"
#include "stage_build.h"
#include "stage_fetch.h"
#include "stage_layout.h"
#include "stage_report.h"
#include "stage_run.h"
#include "stages.h"

const struct pipeline_stage stage_table[] = {
	{ JOBQ_KIND_FIRST, "fetching", "fetched", "fetch-failed", "apply", 0,
	  stage_fetch, 0, 0 },
	{ "apply", "applying", "applied", "does-not-apply", "build", 0,
	  stage_apply, 1, 0 },
	{ "build", "building", "built", "build-failed", "run", 1,
	  stage_build, 1, 0 },
	{ "run", "running", "ran", "boot-failed", "analyze", 1, stage_run,
	  2, 0 },
	{ "analyze", "analyzing", "analyzed", "failed", "layout-build", 0,
	  stage_analyze, 2, 0 },
	/* The layout control (stage_layout.h): no work without a
	 * significant change to check. */
	{ "layout-build", "building-aligned", "built-aligned", "failed",
	  "layout-run", 1, stage_layout_build, 2, 0 },
	{ "layout-run", "running-aligned", "ran-aligned", "failed",
	  "layout-analyze", 1, stage_layout_run, 2, 0 },
	{ "layout-analyze", "checking-layout", "layout-checked", "failed",
	  "report", 0, stage_layout_analyze, 2, 0 },
	{ "report", "reporting", "done", "failed", NULL, 0, stage_report, 0,
	  STAGE_REPORT_ATTEMPTS },
	/* Not a series' stage: a job of its own, per arch (calibrate.h). */
	{ "calibrate", "calibrating", "calibrated", "failed", NULL, 1,
	  stage_calibrate, 0, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0 },
};
