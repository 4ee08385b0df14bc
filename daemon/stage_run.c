/*
 * stage_run.c - the run stage of the pipeline (see stage_run.h).
 * No SQL here (db_run.c), no libvirt (vm.c via hosts.c and runner.c).
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "calib.h"
#include "config.h"
#include "db_calib.h"
#include "db_run.h"
#include "fs.h"
#include "guest_image.h"
#include "hosts.h"
#include "jobq.h"
#include "layout.h"
#include "log.h"
#include "options.h"
#include "plan.h"
#include "plan_file.h"
#include "plan_kconfig.h"
#include "runner.h"
#include "schedule.h"
#include "stage_report.h"
#include "stage_run.h"
#include "strbuf.h"

/* What the runner's callbacks need, and what they learn. */
struct run_state {
	struct db *db;
	long long series_id, run_id;
	const struct db_run_images *im;
	const struct hosts_set *hosts;
	size_t ok[2];			/* complete boots per side */
	size_t kernel_failed[2];	/* failures of the guest, not the host */
	struct strbuf last_failure[2];	/* why the last failed boot failed */
	struct calib_table calib;	/* the hosts' calibrations */
	int db_failed;
};

static long long host_id(const struct hosts_set *set, const char *uri)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->hosts[i].sched.uri, uri))
			return set->ids[i];
	return 0;
}

static void on_start(void *opaque, const struct runner_boot *b)
{
	struct run_state *st = opaque;
	struct db_run_boot row = {
		.run_id = st->run_id,
		.series_id = st->series_id,
		.build_id = st->im->build_id[b->side],
		.host_id = host_id(st->hosts, b->host),
		.side = analyze_side_str(b->side),
		.seq = b->order,
		.round = b->round,
		.attempt = b->attempt,
		.nonce = b->nonce,
		.console_path = b->console_log,
	};

	if (db_run_boot_start(st->db, &row))
		st->db_failed = 1;
}

static void on_boot(void *opaque, const struct runner_boot *b)
{
	struct run_state *st = opaque;
	long long ms = (long long)((b->vm->create_s + b->vm->run_s) * 1000);

	if (b->complete) {
		st->ok[b->side]++;
	} else {
		st->kernel_failed[b->side] += !b->host_failure;
		strbuf_reset(&st->last_failure[b->side]);
		strbuf_addstr(&st->last_failure[b->side], b->reason);
	}
	if (db_run_boot_finish(st->db, b->nonce, b->complete ? "ok" :
			       vm_status_str(b->vm->status),
			       b->complete ? NULL : b->reason,
			       b->vm->domain, ms, b->samples, b->nrecords))
		st->db_failed = 1;
}

/*
 * Checks that both kernels have every option the plan needs (their
 * .config is next to the image, build.h); a kernel that lacks one would
 * fail every boot.  0, or -1 with the reason and the series' status.
 */
static int kernels_fit_plan(const struct db_run_images *im,
			    const struct plan_file *pf, const char *arch,
			    struct pipeline_outcome *out)
{
	struct strbuf path = STRBUF_INIT, config = STRBUF_INIT;
	struct strbuf missing = STRBUF_INIT;
	const char *slash;
	int side, ret = -1;

	for (side = ANALYZE_BASE; side <= ANALYZE_PATCHED; side++) {
		slash = strrchr(im->image[side], '/');
		strbuf_reset(&path);
		strbuf_reset(&config);
		strbuf_add(&path, im->image[side],
			   slash ? (size_t)(slash - im->image[side]) : 0);
		strbuf_addstr(&path, slash ? "/config" : "config");
		if (strbuf_read_file_why(&config, path.buf, 4 << 20,
					 &missing) < 0) {
			strbuf_addf(&out->reason, "%s: the %s kernel's "
				    "configuration cannot be read: %s", arch,
				    analyze_side_str(side), missing.buf);
			goto out;
		}
		if (plan_kconfig_missing(pf->plan, config.buf, &missing)) {
			strbuf_addf(&out->reason, "%s: the %s kernel lacks "
				    "what the plan %s needs: %s", arch,
				    analyze_side_str(side), pf->path,
				    missing.buf);
			if (side == ANALYZE_BASE)
				strbuf_addstr(&out->reason, "; add them to "
					      "the arch's config fragments");
			out->fail_status = side == ANALYZE_BASE ? "failed" :
					   "boot-failed";
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&config);
	strbuf_release(&missing);
	return ret;
}

/*
 * Why a run that produced no complete boot on some side failed: the
 * kernel's result when one of its boots ran and failed, else the host's
 * trouble (every guest failed to start), which is worth another try.
 */
static enum pipeline_result no_samples(const struct run_state *st,
				       const char *arch,
				       struct pipeline_outcome *out)
{
	int side = st->ok[ANALYZE_BASE] ? ANALYZE_PATCHED : ANALYZE_BASE;

	if (!st->kernel_failed[side]) {
		strbuf_addf(&out->reason, "%s: the host could not start the "
			    "%s kernel's guests: %s", arch,
			    analyze_side_str(side),
			    st->last_failure[side].len ?
			    st->last_failure[side].buf : "no boot finished");
		return PIPELINE_RETRY;
	}
	strbuf_addf(&out->reason, "%s: the %s kernel did not boot to a "
		    "complete result: %s", arch,
		    analyze_side_str(side),
		    st->last_failure[side].len ? st->last_failure[side].buf :
		    "no boot finished");
	out->fail_status = side == ANALYZE_BASE ? "failed" : NULL;
	return PIPELINE_FAIL;
}

static enum pipeline_result run_arch(struct pipeline_ctx *ctx,
				     const struct job *job,
				     const struct arch *arch, enum layout layout,
				     struct pipeline_outcome *out)
{
	const struct config *cfg = ctx->cfg;
	const char *name = arch->name;
	const char *cache = cfg->cache_dir;
	struct db_run_images im;
	struct hosts_set set;
	struct hosts_probe_kit kit;
	struct runner_spec spec;
	struct runner_report rep;
	struct db_run_design design;
	struct db_calib_key key;
	struct run_state st;
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	struct strbuf dir = STRBUF_INIT;
	enum pipeline_result r = PIPELINE_FAIL;
	struct guest_image guest = { 0 };
	uint64_t seed;
	int ret;

	memset(&set, 0, sizeof(set));
	memset(&rep, 0, sizeof(rep));
	memset(&st, 0, sizeof(st));
	strbuf_init(&st.last_failure[0]);
	strbuf_init(&st.last_failure[1]);
	calib_table_init(&st.calib);
	if (layout == LAYOUT_AS_BUILT)
		stage_report_run_started(ctx, job->series_id, name);
	ret = db_run_images(ctx->db, job->series_id, name, layout, &im);
	if (ret) {
		if (ret < 0)
			return PIPELINE_RETRY;
		strbuf_addf(&out->reason, "%s: the build stage left no %s "
			    "base and patched images", name,
			    layout_str(layout));
		return PIPELINE_FAIL;
	}
	log_error_reset();
	if (guest_initramfs(arch, cache, &guest)) {
		strbuf_addf(&out->reason, "%s: the guest initramfs cannot be "
			    "packed: %s", name, log_error_first());
		goto out;
	}
	strbuf_addf(&dir, "%s/runs/series-%lld", cfg->state_dir,
		    job->series_id);
	if (fs_mkdir_p(dir.buf, 0755)) {
		r = PIPELINE_RETRY;
		strbuf_addf(&out->reason, "%s: cannot create", dir.buf);
		goto out;
	}
	kit.kernel = im.image[ANALYZE_BASE];
	kit.initrd = guest.path;
	kit.log_dir = dir.buf;
	ret = hosts_open(ctx->db, cfg, arch, &kit, &set, &out->reason);
	if (ret) {
		r = ret == -1 ? PIPELINE_FAIL : PIPELINE_RETRY;
		goto out;
	}
	memset(&spec, 0, sizeof(spec));
	if (plan_file_load_configured(&pf, cfg, arch, set.accel,
				      &out->reason) ||
	    kernels_fit_plan(&im, &pf, name, out))
		goto out;
	if (pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS &&
	    set.accel != ARCH_TCG) {
		strbuf_addf(&out->reason, "%s: the plan %s asks for "
			    "instruction time, which only emulated (tcg) hosts "
			    "have; the %s plan needs \"clock real\"", name,
			    pf.path, arch_accel_str(set.accel));
		goto out;
	}
	spec.memory_mib = pf.plan->memory_mib;
	spec.vcpus = pf.plan->vcpus;
	spec.icount = pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS;
	seed = schedule_seed_new();
	st.db = ctx->db;
	st.series_id = job->series_id;
	st.im = &im;
	st.hosts = &set;
	spec.max_per_side = options_max_per_side(cfg);
	design.series_id = job->series_id;
	design.arch = name;
	design.accel = arch_accel_str(set.accel);
	design.clock = plan_clock_str(pf.plan->clock);
	design.seed = seed;
	design.plan = pf.cmdline.buf;
	design.alpha = cfg->stats.alpha;
	design.max_per_side = (unsigned int)spec.max_per_side;
	design.layout = layout;
	key.arch = name;
	key.accel = design.accel;
	key.clock = design.clock;
	key.plan = design.plan;
	key.guest = guest.id;
	if (db_run_start(ctx->db, &design, &st.run_id) ||
	    db_calib_link_run(ctx->db, st.run_id, set.ids, set.n, &key) ||
	    db_calib_for_run(ctx->db, st.run_id, &st.calib)) {
		r = PIPELINE_RETRY;
		strbuf_addstr(&out->reason, "storing the run failed");
		goto out;
	}
	strbuf_reset(&dir);
	strbuf_addf(&dir, "%s/runs/%lld", cfg->state_dir, st.run_id);
	if (fs_mkdir_p(dir.buf, 0755)) {
		r = PIPELINE_RETRY;
		strbuf_addf(&out->reason, "%s: cannot create", dir.buf);
		goto out;
	}

	spec.kernel[ANALYZE_BASE] = im.image[ANALYZE_BASE];
	spec.kernel[ANALYZE_PATCHED] = im.image[ANALYZE_PATCHED];
	spec.initrd[ANALYZE_BASE] = spec.initrd[ANALYZE_PATCHED] = guest.path;
	spec.plan_cmdline = pf.cmdline.buf;
	spec.arch = set.hosts[0].sched.arch;
	spec.accel = (int)set.accel;
	spec.timeout_s = (unsigned int)cfg->limits.boot_timeout_s;
	spec.seed = seed;
	options_stats(cfg, &spec.stats);
	spec.stats.repeatable = spec.icount;
	spec.log_dir = dir.buf;
	spec.on_start = on_start;
	spec.on_boot = on_boot;
	spec.calib = &st.calib;
	spec.opaque = &st;
	spec.stop = ctx->stop;
	log_info("run", "series %lld: %s %s run %lld on %zu %s host%s, "
		 "seed %llu", job->series_id, name, layout_str(layout),
		 st.run_id, set.n,
		 arch_accel_str(set.accel), set.n == 1 ? "" : "s",
		 (unsigned long long)seed);
	log_error_reset();
	if (runner_run(&spec, set.hosts, set.n, &rep)) {
		strbuf_addf(&out->reason, "%s: the run could not start: %s",
			    name, log_error_first());
		db_run_finish(ctx->db, st.run_id, "no-host", 0);
		goto out;
	}
	if (db_run_finish(ctx->db, st.run_id, rep.end == RUNNER_STOPPED ?
			  "interrupted" : runner_end_str(rep.end),
			  rep.rounds) || st.db_failed) {
		r = PIPELINE_RETRY;
		strbuf_addstr(&out->reason, "storing boots failed");
		goto out;
	}
	log_info("run", "series %lld: %s run %lld: %s after %u rounds, %u "
		 "boots (%u failed)", job->series_id, name, st.run_id,
		 runner_end_str(rep.end), rep.rounds, rep.boots,
		 rep.failed_boots);
	switch (rep.end) {
	case RUNNER_DECIDED:
	case RUNNER_BUDGET:
		r = PIPELINE_OK;
		break;
	case RUNNER_STOPPED:
		r = PIPELINE_INTERRUPTED;
		break;
	case RUNNER_NO_HOST:
		strbuf_addf(&out->reason, "%s: every host failed during the "
			    "run", name);
		r = PIPELINE_RETRY;
		break;
	case RUNNER_NO_SAMPLES:
		r = no_samples(&st, name, out);
		break;
	}
out:
	runner_report_release(&rep);
	hosts_set_release(ctx->db, &set);
	strbuf_release(&st.last_failure[0]);
	strbuf_release(&st.last_failure[1]);
	calib_table_release(&st.calib);
	strbuf_release(&dir);
	plan_file_release(&pf);
	guest_image_release(&guest);
	db_run_images_release(&im);
	return r;
}

enum pipeline_result stage_run_layout(struct pipeline_ctx *ctx,
				      const struct job *job,
				      enum layout layout,
				      struct pipeline_outcome *out)
{
	const struct config_arch_cfg *ac;
	enum pipeline_result r;
	int interrupted = 0;

	out->fail_status = "failed";
	if (pipeline_job_arch(ctx, job, &ac, &out->reason))
		return PIPELINE_FAIL;
	if (db_run_interrupt(ctx->db, job->series_id, job->arch,
			     &interrupted)) {
		strbuf_addstr(&out->reason, "the run rows cannot be updated");
		return PIPELINE_RETRY;
	}
	if (interrupted)
		log_info("run", "series %lld: %s: %d boot%s interrupted by a "
			 "daemon stop; running again", job->series_id,
			 job->arch, interrupted,
			 interrupted == 1 ? " was" : "s were");
	if (ctx->stop && *ctx->stop)
		return PIPELINE_INTERRUPTED;
	r = run_arch(ctx, job, ac->arch, layout, out);
	if (r == PIPELINE_OK)
		out->fail_status = NULL;
	return r;
}

enum pipeline_result stage_run(struct pipeline_ctx *ctx,
			       const struct job *job,
			       struct pipeline_outcome *out)
{
	return stage_run_layout(ctx, job, LAYOUT_AS_BUILT, out);
}
