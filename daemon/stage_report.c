/*
 * stage_report.c - the report stage (see stage_report.h).  No SQL here
 * (db_report.c) and no report text (report.c): this file decides who gets
 * which mail, writes the rows before anything leaves, and delivers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "allowlist.h"
#include "arch.h"
#include "config.h"
#include "db.h"
#include "db_report.h"
#include "fs.h"
#include "jobq.h"
#include "log.h"
#include "mail.h"
#include "patchwork.h"
#include "report.h"
#include "smtp.h"
#include "stage_report.h"
#include "strbuf.h"

#define MAX_PLAN	2	/* a held report and its moderation copy */

/* One notification the policy asks for. */
struct plan_row {
	const char *role;	/* public, moderation */
	const char *transport;	/* smtp, outbox */
	const char *status;	/* pending, held */
	struct strbuf to, cc;	/* address lists */
};

struct plan {
	struct plan_row rows[MAX_PLAN];
	size_t n;
};

/* What the stored messages give besides the rows: recipients, caveat. */
struct prep {
	struct strbuf thread;	/* the head message's To and Cc */
	struct strbuf layout;	/* the files of a comments-only series */
};

static void settings(const struct config *cfg, struct report_settings *rs)
{
	rs->from = cfg->mail.from;
	rs->dashboard = cfg->mail.dashboard_url;
	rs->alpha = cfg->stats.alpha;
	rs->threshold_pct = cfg->stats.threshold_pct;
	rs->max_boots_per_side = cfg->stats.max_boots_per_side;
}

/* The bare address of a mailbox ("Name <a@x>"), or "" (*out freed). */
static void address_of(const char *mailbox, struct strbuf *out)
{
	char **v = NULL;
	size_t i, n = 0;

	if (mailbox && !mail_addresses(mailbox, &v, &n))
		strbuf_addstr(out, v[0]);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether the address of mailbox is addr (case-insensitive). */
static int same_address(const char *mailbox, const char *addr)
{
	struct strbuf a = STRBUF_INIT;
	int same;

	address_of(mailbox, &a);
	same = a.len && !strcasecmp(a.buf, addr);
	strbuf_release(&a);
	return same;
}

/* Adds mailbox to the list unless an address in skip... is it. */
static void list_add(struct strbuf *list, const char *mailbox,
		     const char *const *skip)
{
	struct strbuf addr = STRBUF_INIT;
	char **have = NULL;
	size_t i, n = 0;
	int dup = 0;

	address_of(mailbox, &addr);
	if (!addr.len)
		goto out;
	for (; *skip && !dup; skip++)
		dup = **skip && same_address(*skip, addr.buf);
	if (list->len && !mail_addresses(list->buf, &have, &n))
		for (i = 0; i < n; i++)
			dup |= !strcasecmp(have[i], addr.buf);
	if (!dup) {
		if (list->len)
			strbuf_addstr(list, ", ");
		strbuf_addstr(list, mailbox);
	}
out:
	for (i = 0; i < n; i++)
		free(have[i]);
	free(have);
	strbuf_release(&addr);
}

static struct mail *parse_raw(const struct db_report_patch *p)
{
	struct mail_limits lim = { 0 };
	struct mail *m = NULL;
	char *why = NULL;

	if (!p->raw || mail_parse(p->raw, p->len, &lim, &m, &why))
		m = NULL;
	free(why);
	return m;
}

/*
 * The thread's recipients (To and Cc of the cover letter, else of the
 * first patch) and the layout caveat (every patch changes only comments
 * and blank lines).
 */
static void prepare(struct db_report *dr, const struct config *cfg,
		    struct prep *p)
{
	const char *skip[3] = { dr->s.author ? dr->s.author : "",
				cfg->mail.from, NULL };
	int code = 0, scanned = 0;
	size_t i;

	strbuf_init(&p->thread);
	strbuf_init(&p->layout);
	for (i = 0; i < dr->npatches; i++) {
		struct mail *m = parse_raw(&dr->patches[i]);
		size_t j;

		if (!m)
			continue;
		if (i == 0)
			for (j = 0; j < m->nr_recipients; j++)
				list_add(&p->thread, m->recipients[j], skip);
		if (dr->patches[i].idx > 0) {
			report_scan_patch(m->body, m->body_len, &p->layout,
					  &code);
			scanned = 1;
		}
		mail_free(m);
	}
	if (scanned && !code && p->layout.len)
		dr->s.layout_only = p->layout.buf;
}

static void prep_release(struct prep *p)
{
	strbuf_release(&p->thread);
	strbuf_release(&p->layout);
}

static struct plan_row *plan_add(struct plan *p, const char *role,
				 const char *transport, const char *status)
{
	struct plan_row *r = &p->rows[p->n++];

	r->role = role;
	r->transport = transport;
	r->status = status;
	strbuf_init(&r->to);
	strbuf_init(&r->cc);
	return r;
}

static void plan_release(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		strbuf_release(&p->rows[i].to);
		strbuf_release(&p->rows[i].cc);
	}
	p->n = 0;
}

static int opted_in(const struct config *cfg, const char *list)
{
	size_t i;

	for (i = 0; list && i < cfg->mail.n_opt_in_lists; i++)
		if (!strcmp(cfg->mail.opt_in_lists[i], list))
			return 1;
	return 0;
}

/* Who gets the report of kind, by the policy (stage_report.h). */
static void plan(const struct config *cfg, const struct db_report *dr,
		 const struct prep *prep, enum report_kind kind,
		 struct plan *p)
{
	const struct config_mail *m = &cfg->mail;
	enum config_mail_to to = m->recipients[kind];
	const char *author = dr->s.author && *dr->s.author &&
			     strchr(dr->s.author, '@') ? dr->s.author : NULL;
	const char *mod = m->moderation_address ? m->moderation_address :
			  m->from;
	const char *transport = m->policy == CONFIG_MAIL_OUTBOX ? "outbox" :
				"smtp";
	struct plan_row *r;

	p->n = 0;
	if (m->policy == CONFIG_MAIL_MODERATE)
		to = CONFIG_MAIL_TO_MODERATION;
	if ((to == CONFIG_MAIL_TO_THREAD && !opted_in(cfg, dr->list)) ||
	    (to != CONFIG_MAIL_TO_MODERATION && !author))
		to = CONFIG_MAIL_TO_MODERATION;
	if (to == CONFIG_MAIL_TO_OUTBOX)
		transport = "outbox";
	if (to == CONFIG_MAIL_TO_THREAD && !strcmp(transport, "smtp") &&
	    report_kind_significant(kind) && m->moderate_significant) {
		r = plan_add(p, "public", transport, "held");
		strbuf_addstr(&r->to, author);
		strbuf_addstr(&r->cc, prep->thread.buf);
		r = plan_add(p, "moderation", transport, "pending");
		strbuf_addstr(&r->to, mod);
		return;
	}
	r = plan_add(p, "public", transport, "pending");
	if (to == CONFIG_MAIL_TO_MODERATION) {
		strbuf_addstr(&r->to, mod);
		return;
	}
	strbuf_addstr(&r->to, author);
	if (to == CONFIG_MAIL_TO_THREAD)
		strbuf_addstr(&r->cc, prep->thread.buf);
}

/* The recipients of a row as one list: the key of its notification. */
static void row_recipients(const struct plan_row *r, struct strbuf *out)
{
	strbuf_add(out, r->to.buf, r->to.len);
	if (r->cc.len)
		strbuf_addf(out, ", %s", r->cc.buf);
}

/* Renders and composes the message of row r; -1 with the reason. */
static int compose(const struct config *cfg, const struct db_report *dr,
		   enum report_kind kind, const struct plan_row *r,
		   const struct report_hold *hold, long long now,
		   struct report_mail *m, struct strbuf *msg,
		   struct strbuf *err)
{
	struct report_settings rs;
	struct strbuf series = STRBUF_INIT, kindh = STRBUF_INIT;
	const char *to[2] = { r->to.buf, NULL }, *cc[2] = { r->cc.buf, NULL };
	const char *headers[3];
	struct mail_out out = { 0 };
	int ret;

	settings(cfg, &rs);
	report_render(&dr->s, &rs, kind, hold, m);
	strbuf_addf(&series, "X-Kregress-Series: %lld", dr->s.id);
	strbuf_addf(&kindh, "X-Kregress-Report: %s%s", report_kind_str(kind),
		    hold ? " (moderation)" : "");
	headers[0] = series.buf;
	headers[1] = kindh.buf;
	headers[2] = NULL;
	out.from = cfg->mail.from;
	out.to = to;
	out.cc = r->cc.len ? cc : NULL;
	out.subject = m->subject;
	out.date = now;
	out.message_id = m->message_id;
	out.in_reply_to = m->in_reply_to;
	out.references = m->in_reply_to;
	out.headers = headers;
	out.body = m->body.buf;
	ret = mail_compose(&out, msg, err);
	strbuf_release(&series);
	strbuf_release(&kindh);
	return ret;
}

/* Writes the rows of the plan (those not there yet) in one transaction. */
static int store(struct pipeline_ctx *ctx, const struct db_report *dr,
		 enum report_kind kind, const struct plan *p,
		 struct strbuf *reason)
{
	long long now = (long long)time(NULL), held = 0;
	struct strbuf msg = STRBUF_INIT, rcpt = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT, hr = STRBUF_INIT;
	size_t i;
	int rc, ret = -1;

	if (db_begin(ctx->db))
		goto out;
	for (i = 0; i < p->n; i++) {
		const struct plan_row *r = &p->rows[i];
		struct report_hold hold = { held, hr.buf };
		struct db_notification n = { 0 };
		struct report_mail m;
		long long id;
		int added;

		report_mail_init(&m);
		strbuf_reset(&msg);
		strbuf_reset(&rcpt);
		row_recipients(r, &rcpt);
		if (compose(ctx->cfg, dr, kind, r, held ? &hold : NULL, now,
			    &m, &msg, &err)) {
			strbuf_addf(reason, "the %s mail cannot be written: "
				    "%s", report_kind_str(kind), err.buf);
			report_mail_release(&m);
			goto out;
		}
		n.series_id = dr->s.id;
		n.version = dr->s.version;
		n.kind = report_kind_str(kind);
		n.role = r->role;
		n.transport = r->transport;
		n.recipients = rcpt.buf;
		n.message_id = m.message_id;
		n.subject = m.subject;
		n.status = r->status;
		n.message = msg.buf;
		n.message_len = msg.len;
		rc = db_report_add(ctx->db, &n, &id, &added);
		report_mail_release(&m);
		if (rc)
			goto out;
		if (!strcmp(r->status, "held")) {
			held = id;
			strbuf_add(&hr, rcpt.buf, rcpt.len);
		}
	}
	ret = db_commit(ctx->db);
out:
	if (ret) {
		db_rollback(ctx->db);
		if (!reason->len)
			strbuf_addstr(reason, "the notifications cannot be "
				      "stored");
	}
	strbuf_release(&msg);
	strbuf_release(&rcpt);
	strbuf_release(&err);
	strbuf_release(&hr);
	return ret;
}

/* --- delivery --------------------------------------------------------------- */

struct delivery {
	size_t sent, written, held, failed, pending, unconfirmed;
	struct strbuf why;	/* the last failure */
};

/* "DIR/SERIES-ID-KIND.eml" */
static void outbox_path(const struct config *cfg,
			const struct db_notification *n, struct strbuf *out)
{
	strbuf_addf(out, "%s/%lld-%lld-%s.eml", cfg->mail.outbox_dir,
		    n->series_id, n->id, n->kind);
}

struct handed_arg {
	struct db *db;
	long long id;
};

/* smtp.h's handed(): from here on the mail may have been accepted. */
static void mark_handed(void *arg)
{
	struct handed_arg *h = arg;

	db_report_set(h->db, h->id, "handed", NULL, 0, NULL);
}

/* One SMTP delivery of n. */
static void deliver_smtp(struct pipeline_ctx *ctx,
			 const struct db_notification *n, struct delivery *d)
{
	const struct config_mail *m = &ctx->cfg->mail;
	struct smtp_server srv = { m->smtp_url, m->smtp_user,
				   m->smtp_password, m->smtp_require_tls, 0 };
	struct handed_arg h = { ctx->db, n->id };
	struct strbuf from = STRBUF_INIT, err = STRBUF_INIT;
	char **rcpt = NULL;
	size_t i, nr = 0;
	enum smtp_result r;

	address_of(m->from, &from);
	if (!m->smtp_url || mail_addresses(n->recipients, &rcpt, &nr)) {
		strbuf_addstr(&err, m->smtp_url ? "no recipient address" :
			      "no mail.smtp_url configured");
		r = SMTP_REFUSED;
	} else if (db_report_set(ctx->db, n->id, "sending", NULL, 1, NULL)) {
		strbuf_addstr(&err, "the attempt cannot be recorded");
		r = SMTP_RETRY;
	} else {
		r = smtp_send(&srv, from.buf, (const char *const *)rcpt,
			      n->message, n->message_len, mark_handed, &h,
			      &err);
	}
	switch (r) {
	case SMTP_SENT:
		if (db_report_set(ctx->db, n->id, "sent", NULL, 0, NULL))
			d->pending++;
		else
			d->sent++;
		log_info("report", "series %lld: notification %lld (%s) sent "
			 "to %s", n->series_id, n->id, n->kind, n->recipients);
		break;
	case SMTP_RETRY:
		db_report_set(ctx->db, n->id, "pending", err.buf, 0, NULL);
		d->pending++;
		strbuf_reset(&d->why);
		strbuf_addf(&d->why, "notification %lld: %s", n->id, err.buf);
		log_warn("report", "series %lld: notification %lld: %s",
			 n->series_id, n->id, err.buf);
		break;
	case SMTP_REFUSED:
		db_report_set(ctx->db, n->id, "failed", err.buf, 0, NULL);
		d->failed++;
		strbuf_reset(&d->why);
		strbuf_addf(&d->why, "notification %lld to %s refused: %s",
			    n->id, n->recipients, err.buf);
		error("report", "series %lld: notification %lld: %s",
		      n->series_id, n->id, err.buf);
		break;
	}
	for (i = 0; i < nr; i++)
		free(rcpt[i]);
	free(rcpt);
	strbuf_release(&from);
	strbuf_release(&err);
}

static void deliver_outbox(struct pipeline_ctx *ctx,
			   const struct db_notification *n,
			   struct delivery *d)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT;

	outbox_path(ctx->cfg, n, &path);
	/* A crash after the rename: the file is the proof. */
	if (strcmp(n->status, "sending") || access(path.buf, F_OK)) {
		if (db_report_set(ctx->db, n->id, "sending", NULL, 1, NULL))
			strbuf_addstr(&err, "the attempt cannot be recorded");
		else if (fs_mkdir_parent(path.buf, 0750, &why) ||
			 fs_write_atomic(path.buf, n->message,
					 n->message_len, 0640, &why))
			strbuf_addf(&err, "outbox: %s", why.buf);
	}
	if (!err.len) {
		if (db_report_set(ctx->db, n->id, "written", NULL, 0,
				  path.buf))
			d->pending++;
		else
			d->written++;
	} else {
		db_report_set(ctx->db, n->id, "pending", err.buf, 0, NULL);
		d->pending++;
		strbuf_reset(&d->why);
		strbuf_addf(&d->why, "notification %lld: %s", n->id, err.buf);
		log_warn("report", "series %lld: notification %lld: %s",
			 n->series_id, n->id, err.buf);
	}
	strbuf_release(&path);
	strbuf_release(&err);
	strbuf_release(&why);
}

/* Delivers every row of the series that is due; 1 when stopped. */
static int deliver(struct pipeline_ctx *ctx, long long series_id,
		   struct delivery *d)
{
	struct db_notification *rows;
	size_t i, n;
	int stopped = 0;

	if (db_report_rows(ctx->db, series_id, &rows, &n)) {
		d->pending++;
		strbuf_addstr(&d->why, "the notifications cannot be read");
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct db_notification *r = &rows[i];

		if (!strcmp(r->status, "sent")) {
			d->sent++;
		} else if (!strcmp(r->status, "written")) {
			d->written++;
		} else if (!strcmp(r->status, "held")) {
			d->held++;
		} else if (!strcmp(r->status, "failed")) {
			d->failed++;
		} else if (!strcmp(r->status, "handed")) {
			/* Never twice: the server may have it. */
			db_report_set(ctx->db, r->id, "sent", "not confirmed: "
				      "the daemon stopped after handing the "
				      "whole message over, before the server "
				      "answered; not sent again", 0, NULL);
			d->sent++;
			d->unconfirmed++;
			log_warn("report", "series %lld: notification %lld was "
				 "handed over before a crash: taken as sent",
				 series_id, r->id);
		} else if (ctx->stop && *ctx->stop) {
			stopped = 1;
		} else if (!strcmp(r->transport, "outbox")) {
			deliver_outbox(ctx, r, d);
		} else {
			deliver_smtp(ctx, r, d);
		}
	}
	db_report_rows_free(rows, n);
	return stopped;
}

/* --- patchwork ---------------------------------------------------------------- */

/* The configured instance a series came from, and its API root. */
static const struct config_patchwork *
patchwork_of(const struct config *cfg, const char *source_url,
	     struct strbuf *api)
{
	size_t i;

	if (!source_url || patchwork_api_url(source_url, api))
		return NULL;
	for (i = 0; i < cfg->mail.n_patchwork; i++) {
		const char *prefix[2] = { cfg->mail.patchwork[i].url, NULL };
		const char *why;

		if (!allowlist_check(prefix, source_url, NULL, &why))
			return &cfg->mail.patchwork[i];
	}
	return NULL;
}

/* The series' patchwork patch ids: known from its checks, else asked. */
static int patch_ids(struct pipeline_ctx *ctx, long long series_id,
		     const char *source_url, long long **ids, size_t *n,
		     struct strbuf *err)
{
	if (db_report_check_patches(ctx->db, series_id, ids, n))
		return -1;
	if (*n)
		return 0;
	free(*ids);
	return patchwork_series_patches(source_url, ids, n, err);
}

/* Posts every check of the series that is due; the failures' count. */
static int post_due(struct pipeline_ctx *ctx, long long series_id,
		    const struct config_patchwork *pw, struct strbuf *why)
{
	struct db_check *rows;
	size_t i, n;
	int failed = 0;

	if (db_report_checks_due(ctx->db, series_id, &rows, &n))
		return 1;
	for (i = 0; i < n; i++) {
		struct patchwork_check c = { rows[i].state, rows[i].context,
					     rows[i].target_url,
					     rows[i].description };
		struct strbuf err = STRBUF_INIT;
		int rc;

		rc = patchwork_check_post(rows[i].api_url, pw->token,
					  rows[i].patch_id, &c, &err);
		db_report_check_posted(ctx->db, rows[i].id, rows[i].state,
				       rc ? err.buf : NULL);
		if (rc) {
			/* the first failure says why, the log has them all */
			if (!failed++)
				strbuf_addf(why, "%spatchwork check: %s",
					    why->len ? "; " : "", err.buf);
			log_warn("report", "series %lld: check %s on patch "
				 "%lld: %s", series_id, rows[i].context,
				 rows[i].patch_id, err.buf);
		}
		strbuf_release(&err);
	}
	db_report_checks_free(rows, n);
	return failed;
}

/* Sets state and description of context on every patch of the series. */
static int set_checks(struct pipeline_ctx *ctx, long long series_id,
		      const char *api, const long long *ids, size_t n,
		      const char *context, const char *state,
		      const char *desc)
{
	struct strbuf target = STRBUF_INIT;
	size_t i;
	int ret = 0;

	strbuf_addf(&target, "%sseries/%lld", ctx->cfg->mail.dashboard_url,
		    series_id);
	for (i = 0; i < n && !ret; i++)
		ret = db_report_check_set(ctx->db, series_id, api, ids[i],
					  context, state, desc, target.buf);
	strbuf_release(&target);
	return ret;
}

void stage_report_run_started(struct pipeline_ctx *ctx, long long series_id,
			      const char *arch)
{
	const struct config_patchwork *pw;
	struct strbuf api = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf context = STRBUF_INIT;
	long long *ids = NULL;
	char *source = NULL;
	size_t n = 0;

	if (!ctx->cfg || db_report_source(ctx->db, series_id, &source))
		goto out;
	pw = patchwork_of(ctx->cfg, source, &api);
	if (!pw)
		goto out;
	strbuf_addf(&context, "kregress-%s", arch);
	if (patch_ids(ctx, series_id, source, &ids, &n, &err)) {
		log_warn("report", "series %lld: no pending check: %s",
			 series_id, err.buf);
		goto out;
	}
	if (!set_checks(ctx, series_id, api.buf, ids, n, context.buf,
			"pending", "booting base and patched kernels"))
		post_due(ctx, series_id, pw, &err);
out:
	free(ids);
	free(source);
	strbuf_release(&api);
	strbuf_release(&err);
	strbuf_release(&context);
}

/*
 * A series with nothing to report: its pending checks become warnings
 * that say why it was not tested.  0, or the failures' count.
 */
static int settle_checks(struct pipeline_ctx *ctx, const struct db_report *dr,
			 struct strbuf *why)
{
	const struct config_patchwork *pw;
	struct strbuf api = STRBUF_INIT, desc = STRBUF_INIT;
	int failed = 0;

	pw = patchwork_of(ctx->cfg, dr->s.source_url, &api);
	if (pw) {
		strbuf_addf(&desc, "not tested: %.180s", dr->s.status_reason ?
			    dr->s.status_reason : "no comparisons");
		failed = db_report_checks_settle(ctx->db, dr->s.id, desc.buf) ?
			 1 : post_due(ctx, dr->s.id, pw, why);
	}
	strbuf_release(&api);
	strbuf_release(&desc);
	return failed;
}

/* The final check of every arch; 0, or the failures' count. */
static int final_checks(struct pipeline_ctx *ctx, const struct db_report *dr,
			enum report_kind kind, struct strbuf *why)
{
	const struct config_patchwork *pw;
	struct report_settings rs;
	struct strbuf api = STRBUF_INIT, err = STRBUF_INIT;
	const struct arch *a;
	long long *ids = NULL;
	size_t n = 0;
	int failed = 0;

	pw = patchwork_of(ctx->cfg, dr->s.source_url, &api);
	if (!pw)
		goto out;
	settings(ctx->cfg, &rs);
	if (patch_ids(ctx, dr->s.id, dr->s.source_url, &ids, &n, &err)) {
		strbuf_addf(why, "%spatchwork: %s", why->len ? "; " : "",
			    err.buf);
		failed = 1;
		goto out;
	}
	for (a = arch_table; a->name && !failed; a++) {
		const char *arch = a->name;
		struct strbuf context = STRBUF_INIT, desc = STRBUF_INIT;
		const char *state;

		if (!config_arch_get(ctx->cfg, a))
			continue;
		strbuf_addf(&context, "kregress-%s", arch);
		state = report_check_state(&dr->s, &rs, kind, arch, &desc);
		failed = set_checks(ctx, dr->s.id, api.buf, ids, n,
				    context.buf, state, desc.buf) ? 1 : 0;
		strbuf_release(&context);
		strbuf_release(&desc);
	}
	if (!failed)
		failed = post_due(ctx, dr->s.id, pw, why);
out:
	free(ids);
	strbuf_release(&api);
	strbuf_release(&err);
	return failed;
}

/* --- the stage ---------------------------------------------------------------- */

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

enum pipeline_result stage_report(struct pipeline_ctx *ctx,
				  const struct job *job,
				  struct pipeline_outcome *out)
{
	struct delivery d = { 0 };
	struct db_report dr;
	struct report_settings rs;
	struct timespec t0;
	struct prep prep;
	struct plan p = { .n = 0 };
	enum pipeline_result res = PIPELINE_RETRY;
	enum report_kind kind;
	int rc, checks_failed;

	if (!ctx->cfg) {
		strbuf_addstr(&out->reason, "no configuration");
		return PIPELINE_FAIL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = db_report_load(ctx->db, job->series_id, &dr);
	if (rc) {
		strbuf_addstr(&out->reason, rc > 0 ? "no such series" :
			      "the series cannot be read");
		return rc > 0 ? PIPELINE_FAIL : PIPELINE_RETRY;
	}
	strbuf_init(&d.why);
	prepare(&dr, ctx->cfg, &prep);
	settings(ctx->cfg, &rs);
	if (report_decide(&dr.s, &rs, &kind)) {
		log_info("report", "series %lld: nothing to report (%s)",
			 job->series_id, dr.s.status);
		if (settle_checks(ctx, &dr, &d.why))
			strbuf_addstr(&out->reason, d.why.buf);
		else
			res = PIPELINE_OK;
		goto out;
	}
	plan(ctx->cfg, &dr, &prep, kind, &p);
	if (store(ctx, &dr, kind, &p, &out->reason))
		goto out;
	if (deliver(ctx, job->series_id, &d)) {
		res = PIPELINE_INTERRUPTED;
		goto out;
	}
	checks_failed = final_checks(ctx, &dr, kind, &d.why);
	log_info("report", "series %lld: %s: %zu sent%s, %zu written, %zu "
		 "held, %zu waiting, %zu refused; in %.0f ms", job->series_id,
		 report_kind_str(kind), d.sent, d.unconfirmed ?
		 " (one not confirmed)" : "", d.written, d.held, d.pending,
		 d.failed, ms_since(&t0));
	if (d.failed) {
		strbuf_addstr(&out->reason, d.why.buf);
		res = PIPELINE_FAIL;
	} else if (d.pending || checks_failed) {
		strbuf_addf(&out->reason, "%zu of %zu notifications not "
			    "delivered yet%s%s", d.pending, d.pending + d.sent +
			    d.written + d.held, d.why.len ? ": " : "",
			    d.why.buf);
	} else {
		res = PIPELINE_OK;
	}
out:
	plan_release(&p);
	prep_release(&prep);
	strbuf_release(&d.why);
	db_report_release(&dr);
	return res;
}

/* One message of an mbox (mboxrd: a "From " line in it gets a '>'). */
static void mbox_write(FILE *f, const char *msg)
{
	const char *p = msg;

	fputs("From kregress@localhost Thu Jan  1 00:00:00 1970\n", f);
	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t gt = strspn(p, ">");

		if (!strncmp(p + gt, "From ", 5))
			fputc('>', f);
		fwrite(p, 1, n, f);
		fputc('\n', f);
		p += n + (p[n] == '\n');
	}
	fputc('\n', f);
}

int stage_report_show(struct db *db, const struct config *cfg,
		      long long series_id, FILE *f, struct strbuf *why)
{
	struct report_settings rs;
	struct db_report dr;
	struct prep prep;
	struct plan p = { .n = 0 };
	enum report_kind kind;
	size_t i;
	int rc, ret = -1;

	rc = db_report_load(db, series_id, &dr);
	if (rc) {
		if (rc > 0)
			error("report", "no series %lld", series_id);
		return -1;
	}
	prepare(&dr, cfg, &prep);
	settings(cfg, &rs);
	if (report_decide(&dr.s, &rs, &kind)) {
		strbuf_addf(why, "series %lld: nothing to report (%s)",
			    series_id, dr.s.status);
		ret = 1;
		goto out;
	}
	plan(cfg, &dr, &prep, kind, &p);
	for (i = 0; i < p.n; i++) {
		struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
		struct strbuf rcpt = STRBUF_INIT;
		struct report_hold hold = { 0, NULL };
		struct report_mail m;
		int is_copy = !strcmp(p.rows[i].role, "moderation");

		if (is_copy)
			row_recipients(&p.rows[0], &rcpt);
		hold.recipients = rcpt.buf;
		report_mail_init(&m);
		rc = compose(cfg, &dr, kind, &p.rows[i], is_copy ? &hold : NULL,
			     (long long)time(NULL), &m, &msg, &err);
		if (rc)
			error("report", "series %lld: %s", series_id, err.buf);
		else
			mbox_write(f, msg.buf);
		report_mail_release(&m);
		strbuf_release(&msg);
		strbuf_release(&err);
		strbuf_release(&rcpt);
		if (rc)
			goto out;
	}
	ret = 0;
out:
	plan_release(&p);
	prep_release(&prep);
	db_report_release(&dr);
	return ret;
}
