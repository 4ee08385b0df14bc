/*
 * db_calib.h - the SQL of A/A calibrations (schema/0013_calibration.sql):
 * their rows and per-metric figures, what the scheduler asks (is one due,
 * is the daemon idle, which base to boot) and which calibrations a run
 * used; what the API serves of them is db_calib_json.c's.
 *
 * A calibration's boots are boot rows with calibration_id set (written
 * with db_run_boot_start() and db_run_boot_finish(), like a run's), so
 * that every boot on a host is in one table.  Each function takes the
 * calling thread's struct db and returns 0 or -1 (logged as
 * "calibrate: ..."), unless it says otherwise.
 */
#ifndef KREGRESS_DB_CALIB_H
#define KREGRESS_DB_CALIB_H

#include <stddef.h>
#include <stdint.h>

struct calib_data;
struct calib_result;
struct calib_table;
struct db;

/* A calibration as it starts: what it boots and the design it serves. */
struct db_calib_design {
	long long host_id, build_id;
	const char *arch, *accel;
	const char *clock;		/* "real" or "instructions" */
	const char *plan;		/* the kregress.plan= argument */
	const char *guest;		/* struct guest_image's id */
	const char *reason;		/* new host, new plan, ... */
	uint64_t seed;
	unsigned int boots_per_side, budget, min_samples, simulations;
	double alpha, threshold_pct, target;
};

/* Inserts a 'running' calibration; *id gets its id. */
int db_calib_start(struct db *db, const struct db_calib_design *d,
		   long long *id);

/*
 * Ends calibration id 'done' with a row per metric of d (r[0..d->nm)
 * from calib_compute()) and the median boot time, in one transaction.
 */
int db_calib_done(struct db *db, long long id, const struct calib_data *d,
		  const struct calib_result *r, double boot_ms);

/* Ends it with status ('failed', 'interrupted') and why; its boots still
 * 'running' become 'interrupted'. */
int db_calib_end(struct db *db, long long id, const char *status,
		 const char *reason);

/*
 * Marks the 'running' calibrations of arch (a previous attempt's: one
 * calibrate job per arch runs at a time) and their running boots
 * 'interrupted'; *n (may be NULL) gets how many calibrations.
 */
int db_calib_interrupt(struct db *db, const char *arch, int *n);

/* What a run boots, which its calibrations must have booted too. */
struct db_calib_key {
	const char *arch, *accel, *clock;
	const char *plan;		/* the kregress.plan= argument */
	const char *guest;		/* struct guest_image's id */
};

/* What the scheduler needs to know of one host and key. */
struct db_calib_state {
	int host_known;		/* the host has any done calibration */
	int plan_known;		/* ... with the key's arch, accel, clock
				 * and plan */
	long long build_id;	/* the newest such: the base it booted */
	int same_guest;		/* ... and whether it booted key->guest */
	long long finished_at;
	long long failed_at;	/* the newest row failed then; 0 = not */
};

int db_calib_state(struct db *db, long long host_id,
		   const struct db_calib_key *key, struct db_calib_state *st);

/*
 * The base a calibration of arch boots: the newest (highest id) build
 * that is a series' base, built ok, with an image.  0 with *build_id and
 * *image (caller frees), 1 when there is none, -1 on error.
 */
int db_calib_base(struct db *db, const char *arch, long long *build_id,
		  char **image);

/* The ok build whose image is image: 0 with *build_id, 1 if none. */
int db_calib_build_of(struct db *db, const char *image, long long *build_id);

/*
 * The daemon is idle: no job other than a calibration is queued or
 * running, and none ended in the last idle_s seconds.  *idle gets 1 or 0.
 */
int db_calib_idle(struct db *db, int idle_s, int *idle);

/* Queues a calibrate job for arch unless one is queued or running
 * already; *queued gets 1 when it did. */
int db_calib_queue(struct db *db, const char *arch, int *queued);

/*
 * Links run_id to the newest done calibration of each of its hosts for
 * key, the ones its looks use; n may be 0.
 */
int db_calib_link_run(struct db *db, long long run_id,
		      const long long *host_ids, size_t n,
		      const struct db_calib_key *key);

/*
 * Adds the word of the calibrations linked to run_id on each metric to t
 * (calib_table_add()): the floor is the larger of resolve and alarm,
 * failed means more simulated false alarms than the calibration's target
 * allows or any real one.
 */
int db_calib_for_run(struct db *db, long long run_id, struct calib_table *t);

#endif
