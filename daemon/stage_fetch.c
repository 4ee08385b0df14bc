/*
 * stage_fetch.c - the fetch stage of the pipeline (see stage_fetch.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
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

#define INTAKE_SKIPPED_SHOWN	3	/* skipped messages a reason names */

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

/*
 * "; message 3 <id> skipped: message of N bytes exceeds the limit of M
 * bytes": why a thread has no patch, or lacks one (the first few).
 */
static void add_skipped(const struct mail_box *box, struct strbuf *reason)
{
	size_t i;

	for (i = 0; i < box->nr_skipped && i < INTAKE_SKIPPED_SHOWN; i++) {
		strbuf_addstr(reason, "; ");
		mail_skip_describe(&box->skipped[i], reason);
	}
	if (box->nr_skipped > INTAKE_SKIPPED_SHOWN)
		strbuf_addf(reason, "; %zu more skipped",
			    box->nr_skipped - INTAKE_SKIPPED_SHOWN);
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
	struct strbuf why = STRBUF_INIT;
	const char **allow = NULL;
	const char *name;
	long long previous = 0, newer = 0;
	int fetched = 0, newer_version = 0, superseded = 0, permanent = 0;
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
		options_fetch(cfg, allow, &fo);
		options_mail_limits(cfg, &lim);
	}
	lim.keep_raw = 1;
	if (!src.mbox) {
		if (!src.source_url) {
			strbuf_addstr(&out->reason,
				      "neither a URL nor an mbox");
			goto out;
		}
		/* the reason names the cause; what cannot get better
		 * (refused, a 4xx, over a cap) fails at once */
		if (fetch_mbox(src.source_url, &fo, &data, &out->reason,
			       &permanent)) {
			if (!permanent)
				r = PIPELINE_RETRY;
			goto out;
		}
		fetched = 1;
	} else {
		strbuf_add(&data, src.mbox, src.mbox_len);
	}
	name = src.source_url ? src.source_url : "the submitted mbox";
	/* the API's check of a submitted body, for every source */
	if (mail_box_check(data.buf, data.len, &why)) {
		strbuf_addf(&out->reason, "%s: %s", name, why.buf);
		goto out;
	}
	log_error_reset();
	if (mail_box_read_buf(&box, data.buf, data.len, name, &lim) ||
	    series_build(&box, &s)) {
		strbuf_addf(&out->reason, "the mbox cannot be read: %s",
			    log_error_first());
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
	if (rev->status == SERIES_EMPTY) {
		series_status_reason(rev, &out->reason);
		add_skipped(&box, &out->reason);
		goto out;
	}
	/*
	 * Store what was found even when incomplete or a pull request (it
	 * shows what is there, or the request's subject), linked to its previous version; a complete one takes that
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
	if (rev->status == SERIES_INCOMPLETE ||
	    rev->status == SERIES_PULL_REQUEST) {
		series_status_reason(rev, &out->reason);
		add_skipped(&box, &out->reason);
		if (rev->status == SERIES_INCOMPLETE)
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
	strbuf_release(&why);
	db_intake_source_release(&src);
	free(allow);
	return r;
}
