/*
 * t-stage-build.c - the pipeline's build stage (stage_build.c) through
 * pipeline_run_job() with the real stage table, on a real SQLite database,
 * for the ways it cannot build (no sandbox needed): a series never
 * applied, a configured fragment that does not exist, a base commit the
 * tree does not have (no result: retried, the build row says why).
 * Builds that run (fake kbuild tree, progress, build-failed) are covered
 * end to end by tests/integration/t-pipeline-e2e.sh.
 */
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "db_pipeline.h"
#include "jobq.h"
#include "pipeline.h"
#include "stages.h"
#include "strbuf.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-stage-build.XXXXXX";

static struct config *load(const char *json)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(json, f);
	fclose(f);
	if (config_load(path, &cfg, &err))
		diag("config: %s", err.buf);
	strbuf_release(&err);
	return cfg;
}

/* Queues a build job of arch for series id and runs it. */
static int run_build(struct pipeline_ctx *ctx, long long id,
		     const char *arch)
{
	struct job j;
	int r;

	if (jobq_enqueue(ctx->db, "build", id, arch, NULL))
		return -102;
	if (jobq_claim(ctx->db, ctx->owner, 60, &j) != 1)
		return -100;
	r = pipeline_run_job(ctx, &j);
	job_release(&j);
	return r;
}

/* A series applied on tree 1 at base, head; either may be NULL. */
static long long applied(struct db *db, const char *base, const char *head)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO series (tree_id, base_used, created_at, "
		 "updated_at) VALUES (%s, %s%s%s, 0, 0)",
		 base ? "1" : "NULL", base ? "'" : "", base ? base : "NULL",
		 base ? "'" : "");
	if (db_exec(db, sql))
		return -1;
	snprintf(sql, sizeof(sql),
		 "INSERT INTO patch (series_id, idx, applied_commit) VALUES "
		 "(last_insert_rowid(), 1, %s%s%s)", head ? "'" : "",
		 head ? head : "NULL", head ? "'" : "");
	if (db_exec(db, sql))
		return -1;
	return atoll(q_str(db, "SELECT max(id) FROM series"));
}

int main(void)
{
	struct pipeline_ctx ctx = { .owner = "test", .lease_s = 60,
				    .stages = stage_table };
	char path[PATH_MAX], cmd[PATH_MAX + 64], json[1024];
	const char *missing = "0123456789abcdef0123456789abcdef01234567";
	const char *src = getenv("KREGRESS_SRC");
	struct config *cfg;
	long long id;

	snprintf(cmd, sizeof(cmd), "%s/builders/configs", src ? src : ".");
	if (!mkdtemp(dir) || !realpath(cmd, path))
		return 1;
	setenv("KREGRESS_CONFIG_DIR", path, 1);
	snprintf(cmd, sizeof(cmd), "%s/cache", dir);
	setenv("KREGRESS_CACHE", cmd, 1);
	snprintf(cmd, sizeof(cmd), "cd %s && git init -q -b master tree && "
		 "cd tree && echo x >a && git add a && git -c user.name=A "
		 "-c user.email=a@example.org commit -q -m base", dir);
	if (!ok(system(cmd) == 0, "a git tree"))
		return done_testing();
	snprintf(path, sizeof(path), "%s/s.db", dir);
	if (!ok(db_open(path, &ctx.db) == 0, "open"))
		return done_testing();
	snprintf(cmd, sizeof(cmd), "INSERT INTO tree (name, path, created_at) "
		 "VALUES ('t', '%s/tree', 0)", dir);
	ok(db_exec(ctx.db, cmd) == 0, "tree row");

	snprintf(json, sizeof(json), "{ \"state_dir\": \"%s/state\", "
		 "\"arches\": { \"x86_64\": { \"base_config\": "
		 "\"tinyconfig\" } } }", dir);
	cfg = load(json);
	ctx.cfg = cfg;
	if (!ok(cfg != NULL, "configuration"))
		return done_testing();

	id = applied(ctx.db, NULL, NULL);
	is_int(run_build(&ctx, id, "x86_64"), PIPELINE_FAIL,
	       "never applied: fails");
	is_str(q_state(ctx.db, id), "failed|build: the series has no applied "
	       "tree, base and head commit", "its reason");
	is_str(q_str(ctx.db, "SELECT count(*) FROM build"), "0",
	       "no build row");

	id = applied(ctx.db, missing, missing);
	is_int(run_build(&ctx, id, "x86_64"), PIPELINE_RETRY,
	       "a base the tree lacks: no result, retried");
	is_str(q_str(ctx.db, "SELECT last_error FROM job WHERE series_id = "
		     "%lld", id), "x86_64: base build of 0123456789ab produced "
	       "no result (see the log)", "the job's last error");
	is_str(q_str(ctx.db, "SELECT b.status || '|' || sb.side || '|' || "
		     "b.status_reason FROM build b JOIN series_build sb ON "
		     "sb.build_id = b.id WHERE sb.series_id = %lld", id),
	       "failed|base|x86_64: base build of 0123456789ab produced no "
	       "result (see the log)", "the base build row says why");
	is_str(q_str(ctx.db, "SELECT state FROM job WHERE series_id = %lld",
		     id), "queued", "the job is queued again (backoff)");
	id = applied(ctx.db, missing, missing);
	is_int(run_build(&ctx, id, "arm64"), PIPELINE_FAIL,
	       "an arch the configuration no longer has: fails");
	is_str(q_state(ctx.db, id), "failed|build: arm64: not an arch of the "
	       "configuration any more", "its reason");
	id = applied(ctx.db, missing, missing);
	is_int(run_build(&ctx, id, NULL), PIPELINE_FAIL,
	       "a job without an arch: fails");
	is_str(q_state(ctx.db, id), "failed|build: no arch configured (arches "
	       "of the configuration is empty)", "its reason");
	config_free(cfg);

	snprintf(json, sizeof(json), "{ \"state_dir\": \"%s/state\", "
		 "\"arches\": { \"arm64\": { \"fragments\": "
		 "[ \"%s/nope.config\" ] } } }", dir, dir);
	cfg = load(json);
	ctx.cfg = cfg;
	if (!ok(cfg != NULL, "configuration with a missing fragment"))
		return done_testing();
	id = applied(ctx.db, missing, missing);
	is_int(run_build(&ctx, id, "arm64"), PIPELINE_FAIL,
	       "missing fragment: fails");
	is_str(q_state(ctx.db, id), "failed|build: arm64: the build "
	       "configuration cannot be read (see the log)", "its reason");
	config_free(cfg);

	db_close(ctx.db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
