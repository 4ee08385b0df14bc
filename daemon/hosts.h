/*
 * hosts.h - the configured libvirt hosts as the daemon uses them.
 *
 * hosts_startup() runs once when kregressd starts: it makes the host table
 * agree with the configuration, destroys on every host the kregress
 * domains a previous daemon left running (a kill -9 during a boot), and
 * marks every probe stale, so that each host is probed again before its
 * first boot after a start.
 *
 * hosts_open() gives the run stage the hosts of one arch, ready to boot:
 * a host whose accel is "auto" is probed (probe.c: KVM if a guest really
 * boots with it, else TCG) when its probe is stale, missing or older than
 * HOSTS_PROBE_MAX_AGE_S, with the run's own kernel; hosts whose accel is
 * fixed only have their capabilities read.  The run uses one accel: KVM
 * when any healthy host of the arch has it, else TCG.
 */
#ifndef KREGRESS_HOSTS_H
#define KREGRESS_HOSTS_H

#include <stddef.h>

#include "plan_file.h"
#include "runner.h"
#include "strbuf.h"

struct config;
struct config_host;
struct db;

#define HOSTS_PROBE_MAX_AGE_S	3600

int hosts_startup(struct db *db, const struct config *cfg);

/*
 * The scheduler's view of a host at uri (borrowed) booting arch with
 * accel: healthy, at ch's capacity (1 when ch is NULL or sets none).
 */
void hosts_sched_init(struct schedule_host *s, const char *uri,
		      const struct config_host *ch, const struct arch *arch,
		      enum arch_accel accel);

/* What a probe boots: the run's base kernel and the guest initramfs. */
struct hosts_probe_kit {
	const char *kernel;
	const char *initrd;
	const char *log_dir;	/* the probe's console logs go here */
};

struct hosts_set {
	struct runner_host *hosts;	/* n, vm opened, healthy */
	long long *ids;			/* host table ids */
	char **uris;			/* owned copies */
	size_t n, alloc;
	enum arch_accel accel;
};

/*
 * Opens the healthy hosts of arch for a run.  0 with
 * *set filled (release with hosts_set_release()); -1 with the reason in
 * *reason when the configuration has no host of the arch (permanent);
 * -2 when none of them can boot a guest now (try again later).
 */
int hosts_open(struct db *db, const struct config *cfg,
	       const struct arch *arch,
	       const struct hosts_probe_kit *kit, struct hosts_set *set,
	       struct strbuf *reason);

/* Records the hosts the run found unhealthy (they are probed again
 * before their next run), then closes them. */
void hosts_set_release(struct db *db, struct hosts_set *set);

/* A host that an A/A calibration is due on (calibrate.h). */
struct hosts_calib_due {
	const struct config_host *ch;	/* borrowed from the configuration */
	long long host_id;
	enum arch_accel accel;		/* as probed (or fixed) */
	struct plan_file pf;		/* the plan its runs use */
	const char *reason;		/* new host, new plan, new base, new
					 * workloads, schedule */
	long long build_id;		/* the base to boot */
	char *image;
};

/*
 * The configured hosts of arch that a calibration is due on: healthy,
 * with a known accel (a host never probed waits for its first run's
 * probe), and a plan that accel can boot, when a base build exists
 * (db_calib_base()), and when their newest calibration for that accel,
 * clock and plan is missing (new host, new plan), booted another base
 * (new base) or another guest image than guest (struct guest_image's
 * id: new workloads), or is older than calibration.interval_s
 * (schedule).  A calibration that failed in the last hour is not tried
 * again yet.  0 with *due (free with hosts_calib_due_free()) and *n, or
 * -1.
 */
int hosts_calibrations_due(struct db *db, const struct config *cfg,
			   const struct arch *arch, const char *guest,
			   struct hosts_calib_due **due, size_t *n);
void hosts_calib_due_free(struct hosts_calib_due *due, size_t n);

#endif
