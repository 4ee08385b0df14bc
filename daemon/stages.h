/*
 * stages.h - the pipeline's stages, wired to their code.
 *
 * pipeline.c runs whatever table it is handed (pipeline_ctx.stages) and
 * knows no stage; this is the table the daemon hands it, so that only
 * the programs that run stages link them (and libvirt, libgit2 with
 * them), not the SQL and API code that queues a series' first job.
 */
#ifndef KREGRESS_STAGES_H
#define KREGRESS_STAGES_H

#include "pipeline.h"

/* fetch, apply, build, run, analyze, report, then calibrate (a job of
 * its own, of no series); ends with a NULL kind. */
extern const struct pipeline_stage stage_table[];

#endif
