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
 * Outcomes: PIPELINE_OK (series "fetched", next "apply"); PIPELINE_FAIL
 * with status "superseded" (a newer version, named in the reason),
 * "incomplete" (missing patches, named in the reason) or
 * "fetch-failed" (refused URL, no patch, a pull request instead of
 * patches, unreadable mbox: series_status_reason() says which);
 * PIPELINE_RETRY when the fetch failed (network, HTTP error, timeout).
 */
#ifndef KREGRESS_STAGE_FETCH_H
#define KREGRESS_STAGE_FETCH_H

#include "pipeline.h"

enum pipeline_result stage_fetch(struct pipeline_ctx *ctx,
					const struct job *job,
					struct pipeline_outcome *out);

#endif
