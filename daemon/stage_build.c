/*
 * stage_build.c - the build stage of the pipeline (see stage_build.h).
 * No SQL here (db_build.c); the builds themselves are build.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "config.h"
#include "db.h"
#include "db_build.h"
#include "jobq.h"
#include "layout.h"
#include "log.h"
#include "stage_build.h"
#include "strbuf.h"

#define PROGRESS_EVERY_S	2.0

struct progress_arg {
	struct db *db;
	long long build_id;
	double last;
};

static void on_progress(void *arg, const struct build_progress *p)
{
	struct progress_arg *pa = arg;

	if (pa->last > 0 && p->elapsed_s - pa->last < PROGRESS_EVERY_S)
		return;
	pa->last = p->elapsed_s;
	/* Best effort: a busy database only delays the next update. */
	db_build_progress(pa->db, pa->build_id, p->compiled, p->expected);
}

/* The first line of text (or all of it), at most 300 bytes. */
static void add_first_line(struct strbuf *sb, const char *text)
{
	size_t n = strcspn(text, "\n");

	if (n > 300)
		n = 300;
	strbuf_add(sb, text, n);
}

/*
 * One build of commit for arch, recorded.  0 with res filled (OK or
 * FAILED), 1 when it was stopped (the row says interrupted), -1 when no
 * result could be produced or stored (reason set), -2 when the build
 * configuration is unusable (permanent).
 */
static int build_one(struct pipeline_ctx *ctx, const struct job *job,
		     const struct db_build_source *src,
		     struct build_request *req, enum layout layout,
		     const char *commit, const char *side,
		     struct build_result *res, struct strbuf *reason)
{
	struct progress_arg pa = { ctx->db, 0, 0 };
	char key[17];

	req->rev = commit;
	log_error_reset();
	if (build_request_key(req, key)) {
		strbuf_addf(reason, "%s: the build configuration cannot be "
			    "read: %s", req->arch, log_error_first());
		return -2;
	}
	if (db_build_start(ctx->db, job->series_id, src->tree_id, commit,
			   req->arch, key, layout, side, &pa.build_id)) {
		strbuf_addstr(reason, "storing the build row failed");
		return -1;
	}
	req->on_progress = on_progress;
	req->arg = &pa;
	req->stop = ctx->stop;
	log_error_reset();
	if (build_run(req, res)) {
		strbuf_addf(reason, "%s: %s build of %.12s produced no result: "
			    "%s", req->arch, side, commit, log_error_first());
		db_build_error(ctx->db, pa.build_id, reason->buf);
		return -1;
	}
	if (res->status == BUILD_INTERRUPTED) {
		log_info("build", "series %lld: %s %s %.12s: stopped after "
			 "%.1f s; it runs again on the next start",
			 job->series_id, req->arch, side, commit,
			 res->duration_s);
		/* best effort: the job goes back to the queue anyway */
		db_build_interrupted(ctx->db, pa.build_id);
		return 1;
	}
	if (db_build_finish(ctx->db, pa.build_id, job->series_id, side,
			    res)) {
		strbuf_addstr(reason, "storing the build result failed");
		return -1;
	}
	log_info("build", "series %lld: %s %s%s %.12s: %s in %.1f s, %d "
		 "objects%s", job->series_id, req->arch, side,
		 layout == LAYOUT_ALIGNED ? " aligned" : "", res->commit,
		 build_status_str(res->status), res->duration_s,
		 res->compiled, res->cached ? " (cached)" : "");
	return 0;
}

/* The first error line, else the build's reason. */
static void failure(struct strbuf *sb, const struct build_result *res)
{
	if (res->error_lines.len)
		add_first_line(sb, res->error_lines.buf);
	else
		add_first_line(sb, res->reason ? res->reason : "failed");
}

enum pipeline_result stage_build_layout(struct pipeline_ctx *ctx,
					const struct job *job,
					enum layout layout,
					struct pipeline_outcome *out)
{
	const struct config *cfg = ctx->cfg;
	const struct config_arch_cfg *ac;
	struct db_build_source src;
	struct build_request req;
	struct build_result res;
	enum pipeline_result r = PIPELINE_FAIL;
	const char *arch;
	int ret;
	size_t i;

	out->fail_status = "failed";
	if (pipeline_job_arch(ctx, job, &ac, &out->reason))
		return PIPELINE_FAIL;
	arch = ac->arch->name;
	if (db_build_source(ctx->db, job->series_id, &src)) {
		strbuf_addstr(&out->reason, "the series row cannot be read");
		return PIPELINE_RETRY;
	}
	if (!src.tree_path || !src.base || !src.head) {
		strbuf_addstr(&out->reason, "the series has no applied tree, "
			      "base and head commit");
		goto out;
	}
	build_request_init(&req);
	req.tree = src.tree_path;
	req.arch = arch;
	req.cross_compile = ac->cross_compile;
	if (ac->base_config)
		req.base_config = ac->base_config;
	for (i = 0; i < ac->n_fragments && i < BUILD_MAX_FRAGMENTS - 1; i++)
		req.fragments[i] = ac->fragments[i];
	if (ac->make_jobs > 0)
		req.jobs = ac->make_jobs;
	req.cache_dir = cfg->cache_dir;
	req.timeout_s = cfg->limits.build_timeout_s;
	req.log_bytes = cfg->limits.log_max_bytes;
	if (cfg->limits.build_memory_mb > 0)
		req.mem_bytes = (unsigned long long)
			cfg->limits.build_memory_mb << 20;
	req.disk_bytes = (unsigned long long)cfg->limits.build_disk_mb << 20;
	req.kcflags = layout_kcflags(layout);

	build_result_init(&res);
	ret = build_one(ctx, job, &src, &req, layout, src.base, "base", &res,
			&out->reason);
	if (ret) {
		build_result_release(&res);
		r = ret == -2 ? PIPELINE_FAIL : ret == 1 ?
		    PIPELINE_INTERRUPTED : PIPELINE_RETRY;
		goto out;
	}
	if (res.status != BUILD_OK) {
		strbuf_addf(&out->reason, "%s: base %.12s does not build: ",
			    arch, src.base);
		failure(&out->reason, &res);
		build_result_release(&res);
		goto out;
	}
	build_result_release(&res);
	if (ctx->stop && *ctx->stop) {
		r = PIPELINE_INTERRUPTED;
		goto out;
	}
	req.base_rev = src.base;
	build_result_init(&res);
	ret = build_one(ctx, job, &src, &req, layout, src.head, "patched",
			&res, &out->reason);
	if (ret) {
		build_result_release(&res);
		r = ret == 1 ? PIPELINE_INTERRUPTED : PIPELINE_RETRY;
		goto out;
	}
	if (res.status != BUILD_OK) {
		strbuf_addf(&out->reason, "%s: ", arch);
		failure(&out->reason, &res);
		out->fail_status = "build-failed";
		build_result_release(&res);
		goto out;
	}
	build_result_release(&res);
	out->fail_status = NULL;
	r = PIPELINE_OK;
out:
	if (r == PIPELINE_RETRY)
		out->fail_status = NULL;
	db_build_source_release(&src);
	return r;
}

enum pipeline_result stage_build(struct pipeline_ctx *ctx,
				 const struct job *job,
				 struct pipeline_outcome *out)
{
	return stage_build_layout(ctx, job, LAYOUT_AS_BUILT, out);
}
