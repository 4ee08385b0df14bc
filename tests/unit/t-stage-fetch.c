/*
 * t-stage-fetch.c - the pipeline's fetch stage (stage_fetch.c) through
 * pipeline_run_job() on a real SQLite database: a submitted mbox becomes
 * the series' revision and patch rows and the apply job is queued; a
 * series missing a patch ends "incomplete" saying which; a discussion
 * ends "fetch-failed"; a URL outside the allowlist, also one that gets
 * out of it through dot segments, is refused without a request.  (URL
 * fetching itself is covered by t-intake.sh.)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "db_pipeline.h"
#include "stage_fetch.h"
#include "jobq.h"
#include "pipeline.h"
#include "strbuf.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-stage-fetch.XXXXXX";
static char fixture_dir[4096];

/* The real stage table, with the fetch stage this branch provides. */
static const struct pipeline_stage stages[] = {
	{ "fetch", "fetching", "fetched", "fetch-failed", "apply", 0,
	  stage_fetch, 0, 0 },
	{ "apply", "applying", "applied", "does-not-apply", "build", 0,
	  NULL, 0, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0 },
};

/* A series row holding an mbox fixture, or a URL; its fetch job queued. */
static long long new_series(struct db *db, const char *fixture,
			    const char *url)
{
	struct strbuf mbox = STRBUF_INIT;
	sqlite3_stmt *st;
	char path[4200];
	long long id = -1;

	if (fixture) {
		snprintf(path, sizeof(path), "%s/%s", fixture_dir, fixture);
		if (strbuf_read_file(&mbox, path, 1 << 20))
			return -1;
	}
	if (sqlite3_prepare_v2(db_sqlite(db), "INSERT INTO series (source_url, "
			       "mbox, created_at, updated_at) VALUES (?1, ?2, "
			       "0, 0)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (url)
		sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
	if (fixture)
		sqlite3_bind_blob(st, 2, mbox.buf, (int)mbox.len,
				  SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(db_sqlite(db));
	sqlite3_finalize(st);
	strbuf_release(&mbox);
	if (id > 0 && jobq_enqueue(db, JOBQ_KIND_FIRST, id, NULL, NULL))
		id = -1;
	return id;
}

static int run_fetch(struct pipeline_ctx *ctx)
{
	struct job j;
	int r;

	if (jobq_claim(ctx->db, ctx->owner, 60, &j) != 1)
		return -100;
	if (strcmp(j.kind, "fetch")) {
		job_release(&j);
		return -101;
	}
	r = pipeline_run_job(ctx, &j);
	job_release(&j);
	return r;
}

static void test_complete(struct pipeline_ctx *ctx)
{
	long long id = new_series(ctx->db, "thread-v1-v2.mbox", NULL);

	ok(id > 0, "series with a submitted mbox");
	is_int(run_fetch(ctx), PIPELINE_OK, "fetch stage succeeds");
	is_str(q_state(ctx->db, id), "fetched|", "series fetched");
	is_str(q_str(ctx->db, "SELECT version || ' ' || total FROM series "
		     "WHERE id = %lld", id), "2 3",
	       "the newest revision, v2 of 3, is stored");
	ok(!strncmp(q_str(ctx->db, "SELECT msgid FROM series WHERE id = %lld",
			  id), "cover.", 6), "msgid of the cover letter");
	ok(strlen(q_str(ctx->db, "SELECT base_commit FROM series WHERE "
			"id = %lld", id)) == 40, "base-commit stored");
	is_str(q_str(ctx->db, "SELECT group_concat(idx, ',') FROM (SELECT idx "
		     "FROM patch WHERE series_id = %lld ORDER BY idx)", id),
	       "0,1,2,3", "cover letter and three patch rows");
	is_str(q_str(ctx->db, "SELECT author FROM patch WHERE series_id = %lld "
		     "AND idx = 1", id),
	       "J\xc3\xb6rg M\xc3\xbcller <joerg.mueller@example.org>",
	       "patch author");
	ok(strstr(q_str(ctx->db, "SELECT CAST(raw AS TEXT) FROM patch WHERE "
			"series_id = %lld AND idx = 1", id),
		  "Subject: [PATCH v2 1/3]") != NULL, "raw mail stored");
	is_str(q_str(ctx->db, "SELECT kind || ' ' || state FROM job WHERE "
		     "series_id = %lld ORDER BY id DESC LIMIT 1", id),
	       "apply queued", "the apply job is queued");
	/* nothing here runs apply: take it out of the way of later claims */
	db_exec(ctx->db, "UPDATE job SET state = 'done' WHERE kind = 'apply'");
}

static void test_failures(struct pipeline_ctx *ctx)
{
	long long id;

	id = new_series(ctx->db, "missing-2.mbox", NULL);
	is_int(run_fetch(ctx), PIPELINE_FAIL, "a series missing 2/3 fails");
	is_str(q_state(ctx->db, id), "incomplete|fetch: missing 2/3",
	       "status incomplete, saying which");
	is_str(q_str(ctx->db, "SELECT count(*) FROM patch WHERE series_id = "
		     "%lld", id), "3", "what is there is stored");
	is_str(q_str(ctx->db, "SELECT count(*) FROM job WHERE series_id = "
		     "%lld", id), "1", "no apply job");

	id = new_series(ctx->db, "discussion.mbox", NULL);
	is_int(run_fetch(ctx), PIPELINE_FAIL, "a discussion fails");
	is_str(q_state(ctx->db, id), "fetch-failed|fetch: no patch in the thread",
	       "fetch-failed: no patch");

	id = new_series(ctx->db, "shapes/request-pull.mbox", NULL);
	is_int(run_fetch(ctx), PIPELINE_FAIL, "a pull request fails");
	is_str(q_state(ctx->db, id), "fetch-failed|fetch: a pull request for "
	       "https://git.example.org/ada/linux.git master: kregress tests "
	       "patch series", "fetch-failed: a pull request, said plainly");
	is_str(q_str(ctx->db, "SELECT subject || ' | ' || author FROM series "
		     "WHERE id = %lld", id), "[GIT PULL] mm: include what they "
	       "use | Ada Lovelace <ada@example.org>",
	       "the pull request's subject and author are stored");

	id = new_series(ctx->db, NULL, "http://10.1.2.3/lkml/x@y/");
	is_int(run_fetch(ctx), PIPELINE_FAIL, "a URL with no allowlist fails");
	is_str(q_state(ctx->db, id), "fetch-failed|fetch: http://10.1.2.3/lkml/"
	       "x@y/: refused: plain http:// is only allowed on loopback",
	       "refused before any request, with the reason");
}

/*
 * Issue 15: the stage matched the raw URL, so "%2e%2e" got past the
 * allowlist and was requested (here a closed port: a retry, not a
 * refusal).
 */
static void test_dot_segments(struct pipeline_ctx *ctx)
{
	static const char text[] =
		"{\"url_allowlist\": [\"http://127.0.0.1:9/lkml/\"]}";
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	long long id;

	if (!ok(config_parse(text, sizeof(text) - 1, "t.json", &cfg, &err) ==
		0, "a configuration with a path prefix allowed (%s)", err.buf))
		goto out;
	ctx->cfg = cfg;
	id = new_series(ctx->db, NULL,
			"http://127.0.0.1:9/lkml/%2e%2e/private/x@y/");
	is_int(run_fetch(ctx), PIPELINE_FAIL, "an encoded dot segment fails");
	is_str(q_state(ctx->db, id), "fetch-failed|fetch: http://127.0.0.1:9/"
	       "lkml/%2e%2e/private/x@y/: refused: not in the URL allowlist",
	       "refused before any request, with the reason");
	ctx->cfg = NULL;
out:
	config_free(cfg);
	strbuf_release(&err);
}

int main(void)
{
	struct pipeline_ctx ctx = { .owner = "test", .lease_s = 60 };
	const char *src = getenv("KREGRESS_SRC");
	char path[256];

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/mail",
		 src ? src : ".");
	ctx.stages = stages;
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/k.db", dir);
	if (!ok(db_open(path, &ctx.db) == 0, "open the database"))
		return done_testing();
	test_complete(&ctx);
	test_failures(&ctx);
	test_dot_segments(&ctx);
	db_close(ctx.db);
	unlink(path);
	snprintf(path, sizeof(path), "%s/k.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/k.db-shm", dir);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
