/*
 * options.c - the configuration turned into each module's options (see
 * options.h).
 */
#include <string.h>

#include "alloc.h"
#include "calib.h"
#include "config.h"
#include "fetch.h"
#include "mail.h"
#include "options.h"
#include "stats.h"

void options_stats(const struct config *cfg, struct stats_opts *o)
{
	stats_opts_init(o);
	if (!cfg)
		return;
	o->threshold = cfg->stats.threshold_pct / 100;
	o->alpha = cfg->stats.alpha;
	o->min_samples = (size_t)cfg->stats.min_samples;
}

size_t options_max_per_side(const struct config *cfg)
{
	return (size_t)cfg->stats.max_boots_per_side;
}

void options_calib_design(const struct config *cfg, struct calib_design *d)
{
	calib_design_init(d);
	options_stats(cfg, &d->stats);
	d->stats.bootstrap = 0;
	d->budget = options_max_per_side(cfg);
	d->simulations = (size_t)cfg->calibration.simulations;
}

void options_mail_limits(const struct config *cfg, struct mail_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_bytes = cfg->limits.max_mbox_bytes;
	lim->max_messages = (size_t)cfg->limits.max_messages;
}

const char **options_allowlist(const struct config *cfg)
{
	const char **allow = xcalloc(cfg->n_url_allowlist + 1,
				     sizeof(*allow));
	size_t i;

	for (i = 0; i < cfg->n_url_allowlist; i++)
		allow[i] = cfg->url_allowlist[i];
	return allow;
}

void options_fetch(const struct config *cfg, const char *const *allow,
		   struct fetch_options *fo)
{
	fetch_options_init(fo);
	fo->allow = allow;
	if (cfg->limits.max_body_bytes)
		fo->max_bytes = cfg->limits.max_body_bytes;
	if (cfg->limits.max_mbox_bytes > fo->max_bytes)
		fo->max_bytes = cfg->limits.max_mbox_bytes;
}
