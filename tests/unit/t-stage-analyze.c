/*
 * t-stage-analyze.c - the pipeline's analyze stage (stage_analyze.c,
 * analyze.c, db_analyze.c) through pipeline_run_job() with the real stage
 * table, on a real SQLite database seeded with runs, boots and samples as
 * the run stage writes them (schema/0005_run.sql).
 *
 * What a user would check: a clear 20% shift is a regression with the
 * right sign for both directions, identical distributions are no-change,
 * iterations are reduced to the per-boot median, failed boots do not
 * count, too few boots are insufficient-data, a side without complete
 * boots fails the series with a reason, the configured threshold and
 * p-value method are used, a second analysis replaces the rows, of
 * an interrupted and a decided run only the decided one is analysed,
 * and the layout control's answers (test_layout, test_layout_gives_up).
 */
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "jobq.h"
#include "pipeline.h"
#include "stages.h"
#include "strbuf.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-stage-analyze.XXXXXX";

static long long exec_id(struct db *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Runs one INSERT; the new row's id, or -1. */
static long long exec_id(struct db *db, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (db_exec(db, sql))
		return -1;
	return sqlite3_last_insert_rowid(db_sqlite(db));
}

/* Queues a job of kind (of arch, or NULL) for series id, alone in the
 * queue, and runs it as its attempt of max (max_attempts). */
static int stage_attempt(struct pipeline_ctx *ctx, const char *kind,
			 long long id, const char *arch, int attempt, int max)
{
	struct job j;
	long long jid;
	int r;

	if (db_exec(ctx->db, "UPDATE job SET state = 'done' "
		    "WHERE state = 'queued'"))
		return -101;
	if (jobq_enqueue_attempts(ctx->db, kind, id, arch, max, &jid) ||
	    exec_id(ctx->db, "UPDATE job SET attempts = %d WHERE id = %lld",
		    attempt - 1, jid) < 0)
		return -102;
	if (jobq_claim(ctx->db, ctx->owner, 60, &j) != 1)
		return -100;
	r = pipeline_run_job(ctx, &j);
	job_release(&j);
	return r;
}

/* The same as the job's first attempt. */
static int stage(struct pipeline_ctx *ctx, const char *kind, long long id,
		 const char *arch)
{
	return stage_attempt(ctx, kind, id, arch, 1, JOBQ_MAX_ATTEMPTS);
}

static int analyze(struct pipeline_ctx *ctx, long long id)
{
	return stage(ctx, "analyze", id, NULL);
}

/* The kind and state of the series' newest job. */
static const char *last_job(struct db *db, long long sid)
{
	return q_str(db, "SELECT kind || ' ' || state FROM job WHERE "
		     "series_id = %lld ORDER BY id DESC LIMIT 1", sid);
}

static long long series(struct db *db)
{
	return exec_id(db, "INSERT INTO series (subject, status, created_at, "
		       "updated_at) VALUES ('[PATCH] mm: test', 'ran', 0, 0)");
}

/* A run of the kernels of layout ("as-built" or "aligned"). */
static long long run_layout(struct db *db, long long sid, const char *arch,
			    const char *status, const char *layout)
{
	return exec_id(db, "INSERT INTO run (series_id, arch, accel, seed, "
		       "plan, status, rounds, started_at, layout) VALUES "
		       "(%lld, '%s', 'tcg', 42, 'thp-fault', '%s', 2, 0, '%s')",
		       sid, arch, status, layout);
}

static long long run(struct db *db, long long sid, const char *arch,
		     const char *status)
{
	return run_layout(db, sid, arch, status, "as-built");
}

static int seq;

static long long boot(struct db *db, long long sid, long long rid,
		      const char *side, const char *status)
{
	seq++;
	return exec_id(db, "INSERT INTO boot (series_id, build_id, host_id, "
		       "side, seq, status, run_id, round, nonce) VALUES "
		       "(%lld, %d, 1, '%s', %d, '%s', %lld, 1, 'n%d')", sid,
		       strcmp(side, "base") ? 2 : 1, side, seq, status, rid,
		       seq);
}

static int sample(struct db *db, long long bid, const char *workload,
		  const char *metric, const char *params, const char *dirn,
		  int iteration, double value)
{
	char sql[1024], v[32];

	/* SQLite reads 1e999 as +Inf. */
	snprintf(v, sizeof(v), isfinite(value) ? "%.17g" : "1e999", value);
	snprintf(sql, sizeof(sql), "INSERT INTO sample (boot_id, workload, "
		 "metric, params, iteration, value, unit, direction) VALUES "
		 "(%lld, '%s', '%s', '%s', %d, %s, 'us', '%s')", bid,
		 workload, metric, params, iteration, v, dirn);
	return db_exec(db, sql);
}

/* Deterministic standard normal draws (Box-Muller on an LCG). */
static unsigned long long lcg = 20261129;

static double normal(void)
{
	double u1, u2;

	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((lcg >> 11) + 1.0) / 9007199254740993.0;
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = (lcg >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * nboots ok boots on side of run rid, each with 3 iterations of metric
 * around center (per-boot CV cv; iterations within 0.1% of the boot's
 * level).
 */
static void boots(struct db *db, long long sid, long long rid,
		  const char *side, int nboots, const char *workload,
		  const char *metric, const char *params, const char *dirn,
		  double center, double cv)
{
	int b, i;

	for (b = 0; b < nboots; b++) {
		long long bid = boot(db, sid, rid, side, "ok");
		double level = center * (1 + cv * normal());

		for (i = 0; i < 3; i++)
			sample(db, bid, workload, metric, params, dirn, i,
			       level * (1 + 0.001 * (i - 1)));
	}
}

/* n boots a side of (workload, metric), lower is better, per-boot CV 1%,
 * around base on the base side and patched on the patched side. */
static void base_patched(struct db *db, long long sid, long long rid, int n,
			 const char *workload, const char *metric,
			 double base, double patched)
{
	boots(db, sid, rid, "base", n, workload, metric, "{}", "lower", base,
	      0.01);
	boots(db, sid, rid, "patched", n, workload, metric, "{}", "lower",
	      patched, 0.01);
}

/* A column of the comparison of (series, metric[, params]). */
static const char *cmp(struct db *db, long long sid, const char *col,
		       const char *metric)
{
	return q_str(db, "SELECT %s FROM comparison WHERE series_id = %lld "
		     "AND metric = '%s' ORDER BY id LIMIT 1", col, sid,
		     metric);
}

static double cmpd(struct db *db, long long sid, const char *col,
		   const char *metric)
{
	return atof(cmp(db, sid, col, metric));
}

/* A configuration of stats, and with x86_64 to build when with_arch. */
static struct config *load(const char *stats, int with_arch)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct config *cfg = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	strbuf_addf(&text, "{ \"state_dir\": \"%s/state\", \"stats\": %s",
		    dir, stats);
	if (with_arch)
		strbuf_addf(&text, ", \"cache_dir\": \"%s/cache\", "
			    "\"arches\": { \"x86_64\": { \"base_config\": "
			    "\"tinyconfig\" } }", dir);
	strbuf_addstr(&text, " }");
	if (config_parse(text.buf, text.len, path, &cfg, &err))
		diag("config: %s", err.buf);
	strbuf_release(&err);
	strbuf_release(&text);
	return cfg;
}

/*
 * The layout control's answer (stage_layout.c): an as-built regression
 * that the aligned kernels show too is confirmed, one they do not show
 * is layout-sensitive (the verdict says so, verdict_as_built keeps the
 * old one), an aligned comparison that decides nothing leaves it
 * unconfirmed, and no aligned run at all says so.  The control's builds
 * and boots are the build and run stages' (the slow daemon test); here
 * its rules and its skips, which build nothing.
 */
static void test_layout(struct pipeline_ctx *ctx, struct config *cfg,
			struct config *never)
{
	static const char *const metrics[] = { "pass", "move", "out" };
	char want[256];
	long long sid, rid, aid;
	int i;

	sid = series(ctx->db);
	rid = run(ctx->db, sid, "x86_64", "decided");
	base_patched(ctx->db, sid, rid, 8, "thp-fault", "pass", 1000, 1200);
	base_patched(ctx->db, sid, rid, 8, "mremap", "move", 300, 360);
	base_patched(ctx->db, sid, rid, 8, "zero-swap", "out", 700, 840);
	is_int(analyze(ctx, sid), PIPELINE_OK, "layout: analyzed");
	for (i = 0; i < 3; i++)
		is_str(cmp(ctx->db, sid, "verdict", metrics[i]), "regression",
		       "layout: %s is a regression as built", metrics[i]);

	/* No aligned run yet: the analysis says so, for every row. */
	is_int(stage(ctx, "layout-analyze", sid, NULL), PIPELINE_OK,
	       "layout: answering without an aligned run is no failure");
	is_str(cmp(ctx->db, sid, "layout || '|' || layout_reason", "pass"),
	       "unconfirmed|x86_64: the aligned kernels have no run",
	       "layout: no aligned run: unconfirmed, and why");
	is_str(cmp(ctx->db, sid, "verdict", "pass"), "regression",
	       "layout: an unconfirmed verdict stays");
	is_str(last_job(ctx->db, sid), "report queued",
	       "layout: the report follows");

	/* The aligned run: pass moves as much, move not at all, out with
	 * too few boots to decide. */
	ok(db_exec(ctx->db, "UPDATE comparison SET layout = NULL, "
		   "layout_reason = NULL") == 0, "layout: answers cleared");
	aid = run_layout(ctx->db, sid, "x86_64", "decided", "aligned");
	base_patched(ctx->db, sid, aid, 8, "thp-fault", "pass", 1010, 1215);
	base_patched(ctx->db, sid, aid, 8, "mremap", "move", 330, 330);
	base_patched(ctx->db, sid, aid, 2, "zero-swap", "out", 700, 840);
	is_int(stage(ctx, "layout-analyze", sid, NULL), PIPELINE_OK,
	       "layout: answered from the aligned run");
	is_str(cmp(ctx->db, sid, "layout || '|' || verdict || '|' || "
		   "layout_verdict", "pass"), "confirmed|regression|regression",
	       "layout: a change the aligned kernels show is confirmed");
	ok(fabs(cmpd(ctx->db, sid, "layout_change_pct", "pass") - 20.3) < 1.5 &&
	   cmpd(ctx->db, sid, "layout_ci_low_pct", "pass") > 3,
	   "layout: with the aligned change and its interval (%s%%, [%s, "
	   "%s])", cmp(ctx->db, sid, "layout_change_pct", "pass"),
	   cmp(ctx->db, sid, "layout_ci_low_pct", "pass"),
	   cmp(ctx->db, sid, "layout_ci_high_pct", "pass"));
	is_str(cmp(ctx->db, sid, "layout || '|' || verdict || '|' || "
		   "verdict_as_built || '|' || layout_verdict", "move"),
	       "layout-sensitive|layout-sensitive|regression|no-change",
	       "layout: a change that vanishes aligned is layout-sensitive, "
	       "and the as-built verdict is kept");
	ok(fabs(cmpd(ctx->db, sid, "change_pct", "move") - 20) < 2,
	   "layout: the as-built change stays as measured (%s%%)",
	   cmp(ctx->db, sid, "change_pct", "move"));
	snprintf(want, sizeof(want), "unconfirmed|regression|the aligned run "
		 "%lld is insufficient-data after 2 and 2 boots", aid);
	is_str(cmp(ctx->db, sid, "layout || '|' || verdict || '|' || "
		   "layout_reason", "out"), want, "layout: an aligned "
	       "comparison that decides nothing leaves it unconfirmed");
	is_int(stage(ctx, "layout-analyze", sid, NULL), PIPELINE_OK,
	       "layout: answering again");
	is_str(cmp(ctx->db, sid, "verdict || '|' || verdict_as_built", "move"),
	       "layout-sensitive|regression",
	       "layout: an answer is given once (the verdict it replaced "
	       "stays kept)");

	/* What the control does not build for: nothing significant, the
	 * configuration's "never", instruction time by default. */
	sid = series(ctx->db);
	rid = run(ctx->db, sid, "x86_64", "decided");
	base_patched(ctx->db, sid, rid, 8, "thp-fault", "pass", 1000, 1200);
	base_patched(ctx->db, sid, rid, 8, "mremap", "move", 300, 300);
	is_int(analyze(ctx, sid), PIPELINE_OK, "layout: a second series");
	ctx->cfg = never;
	is_int(stage(ctx, "layout-build", sid, "x86_64"), PIPELINE_OK,
	       "layout: \"never\": the build stage passes");
	is_str(cmp(ctx->db, sid, "coalesce(layout, 'none') || '|' || "
		   "layout_reason", "pass"),
	       "none|stats.layout_control is \"never\"",
	       "layout: \"never\": no control, and why");
	ok(!strcmp(cmp(ctx->db, sid, "coalesce(layout_reason, 'none')",
		       "move"), "none"), "layout: a no-change needs no "
	   "control and gets no reason");
	is_str(last_job(ctx->db, sid), "layout-run queued",
	       "layout: the aligned run's stage follows");
	is_int(stage(ctx, "layout-run", sid, "x86_64"), PIPELINE_OK,
	       "layout: nothing to run");
	is_int(stage(ctx, "layout-analyze", sid, NULL), PIPELINE_OK,
	       "layout: nothing to answer");
	is_str(cmp(ctx->db, sid, "coalesce(layout, 'none') || '|' || verdict",
		   "pass"), "none|regression",
	       "layout: the verdict stays as built");
	ctx->cfg = cfg;
	ok(db_exec(ctx->db, "UPDATE comparison SET layout_reason = NULL; "
		   "UPDATE run SET clock = 'instructions'") == 0,
	   "layout: the run in instruction time");
	is_int(stage(ctx, "layout-build", sid, "x86_64"), PIPELINE_OK,
	       "layout: instruction time: the build stage passes");
	ok(strstr(cmp(ctx->db, sid, "coalesce(layout, 'none') || '|' || "
		      "layout_reason", "pass"), "none|instruction time counts "
		  "instructions") != NULL,
	   "layout: by default no control of instruction time, and why "
	   "(%s)", cmp(ctx->db, sid, "layout_reason", "pass"));
}

/*
 * A control that cannot be made for good: an aligned build that fails
 * in a way worth retrying (here its tree is gone) is retried while the
 * job has attempts left, and on its last attempt the comparisons are
 * unconfirmed with the reason and the series goes on to the aligned
 * run's stage instead of failing: the as-built verdicts stand.
 */
static void test_layout_gives_up(struct pipeline_ctx *ctx, struct config *cfg)
{
	const char *src = getenv("KREGRESS_SRC");
	char configs[PATH_MAX];
	long long sid, rid, tid;
	const char *why;

	/* The shipped fragments, so that the build gets as far as its
	 * tree. */
	snprintf(configs, sizeof(configs), "%s/builders/configs",
		 src ? src : ".");
	setenv("KREGRESS_CONFIG_DIR", configs, 1);
	sid = series(ctx->db);
	rid = run(ctx->db, sid, "x86_64", "decided");
	base_patched(ctx->db, sid, rid, 8, "thp-fault", "pass", 1000, 1200);
	is_int(analyze(ctx, sid), PIPELINE_OK, "give up: analyzed");
	tid = exec_id(ctx->db, "INSERT INTO tree (name, path, created_at) "
		      "VALUES ('gone', '%s/no-such-tree', 0)", dir);
	ok(tid > 0 && exec_id(ctx->db, "UPDATE series SET tree_id = %lld, "
			      "base_used = '%040d' WHERE id = %lld", tid, 1,
			      sid) >= 0 &&
	   exec_id(ctx->db, "INSERT INTO patch (series_id, idx, "
		   "applied_commit) VALUES (%lld, 1, '%040d')", sid, 2) > 0,
	   "give up: the series' tree is gone");
	ctx->cfg = cfg;
	is_int(stage_attempt(ctx, "layout-build", sid, "x86_64", 1, 2),
	       PIPELINE_RETRY, "give up: attempt 1 of 2 is retried");
	is_str(cmp(ctx->db, sid, "coalesce(layout, 'none')", "pass"), "none",
	       "give up: no answer while attempts are left");
	is_int(stage_attempt(ctx, "layout-build", sid, "x86_64", 2, 2),
	       PIPELINE_OK, "give up: the last attempt ends the control");
	why = cmp(ctx->db, sid, "layout || '|' || verdict || '|' || "
		  "layout_reason", "pass");
	ok(!strncmp(why, "unconfirmed|regression|the aligned kernels did not "
		    "build: ", 57) && strstr(why, "(after 2 attempts)"),
	   "give up: unconfirmed, the verdict stays, and why (%s)", why);
	is_str(last_job(ctx->db, sid), "layout-run queued",
	       "give up: the series goes on");
	ok(strcmp(q_str(ctx->db, "SELECT status FROM series WHERE id = %lld",
			sid), "failed"), "give up: the series has not failed");
}

int main(void)
{
	struct pipeline_ctx ctx = { .owner = "test", .lease_s = 60,
				    .stages = stage_table };
	char path[512], cmd[600], want[512];
	struct config *cfg, *never, *built;
	long long sid, rid, rid2, bid;
	double lo, hi;
	int i;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.db", dir);
	if (!ok(db_open(path, &ctx.db) == 0, "open a migrated database"))
		return done_testing();
	ok(db_exec(ctx.db, "INSERT INTO build (id, commit_id, arch, "
		   "config_hash, status) VALUES (1, 'aaaa', 'x86_64', 'k', "
		   "'ok'), (2, 'bbbb', 'x86_64', 'k', 'ok'); "
		   "INSERT INTO host (id, name, uri, arch, accel) VALUES "
		   "(1, 'local', 'qemu:///system', 'x86_64', 'tcg')") == 0,
	   "builds and a host");
	cfg = load("{ \"threshold_pct\": 3, \"alpha\": 0.05, "
		   "\"min_samples\": 3, \"max_boots_per_side\": 20, "
		   "\"fdr_method\": \"bh\" }", 0);
	ctx.cfg = cfg;
	if (!ok(cfg != NULL, "configuration"))
		return done_testing();

	/* --- a clear shift, and no change --------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "decided");
	boots(ctx.db, sid, rid, "base", 8, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid, "patched", 8, "thp-fault", "pass", "{}",
	      "lower", 1200, 0.01);
	boots(ctx.db, sid, rid, "base", 8, "thp-fault", "throughput", "{}",
	      "higher", 500, 0.01);
	boots(ctx.db, sid, rid, "patched", 8, "thp-fault", "throughput",
	      "{}", "higher", 400, 0.01);
	/* Identical distributions: the same levels on both sides. */
	for (i = 0; i < 16; i++) {
		double level = 50 * (1 + 0.005 * (i / 2 - 3.5));

		bid = boot(ctx.db, sid, rid, i % 2 ? "patched" : "base",
			   "ok");
		sample(ctx.db, bid, "memset-order", "fill", "{\"mb\":64}",
		       "lower", 0, level);
	}
	/* A failed boot's samples (should never be stored) do not count. */
	bid = boot(ctx.db, sid, rid, "patched", "panic");
	sample(ctx.db, bid, "thp-fault", "pass", "{}", "lower", 0, 1e9);

	is_int(analyze(&ctx, sid), PIPELINE_OK, "analyze: ok");
	is_str(q_state(ctx.db, sid), "analyzed|", "series analyzed");
	is_str(last_job(ctx.db, sid), "layout-build queued",
	       "the layout control is queued");
	is_str(q_str(ctx.db, "SELECT count(*) FROM comparison WHERE "
		     "series_id = %lld", sid), "3", "three comparisons");
	is_str(cmp(ctx.db, sid, "verdict", "pass"), "regression",
	       "20%% slower (lower is better): regression");
	is_double(cmpd(ctx.db, sid, "change_pct", "pass"), 20, 1.5,
		  "change +20%% (got %s)", cmp(ctx.db, sid, "change_pct",
					       "pass"));
	lo = cmpd(ctx.db, sid, "ci_low_pct", "pass");
	hi = cmpd(ctx.db, sid, "ci_high_pct", "pass");
	ok(lo > 3 && lo < 20 && hi > 20 && hi < 40,
	   "its CI is beyond +3%% and holds 20%%: [%g, %g]", lo, hi);
	is_str(cmp(ctx.db, sid, "n_base || '/' || n_new", "pass"), "8/8",
	       "boots are the unit: 8/8 (the panicked boot is not counted)");
	is_double(cmpd(ctx.db, sid, "p_value", "pass"), 2.0 / 12870, 1e-9,
		  "exact Mann-Whitney p of complete separation, 8 vs 8");
	is_str(cmp(ctx.db, sid, "verdict", "throughput"), "regression",
	       "20%% less throughput (higher is better): regression");
	is_double(cmpd(ctx.db, sid, "change_pct", "throughput"), -20, 1.5,
		  "change -20%%");
	is_str(cmp(ctx.db, sid, "direction", "throughput"), "higher",
	       "direction kept");
	is_str(cmp(ctx.db, sid, "verdict", "fill"), "no-change",
	       "identical distributions: no-change");
	ok(cmpd(ctx.db, sid, "p_value", "fill") > 0.9,
	   "identical distributions: p %s", cmp(ctx.db, sid, "p_value",
						"fill"));
	is_str(cmp(ctx.db, sid, "params", "fill"), "{\"mb\":64}",
	       "params stored");
	snprintf(want, sizeof(want), "%lld x86_64 1 us", rid);
	is_str(cmp(ctx.db, sid, "run_id || ' ' || arch || ' ' || host_id || "
		   "' ' || unit", "pass"), want,
	       "run, arch, host and unit stored");
	/* Holm over 3 p-values: the smallest is multiplied by 3. */
	is_double(cmpd(ctx.db, sid, "p_holm", "pass") /
		  cmpd(ctx.db, sid, "p_value", "pass"), 3, 1e-9,
		  "p_holm = 3 p for the smallest of 3");
	is_double(cmpd(ctx.db, sid, "p_adjusted", "fill"), 1, 1e-12,
		  "BH of p = 1 stays 1");
	is_double(cmpd(ctx.db, sid, "p_adjusted", "pass") /
		  cmpd(ctx.db, sid, "p_value", "pass"), 1.5, 1e-9,
		  "BH: two tied smallest of 3 get 3/2 p");

	/* --- idempotent ---------------------------------------------------- */
	snprintf(cmd, sizeof(cmd), "%s", q_str(ctx.db, "SELECT group_concat("
		 "verdict || change_pct, ',') FROM comparison WHERE "
		 "series_id = %lld", sid));
	is_int(analyze(&ctx, sid), PIPELINE_OK, "analyze again: ok");
	is_str(q_str(ctx.db, "SELECT count(*) FROM comparison WHERE "
		     "series_id = %lld", sid), "3",
	       "still three comparisons: replaced, not duplicated");
	is_str(q_str(ctx.db, "SELECT group_concat(verdict || change_pct, "
		     "',') FROM comparison WHERE series_id = %lld", sid), cmd,
	       "with the same results");

	/* --- the configured threshold and p-value method ------------------ */
	config_free(cfg);
	cfg = load("{ \"threshold_pct\": 30, \"fdr_method\": \"none\", "
		   "\"min_samples\": 3 }", 0);
	ctx.cfg = cfg;
	is_int(analyze(&ctx, sid), PIPELINE_OK, "analyze with T = 30%%");
	is_str(cmp(ctx.db, sid, "verdict", "pass"), "minor",
	       "significant but within the threshold: minor");
	is_str(cmp(ctx.db, sid, "p_adjusted = p_value", "pass"), "1",
	       "fdr_method none: p_adjusted = p");
	config_free(cfg);
	cfg = load("{ \"min_samples\": 9 }", 0);
	ctx.cfg = cfg;
	is_int(analyze(&ctx, sid), PIPELINE_OK, "analyze with 9 needed");
	is_str(cmp(ctx.db, sid, "verdict", "pass"), "insufficient-data",
	       "8 boots, min_samples 9: insufficient-data");
	is_str(cmp(ctx.db, sid, "coalesce(p_value, 'null')", "pass"), "null",
	       "no p-value");
	config_free(cfg);
	cfg = load("{ \"min_samples\": 3 }", 0);
	ctx.cfg = cfg;

	/* --- per-boot medians ---------------------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "budget");
	for (i = 0; i < 10; i++) {
		bid = boot(ctx.db, sid, rid, i < 5 ? "base" : "patched",
			   "ok");
		/* An outlier iteration does not move the boot's median. */
		sample(ctx.db, bid, "mremap", "move_pud", "{}", "lower", 0,
		       100 + i);
		sample(ctx.db, bid, "mremap", "move_pud", "{}", "lower", 1,
		       1e6);
		sample(ctx.db, bid, "mremap", "move_pud", "{}", "lower", 2,
		       100 + i - 0.5);
		sample(ctx.db, bid, "mremap", "move_pud", "{}", "lower", 3,
		       100 + i + 0.5);
	}
	is_int(analyze(&ctx, sid), PIPELINE_OK, "analyze the medians run");
	is_double(cmpd(ctx.db, sid, "median_base", "move_pud"), 102.25,
		  1e-9, "median of the base boots' medians (100.25 ... "
		  "104.25)");
	is_double(cmpd(ctx.db, sid, "median_new", "move_pud"), 107.25, 1e-9,
		  "median of the patched boots' medians");

	/* --- too few boots -------------------------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "budget");
	boots(ctx.db, sid, rid, "base", 2, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid, "patched", 2, "thp-fault", "pass", "{}",
	      "lower", 1500, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_OK, "two boots per side: ok");
	is_str(cmp(ctx.db, sid, "verdict || ' ' || n_base || '/' || n_new",
		   "pass"), "insufficient-data 2/2",
	       "two boots per side: insufficient-data");

	/* --- no complete boots on a side ----------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "no-samples");
	boots(ctx.db, sid, rid, "base", 4, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	for (i = 0; i < 3; i++)
		boot(ctx.db, sid, rid, "patched", i ? "panic" : "timeout");
	is_int(analyze(&ctx, sid), PIPELINE_FAIL,
	       "only failed patched boots: permanent failure");
	snprintf(want, sizeof(want), "failed|analyze: x86_64: no complete "
		 "boots on the patched side (run %lld ended no-samples; 3 "
		 "patched boots failed)", rid);
	is_str(q_state(ctx.db, sid), want,
	       "the reason names the arch, the side and the run");
	is_str(q_str(ctx.db, "SELECT count(*) FROM comparison WHERE "
		     "series_id = %lld", sid), "0", "no comparison rows");
	is_str(q_str(ctx.db, "SELECT state FROM job WHERE series_id = %lld",
		     sid), "failed", "the job failed for good");

	/* One arch usable, the other not: the usable one is analysed. */
	rid2 = run(ctx.db, sid, "arm64", "decided");
	boots(ctx.db, sid, rid2, "base", 5, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid2, "patched", 5, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_OK,
	       "arm64 usable, x86_64 not: ok");
	is_str(q_str(ctx.db, "SELECT group_concat(DISTINCT arch) FROM "
		     "comparison WHERE series_id = %lld", sid), "arm64",
	       "rows for arm64 only");

	/* No boot ok on either side, and no run at all. */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "no-host");
	is_int(analyze(&ctx, sid), PIPELINE_FAIL, "a no-host run: fails");
	snprintf(want, sizeof(want), "failed|analyze: x86_64: no complete "
		 "boots on either side (run %lld ended no-host; 0 base and 0 "
		 "patched boots failed)", rid);
	is_str(q_state(ctx.db, sid), want,
	       "its reason");
	sid = series(ctx.db);
	is_int(analyze(&ctx, sid), PIPELINE_FAIL, "no run: fails");
	is_str(q_state(ctx.db, sid), "failed|analyze: the series has no run "
	       "to analyze", "its reason");

	/* --- interrupted runs are ignored ----------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "interrupted");
	boots(ctx.db, sid, rid, "base", 6, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid, "patched", 6, "thp-fault", "pass", "{}",
	      "lower", 2000, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_FAIL,
	       "only an interrupted run: fails");
	is_str(q_state(ctx.db, sid), "failed|analyze: x86_64: no finished run "
	       "(1 interrupted or still running)", "its reason");
	rid2 = run(ctx.db, sid, "x86_64", "decided");
	boots(ctx.db, sid, rid2, "base", 7, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid2, "patched", 7, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_OK,
	       "interrupted, then decided: ok");
	snprintf(want, sizeof(want), "%lld", rid2);
	is_str(q_str(ctx.db, "SELECT group_concat(DISTINCT run_id) FROM "
		     "comparison WHERE series_id = %lld", sid), want,
	       "only the decided run is analysed");
	is_str(cmp(ctx.db, sid, "n_base || '/' || n_new", "pass"), "7/7",
	       "with its boots only");
	ok(!strcmp(cmp(ctx.db, sid, "verdict", "pass"), "no-change") &&
	   fabs(cmpd(ctx.db, sid, "change_pct", "pass")) < 3,
	   "the interrupted run's doubling is not seen: no-change, %+.1f%% "
	   "(%s)", cmpd(ctx.db, sid, "change_pct", "pass"),
	   cmp(ctx.db, sid, "verdict", "pass"));
	run(ctx.db, sid, "x86_64", "interrupted");
	is_int(analyze(&ctx, sid), PIPELINE_OK,
	       "decided, then interrupted: ok");
	is_str(q_str(ctx.db, "SELECT group_concat(DISTINCT run_id) FROM "
		     "comparison WHERE series_id = %lld", sid), want,
	       "still the decided run");

	/* --- bad samples ---------------------------------------------------- */
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "decided");
	boots(ctx.db, sid, rid, "base", 3, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	boots(ctx.db, sid, rid, "patched", 3, "thp-fault", "pass", "{}",
	      "higher", 1000, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_FAIL, "directions differ");
	ok(strstr(q_state(ctx.db, sid), "thp-fault/pass: boot ") &&
	   strstr(q_state(ctx.db, sid), ": unit 'us' or direction 'higher' "
		  "differs from 'us', 'lower' of the first sample"),
	   "says so: %s", q_state(ctx.db, sid));
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "decided");
	boots(ctx.db, sid, rid, "base", 3, "thp-fault", "pass", "{}",
	      "sideways", 1000, 0.01);
	boots(ctx.db, sid, rid, "patched", 3, "thp-fault", "pass", "{}",
	      "sideways", 1000, 0.01);
	is_int(analyze(&ctx, sid), PIPELINE_FAIL, "an unknown direction");
	ok(strstr(q_state(ctx.db, sid), "thp-fault/pass: direction "
		  "'sideways' is neither lower nor higher") != NULL,
	   "says so: %s", q_state(ctx.db, sid));
	sid = series(ctx.db);
	rid = run(ctx.db, sid, "x86_64", "decided");
	boots(ctx.db, sid, rid, "base", 3, "thp-fault", "pass", "{}",
	      "lower", 1000, 0.01);
	bid = boot(ctx.db, sid, rid, "patched", "ok");
	sample(ctx.db, bid, "thp-fault", "pass", "{}", "lower", 0, INFINITY);
	is_int(analyze(&ctx, sid), PIPELINE_FAIL, "an infinite value");
	ok(strstr(q_state(ctx.db, sid), "a value is not a finite number") !=
	   NULL, "says so: %s", q_state(ctx.db, sid));

	/* --- an adaptive run is tested at its last look's alpha ----------- */
	for (i = 0; i < 2; i++) {
		int r, k;

		sid = series(ctx.db);
		rid = run(ctx.db, sid, "x86_64", "budget");
		/* the second run records its design: alpha 0.05, 4 a side */
		if (i)
			exec_id(ctx.db, "UPDATE run SET alpha = 0.05, "
				"max_per_side = 4 WHERE id = %lld", rid);
		for (r = 1; r <= 2; r++)
			for (k = 0; k < 4; k++) {
				int patched = k % 2;

				seq++;
				bid = exec_id(ctx.db, "INSERT INTO boot (series_id, "
					      "build_id, host_id, side, seq, status, "
					      "run_id, round, nonce) VALUES (%lld, 1, "
					      "1, '%s', %d, 'ok', %lld, %d, 'n%d')",
					      sid, patched ? "patched" : "base", seq,
					      rid, r, seq);
				sample(ctx.db, bid, "thp-fault", "pass", "{}",
				       "lower", 0, (patched ? 1200 : 1000) +
				       10 * r + k);
			}
		is_int(analyze(&ctx, sid), PIPELINE_OK, "%s: analysed",
		       i ? "recorded design" : "no design recorded");
		if (!i)
			ok(cmpd(ctx.db, sid, "p_value", "pass") < 0.05 &&
			   strstr(cmp(ctx.db, sid, "verdict", "pass"),
				  "regression") != NULL, "4 against 4 boots "
			   "apart: a regression at alpha 0.05 (%s)",
			   cmp(ctx.db, sid, "verdict", "pass"));
		else
			is_str(cmp(ctx.db, sid, "verdict", "pass"),
			       "insufficient-data", "the same data after "
			       "looks at 2 and 4 boots (last alpha 0.019): "
			       "4 against 4 can give p = 2/70 at best, "
			       "insufficient-data");
	}

	never = load("{ \"threshold_pct\": 3, \"alpha\": 0.05, "
		     "\"min_samples\": 3, \"layout_control\": \"never\" }", 0);
	if (ok(never != NULL, "a configuration without layout control"))
		test_layout(&ctx, cfg, never);
	config_free(never);
	built = load("{ \"threshold_pct\": 3, \"alpha\": 0.05, "
		     "\"min_samples\": 3 }", 1);
	if (ok(built != NULL, "a configuration that builds x86_64"))
		test_layout_gives_up(&ctx, built);
	ctx.cfg = cfg;
	config_free(built);

	config_free(cfg);
	db_close(ctx.db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
