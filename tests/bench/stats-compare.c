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
 *
 * Then the null distribution of Mann-Whitney's U at the sizes the service
 * sees: one verdict (test, p, Hodges-Lehmann interval; no bootstrap) at
 * 5 x 80, 50 x 50, 150 x 150, 200 x 200 and 1000 x 1000 without ties, and
 * 50 x 50, 5 x 1000 with ties; CPU time and the peak heap the null
 * distribution took (stats_mw.null_bytes: Harding's m n / 2 + 1 doubles,
 * the inversion's terms and work arrays, the permutation table).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"

#define N	10000
#define RUNS	7	/* 1 in smoke mode (KREGRESS_BENCH_SMOKE) */

static int runs = RUNS;

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

/* One verdict at m x n (lognormal, +2%; integers 0..9 with ties). */
static void null_case(gsl_rng *g, size_t m, size_t n, int ties)
{
	double *x = malloc(m * sizeof(*x)), *y = malloc(n * sizeof(*y));
	double t[RUNS], best, med, bytes, t0;
	size_t i;
	struct stats_result r;
	struct stats_opts o;
	int k;

	for (i = 0; i < m; i++)
		x[i] = ties ? 1 + gsl_rng_uniform_int(g, 10) :
			      1000 * exp(gsl_ran_gaussian(g, 0.05));
	for (i = 0; i < n; i++)
		y[i] = ties ? 1 + gsl_rng_uniform_int(g, 10) :
			      1020 * exp(gsl_ran_gaussian(g, 0.05));
	stats_opts_init(&o);
	o.bootstrap = 0;
	for (k = 0; k < runs; k++) {
		t0 = now_ms();
		stats_compare_samples(x, m, y, n, &o, &r);
		t[k] = now_ms() - t0;
	}
	best = best_median(t, runs, &med);
	bytes = r.mw.null_bytes;
	printf("  %4zu x %-4zu %-8s %-11s %9.3f ms best, %9.3f ms median, "
	       "null %7.0f KiB; p %.3g, %s\n", m, n, ties ? "ties" :
	       "no ties", r.mw.method, best, med, bytes / 1024, r.p,
	       stats_verdict_str(r.verdict));
	free(x);
	free(y);
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

	if (getenv("KREGRESS_BENCH_SMOKE"))
		runs = 1;
	gsl_rng_set(g, 3);
	for (i = 0; i < N; i++) {
		base[i] = 1000 * exp(gsl_ran_gaussian(g, s));
		new[i] = 1020 * exp(gsl_ran_gaussian(g, s));
	}
	stats_opts_init(&o);
	o.bootstrap = 2000;
	for (k = 0; k < runs; k++) {
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
	       "%d runs\n", N, o.bootstrap, runs);
	best = best_median(t_all, runs, &med);
	printf("  whole comparison        %8.2f ms best, %8.2f ms median "
	       "(target <= 50 ms)\n", best, med);
	best = best_median(t_mw, runs, &med);
	printf("  Mann-Whitney U          %8.2f ms best, %8.2f ms median\n",
	       best, med);
	best = best_median(t_wl, runs, &med);
	printf("  Welch on logs           %8.2f ms best, %8.2f ms median\n",
	       best, med);
	best = best_median(t_hl, runs, &med);
	printf("  Hodges-Lehmann + CI     %8.2f ms best, %8.2f ms median "
	       "(10^8 pairs, none stored)\n", best, med);
	best = best_median(t_bs, runs, &med);
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
	printf("  result: %s, HL change %+.2f%% [%+.2f%%, %+.2f%%] (%s null), "
	       "bootstrap BCa [%.4f, %.4f]\n",
	       stats_verdict_str(r.verdict), r.change * 100, r.ci_lo * 100,
	       r.ci_hi * 100, r.mw.method, r.boot.lo_bca, r.boot.hi_bca);
	printf("Mann-Whitney null distribution, one verdict (test, p, HL "
	       "interval), CPU time of %d runs:\n", runs);
	null_case(g, 5, 80, 0);
	null_case(g, 50, 50, 0);
	null_case(g, 150, 150, 0);
	null_case(g, 200, 200, 0);
	null_case(g, 1000, 1000, 0);
	null_case(g, 50, 50, 1);
	null_case(g, 5, 1000, 1);
	gsl_rng_free(g);
	return 0;
}
