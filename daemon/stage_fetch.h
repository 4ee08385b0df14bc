/*
 * stage_fetch.h - the pipeline's fetch stage: a series' URL or submitted
 * mbox becomes its parsed revision and patch rows.
 *
 * The same code as `kregress series parse` (fetch.c, mail.c, series.c):
 * the URL is fetched under the configuration's allowlist and limits, the
 * thread is grouped into revisions, and the revision the series names is
 * stored (the newest when the row was never parsed, as for a submitted
 * URL).  The fetched mbox is stored with the series, so that later stages
 * and retries see the same bytes even if the thread grows.
 *
 * The stored revision is linked to its previous version; a complete one
 * takes that version's trailers of unchanged patches and supersedes older
 * versions still in the pipeline (db_versions.h), or is superseded itself
 * when a newer complete version is there already.
 *
 * Whatever its source (a submitted mbox, a URL, the list watcher's
 * series), the mbox passes mail_box_check(), the API's own check of a
 * submitted body, before it is read: an mbox with a NUL byte is
 * fetch-failed saying where the NUL is.
 *
 * Outcomes: PIPELINE_OK (series "fetched", next "apply"); PIPELINE_FAIL
 * with status "superseded" (a newer version, named in the reason),
 * "incomplete" (missing patches, named in the reason, with the messages
 * skipped as too large or not mail) or "fetch-failed" (refused URL, an
 * HTTP 4xx, an answer over a cap, a NUL byte, no patch, a pull request
 * instead of patches, unreadable mbox: the reason names which);
 * PIPELINE_RETRY when fetching again may work (HTTP 5xx, 408 or 429, a
 * timeout, no route to the server), the cause in the reason.
 */
#ifndef KREGRESS_STAGE_FETCH_H
#define KREGRESS_STAGE_FETCH_H

#include "pipeline.h"

enum pipeline_result stage_fetch(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out);

#endif
