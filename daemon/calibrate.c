/*
 * calibrate.c - A/A calibration of a host: the boots, the figures, the
 * daemon's stage and its schedule (see calibrate.h).  No SQL here
 * (db_calib.c), no statistics (calib.c), no libvirt (runner.c, vm.c).
 *
 * The boots are a run of the runner whose two sides boot the same
 * kernel: one round of boots_per_side ABBA pairs (so the runner looks
 * once, at the end, and never stops early), the host's capacity shared
 * with every run of the process as a run's boots share it.  Each
 * complete boot's records go to calib.c in the ABBA order's position,
 * so that calib.c can replay them through the runs' design as the
 * runner would have looked at them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "build.h"
#include "calibrate.h"
#include "config.h"
#include "db_calib.h"
#include "db_run.h"
#include "fs.h"
#include "guest_image.h"
#include "hosts.h"
#include "jobq.h"
#include "log.h"
#include "options.h"
#include "plan.h"
#include "plan_file.h"
#include "schedule.h"

void calibrate_outcome_init(struct calibrate_outcome *o)
{
	memset(o, 0, sizeof(*o));
	calib_data_init(&o->data);
	o->boot_ms = NAN;
}

void calibrate_outcome_release(struct calibrate_outcome *o)
{
	calib_data_release(&o->data);
	free(o->results);
	calibrate_outcome_init(o);
}

/* What the runner's callbacks need. */
struct cal_state {
	const struct calibrate_spec *s;
	struct calibrate_outcome *o;
};

static void on_start(void *opaque, const struct runner_boot *b)
{
	struct cal_state *cs = opaque;
	const struct calibrate_spec *s = cs->s;
	struct db_run_boot row = {
		.build_id = s->build_id,
		.host_id = s->host_id,
		.calibration_id = s->calibration_id,
		.side = analyze_side_str(b->side),
		.seq = b->order,
		.round = b->round,
		.attempt = b->attempt,
		.nonce = b->nonce,
		.console_path = b->console_log,
	};

	if (s->db && db_run_boot_start(s->db, &row))
		cs->o->db_failed = 1;
}

static void on_boot(void *opaque, const struct runner_boot *b)
{
	struct cal_state *cs = opaque;
	const struct calibrate_spec *s = cs->s;
	double ms = (b->vm->create_s + b->vm->run_s) * 1000;

	if (b->complete && calib_data_add_boot(&cs->o->data, b->order,
					       b->side, ms, b->samples,
					       b->nrecords))
		log_warn("calibrate", "boot %u: too many metrics or boots; "
			 "left out", b->order);
	if (s->db && db_run_boot_finish(s->db, b->nonce, b->complete ? "ok" :
				       vm_status_str(b->vm->status),
				       b->complete ? NULL : b->reason,
				       b->vm->domain, (long long)ms,
				       b->samples, b->nrecords))
		cs->o->db_failed = 1;
	if (s->on_boot)
		s->on_boot(s->opaque, b);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_ms(const struct calib_data *d)
{
	double *v = xcalloc(d->nb + 1, sizeof(*v)), m;
	size_t i, n = 0;

	for (i = 0; i < d->nb; i++)
		if (isfinite(d->b[i].ms))
			v[n++] = d->b[i].ms;
	qsort(v, n, sizeof(*v), cmp_double);
	m = !n ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

int calibrate_run(const struct calibrate_spec *s, struct calibrate_outcome *o,
		  struct strbuf *reason)
{
	struct cal_state cs = { s, o };
	struct runner_spec spec;
	struct runner_report rep;
	struct calib_design design = s->design;
	const struct plan *plan = s->pf->plan;

	memset(&spec, 0, sizeof(spec));
	spec.kernel[ANALYZE_BASE] = spec.kernel[ANALYZE_PATCHED] = s->kernel;
	spec.initrd[ANALYZE_BASE] = spec.initrd[ANALYZE_PATCHED] = s->initrd;
	spec.plan_cmdline = s->pf->cmdline.buf;
	spec.arch = s->host->sched.arch;
	spec.accel = (int)s->host->sched.accel;
	spec.memory_mib = plan->memory_mib;
	spec.vcpus = plan->vcpus;
	spec.icount = plan->clock == PLAN_CLOCK_INSTRUCTIONS;
	spec.timeout_s = s->timeout_s;
	spec.seed = s->seed;
	/* One round: the runner looks once, at the end. */
	spec.pairs_per_round = s->boots_per_side;
	spec.max_per_side = s->boots_per_side;
	spec.stats = design.stats;
	spec.stats.repeatable = spec.icount;
	spec.log_dir = s->log_dir;
	spec.on_start = on_start;
	spec.on_boot = on_boot;
	spec.opaque = &cs;
	spec.stop = s->stop;
	if (runner_run(&spec, s->host, 1, &rep)) {
		strbuf_addstr(reason, "the boots could not start (see the "
			      "log)");
		return -1;
	}
	o->end = rep.end;
	o->boots = rep.boots;
	o->failed_boots = rep.failed_boots;
	runner_report_release(&rep);
	switch (o->end) {
	case RUNNER_STOPPED:
		strbuf_addstr(reason, "stopped");
		return -1;
	case RUNNER_NO_HOST:
		strbuf_addstr(reason, "the host failed during the boots");
		return -1;
	case RUNNER_NO_SAMPLES:
		strbuf_addf(reason, "no complete boot on a side (%u of %u "
			    "boots failed)", o->failed_boots, o->boots);
		return -1;
	default:
		break;
	}
	o->results = xcalloc(o->data.nm + 1, sizeof(*o->results));
	design.seed = s->seed;
	log_error_reset();
	if (calib_compute(&o->data, &design, o->results)) {
		strbuf_addf(reason, "the figures could not be computed: %s",
			    log_error_first());
		return -1;
	}
	o->boot_ms = median_ms(&o->data);
	return 0;
}

/* Calibrates one due host with guest and stores the outcome; -1 on a
 * stop. */
static int calibrate_due(struct pipeline_ctx *ctx,
			 const struct hosts_calib_due *due,
			 const struct arch *a, const struct guest_image *guest)
{
	const char *arch = a->name;
	const struct config *cfg = ctx->cfg;
	struct calibrate_spec spec;
	struct calibrate_outcome o;
	struct db_calib_design d;
	struct runner_host host;
	struct strbuf dir = STRBUF_INIT, why = STRBUF_INIT;
	uint64_t seed;
	int ret = 0;

	memset(&spec, 0, sizeof(spec));
	memset(&host, 0, sizeof(host));
	calibrate_outcome_init(&o);
	options_calib_design(cfg, &spec.design);
	seed = schedule_seed_new();
	d.host_id = due->host_id;
	d.build_id = due->build_id;
	d.arch = arch;
	d.accel = arch_accel_str(due->accel);
	d.clock = plan_clock_str(due->pf.plan->clock);
	d.plan = due->pf.cmdline.buf;
	d.guest = guest->id;
	d.reason = due->reason;
	d.seed = seed;
	d.boots_per_side = (unsigned int)cfg->calibration.boots_per_side;
	d.budget = (unsigned int)spec.design.budget;
	d.min_samples = (unsigned int)spec.design.stats.min_samples;
	d.simulations = (unsigned int)spec.design.simulations;
	d.alpha = spec.design.stats.alpha;
	d.threshold_pct = cfg->stats.threshold_pct;
	d.target = spec.design.target;
	if (db_calib_start(ctx->db, &d, &spec.calibration_id))
		return 0;
	log_info("calibrate", "%s: %s: calibration %lld (%s): %u boots a "
		 "side of build %lld, %s time", due->ch->name, arch,
		 spec.calibration_id, due->reason, d.boots_per_side,
		 due->build_id, due->pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS ?
		 "instruction" : "real");
	strbuf_addf(&dir, "%s/runs/calibration-%lld", cfg->state_dir,
		    spec.calibration_id);
	if (fs_mkdir_p(dir.buf, 0755)) {
		strbuf_addf(&why, "%s: cannot create", dir.buf);
		goto fail;
	}
	if (vm_host_open(due->ch->uri, &host.vm)) {
		strbuf_addstr(&why, "libvirt cannot be reached");
		goto fail;
	}
	hosts_sched_init(&host.sched, due->ch->uri, due->ch, a, due->accel);
	spec.kernel = due->image;
	spec.initrd = guest->path;
	spec.pf = &due->pf;
	spec.host = &host;
	spec.boots_per_side = d.boots_per_side;
	spec.timeout_s = (unsigned int)cfg->limits.boot_timeout_s;
	spec.seed = seed;
	spec.log_dir = dir.buf;
	spec.db = ctx->db;
	spec.build_id = due->build_id;
	spec.host_id = due->host_id;
	spec.stop = ctx->stop;
	if (calibrate_run(&spec, &o, &why))
		goto fail;
	if (db_calib_done(ctx->db, spec.calibration_id, &o.data, o.results,
			  o.boot_ms))
		goto out;
	log_info("calibrate", "%s: %s: calibration %lld done: %zu boots, "
		 "%zu metrics, median boot %.1f s", due->ch->name, arch,
		 spec.calibration_id, o.data.nb, o.data.nm, o.boot_ms / 1000);
	goto out;
fail:
	ret = o.end == RUNNER_STOPPED ? -1 : 0;
	log_warn("calibrate", "%s: %s: calibration %lld: %s", due->ch->name,
		 arch, spec.calibration_id, why.buf);
	db_calib_end(ctx->db, spec.calibration_id, ret ? "interrupted" :
		     "failed", why.buf);
out:
	vm_host_free(host.vm);
	strbuf_release(&dir);
	strbuf_release(&why);
	calibrate_outcome_release(&o);
	return ret;
}

enum pipeline_result stage_calibrate(struct pipeline_ctx *ctx,
				     const struct job *job,
				     struct pipeline_outcome *out)
{
	const struct config_arch_cfg *ac;
	struct hosts_calib_due *due = NULL;
	struct guest_image guest;
	enum pipeline_result r = PIPELINE_OK;
	size_t n = 0, i;
	int interrupted = 0;

	if (pipeline_job_arch(ctx, job, &ac, &out->reason))
		return PIPELINE_FAIL;
	if (db_calib_interrupt(ctx->db, job->arch, &interrupted)) {
		strbuf_addstr(&out->reason, "the calibration rows cannot be "
			      "updated");
		return PIPELINE_RETRY;
	}
	if (interrupted)
		log_info("calibrate", "%s: %d calibration%s interrupted by "
			 "a daemon stop", job->arch, interrupted,
			 interrupted == 1 ? " was" : "s were");
	log_error_reset();
	if (guest_initramfs(ac->arch, ctx->cfg->cache_dir, &guest)) {
		strbuf_addf(&out->reason, "the guest initramfs cannot be "
			    "packed: %s", log_error_first());
		return PIPELINE_FAIL;
	}
	if (hosts_calibrations_due(ctx->db, ctx->cfg, ac->arch, guest.id,
				   &due, &n)) {
		strbuf_addstr(&out->reason, "the hosts cannot be read");
		r = PIPELINE_RETRY;
	}
	for (i = 0; i < n && r == PIPELINE_OK; i++)
		if ((ctx->stop && *ctx->stop) ||
		    calibrate_due(ctx, &due[i], ac->arch, &guest))
			r = PIPELINE_INTERRUPTED;
	hosts_calib_due_free(due, n);
	guest_image_release(&guest);
	return r;
}

int calibrate_schedule(struct db *db, const struct config *cfg)
{
	struct hosts_calib_due *due;
	size_t n, a;
	int idle = 0, queued;

	if (!cfg->calibration.enabled)
		return 0;
	if (db_calib_idle(db, cfg->calibration.idle_s, &idle))
		return -1;
	if (!idle)
		return 0;
	for (a = 0; a < ARCH_MAX; a++) {
		const struct arch *arch = cfg->arches[a].arch;
		struct guest_image guest;
		int rc;

		if (!arch)
			continue;
		if (guest_initramfs(arch, cfg->cache_dir, &guest))
			return -1;
		rc = hosts_calibrations_due(db, cfg, arch, guest.id, &due, &n);
		guest_image_release(&guest);
		if (rc)
			return -1;
		hosts_calib_due_free(due, n);
		if (!n)
			continue;
		if (db_calib_queue(db, arch->name, &queued))
			return -1;
		if (queued)
			log_info("calibrate", "%s: a calibration is due on %zu "
				 "host%s: queued", arch->name, n,
				 n == 1 ? "" : "s");
	}
	return 0;
}
