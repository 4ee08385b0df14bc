/*
 * options.h - the configuration turned into each module's options, in one
 * place, so that the stages, the watcher and the API hand stats.c, mail.c,
 * fetch.c and allowlist.c the same values.  The configuration is one that
 * config_load() accepted: its values are in range, with its defaults.
 */
#ifndef KREGRESS_OPTIONS_H
#define KREGRESS_OPTIONS_H

#include <stddef.h>

struct calib_design;
struct config;
struct fetch_options;
struct mail_limits;
struct stats_opts;

/*
 * stats.c's options from stats.* (threshold, alpha, min_samples); the rest
 * are stats_opts_init()'s.  A NULL cfg gives stats_opts_init()'s alone.
 */
void options_stats(const struct config *cfg, struct stats_opts *o);

/* The adaptive design's budget: stats.max_boots_per_side. */
size_t options_max_per_side(const struct config *cfg);

/*
 * calib.c's design of the runs a calibration stands for: the stats
 * options and budget above (bootstrap off, as calib_design_init() has it),
 * calibration.simulations resampled runs, calib_design_init()'s rest.
 */
void options_calib_design(const struct config *cfg, struct calib_design *d);

/* mail.c's limits for an mbox from limits.* (keep_raw left 0). */
void options_mail_limits(const struct config *cfg, struct mail_limits *lim);

/*
 * url_allowlist as allowlist_check() takes it: a NULL-terminated array of
 * the configuration's strings (borrowed); free() the array alone.
 */
const char **options_allowlist(const struct config *cfg);

/*
 * fetch.c's options: fetch_options_init()'s, with allow (an
 * options_allowlist(), borrowed) and a body cap of the larger of
 * limits.max_body_bytes and limits.max_mbox_bytes.
 */
void options_fetch(const struct config *cfg, const char *const *allow,
		   struct fetch_options *fo);

#endif
