/*
 * stage_report.h - the pipeline's report stage: the verdict goes to the
 * people it is for, once, and to patchwork.
 *
 * The kind of report (report.c) comes from the series' comparisons or
 * from its failure (does-not-apply, build-failed, boot-failed: those
 * stages queue a report job when they fail, pipeline.c).  The policy of
 * the configuration's mail section decides who gets it:
 *
 *   policy "outbox" (the default)  an .eml file in mail.outbox_dir, To and
 *                                  Cc as "list" would choose; nothing is
 *                                  sent
 *   policy "moderate"              every report to moderation_address
 *   policy "list"                  mail.recipients[kind]: outbox,
 *                                  moderation, author, or thread (the
 *                                  author and the thread's To and Cc, on
 *                                  a list of opt_in_lists only; on any
 *                                  other list the moderation address)
 *
 * A significant report (regression, improvement) to a thread is held
 * when mail.moderate_significant is set (the default): the moderation
 * address gets a copy that says how to release it, and `kregress report
 * release ID` (POST /api/v1/notifications/ID/release) sends it.
 *
 * Exactly once: every notification row, with its whole message (Date
 * and Message-ID included), is written in one transaction before the
 * first byte is sent.  A delivery marks its row "sending", then
 * "handed" when the whole message is with the SMTP server (smtp.h), then
 * "sent".  After a crash, the job runs again (lease recovery): a
 * "sending" row is sent again (the server cannot have accepted a message
 * it did not get to the end of); a "handed" row is taken as sent, with a
 * reason that says it is not confirmed, and is never sent twice; an
 * outbox row whose file exists is "written".  A transient SMTP failure
 * leaves the row pending and the job retries with the queue's
 * exponential backoff, up to STAGE_REPORT_ATTEMPTS attempts (about a
 * day); a 5xx fails the row and the series.
 *
 * Patchwork: a series whose source URL is under one of mail.patchwork's
 * instances gets a check per patch and arch (context kregress-ARCH):
 * pending when the arch's run starts (stage_report_run_started()), then
 * success, warning or fail (report_check_state()), never pending again
 * after a final state; failed posts are retried with the mail.
 *
 * Outcomes: PIPELINE_OK (series "done") when every notification is sent,
 * written or held, and every check posted; PIPELINE_RETRY while some wait
 * for another attempt; PIPELINE_FAIL when a mail was refused for good.
 * A series with nothing to report (no comparisons) is done at once.
 */
#ifndef KREGRESS_STAGE_REPORT_H
#define KREGRESS_STAGE_REPORT_H

#include <stdio.h>

#include "pipeline.h"

/* Attempts of a report job: 30 with the queue's backoff is about a day. */
#define STAGE_REPORT_ATTEMPTS	30

enum pipeline_result stage_report(struct pipeline_ctx *ctx,
				  const struct job *job,
				  struct pipeline_outcome *out);

/*
 * The run stage calls this when the run of arch starts: for a series
 * from a configured patchwork instance, posts a pending check of arch on
 * every patch (once; a failure is logged and left to the report stage).
 */
void stage_report_run_started(struct pipeline_ctx *ctx, long long series_id,
			      const char *arch);

/*
 * `kregress report show`: writes the mails the stage would store for
 * the series now, as an mbox, to f; nothing is stored or sent.  0, 1
 * when the series has nothing to report (reason in why), -1 (logged).
 */
int stage_report_show(struct db *db, const struct config *cfg,
		      long long series_id, FILE *f, struct strbuf *why);

#endif
