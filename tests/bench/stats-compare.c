/*
 * stats-compare.c - how long one metric's comparison takes at scale.
 *
 * Compares 2 x 10,000 lognormal samples (CV 5%, +2% shift) with every
 * statistic of stats_compare_samples, including 2,000 bootstrap
 * resamples, and prints milliseconds of CPU time of this thread (the
 * development box is shared, wall time mostly measures the neighbours;
 * best and median of 7 runs) and the
 * share of each part.  For scale it also times the textbook bootstrap
 * (resample, then select the median) on 100 resamples, extrapolated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"

#define N	10000
#define RUNS	7

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double best_median(double *t, int n, double *med)
{
	qsort(t, n, sizeof(*t), cmp);
	*med = t[n / 2];
	return t[0];
}

int main(void)
{
	static double base[N], new[N], buf[N];
	double t_all[RUNS], t_mw[RUNS], t_wl[RUNS], t_hl[RUNS], t_bs[RUNS];
	double s = sqrt(log(1 + 0.05 * 0.05)), t0, med, best, naive;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_result r;
	struct stats_opts o;
	struct stats_mw mw;
	struct stats_welch wl;
	struct stats_hl hl;
	struct stats_boot bs;
	int i, k;

	gsl_rng_set(g, 3);
	for (i = 0; i < N; i++) {
		base[i] = 1000 * exp(gsl_ran_gaussian(g, s));
		new[i] = 1020 * exp(gsl_ran_gaussian(g, s));
	}
	stats_opts_init(&o);
	o.bootstrap = 2000;
	for (k = 0; k < RUNS; k++) {
		t0 = now_ms();
		stats_compare_samples(base, N, new, N, &o, &r);
		t_all[k] = now_ms() - t0;
		t0 = now_ms();
		stats_mann_whitney(base, N, new, N, &mw);
		t_mw[k] = now_ms() - t0;
		t0 = now_ms();
		stats_welch_log(base, N, new, N, 0.05, &wl);
		t_wl[k] = now_ms() - t0;
		t0 = now_ms();
		stats_hodges_lehmann(base, N, new, N, 0.05, &hl);
		t_hl[k] = now_ms() - t0;
		t0 = now_ms();
		stats_bootstrap_median_ratio(base, N, new, N, 0.05, 2000, 1,
					     &bs);
		t_bs[k] = now_ms() - t0;
	}
	printf("stats-compare: 2 x %d samples, %d bootstrap resamples, "
	       "%d runs\n", N, o.bootstrap, RUNS);
	best = best_median(t_all, RUNS, &med);
	printf("  whole comparison        %8.2f ms best, %8.2f ms median "
	       "(target <= 50 ms)\n", best, med);
	best = best_median(t_mw, RUNS, &med);
	printf("  Mann-Whitney U          %8.2f ms best, %8.2f ms median\n",
	       best, med);
	best = best_median(t_wl, RUNS, &med);
	printf("  Welch on logs           %8.2f ms best, %8.2f ms median\n",
	       best, med);
	best = best_median(t_hl, RUNS, &med);
	printf("  Hodges-Lehmann + CI     %8.2f ms best, %8.2f ms median "
	       "(10^8 pairs, none stored)\n", best, med);
	best = best_median(t_bs, RUNS, &med);
	printf("  bootstrap (2000)        %8.2f ms best, %8.2f ms median\n",
	       best, med);

	/* The textbook bootstrap: resample both sides, sort, take medians. */
	t0 = now_ms();
	for (k = 0; k < 100; k++) {
		double mb, mn;

		for (i = 0; i < N; i++)
			buf[i] = new[gsl_rng_uniform_int(g, N)];
		mn = median_of(buf, N);
		for (i = 0; i < N; i++)
			buf[i] = base[gsl_rng_uniform_int(g, N)];
		mb = median_of(buf, N);
		(void)(mn / mb);
	}
	naive = (now_ms() - t0) * 20;
	printf("  textbook bootstrap      %8.2f ms for 2000 (extrapolated "
	       "from 100): %.0fx slower\n", naive, naive / med);
	printf("  result: %s, change %+.2f%% [%+.2f%%, %+.2f%%], HL shift "
	       "%.2f, bootstrap BCa [%.4f, %.4f]\n",
	       stats_verdict_str(r.verdict), r.change * 100, r.ci_lo * 100,
	       r.ci_hi * 100, r.hl.shift, r.boot.lo_bca, r.boot.hi_bca);
	gsl_rng_free(g);
	return 0;
}
