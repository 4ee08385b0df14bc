/*
 * t-stats-sim.c - false alarms and power of the adaptive verdicts.
 *
 * Seeded simulation of what the daemon does with boots: start with 5
 * boots per side, add rounds of 5 while the verdict is not decisive, stop
 * at a budget of 20 per side, each look at the alpha the spending function
 * gives it (stats_seq_*).
 *
 * A/A: 10,000 comparisons per cell, CV 1, 3, 5 and 10%, lognormal noise
 * and a bimodal mixture (70% in one mode, 30% in a second one 1.9 CV
 * higher, which a boot-to-boot effect such as THP availability produces).
 * The rate of regression + improvement verdicts must stay <= 1%.
 * Power: a 10% regression at CV 3% must give "regression" in >= 95% of
 * 2,000 runs within the budget.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"
#include "tap.h"

#define N0	5
#define STEP	5
#define BUDGET	20

enum noise { LOGNORMAL, BIMODAL };

static double draw(gsl_rng *g, enum noise k, double cv, double scale)
{
	if (k == LOGNORMAL) {
		double s = sqrt(log(1 + cv * cv));

		return scale * exp(gsl_ran_gaussian(g, s) - s * s / 2);
	}
	/* Mixture: within-mode sd cv/2, modes 1.89 cv apart, 70/30. */
	if (gsl_rng_uniform(g) < 0.3)
		return scale * (1 + 1.89 * cv + gsl_ran_gaussian(g, cv / 2));
	return scale * (1 + gsl_ran_gaussian(g, cv / 2));
}

/* One adaptive comparison; returns the final verdict and samples used. */
static enum stats_verdict run_one(gsl_rng *g, enum noise k, double cv,
				  double shift, size_t *used,
				  unsigned int *flags)
{
	double base[BUDGET], new[BUDGET];
	struct stats_result r;
	struct stats_opts o;
	struct stats_seq s;
	size_t n = 0, i;

	stats_opts_init(&o);
	o.bootstrap = 0;	/* a cross-check, not part of the verdict */
	stats_seq_init(&s, o.alpha, BUDGET);
	for (;;) {
		size_t add = n ? STEP : N0;

		for (i = n; i < n + add; i++) {
			base[i] = draw(g, k, cv, 100);
			new[i] = draw(g, k, cv, 100 * (1 + shift));
		}
		n += add;
		o.alpha = stats_seq_look(&s, n);
		if (stats_compare_samples(base, n, new, n, &o, &r) < 0)
			return STATS_INSUFFICIENT_DATA;
		if (stats_seq_should_stop(&s, &r, n))
			break;
	}
	*used = n;
	*flags = r.flags;
	return r.verdict;
}

int main(void)
{
	static const double cvs[] = { 0.01, 0.03, 0.05, 0.10 };
	static const char *noise_name[] = { "lognormal", "bimodal" };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	int runs = 10000, power_runs = 2000, k, c, i;

	gsl_rng_set(g, 20261129);
	diag("A/A, %d adaptive comparisons per row (5 + 5 + ... <= %d "
	     "boots per side, Pocock-type alpha spending, alpha 0.05, "
	     "T 3%%)", runs, BUDGET);
	diag("%-9s %5s %8s %8s %8s %8s %8s %8s %7s %7s", "noise", "CV",
	     "reg+imp", "likely", "minor", "no-chg", "inconcl", "insuff",
	     "noisy", "boots");
	for (k = 0; k < 2; k++) {
		for (c = 0; c < 4; c++) {
			int count[STATS_IMPROVEMENT + 1] = { 0 }, noisy = 0;
			double boots = 0, alarm;

			for (i = 0; i < runs; i++) {
				size_t used = 0;
				unsigned int fl = 0;
				enum stats_verdict v;

				v = run_one(g, k, cvs[c], 0, &used, &fl);
				count[v]++;
				boots += used;
				noisy += !!(fl & STATS_FLAG_NOISY);
			}
			alarm = (double)(count[STATS_REGRESSION] +
					 count[STATS_IMPROVEMENT]) / runs;
			diag("%-9s %4.0f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%% "
			     "%7.2f%% %7.2f%% %6.1f%% %7.1f",
			     noise_name[k], cvs[c] * 100, alarm * 100,
			     100.0 * (count[STATS_LIKELY_REGRESSION] +
				      count[STATS_LIKELY_IMPROVEMENT]) / runs,
			     100.0 * count[STATS_MINOR] / runs,
			     100.0 * count[STATS_NO_CHANGE] / runs,
			     100.0 * count[STATS_INCONCLUSIVE] / runs,
			     100.0 * count[STATS_INSUFFICIENT_DATA] / runs,
			     100.0 * noisy / runs, boots / runs);
			ok(alarm <= 0.01, "A/A %s CV %.0f%%: regression + "
			   "improvement in %.2f%% <= 1%%", noise_name[k],
			   cvs[c] * 100, alarm * 100);
		}
	}

	diag("power: +10%% at CV 3%%, %d runs, budget %d boots per side",
	     power_runs, BUDGET);
	for (k = 0; k < 2; k++) {
		int reg = 0, any = 0;
		double boots = 0;

		for (i = 0; i < power_runs; i++) {
			size_t used = 0;
			unsigned int fl = 0;
			enum stats_verdict v;

			v = run_one(g, k, 0.03, 0.10, &used, &fl);
			reg += v == STATS_REGRESSION;
			any += v == STATS_REGRESSION ||
			       v == STATS_LIKELY_REGRESSION;
			boots += used;
		}
		diag("%-9s regression %.2f%%, regression or likely %.2f%%, "
		     "mean boots per side %.1f", noise_name[k],
		     100.0 * reg / power_runs, 100.0 * any / power_runs,
		     boots / power_runs);
		ok(reg >= 0.95 * power_runs, "power %s: +10%% at CV 3%% is a "
		   "regression in %.2f%% >= 95%%", noise_name[k],
		   100.0 * reg / power_runs);
	}
	gsl_rng_free(g);
	return done_testing();
}
