/*
 * calibrate.h - A/A calibration of a host: the base kernel booted
 * against itself in the runs' seeded ABBA design, on one host, with the
 * plan its runs use; its per-boot values turned into the host's noise,
 * false alarms and thresholds (calib.h) and, with a database, stored
 * (db_calib.h) for the runs and analyses of that host, arch, plan and
 * clock to use.
 *
 * The daemon calibrates on its own (stage_calibrate(), one "calibrate"
 * job per arch, not tied to a series): for every configured host that is
 * due (hosts_calibrations_due(): a new host, plan or base, or the last
 * calibration older than calibration.interval_s) once the daemon has
 * been idle for calibration.idle_s (calibrate_schedule(), on the main
 * loop's timer).  `kregress calibrate` does the same by hand
 * (cli_calibrate.c).
 */
#ifndef KREGRESS_CALIBRATE_H
#define KREGRESS_CALIBRATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "pipeline.h"
#include "runner.h"
#include "strbuf.h"

struct db;
struct plan_file;

/* One calibration to carry out. */
struct calibrate_spec {
	const char *kernel, *initrd;	/* the base; both sides boot it */
	const struct plan_file *pf;	/* the runs' plan */
	struct runner_host *host;	/* opened; its sched says arch and
					 * accel */
	unsigned int boots_per_side;
	unsigned int timeout_s;		/* per boot */
	uint64_t seed;			/* ABBA order and resampling */
	const char *log_dir;		/* console logs; must exist */
	struct calib_design design;	/* the runs' design (seed ignored) */
	/* Storage (db NULL: none): the calibration row the boots belong
	 * to and the build they boot. */
	struct db *db;
	long long calibration_id, build_id, host_id;
	/* Progress, after each boot (may be NULL; under the runner's lock). */
	void (*on_boot)(void *opaque, const struct runner_boot *b);
	void *opaque;
	const volatile sig_atomic_t *stop;
};

struct calibrate_outcome {
	struct calib_data data;		/* the complete boots */
	struct calib_result *results;	/* [data.nm] */
	double boot_ms;			/* median wall time of a boot */
	enum runner_end end;
	unsigned int boots, failed_boots;
	int db_failed;			/* a boot row was not written */
};

void calibrate_outcome_init(struct calibrate_outcome *o);
void calibrate_outcome_release(struct calibrate_outcome *o);

/*
 * Boots, then computes.  0 with *o filled; -1 with the reason in reason
 * (no complete boot on a side, no host left, stopped: o->end says
 * which; a bad spec is logged).  Blocks for the boots.
 */
int calibrate_run(const struct calibrate_spec *s, struct calibrate_outcome *o,
		  struct strbuf *reason);

/*
 * The calibrate job of one arch: every host of the arch that is due,
 * calibrated and stored in turn (a failure is stored with its reason:
 * the job still succeeds).  PIPELINE_INTERRUPTED on a stop.
 */
enum pipeline_result stage_calibrate(struct pipeline_ctx *ctx,
				     const struct job *job,
				     struct pipeline_outcome *out);

/*
 * Queues a calibrate job for each arch with a host that is due, when
 * calibration is enabled and the daemon is idle (db_calib_idle()).
 * Called from the main loop; 0 or -1 (logged).
 */
int calibrate_schedule(struct db *db, const struct config *cfg);

#endif
