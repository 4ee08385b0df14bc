/*
 * t-options.c - the configuration as the modules' options: the run
 * stage's adaptive stop and the analysis read the same statistics
 * options, the configuration's defaults, and the mail limits and the
 * allowlist are the file's.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "config.h"
#include "mail.h"
#include "options.h"
#include "stage_analyze.h"
#include "stats.h"
#include "strbuf.h"
#include "tap.h"

static struct config *parse(const char *json)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;

	if (config_parse(json, strlen(json), "/etc/kr/config.json", &cfg,
			 &err))
		diag("%s", err.buf);
	strbuf_release(&err);
	return cfg;
}

int main(void)
{
	struct config *cfg = parse("{\"hosts\": []}");
	struct stats_opts run, analysis;
	struct mail_limits lim;
	enum analyze_fdr fdr;
	const char **allow;

	if (!ok(cfg != NULL, "the defaults"))
		return done_testing();
	options_stats(cfg, &run);
	stage_analyze_options(cfg, &analysis, &fdr);
	is_int((long long)run.min_samples, 5, "min_samples is the file's 5");
	is_int((long long)analysis.min_samples, (long long)run.min_samples,
	       "the analysis has the run's min_samples");
	is_double(analysis.alpha, run.alpha, 0, "and its alpha");
	is_double(analysis.threshold, run.threshold, 0, "and its threshold");
	is_int((long long)options_max_per_side(cfg), 20,
	       "the budget is the file's default of 20 boots a side");
	options_mail_limits(cfg, &lim);
	is_int((long long)lim.max_messages, cfg->limits.max_messages,
	       "mail limits: the file's max_messages");
	allow = options_allowlist(cfg);
	is_str(allow[0], "https://lore.kernel.org/", "the allowlist's first");
	ok(allow[cfg->n_url_allowlist] == NULL, "NULL-terminated");
	free(allow);
	config_free(cfg);

	cfg = parse("{\"hosts\": [], \"stats\": {\"min_samples\": 7, "
		    "\"max_boots_per_side\": 9, \"threshold_pct\": 5}, "
		    "\"limits\": {\"max_messages\": 40}}");
	if (!ok(cfg != NULL, "a file with its own"))
		return done_testing();
	options_stats(cfg, &run);
	stage_analyze_options(cfg, &analysis, &fdr);
	is_int((long long)run.min_samples, 7, "min_samples 7");
	is_int((long long)analysis.min_samples, 7, "in the analysis too");
	is_double(run.threshold, 0.05, 1e-12, "threshold 5 %%");
	is_int((long long)options_max_per_side(cfg), 9, "budget 9");
	options_mail_limits(cfg, &lim);
	is_int((long long)lim.max_messages, 40, "max_messages 40");
	config_free(cfg);
	return done_testing();
}
