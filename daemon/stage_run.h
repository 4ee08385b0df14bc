/*
 * stage_run.h - the pipeline's run stage: the base and patched kernels of
 * a built series are booted in interleaved A/B rounds and every sample is
 * stored.
 *
 * For each configured arch: the images the build stage linked to the
 * series (series_build), the guest initramfs (guest_image.c), the
 * healthy hosts of the arch with one accel (hosts.c: KVM where a probe
 * shows that it boots, else TCG) and the plan configured for that arch
 * and accel (default DATADIR/plans/default-<accel>.plan) go to the runner
 * (runner.c): seeded ABBA rounds until the statistics decide or
 * stats.max_boots_per_side is spent, each boot limited by
 * limits.boot_timeout_s.  The run, each boot (written as 'running' when
 * it starts) and each complete boot's samples are stored (db_run.c);
 * console logs go to STATE_DIR/runs/<run id>/.
 *
 * A daemon killed during a boot leaves its run and boot 'running' and the
 * domain alive; at the next start the domain is reaped (hosts.c), and the
 * job, given back by lease recovery, marks that run 'interrupted' and
 * runs again from its first boot with a new seed.  A stop request ends
 * the run after the boots under way (each at most the boot timeout):
 * PIPELINE_INTERRUPTED.
 *
 * Outcomes: PIPELINE_OK (series "ran", next "analyze") when every arch's
 * run decided or spent its budget; PIPELINE_FAIL with "boot-failed" and
 * "ARCH: the patched kernel did not boot: REASON" when no patched boot
 * gave a complete result; with "failed" when the base kernel did not
 * boot, the series has no images, the plan is invalid or there are no
 * guest binaries or no host of the arch is configured; PIPELINE_RETRY
 * when no configured host can boot the arch now or
 * the database fails.
 */
#ifndef KREGRESS_STAGE_RUN_H
#define KREGRESS_STAGE_RUN_H

#include "layout.h"
#include "pipeline.h"

enum pipeline_result stage_run(struct pipeline_ctx *ctx,
			       const struct job *job,
			       struct pipeline_outcome *out);

/*
 * The same for the kernels of layout: stage_run() is LAYOUT_AS_BUILT;
 * the layout control (stage_layout.h) boots the LAYOUT_ALIGNED builds in
 * a run of their own (run.layout), with the same plan, design and hosts,
 * and posts no patchwork check.
 */
enum pipeline_result stage_run_layout(struct pipeline_ctx *ctx,
				      const struct job *job,
				      enum layout layout,
				      struct pipeline_outcome *out);

#endif
