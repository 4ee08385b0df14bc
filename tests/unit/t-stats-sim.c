/*
 * t-stats-sim.c - false alarms and power of the design the daemon runs.
 *
 * The design is not restated here: it is config.example.json's (the
 * shipped configuration) as stage_run.c gives it to the runner
 * (options_stats(), options_max_per_side(); repeatable with instruction
 * time), the runner's own rounds (runner_round(), runner_budget(): one
 * ABBA block a round up to stats.max_boots_per_side) and its look after
 * each (analyze_set_look() on a stats_seq_init() design: every metric at
 * the alpha the spending function gives, decided when every primary
 * metric is decisive, a change only when p < alpha / k over the k primary
 * metrics).  The verdict is the analysis's: stage_analyze_options() and
 * analyze_set_final() from the run's recorded design and looks, then
 * analyze_adjust() (Holm within the run) for what a report calls a
 * change.  Only the boots are simulated: their values are drawn here,
 * one per boot.
 *
 * A/A, 5,000 runs per row: lognormal noise of CV 1, 3, 5 and 10%; a
 * bimodal mixture (70% in one mode, 30% in a second one 1.89 CV higher,
 * as THP availability makes boots differ); runs of four primary metrics
 * (the run goes on until all four are decisive, so each metric's looks
 * depend on the others); and instruction time, where a boot's value
 * repeats exactly and values sit on a grid (heavy ties: the permutation
 * null, and the untied null's interval when that cannot reach alpha,
 * stats_opts.repeatable).  Every significant verdict (regression,
 * improvement, likely-*, minor) is a false alarm: at most alpha of the
 * metrics; regression + improvement at most 1%; a run with a change its
 * report could call (a regression or improvement whose Holm p within the
 * run is below its alpha; report.c also asks for an interval that
 * excludes 0) at most alpha of the runs.
 *
 * Power: a 10% regression at CV 3% is a regression in >= 95% of 2,000
 * runs, with real time and with instruction time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analyze.h"
#include "config.h"
#include "options.h"
#include "runner.h"
#include "stage_analyze.h"
#include "stats.h"
#include "strbuf.h"
#include "tap.h"

#define METRICS_MAX	4
#define BOOTS_MAX	1000

enum noise { LOGNORMAL, BIMODAL, GRID };

struct cell {
	const char *name;
	enum noise noise;
	double cv;		/* GRID: the grid's step, a fraction */
	int metrics;		/* primary metrics per run */
	int repeatable;		/* instruction time */
};

static const struct config *cfg;

static double draw(gsl_rng *g, const struct cell *c, double scale)
{
	double s;

	switch (c->noise) {
	case LOGNORMAL:
		s = sqrt(log(1 + c->cv * c->cv));
		return scale * exp(gsl_ran_gaussian(g, s) - s * s / 2);
	case BIMODAL:
		/* Within-mode sd cv/2, modes 1.89 cv apart, 70/30. */
		if (gsl_rng_uniform(g) < 0.3)
			return scale * (1 + 1.89 * c->cv +
					gsl_ran_gaussian(g, c->cv / 2));
		return scale * (1 + gsl_ran_gaussian(g, c->cv / 2));
	case GRID:
		/* Most boots run the same instructions; some take one or
		 * two more steps of the grid (a page fault, a retry). */
		return scale * (1 + c->cv * gsl_ran_binomial(g, 0.2, 3));
	}
	return scale;
}

struct outcome {
	enum stats_verdict verdict[METRICS_MAX];
	int reported;		/* a change the run's report would call */
	size_t boots;		/* a side, at the end */
	size_t looks;
};

/* What stage_run.c gives the runner for cfg. */
static void design(const struct cell *c, struct runner_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->icount = c->repeatable;
	spec->max_per_side = options_max_per_side(cfg);
	options_stats(cfg, &spec->stats);
	spec->stats.repeatable = spec->icount;
}

/* One run of the daemon's design; shift is the patched side's change. */
static void run_one(gsl_rng *g, const struct cell *c, double shift,
		    struct outcome *out)
{
	struct analyze_metric *m[METRICS_MAX];
	struct analyze_set set;
	struct runner_spec spec;
	struct stats_seq seq;
	struct stats_opts o;
	struct strbuf err = STRBUF_INIT;
	enum analyze_fdr fdr;
	enum analyze_next next = ANALYZE_MORE;
	size_t looks[BOOTS_MAX], nlooks = 0, n = 0, k, i;
	char name[16];
	int j;

	design(c, &spec);
	spec.stats.bootstrap = 0;	/* a cross-check, never the verdict */
	analyze_set_init(&set);
	for (j = 0; j < c->metrics; j++) {
		snprintf(name, sizeof(name), "m%d", j);
		analyze_metric_get(&set, "sim", name, "{}", &err)->primary = 1;
	}
	/* Taken once the set has all of them (it grows by realloc). */
	for (j = 0; j < c->metrics; j++)
		m[j] = &set.m[j];
	stats_seq_init(&seq, spec.stats.alpha, runner_budget(&spec));
	while (next == ANALYZE_MORE && (k = runner_round(&spec, n)) &&
	       n + k <= BOOTS_MAX) {
		for (j = 0; j < c->metrics; j++)
			for (i = n; i < n + k; i++) {
				analyze_metric_push(m[j], ANALYZE_BASE,
						    (long long)i,
						    draw(g, c, 100));
				analyze_metric_push(m[j], ANALYZE_PATCHED,
						    (long long)i,
						    draw(g, c,
							 100 * (1 + shift)));
			}
		n += k;
		looks[nlooks++] = n;
		if (analyze_set_look(&set, &seq, n, &spec.stats, &next))
			next = ANALYZE_MORE;
	}
	/* The analysis of the stored run, from its recorded design. */
	stage_analyze_options(cfg, &o, &fdr);
	o.repeatable = c->repeatable;
	analyze_set_final(&set, &o, cfg->stats.alpha, spec.max_per_side,
			  looks, nlooks);
	analyze_adjust(&set, 1, fdr);
	out->reported = 0;
	for (j = 0; j < c->metrics; j++) {
		const struct analyze_metric *a = &set.m[j];
		enum stats_verdict v = a->compared ? a->r.verdict :
				       STATS_INSUFFICIENT_DATA;

		out->verdict[j] = v;
		if ((v == STATS_REGRESSION || v == STATS_IMPROVEMENT) &&
		    a->p_holm < a->r.alpha)
			out->reported = 1;
	}
	out->boots = n;
	out->looks = nlooks;
	analyze_set_release(&set);
	strbuf_release(&err);
}

static int significant(enum stats_verdict v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT ||
	       v == STATS_LIKELY_REGRESSION || v == STATS_LIKELY_IMPROVEMENT ||
	       v == STATS_MINOR;
}

static void aa(gsl_rng *g, const struct cell *c, int runs)
{
	int count[STATS_IMPROVEMENT + 1] = { 0 }, i, j, metrics = 0, sig = 0;
	int reported = 0;
	double boots = 0, alarm, rate;
	struct outcome out;

	for (i = 0; i < runs; i++) {
		run_one(g, c, 0, &out);
		boots += out.boots;
		reported += out.reported;
		for (j = 0; j < c->metrics; j++) {
			count[out.verdict[j]]++;
			sig += significant(out.verdict[j]);
			metrics++;
		}
	}
	alarm = (double)(count[STATS_REGRESSION] +
			 count[STATS_IMPROVEMENT]) / metrics;
	rate = (double)sig / metrics;
	diag("%-22s %5.1f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%% "
	     "%5.1f", c->name, c->cv * 100, alarm * 100,
	     100.0 * (count[STATS_LIKELY_REGRESSION] +
		      count[STATS_LIKELY_IMPROVEMENT]) / metrics,
	     100.0 * count[STATS_MINOR] / metrics,
	     100.0 * count[STATS_NO_CHANGE] / metrics,
	     100.0 * count[STATS_INCONCLUSIVE] / metrics,
	     100.0 * count[STATS_INSUFFICIENT_DATA] / metrics, boots / runs);
	ok(rate <= cfg->stats.alpha, "A/A %s %.1f%%: significant (regression, "
	   "improvement, likely-*, minor) in %.2f%% <= alpha %g", c->name,
	   c->cv * 100, rate * 100, cfg->stats.alpha);
	ok(alarm <= 0.01, "A/A %s %.1f%%: regression + improvement in %.2f%% "
	   "<= 1%%", c->name, c->cv * 100, alarm * 100);
	ok(reported <= cfg->stats.alpha * runs, "A/A %s %.1f%%: a change "
	   "Holm confirms within the run in %.2f%% of the runs <= alpha %g",
	   c->name, c->cv * 100, 100.0 * reported / runs, cfg->stats.alpha);
}

static void power(gsl_rng *g, const struct cell *c, int runs)
{
	int reg = 0, i;
	double boots = 0;
	struct outcome out;

	for (i = 0; i < runs; i++) {
		run_one(g, c, 0.10, &out);
		reg += out.verdict[0] == STATS_REGRESSION;
		boots += out.boots;
	}
	diag("%-22s regression %.2f%%, mean boots per side %.1f", c->name,
	     100.0 * reg / runs, boots / runs);
	ok(reg >= 0.95 * runs, "power %s: +10%% is a regression in %.2f%% "
	   ">= 95%%", c->name, 100.0 * reg / runs);
}

int main(void)
{
	static const struct cell aa_cells[] = {
		{ "lognormal", LOGNORMAL, 0.01, 1, 0 },
		{ "lognormal", LOGNORMAL, 0.03, 1, 0 },
		{ "lognormal", LOGNORMAL, 0.05, 1, 0 },
		{ "lognormal", LOGNORMAL, 0.10, 1, 0 },
		{ "bimodal", BIMODAL, 0.01, 1, 0 },
		{ "bimodal", BIMODAL, 0.03, 1, 0 },
		{ "bimodal", BIMODAL, 0.05, 1, 0 },
		{ "bimodal", BIMODAL, 0.10, 1, 0 },
		{ "lognormal, 4 metrics", LOGNORMAL, 0.03, 4, 0 },
		{ "instructions, grid", GRID, 0.001, 1, 1 },
		{ "instructions, grid", GRID, 0.01, 1, 1 },
		{ "instructions, grid", GRID, 0.05, 1, 1 },
		{ "instructions, 4 metrics", GRID, 0.01, 4, 1 },
	};
	static const struct cell power_cells[] = {
		{ "lognormal CV 3%", LOGNORMAL, 0.03, 1, 0 },
		{ "bimodal CV 3%", BIMODAL, 0.03, 1, 0 },
		{ "instructions, grid 1%", GRID, 0.01, 1, 1 },
	};
	const char *src = getenv("KREGRESS_SRC");
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct config *c = NULL;
	struct runner_spec spec;
	gsl_rng *g;
	size_t i;

	strbuf_addf(&path, "%s/config.example.json", src ? src : ".");
	if (config_load(path.buf, &c, &err)) {
		ok(0, "%s: %s", path.buf, err.buf);
		return done_testing();
	}
	cfg = c;
	design(&aa_cells[0], &spec);
	g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 20261129);
	diag("the design of %s: rounds of %zu boots a side up to %zu, "
	     "alpha %g, T %g%%, at least %zu boots a side", path.buf,
	     runner_round(&spec, 0), runner_budget(&spec), spec.stats.alpha, spec.stats.threshold * 100,
	     spec.stats.min_samples);
	diag("%-22s %6s %8s %8s %8s %8s %8s %8s %5s", "A/A, 5,000 runs",
	     "CV", "reg+imp", "likely", "minor", "no-chg", "inconcl",
	     "insuff", "boots");
	for (i = 0; i < sizeof(aa_cells) / sizeof(aa_cells[0]); i++)
		aa(g, &aa_cells[i], 5000);
	diag("power: +10%%, 2,000 runs");
	for (i = 0; i < sizeof(power_cells) / sizeof(power_cells[0]); i++)
		power(g, &power_cells[i], 2000);
	gsl_rng_free(g);
	config_free(c);
	strbuf_release(&path);
	strbuf_release(&err);
	return done_testing();
}
