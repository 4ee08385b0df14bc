/*
 * t-stage-apply.c - the pipeline's apply stage (stage_apply.c) through
 * pipeline_run_job() with the real stage table, on a real SQLite database
 * and small git repositories made with git(1): the tree is chosen by the
 * series' list (a tree listing it, a list naming its tree, else the first
 * tree), the result is stored, and each way it cannot run fails with a
 * clear reason: no configured tree, a tree that is not a repository, a
 * series never fetched.  (The daemon end to end: t-pipeline-e2e.sh.)
 */
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

static char dir[] = "/tmp/t-stage-apply.XXXXXX";
static char base[41];

/* A series of list (may be NULL) holding the mbox file (may be NULL). */
static long long new_series(struct db *db, const char *list,
			    const char *file)
{
	struct strbuf mbox = STRBUF_INIT;
	sqlite3_stmt *st;
	char path[256];
	long long id = -1;

	if (file) {
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (strbuf_read_file(&mbox, path, 1 << 20))
			return -1;
	}
	if (sqlite3_prepare_v2(db_sqlite(db), "INSERT INTO series (list, mbox, "
			       "created_at, updated_at) VALUES (?1, ?2, 0, 0)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (list)
		sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
	if (file)
		sqlite3_bind_blob(st, 2, mbox.buf, (int)mbox.len,
				  SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(db_sqlite(db));
	sqlite3_finalize(st);
	strbuf_release(&mbox);
	return id;
}

static int run(struct pipeline_ctx *ctx, const char *kind)
{
	struct job j;
	int r;

	if (jobq_claim(ctx->db, ctx->owner, 60, &j) != 1)
		return -100;
	if (strcmp(j.kind, kind)) {
		diag("claimed %s, expected %s", j.kind, kind);
		job_release(&j);
		return -101;
	}
	r = pipeline_run_job(ctx, &j);
	job_release(&j);
	return r;
}

/* Build jobs queued by earlier tests are not run here. */
static void drop_builds(struct db *db)
{
	db_exec(db, "UPDATE job SET state = 'done' WHERE kind = 'build' AND "
		"state = 'queued'");
}

/* Fetch (real stage, from the stored mbox), then apply; apply's result. */
static int fetch_apply(struct pipeline_ctx *ctx, long long id)
{
	int r;

	drop_builds(ctx->db);
	if (jobq_enqueue(ctx->db, JOBQ_KIND_FIRST, id, NULL, NULL))
		return -102;
	r = run(ctx, "fetch");
	if (r != PIPELINE_OK) {
		diag("fetch: %d", r);
		return r;
	}
	return run(ctx, "apply");
}

/* Only the apply job, for a series that was never fetched. */
static int apply_only(struct pipeline_ctx *ctx, long long id)
{
	drop_builds(ctx->db);
	if (jobq_enqueue(ctx->db, "apply", id, NULL, NULL))
		return -102;
	return run(ctx, "apply");
}

static int setup(void)
{
	char cmd[2048];
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; export GIT_AUTHOR_NAME=A GIT_COMMITTER_NAME=A "
		 "GIT_AUTHOR_EMAIL=a@example.org GIT_COMMITTER_EMAIL="
		 "a@example.org GIT_AUTHOR_DATE='2024-06-01T00:00:00Z' "
		 "GIT_COMMITTER_DATE='2024-06-01T00:00:00Z'; "
		 "git init -q -b master tree; cd tree; "
		 "printf '1\\n2\\n3\\n4\\n5\\n' >a.c; git add a.c; "
		 "git commit -q -m base; git rev-parse HEAD >../base; "
		 "git clone -q . ../work; cd ../work; "
		 "sed -i 3s/3/three/ a.c; git commit -q -a -m 'a: three'; "
		 "git format-patch -q --stdout --base=HEAD~1 HEAD~1 "
		 ">../good.mbox; mkdir ../notrepo", dir);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/base", dir);
	f = fopen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(base, sizeof(base), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

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

static void test_trees(struct pipeline_ctx *ctx)
{
	char want[64];
	long long id;

	/*
	 * main: the first tree, lists mm; other: not a repository, lists
	 * netdev; list fs names main without main listing it.
	 */
	ctx->cfg = load("{ \"state_dir\": \".\", \"trees\": ["
		"{ \"name\": \"main\", \"path\": \"tree\", \"lists\": "
		"[\"mm\"] }, { \"name\": \"other\", \"path\": \"notrepo\", "
		"\"lists\": [\"netdev\"] } ], \"lists\": ["
		"{ \"name\": \"mm\", \"feed_url\": \"https://x.example/mm/\" },"
		"{ \"name\": \"netdev\", \"feed_url\": "
		"\"https://x.example/n/\" }, { \"name\": \"fs\", \"feed_url\": "
		"\"https://x.example/fs/\", \"tree\": \"main\" } ] }");
	if (!ok(ctx->cfg != NULL, "configuration loads"))
		return;

	id = new_series(ctx->db, NULL, "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_OK, "no list: applied");
	is_str(q_state(ctx->db, id), "applied|", "series applied");
	snprintf(want, sizeof(want), "%s base-commit", base);
	is_str(q_str(ctx->db, "SELECT base_used || ' ' || base_source FROM "
		     "series WHERE id = %lld", id), want,
	       "base: the series' base-commit");
	ok(strstr(q_str(ctx->db, "SELECT base_reason FROM series WHERE id = "
			"%lld", id), "; tree main: the first configured (the "
		     "series has no list)") != NULL, "tree reason: the first");
	is_str(q_str(ctx->db, "SELECT name FROM tree WHERE id = (SELECT "
		     "tree_id FROM series WHERE id = %lld)", id), "main",
	       "series.tree_id names the tree");
	is_int((int)strlen(q_str(ctx->db, "SELECT applied_commit FROM patch "
				 "WHERE series_id = %lld AND idx = 1", id)),
	       40, "patch 1 has its commit");
	is_str(q_str(ctx->db, "SELECT kind || ' ' || state FROM job WHERE "
		     "series_id = %lld ORDER BY id DESC", id), "build queued",
	       "build queued next");

	id = new_series(ctx->db, "mm", "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_OK, "list mm: applied");
	ok(strstr(q_str(ctx->db, "SELECT base_reason FROM series WHERE id = "
			"%lld", id), "tree main: it lists mm") != NULL,
	   "tree reason: the tree listing the series' list");

	id = new_series(ctx->db, "fs", "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_OK, "list fs: applied");
	ok(strstr(q_str(ctx->db, "SELECT base_reason FROM series WHERE id = "
			"%lld", id), "tree main: list fs names it") != NULL,
	   "tree reason: the list's tree");

	id = new_series(ctx->db, "lkml", "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_OK, "unknown list: applied");
	ok(strstr(q_str(ctx->db, "SELECT base_reason FROM series WHERE id = "
			"%lld", id), "tree main: the first configured (no "
		     "tree lists lkml)") != NULL, "tree reason: fallback");

	id = new_series(ctx->db, "netdev", "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_FAIL, "netdev: tree unusable");
	ok(strstr(q_state(ctx->db, id), "failed|apply: tree other: it lists "
		  "netdev: ") && strstr(q_state(ctx->db, id), "/notrepo cannot "
		  "be opened as a git repository"), "failed, naming the tree: "
	   "%s", q_state(ctx->db, id));

	id = new_series(ctx->db, NULL, NULL);
	is_int(apply_only(ctx, id), PIPELINE_FAIL, "never fetched");
	is_str(q_state(ctx->db, id), "failed|apply: no stored mbox: the series "
	       "was not fetched", "failed with the reason");

	config_free((struct config *)ctx->cfg);
	ctx->cfg = load("{ \"state_dir\": \".\" }");
	id = new_series(ctx->db, NULL, "good.mbox");
	is_int(fetch_apply(ctx, id), PIPELINE_FAIL, "no tree configured");
	is_str(q_state(ctx->db, id), "failed|apply: no tree configured "
	       "(trees[] of the configuration is empty)", "clear reason");
	config_free((struct config *)ctx->cfg);
	ctx->cfg = NULL;
}

int main(void)
{
	struct pipeline_ctx ctx = { .owner = "test", .lease_s = 60,
				    .stages = stage_table };
	char path[128], cmd[160];

	if (!mkdtemp(dir))
		return 1;
	if (!ok(setup() == 0, "git repositories and a format-patch mbox"))
		return done_testing();
	snprintf(path, sizeof(path), "%s/s.db", dir);
	if (!ok(db_open(path, &ctx.db) == 0, "open"))
		return done_testing();
	test_trees(&ctx);
	db_close(ctx.db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
