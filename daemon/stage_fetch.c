/*
 * stage_fetch.c - the fetch stage of the pipeline (see stage_fetch.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "allowlist.h"
#include "config.h"
#include "db.h"
#include "db_intake.h"
#include "db_versions.h"
#include "fetch.h"
#include "stage_fetch.h"
#include "jobq.h"
#include "log.h"
#include "mail.h"
#include "options.h"
#include "series.h"
#include "strbuf.h"

/*
 * A complete version of series id: a newer version already there (then
 * *newer), or else the trailers of its previous version carried over and
 * the older versions superseded (*superseded: how many).
 */
static int versions(struct db *db, long long id, long long *newer,
		    int *newer_version, int *superseded)
{
	if (db_versions_newer(db, id, newer, newer_version))
		return -1;
	if (*newer)
		return db_versions_superseded_by(db, id, *newer);
	return db_versions_carry_trailers(db, id, NULL) ||
	       db_versions_supersede(db, id, superseded);
}

enum pipeline_result stage_fetch(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out)
{
	const struct config *cfg = ctx->cfg;
	struct db_intake_source src;
	struct fetch_options fo;
	struct mail_limits lim;
	struct mail_box box;
	struct strbuf data = STRBUF_INIT;
	struct series *s = NULL;
	const struct series *rev;
	const char **allow = NULL;
	const char *why;
	long long previous = 0, newer = 0;
	int fetched = 0, newer_version = 0, superseded = 0;
	enum pipeline_result r = PIPELINE_FAIL;
	size_t i;

	mail_box_init(&box);
	if (db_intake_source(ctx->db, job->series_id, &src)) {
		strbuf_addstr(&out->reason, "the series row cannot be read");
		return PIPELINE_RETRY;
	}
	fetch_options_init(&fo);
	memset(&lim, 0, sizeof(lim));
	if (cfg) {
		allow = options_allowlist(cfg);
		fo.allow = allow;
		if (cfg->limits.max_body_bytes)
			fo.max_bytes = cfg->limits.max_body_bytes;
		if (cfg->limits.max_mbox_bytes > fo.max_bytes)
			fo.max_bytes = cfg->limits.max_mbox_bytes;
		options_mail_limits(cfg, &lim);
	}
	lim.keep_raw = 1;
	if (!src.mbox) {
		if (!src.source_url) {
			strbuf_addstr(&out->reason,
				      "neither a URL nor an mbox");
			goto out;
		}
		if (allowlist_check(fo.allow, src.source_url, NULL, &why)) {
			strbuf_addf(&out->reason, "%s: refused: %s",
				    src.source_url, why);
			goto out;
		}
		if (fetch_mbox(src.source_url, &fo, &data)) {
			strbuf_addf(&out->reason, "%s: fetch failed (see the "
				    "log); will retry", src.source_url);
			r = PIPELINE_RETRY;
			goto out;
		}
		fetched = 1;
	} else {
		strbuf_add(&data, src.mbox, src.mbox_len);
	}
	if (mail_box_read_buf(&box, data.buf, data.len,
			      src.source_url ? src.source_url : "mbox", &lim) ||
	    series_build(&box, &s)) {
		strbuf_addstr(&out->reason, "the mbox cannot be read (too "
			      "large or too many messages)");
		goto out;
	}
	/* The row's version once parsed (total set), else the newest. */
	rev = series_revision(s, src.total ? src.version : 0);
	if (!rev) {
		strbuf_addf(&out->reason, "no v%d in the thread", src.version);
		goto out;
	}
	for (i = 0; i < rev->nr_problems; i++)
		log_info("intake", "series %lld: %s", job->series_id,
			 rev->problems[i]);
	if (rev->status == SERIES_EMPTY ||
	    rev->status == SERIES_PULL_REQUEST) {
		series_status_reason(rev, &out->reason);
		goto out;
	}
	/*
	 * Store what was found even when incomplete (it shows what is
	 * there), linked to its previous version; a complete one takes that
	 * version's trailers for unchanged patches and supersedes older
	 * versions, unless a newer one is there already.
	 */
	if (db_begin(ctx->db) ||
	    db_intake_store(ctx->db, job->series_id, rev,
			    fetched ? data.buf : NULL, data.len) ||
	    db_versions_link(ctx->db, job->series_id, &previous) ||
	    (rev->status == SERIES_COMPLETE &&
	     versions(ctx->db, job->series_id, &newer, &newer_version,
		      &superseded)) ||
	    db_commit(ctx->db)) {
		db_rollback(ctx->db);
		strbuf_addstr(&out->reason, "storing the series failed");
		r = PIPELINE_RETRY;
		goto out;
	}
	if (rev->status == SERIES_INCOMPLETE) {
		series_status_reason(rev, &out->reason);
		out->fail_status = "incomplete";
		goto out;
	}
	if (newer) {
		strbuf_addf(&out->reason, "superseded by v%d (series %lld)",
			    newer_version, newer);
		out->fail_status = "superseded";
		goto out;
	}
	if (previous)
		log_info("intake", "series %lld: v%d follows series %lld%s",
			 job->series_id, rev->version, previous,
			 superseded ? ", which it supersedes" : "");
	log_info("intake", "series %lld: v%d, %zu patches%s%s",
		 job->series_id, rev->version, rev->nr_patches,
		 rev->base_commit ? ", base " : "",
		 rev->base_commit ? rev->base_commit : "");
	r = PIPELINE_OK;
out:
	series_free(s);
	mail_box_release(&box);
	strbuf_release(&data);
	db_intake_source_release(&src);
	free(allow);
	return r;
}
