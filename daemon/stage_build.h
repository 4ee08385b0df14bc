/*
 * stage_build.h - the pipeline's build stage: an applied series is built,
 * base and patched, for the arch of the job (a per-arch stage: one job
 * per configured arch, pipeline.h).
 *
 * The base commit (series.base_used) is built first, then the head of
 * the series (the last patch's applied_commit) with the base as base_rev,
 * so the patched build goes through the same slot incrementally and its
 * new warnings are counted against the base (build.c, the code behind
 * `kregress build`).  Each build has one row in `build` per (commit,
 * arch, configuration key), shared between series, linked to the series
 * in series_build (side base | patched); while make runs, the row's
 * objects_compiled/objects_expected are updated at most every 2 s.
 * Limits come from the configuration (limits.build_timeout_s,
 * log_max_bytes, build_memory_mb) and so does the cache directory
 * (cache_dir, by default build_cache_dir()'s), the config fragments
 * from $KREGRESS_CONFIG_DIR (default DATADIR/configs) plus the arch's
 * configured fragments.
 *
 * Outcomes: PIPELINE_OK (the arch's run job is next); PIPELINE_FAIL with
 * "build-failed" and "ARCH: FIRST ERROR LINE" (or the build's reason)
 * when the patched kernel does not build (a result); PIPELINE_FAIL with
 * "failed" when the base does not build ("ARCH: base COMMIT does not
 * build: FIRST ERROR LINE"; the patched build is not tried), the series
 * was never applied, or no arch is configured;
 * PIPELINE_RETRY when no build result could be produced or stored.
 * PIPELINE_INTERRUPTED when the daemon stops (ctx->stop), between builds
 * or during one: build_run() stops make within a few seconds, the row
 * says "interrupted", and the job goes back to the queue untouched; the
 * next start builds again, continuing in the slot's object directory.
 */
#ifndef KREGRESS_STAGE_BUILD_H
#define KREGRESS_STAGE_BUILD_H

#include "layout.h"
#include "pipeline.h"

enum pipeline_result stage_build(struct pipeline_ctx *ctx,
				 const struct job *job,
				 struct pipeline_outcome *out);

/*
 * The same for the kernels of layout: stage_build() is LAYOUT_AS_BUILT;
 * the layout control (stage_layout.h) builds LAYOUT_ALIGNED, base and
 * patched with layout_kcflags() added, in a slot and under a config key
 * of their own, linked to the series with that layout.
 */
enum pipeline_result stage_build_layout(struct pipeline_ctx *ctx,
					const struct job *job,
					enum layout layout,
					struct pipeline_outcome *out);

#endif
