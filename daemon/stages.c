/*
 * stages.c - the stage table (see stages.h): each stage's job kind, the
 * series statuses while it runs, when done and on failure, the next kind,
 * whether it runs once per arch, and its function (NULL: not written).
 */
#include "jobq.h"
#include "stage_analyze.h"
#include "stage_apply.h"
#include "stage_build.h"
#include "stage_fetch.h"
#include "stage_run.h"
#include "stages.h"

const struct pipeline_stage stage_table[] = {
	{ JOBQ_KIND_FIRST, "fetching", "fetched", "fetch-failed", "apply", 0,
	  stage_fetch },
	{ "apply", "applying", "applied", "does-not-apply", "build", 0,
	  stage_apply },
	{ "build", "building", "built", "build-failed", "run", 1,
	  stage_build },
	{ "run", "running", "ran", "boot-failed", "analyze", 1, stage_run },
	{ "analyze", "analyzing", "analyzed", "failed", "report", 0,
	  stage_analyze },
	{ "report", "reporting", "done", "failed", NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL },
};
