/*
 * db_run.h - the run stage's SQL: the images it boots, the hosts it boots
 * them on, and the run, boot and sample rows it writes (schema
 * 0005_run.sql).
 *
 * A boot row is written when the boot starts (status 'running') and
 * finished, with every sample of a complete boot, in one transaction when
 * it ends: after a crash a boot is either 'running' (and is marked
 * 'interrupted' by db_run_interrupt()) or finished with all its samples.
 */
#ifndef KREGRESS_DB_RUN_H
#define KREGRESS_DB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

struct db;
struct sample;

/* The base and patched images the build stage made for a series. */
struct db_run_images {
	long long build_id[2];	/* [0] base, [1] patched */
	char *image[2];		/* bootable image paths */
};

/*
 * Fills *im for (series_id, arch) and the kernels of that layout.  0
 * when both builds are there, ok and have an image; 1 when not (nothing
 * to release); -1 on a database error (logged).
 */
int db_run_images(struct db *db, long long series_id, const char *arch,
		  enum layout layout, struct db_run_images *im);
void db_run_images_release(struct db_run_images *im);

/* What is known of a configured host (the host table, by name). */
struct db_run_host {
	long long id;
	char *accel;		/* "kvm", "tcg" or "auto" (not probed) */
	long long probed_at;	/* 0 = never */
	int healthy;
};

/*
 * Makes the host row for a configured host agree with the configuration
 * (uri, arch, capacity; accel when the configuration fixes it, "auto"
 * until a probe when it does not) and reads it back into *h.
 */
int db_run_host_sync(struct db *db, const char *name, const char *uri,
		     const char *arch, const char *accel, int capacity,
		     struct db_run_host *h);
void db_run_host_release(struct db_run_host *h);

/*
 * Records what a probe (or, for a host whose accel is fixed, the host's
 * capabilities) found: accel NULL marks the host unhealthy for reason.
 */
int db_run_host_probed(struct db *db, long long host_id, const char *accel,
		       const char *cpu_model, unsigned int cpus,
		       unsigned long long memory_mib, const char *reason);

/* Marks every host's probe stale: each is probed again before use. */
int db_run_hosts_stale(struct db *db);

/* Marks a host unhealthy for reason, its probe stale. */
int db_run_host_unhealthy(struct db *db, long long host_id,
			  const char *reason);

/*
 * Marks every run of series_id on arch still 'running' (a daemon died
 * during it) 'interrupted', with its boots still 'running'; another
 * arch's run may be under way meanwhile and is left alone.  *n (may be
 * NULL) gets the number of boots so marked.
 */
int db_run_interrupt(struct db *db, long long series_id, const char *arch,
		     int *n);

/* A run as it starts: what it boots with, and its adaptive design. */
struct db_run_design {
	long long series_id;
	const char *arch, *accel;
	const char *clock;	/* "real" or "instructions" (plan.h) */
	uint64_t seed;		/* of the ABBA order */
	const char *plan;	/* the kregress.plan= argument */
	double alpha;		/* overall */
	unsigned int max_per_side;	/* boots per side at most */
	enum layout layout;	/* of the kernels it boots */
};

/* Inserts a 'running' run row; *run_id gets its id. */
int db_run_start(struct db *db, const struct db_run_design *d,
		 long long *run_id);

/* Ends a run: status is runner_end_str() of how it ended. */
int db_run_finish(struct db *db, long long run_id, const char *status,
		  unsigned int rounds);

/* A boot as it starts: of a run (of a series), or of a calibration
 * (calibrate.c); 0 for the ids it has not. */
struct db_run_boot {
	long long run_id, series_id, build_id, host_id, calibration_id;
	const char *side;	/* "base" or "patched" */
	unsigned int seq, round;
	int attempt;
	const char *nonce;	/* unique: identifies the boot */
	const char *console_path;
};

int db_run_boot_start(struct db *db, const struct db_run_boot *b);

/*
 * Ends the boot with this nonce, in one transaction with its samples
 * (n may be 0): status "ok" or the failure word, reason NULL when ok.
 */
int db_run_boot_finish(struct db *db, const char *nonce, const char *status,
		       const char *reason, const char *domain,
		       long long duration_ms, const struct sample *samples,
		       size_t n);

#endif
