/*
 * stage_apply.h - the pipeline's apply stage: a fetched series becomes
 * commits on a configured kernel tree.
 *
 * The tree: the trees[] entry whose lists contain the series' list, else
 * the tree its lists[] entry names, else the first configured tree (the
 * reason is kept in series.base_reason).  The series is read again from
 * the mbox the fetch stage stored (so reply trailers reach the commit
 * messages, as with `kregress apply`), the revision the fetch stage
 * recorded.  The base: the series' base-commit when the tree has it, else
 * the tree's branch.  apply_series() (apply.c) commits each patch;
 * patch.applied_commit and apply_method, series.tree_id, base_used,
 * base_source, base_reason and, when it does not apply,
 * apply_failed_patch/file/hunk are stored (db_apply.c).
 *
 * Outcomes: PIPELINE_OK (series "applied", next "build");
 * PIPELINE_FAIL with status "does-not-apply" and the reason
 * "patch 2/3 (FILE, HUNK): REASON" (a result: the series does not apply)
 * or "rejected: patch ..." for an unsafe patch; PIPELINE_FAIL with status
 * "failed" when no tree is configured, the tree cannot be opened, no base
 * resolves or nothing was fetched; PIPELINE_RETRY when the database or
 * the repository fails.
 */
#ifndef KREGRESS_STAGE_APPLY_H
#define KREGRESS_STAGE_APPLY_H

#include "pipeline.h"

enum pipeline_result stage_apply(struct pipeline_ctx *ctx,
				 const struct job *job,
				 struct pipeline_outcome *out);

#endif
