/*
 * t-db-run.c - the run stage's SQL (db_run.c) on a real SQLite database:
 * hosts kept in step with the configuration and their probes, the images
 * of a series, runs interrupted by a crash, boots finished with their
 * samples in one transaction.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "db_run.h"
#include "sample.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-db-run.XXXXXX";

static void test_hosts(struct db *db)
{
	struct db_run_host h;

	ok(db_run_host_sync(db, "local", "qemu:///system", "x86_64", "auto", 1,
			    &h) == 0, "a new configured host is stored");
	is_str(h.accel, "auto", "its accel is unknown until probed");
	ok(h.probed_at == 0 && h.healthy, "never probed, healthy");
	ok(db_run_host_probed(db, h.id, "tcg", "qemu64", 2, 1024, NULL) == 0,
	   "a probe is recorded");
	db_run_host_release(&h);
	db_run_host_sync(db, "local", "qemu:///system", "x86_64", "auto", 2,
			 &h);
	ok(!strcmp(h.accel, "tcg") && h.probed_at > 0,
	   "the same machine keeps its probe");
	is_str(q_str(db, "SELECT capacity || cpu_model || memory_mib FROM host "
		     "WHERE name = 'local'"), "2qemu641024",
	       "capacity follows the configuration; probe facts kept");
	db_run_host_release(&h);
	db_run_host_sync(db, "local", "qemu+tcp://other/system", "x86_64",
			 "auto", 2, &h);
	ok(!strcmp(h.accel, "auto") && h.probed_at == 0,
	   "another URI: the probe is void");
	db_run_host_release(&h);
	db_run_host_sync(db, "fixed", "qemu:///system", "arm64", "tcg", 1, &h);
	is_str(h.accel, "tcg", "a fixed accel is the configured one");
	db_run_host_probed(db, h.id, NULL, NULL, 0, 0, "libvirt is down");
	is_str(q_str(db, "SELECT healthy || ':' || health_reason FROM host "
		     "WHERE name = 'fixed'"), "0:libvirt is down",
	       "a failed probe marks the host unhealthy with the reason");
	db_run_host_probed(db, h.id, "tcg", "cortex", 1, 512, NULL);
	is_str(q_str(db, "SELECT healthy || ':' || "
		     "coalesce(health_reason, '-') FROM host WHERE name = "
		     "'fixed'"), "1:-", "a good probe makes it healthy again");
	ok(db_run_host_unhealthy(db, h.id, "3 boot failures") == 0,
	   "the runner's verdict on a host is recorded");
	is_str(q_str(db, "SELECT healthy || ':' || health_reason || ':' || "
		     "coalesce(probed_at, 'stale') FROM host WHERE name = "
		     "'fixed'"), "0:3 boot failures:stale",
	       "unhealthy, and probed again before its next use");
	db_run_host_release(&h);
	ok(db_run_hosts_stale(db) == 0 &&
	   !strcmp(q_str(db, "SELECT count(*) FROM host WHERE probed_at IS "
			 "NOT NULL"), "0"), "start-up marks every probe stale");
}

static long long series_with_builds(struct db *db, int patched_ok)
{
	char sql[512];
	long long sid;

	db_exec(db, "INSERT INTO series (status, created_at, updated_at) "
		"VALUES ('built', 0, 0)");
	sid = sqlite3_last_insert_rowid(db_sqlite(db));
	snprintf(sql, sizeof(sql),
		 "INSERT INTO build (commit_id, arch, config_hash, status, "
		 "image_path) VALUES ('b%lld', 'x86_64', 'k', 'ok', "
		 "'/img/base'), ('p%lld', 'x86_64', 'k', '%s', '/img/p');"
		 "INSERT INTO series_build (series_id, build_id, arch, side) "
		 "SELECT %lld, id, arch, CASE "
		 "WHEN commit_id LIKE 'b%%' THEN 'base' ELSE 'patched' END "
		 "FROM build WHERE commit_id IN ('b%lld', 'p%lld')",
		 sid, sid, patched_ok ? "ok" : "failed", sid, sid, sid);
	db_exec(db, sql);
	return sid;
}

static void test_images(struct db *db)
{
	struct db_run_images im;
	long long sid = series_with_builds(db, 1);

	ok(db_run_images(db, sid, "x86_64", LAYOUT_AS_BUILT, &im) == 0,
	   "a built series has its images");
	ok(im.image[0] && !strcmp(im.image[0], "/img/base") && im.image[1] &&
	   !strcmp(im.image[1], "/img/p") && im.build_id[0] &&
	   im.build_id[1] != im.build_id[0], "base and patched, with builds");
	db_run_images_release(&im);
	ok(db_run_images(db, sid, "arm64", LAYOUT_AS_BUILT, &im) == 1,
	   "none for another arch");
	ok(db_run_images(db, sid, "x86_64", LAYOUT_ALIGNED, &im) == 1,
	   "none of the aligned kernels before the layout control built "
	   "them");
	sid = series_with_builds(db, 0);
	ok(db_run_images(db, sid, "x86_64", LAYOUT_AS_BUILT, &im) == 1,
	   "a failed patched build gives no images");
}

static struct sample mk(const char *metric, long long it, double v)
{
	struct sample s = {
		.workload = (char *)"thp-fault",
		.metric = (char *)metric,
		.params = (char *)"{\"mb\":8}",
		.unit = (char *)"us",
		.direction = STATS_HIGHER_IS_BETTER,
		.primary = !strcmp(metric, "pass"),
		.iteration = it,
		.value = v,
	};
	return s;
}

static void test_runs(struct db *db)
{
	long long sid = series_with_builds(db, 1), run, bid;
	struct db_run_design design = {
		.arch = "x86_64", .accel = "tcg", .clock = "instructions",
		.seed = UINT64_MAX - 1, .plan = "kregress.plan=\"x\"",
		.alpha = 0.05, .max_per_side = 8,
	};
	struct db_run_boot b = { 0 };
	struct sample s[3] = { mk("pass", 0, 10), mk("pass", 1, 11),
			       mk("fault", 0, 2.5) };
	int n = -1;

	bid = atoll(q_str(db, "SELECT build_id FROM series_build WHERE "
			  "series_id = %lld AND side = 'base'", sid));
	design.series_id = sid;
	ok(db_run_start(db, &design, &run) == 0, "a run starts");
	is_str(q_str(db, "SELECT status || ':' || accel || ':' || clock || ':' "
		     "|| seed || ':' || alpha || ':' || max_per_side FROM run "
		     "WHERE id = %lld", run),
	       "running:tcg:instructions:-2:0.05:8",
	       "running, with its accel, clock, seed (64 bits kept) and "
	       "design");
	b.run_id = run;
	b.series_id = sid;
	b.build_id = bid;
	b.side = "base";
	b.seq = 0;
	b.round = 1;
	b.attempt = 1;
	b.nonce = "aaaa";
	b.console_path = "/log/0";
	ok(db_run_boot_start(db, &b) == 0, "a boot starts");
	ok(db_run_boot_finish(db, "aaaa", "ok", NULL, "kregress-x", 2500, s,
			      3) == 0, "it ends with its samples");
	is_str(q_str(db, "SELECT status || ':' || duration_ms || ':' || domain "
		     "|| ':' || (SELECT count(*) FROM sample WHERE boot_id = "
		     "boot.id) FROM boot WHERE nonce = 'aaaa'"),
	       "ok:2500:kregress-x:3", "boot row and three samples");
	is_str(q_str(db, "SELECT group_concat(metric || '/' || iteration || '/' "
		     "|| value || '/' || unit || '/' || direction || '/' || "
		     "params, ' ') FROM sample"),
	       "pass/0/10.0/us/higher/{\"mb\":8} pass/1/11.0/us/higher/"
	       "{\"mb\":8} fault/0/2.5/us/higher/{\"mb\":8}",
	       "every iteration kept, with unit, direction and params");
	is_str(q_str(db, "SELECT group_concat(metric || '=' || is_primary, "
		     "' ') FROM sample"), "pass=1 pass=1 fault=0",
	       "the workload's primary metrics are marked");
	ok(db_run_boot_finish(db, "zzzz", "ok", NULL, NULL, 0, s, 3) < 0,
	   "finishing an unknown boot fails");
	is_str(q_str(db, "SELECT count(*) FROM sample"), "3",
	       "... and stores no sample (one transaction)");
	b.nonce = "bbbb";
	b.seq = 1;
	b.side = "patched";
	db_run_boot_start(db, &b);
	b.nonce = "aaaa";
	ok(db_run_boot_start(db, &b) < 0, "a nonce names one boot only");

	/* the daemon dies here: a run and a boot stay 'running' */
	ok(db_run_interrupt(db, sid, "arm64", &n) == 0 && n == 0 &&
	   !strcmp(q_str(db, "SELECT status FROM run WHERE id = %lld", run),
		   "running"), "another arch's run is left alone");
	ok(db_run_interrupt(db, sid, "x86_64", &n) == 0 && n == 1,
	   "the next attempt marks the running boot interrupted");
	is_str(q_str(db, "SELECT status || ':' || status_reason FROM boot "
		     "WHERE nonce = 'bbbb'"),
	       "interrupted:the daemon stopped during the boot",
	       "with the reason");
	is_str(q_str(db, "SELECT status || ':' || (finished_at > 0) FROM run "
		     "WHERE id = %lld", run), "interrupted:1",
	       "and the run interrupted");
	is_str(q_str(db, "SELECT status FROM boot WHERE nonce = 'aaaa'"), "ok",
	       "the complete boot and its samples stay");
	ok(db_run_interrupt(db, sid, "x86_64", &n) == 0 && n == 0,
	   "nothing left to interrupt");
	ok(db_run_finish(db, run, "budget", 3) == 0 &&
	   !strcmp(q_str(db, "SELECT status || rounds FROM run WHERE id = "
			 "%lld", run), "budget3"), "a run ends with its rounds");
}

int main(void)
{
	struct db *db = NULL;
	char path[256];

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/k.db", dir);
	if (!ok(db_open(path, &db) == 0, "database opened"))
		return 1;
	test_hosts(db);
	test_images(db);
	test_runs(db);
	db_close(db);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		diag("cleanup failed");
	return done_testing();
}
