/*
 * analyze-series.c - what the analyze stage costs on a large series.
 *
 * A file database under /tmp in WAL mode (as the daemon uses it) holds
 * one series with an x86_64 run of 20 boots per side, 100 metrics and 10
 * iterations each: 40,000 sample rows.  The stage (stage_analyze(), the
 * code the daemon runs) reads them, reduces them to per-boot medians,
 * compares 100 metrics and replaces 100 comparison rows; then the API's
 * series read (db_series_get()) and one page of 10,000 raw samples
 * (db_series_samples()) are timed.  Prints wall and CPU time of each,
 * best and median of 5 runs; it judges nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db.h"
#include "db_series.h"
#include "jobq.h"
#include "log.h"
#include "now.h"
#include "pipeline.h"
#include "stage_analyze.h"
#include "strbuf.h"

#define BOOTS		20	/* per side */
#define METRICS		100
#define ITERATIONS	10
#define RUNS		5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The database: one series, one run, its boots and samples. */
static int seed(struct db *db)
{
	struct strbuf sql = STRBUF_INIT;
	unsigned long long x = 1;
	int b, m, i, ret;

	strbuf_addstr(&sql, "BEGIN; INSERT INTO series (id, subject, status, "
		      "created_at, updated_at) VALUES (1, 'bench', 'ran', 0, "
		      "0); INSERT INTO build (id, commit_id, arch, "
		      "config_hash) VALUES (1, 'a', 'x86_64', 'k'), (2, 'b', "
		      "'x86_64', 'k'); INSERT INTO run (id, series_id, arch, "
		      "accel, seed, plan, status, started_at) VALUES (1, 1, "
		      "'x86_64', 'tcg', 1, 'p', 'decided', 0);");
	for (b = 0; b < 2 * BOOTS; b++) {
		strbuf_addf(&sql, "INSERT INTO boot (id, series_id, build_id, "
			    "side, seq, status, run_id) VALUES (%d, 1, %d, "
			    "'%s', %d, 'ok', 1);", b + 1, b % 2 + 1,
			    b % 2 ? "patched" : "base", b);
		for (m = 0; m < METRICS; m++)
			for (i = 0; i < ITERATIONS; i++) {
				x = x * 6364136223846793005ULL +
				    1442695040888963407ULL;
				strbuf_addf(&sql, "INSERT INTO sample (boot_id, "
					    "workload, metric, params, "
					    "iteration, value, unit) VALUES "
					    "(%d, 'w%d', 'm', '{\"mb\":%d}', "
					    "%d, %.6f, 'ns');", b + 1, m % 5,
					    m, i, 1000 * (1 + (b % 2) * 0.01 *
					    (m % 7)) * (1 + 0.05 *
					    ((x >> 33) / 2147483648.0 - 0.5)));
			}
	}
	strbuf_addstr(&sql, "COMMIT;");
	ret = db_exec(db, sql.buf);
	strbuf_release(&sql);
	return ret;
}

static void report(const char *what, double *wall, double *cpu)
{
	qsort(wall, RUNS, sizeof(double), cmp_double);
	qsort(cpu, RUNS, sizeof(double), cmp_double);
	printf("%-44s wall %7.1f ms best %7.1f median; CPU %7.1f ms best "
	       "%7.1f median\n", what, wall[0] * 1e3, wall[RUNS / 2] * 1e3,
	       cpu[0] * 1e3, cpu[RUNS / 2] * 1e3);
}

int main(void)
{
	char dir[] = "/tmp/analyze-series.XXXXXX", path[64], cmd[96];
	struct pipeline_ctx ctx = { .owner = "bench" };
	struct sample_filter f = { .limit = 10000 };
	double wall[3][RUNS], cpu[3][RUNS], t, c;
	struct job job = { .series_id = 1, .kind = (char *)"analyze" };
	long long next;
	json_t *doc;
	int k, ret = 1;

	log_set_level(LOG_LEVEL_WARN);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/b.db", dir);
	if (db_open(path, &ctx.db) || seed(ctx.db))
		goto out;
	printf("analyze-series: %d boots per side, %d metrics, %d iterations "
	       "(%d sample rows); %d runs\n", BOOTS, METRICS, ITERATIONS,
	       2 * BOOTS * METRICS * ITERATIONS, RUNS);
	for (k = 0; k < RUNS; k++) {
		struct pipeline_outcome out = { STRBUF_INIT, NULL };

		t = now_s();
		c = now_cpu_s();
		if (stage_analyze(&ctx, &job, &out) != PIPELINE_OK) {
			fprintf(stderr, "analyze failed: %s\n", out.reason.buf);
			strbuf_release(&out.reason);
			goto out;
		}
		wall[0][k] = now_s() - t;
		cpu[0][k] = now_cpu_s() - c;
		strbuf_release(&out.reason);

		t = now_s();
		c = now_cpu_s();
		if (db_series_get(ctx.db, 1, &doc) || !doc)
			goto out;
		wall[1][k] = now_s() - t;
		cpu[1][k] = now_cpu_s() - c;
		json_decref(doc);

		t = now_s();
		c = now_cpu_s();
		if (db_series_samples(ctx.db, 1, &f, &doc, &next) || !doc)
			goto out;
		wall[2][k] = now_s() - t;
		cpu[2][k] = now_cpu_s() - c;
		json_decref(doc);
	}
	report("analyze stage (read, reduce, compare, store)", wall[0],
	       cpu[0]);
	report("GET /series/{id} query (100 comparisons)", wall[1], cpu[1]);
	report("GET /series/{id}/samples page of 10,000", wall[2], cpu[2]);
	ret = 0;
out:
	db_close(ctx.db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	return ret;
}
