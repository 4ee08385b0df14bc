/*
 * t-db-calib.c - when an A/A calibration is due and which one a run uses
 * (hosts_calibrations_due(), db_calib.c), on a real SQLite database with
 * the shipped configuration (config.example.json and its plans): a
 * calibration holds for the base it booted and for the guest image it
 * booted, so new workloads make a new one due and no run uses the old.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "calib.h"
#include "config.h"
#include "db.h"
#include "db_calib.h"
#include "db_run.h"
#include "hosts.h"
#include "plan.h"
#include "plan_file.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-db-calib.XXXXXX";

/* Two guest images, as struct guest_image's ids. */
#define GUEST_OLD "9e1c" "0000000000000000000000000000000000000000000000000000000000"
#define GUEST_NEW "2f7a" "0000000000000000000000000000000000000000000000000000000000"

/* The reasons a calibration is due on x86_64's hosts with guest, "-"
 * when none is, "(error)" on an error. */
static const char *due_on(struct db *db, const struct config *cfg,
			  const char *guest)
{
	static char out[256];
	struct hosts_calib_due *due;
	size_t n, i;

	if (hosts_calibrations_due(db, cfg, arch_find("x86_64"), guest, &due,
				   &n))
		return "(error)";
	snprintf(out, sizeof(out), "%s", n ? "" : "-");
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s: %s",
			 i ? ", " : "", due[i].ch->name, due[i].reason);
	hosts_calib_due_free(due, n);
	return out;
}

/* A series whose base is an ok x86_64 build with an image; its id. */
static long long base_build(struct db *db, const char *commit)
{
	char sql[512];

	db_exec(db, "INSERT INTO series (status, created_at, updated_at) "
		"VALUES ('built', 0, 0)");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO build (commit_id, arch, config_hash, status, "
		 "image_path) VALUES ('%s', 'x86_64', 'k', 'ok', '/img/%s');"
		 "INSERT INTO series_build (series_id, build_id, arch, side) "
		 "VALUES (%lld, last_insert_rowid(), 'x86_64', 'base')",
		 commit, commit,
		 sqlite3_last_insert_rowid(db_sqlite(db)));
	db_exec(db, sql);
	return q_int(db, "SELECT id FROM build WHERE commit_id = '%s'",
		     commit);
}

/* A done calibration of the host on build with guest; its id. */
static long long calibrated(struct db *db, long long host_id,
			    long long build_id, const char *plan,
			    const char *guest)
{
	struct calib_data none;
	struct db_calib_design d = {
		.host_id = host_id, .build_id = build_id, .arch = "x86_64",
		.accel = "tcg", .clock = "instructions", .plan = plan,
		.guest = guest, .reason = "new host", .seed = 1,
		.boots_per_side = 8, .budget = 20, .min_samples = 5,
		.simulations = 1000, .alpha = 0.05, .threshold_pct = 3,
		.target = 0.05,
	};
	long long id = 0;

	calib_data_init(&none);
	if (db_calib_start(db, &d, &id) ||
	    db_calib_done(db, id, &none, NULL, 1000))
		return 0;
	return id;
}

/* Whether a new run of key is linked to calibration want (0: to none). */
static int linked(struct db *db, long long series_id, long long host_id,
		  const struct db_calib_key *key, long long want)
{
	struct db_run_design d = {
		.series_id = series_id, .arch = key->arch,
		.accel = key->accel, .clock = key->clock, .seed = 1,
		.plan = key->plan, .alpha = 0.05, .max_per_side = 20,
		.layout = LAYOUT_AS_BUILT,
	};
	long long run_id;

	if (db_run_start(db, &d, &run_id) ||
	    db_calib_link_run(db, run_id, &host_id, 1, key))
		return 0;
	return q_int(db, "SELECT coalesce(group_concat(calibration_id), 0) "
		     "FROM run_calibration WHERE run_id = %lld", run_id) == want;
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	struct config *cfg = NULL;
	struct db *db = NULL;
	struct db_run_host h;
	struct db_calib_key key;
	long long base, newer, cal_old, cal_new;

	strbuf_addf(&path, "%s/config.example.json", src ? src : ".");
	if (!ok(!config_load(path.buf, &cfg, &err) &&
		!plan_file_load_configured(&pf, cfg, arch_find("x86_64"),
					   ARCH_TCG, &err),
		"the shipped configuration and its x86_64 TCG plan load")) {
		diag("%s", err.buf);
		return done_testing();
	}
	if (!mkdtemp(dir))
		return 1;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/k.db", dir);
	if (!ok(db_open(path.buf, &db) == 0, "database opened"))
		return done_testing();

	is_str(due_on(db, cfg, GUEST_OLD), "-",
	       "no base build yet: nothing to calibrate");
	base = base_build(db, "base1");
	is_str(due_on(db, cfg, GUEST_OLD), "-",
	       "a host never probed waits for its accel");
	db_run_host_sync(db, "local", "qemu:///system", "x86_64", "auto", 1,
			 &h);
	db_run_host_probed(db, h.id, "tcg", "qemu64", 2, 1024, NULL);
	is_str(due_on(db, cfg, GUEST_OLD), "local: new host",
	       "a probed host with a base: a new host");

	cal_old = calibrated(db, h.id, base, pf.cmdline.buf, GUEST_OLD);
	is_str(q_str(db, "SELECT guest FROM calibration WHERE id = %lld",
		     cal_old), GUEST_OLD, "a calibration stores its guest image");
	is_str(due_on(db, cfg, GUEST_OLD), "-",
	       "calibrated on this base and guest: none due");
	is_str(due_on(db, cfg, GUEST_NEW), "local: new workloads",
	       "another guest image: due, new workloads");

	key.arch = "x86_64";
	key.accel = "tcg";
	key.clock = "instructions";
	key.plan = pf.cmdline.buf;
	key.guest = GUEST_NEW;
	ok(linked(db, 1, h.id, &key, 0),
	   "a run of the new guest uses no calibration of the old");
	key.guest = GUEST_OLD;
	ok(linked(db, 1, h.id, &key, cal_old), "a run of the old guest uses it");

	cal_new = calibrated(db, h.id, base, pf.cmdline.buf, GUEST_NEW);
	is_str(due_on(db, cfg, GUEST_NEW), "-",
	       "calibrated with the new guest: none due");
	ok(linked(db, 1, h.id, &key, cal_old),
	   "a run of the old guest still finds its own, not the newer");
	key.guest = GUEST_NEW;
	ok(linked(db, 1, h.id, &key, cal_new),
	   "a run of the new guest finds the new one");

	db_exec(db, "INSERT INTO calibration (host_id, arch, accel, clock, "
		"plan, build_id, reason, status, seed, boots_per_side, alpha, "
		"budget, threshold_pct, min_samples, simulations, target, "
		"started_at, finished_at) SELECT host_id, arch, accel, clock, "
		"plan, build_id, reason, 'done', seed, boots_per_side, alpha, "
		"budget, threshold_pct, min_samples, simulations, target, "
		"started_at, finished_at FROM calibration WHERE id = 1");
	is_str(due_on(db, cfg, GUEST_NEW), "local: new workloads",
	       "a row from before guests were recorded (''): new workloads");

	newer = base_build(db, "base2");
	is_str(due_on(db, cfg, GUEST_NEW), "local: new base",
	       "a newer base comes first: new base (build %lld, calibrated "
	       "%lld)", newer, cal_new);

	plan_file_release(&pf);
	config_free(cfg);
	db_close(db);
	db_run_host_release(&h);
	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf %s", dir);
	if (system(path.buf))
		diag("cleanup failed");
	strbuf_release(&path);
	strbuf_release(&err);
	return done_testing();
}
