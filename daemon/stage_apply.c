/*
 * stage_apply.c - the apply stage of the pipeline (see stage_apply.h).
 * No SQL here (db_apply.c) and no libgit2 (apply.c).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "apply.h"
#include "apply_input.h"
#include "config.h"
#include "db.h"
#include "db_apply.h"
#include "db_intake.h"
#include "db_versions.h"
#include "jobq.h"
#include "log.h"
#include "mail.h"
#include "options.h"
#include "series.h"
#include "stage_apply.h"
#include "strbuf.h"

/* The tree for a series of list (may be NULL); why says how it was chosen. */
static const struct config_tree *pick_tree(const struct config *cfg,
					   const char *list,
					   struct strbuf *why)
{
	size_t i, j;

	for (i = 0; list && i < cfg->n_trees; i++)
		for (j = 0; j < cfg->trees[i].n_lists; j++)
			if (!strcmp(cfg->trees[i].lists[j], list)) {
				strbuf_addf(why, "tree %s: it lists %s",
					    cfg->trees[i].name, list);
				return &cfg->trees[i];
			}
	for (i = 0; list && i < cfg->n_lists; i++) {
		if (strcmp(cfg->lists[i].name, list) || !cfg->lists[i].tree)
			continue;
		for (j = 0; j < cfg->n_trees; j++)
			if (!strcmp(cfg->trees[j].name, cfg->lists[i].tree)) {
				strbuf_addf(why, "tree %s: list %s names it",
					    cfg->trees[j].name, list);
				return &cfg->trees[j];
			}
	}
	if (list)
		strbuf_addf(why, "tree %s: the first configured (no tree "
			    "lists %s)", cfg->trees[0].name, list);
	else
		strbuf_addf(why, "tree %s: the first configured (the series "
			    "has no list)", cfg->trees[0].name);
	return &cfg->trees[0];
}

static int read_series(const struct config *cfg,
		       const struct db_intake_source *src, struct series **out)
{
	struct mail_limits lim;
	struct mail_box box;
	int ret;

	options_mail_limits(cfg, &lim);
	mail_box_init(&box);
	ret = mail_box_read_buf(&box, src->mbox, src->mbox_len, "mbox", &lim);
	if (!ret)
		ret = series_build(&box, out);
	mail_box_release(&box);
	return ret;
}

/* "patch 2/3 (FILE, HUNK): REASON", "rejected: " first when unsafe. */
static void failure_reason(const struct apply_result *res, size_t n,
			   struct strbuf *sb)
{
	if (res->status == APPLY_REJECTED)
		strbuf_addstr(sb, "rejected: ");
	strbuf_addf(sb, "patch %zu/%zu", res->failed_patch, n);
	if (res->failed_file && res->failed_hunk)
		strbuf_addf(sb, " (%s, %s)", res->failed_file,
			    res->failed_hunk);
	else if (res->failed_file)
		strbuf_addf(sb, " (%s)", res->failed_file);
	strbuf_addf(sb, ": %s", res->reason ? res->reason : "does not apply");
}

enum pipeline_result stage_apply(struct pipeline_ctx *ctx,
				 const struct job *job,
				 struct pipeline_outcome *out)
{
	const struct config *cfg = ctx->cfg;
	const struct config_tree *t;
	struct db_intake_source src;
	struct series *all = NULL;
	const struct series *s;
	struct apply_repo *repo = NULL;
	struct apply_input in = { 0 };
	struct apply_result res;
	struct apply_opts ao = { 0 };
	struct apply_base b;
	struct strbuf why = STRBUF_INIT, reason = STRBUF_INIT;
	enum pipeline_result r = PIPELINE_FAIL;
	int *idx = NULL;
	size_t i;

	apply_result_init(&res);
	out->fail_status = "failed";
	if (!cfg || !cfg->n_trees) {
		strbuf_addstr(&out->reason, "no tree configured (trees[] of "
			      "the configuration is empty)");
		return PIPELINE_FAIL;
	}
	if (db_intake_source(ctx->db, job->series_id, &src)) {
		strbuf_addstr(&out->reason, "the series row cannot be read");
		return PIPELINE_RETRY;
	}
	t = pick_tree(cfg, src.list, &why);
	if (!src.mbox) {
		strbuf_addstr(&out->reason, "no stored mbox: the series was "
			      "not fetched");
		goto out;
	}
	if (read_series(cfg, &src, &all)) {
		strbuf_addstr(&out->reason, "the stored mbox cannot be read");
		goto out;
	}
	/* The revision the fetch stage stored. */
	s = series_revision(all, src.total ? src.version : 0);
	if (!s || s->status != SERIES_COMPLETE || !s->nr_patches) {
		strbuf_addf(&out->reason, "v%d in the stored mbox is not a "
			    "complete series", src.version);
		goto out;
	}
	/* and the trailers earlier versions carried over (db_versions.h) */
	if (db_versions_trailers_load(ctx->db, job->series_id, s)) {
		strbuf_addstr(&out->reason, "the carried trailers cannot be "
			      "read");
		r = PIPELINE_RETRY;
		goto out;
	}
	if (apply_repo_open(t->path, &repo)) {
		strbuf_addf(&out->reason, "%s: %s cannot be opened as a git "
			    "repository", why.buf, t->path);
		goto out;
	}
	if (apply_base_resolve(repo, s->base_commit,
			       t->branch ? t->branch : "master", &b)) {
		strbuf_addf(&out->reason, "%s: no base: neither base-commit "
			    "%s nor branch %s resolves", why.buf,
			    s->base_commit ? s->base_commit : "(none)",
			    t->branch ? t->branch : "master");
		goto out;
	}
	if (ctx->stop && *ctx->stop) {
		r = PIPELINE_INTERRUPTED;
		goto out;
	}
	apply_input_from_series(s, &in);
	if (apply_series(repo, b.oid, in.patches, in.n, &ao, &res)) {
		strbuf_addf(&out->reason, "%s: repository error while "
			    "applying (see the log)", t->path);
		out->fail_status = NULL;
		r = PIPELINE_RETRY;
		goto out;
	}
	idx = xcalloc(res.n_commits + 1, sizeof(*idx));
	for (i = 0; i < res.n_commits && i < s->nr_patches; i++)
		idx[i] = s->patches[i]->index;
	strbuf_addf(&reason, "%s; %s", b.reason, why.buf);
	if (db_begin(ctx->db) ||
	    db_apply_store(ctx->db, job->series_id, t, &b, reason.buf, &res,
			   idx) ||
	    db_commit(ctx->db)) {
		db_rollback(ctx->db);
		strbuf_addstr(&out->reason, "storing the result failed");
		out->fail_status = NULL;
		r = PIPELINE_RETRY;
		goto out;
	}
	if (res.status != APPLY_OK) {
		failure_reason(&res, s->nr_patches, &out->reason);
		out->fail_status = "does-not-apply";
		goto out;
	}
	log_info("apply", "series %lld: %zu patch%s on %s at %s (%s), head %s",
		 job->series_id, res.n_commits, res.n_commits == 1 ? "" :
		 "es", t->name, b.oid, apply_base_source_str(b.source),
		 res.commits[res.n_commits - 1].oid);
	out->fail_status = NULL;
	r = PIPELINE_OK;
out:
	free(idx);
	strbuf_release(&why);
	strbuf_release(&reason);
	apply_input_release(&in);
	apply_result_release(&res);
	apply_repo_free(repo);
	series_free(all);
	db_intake_source_release(&src);
	return r;
}
