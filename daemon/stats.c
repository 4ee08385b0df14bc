/*
 * stats.c - significance tests, intervals and verdicts (see stats.h).
 *
 * The only GSL user of the tree: t and normal quantiles, the binomial
 * coefficient and the seeded generator of the bootstrap come from GSL.
 *
 * Design notes:
 * - The exact null distribution of Mann-Whitney's U is the coefficient
 *   list of the Gaussian binomial [m+n choose m]_q, built factor by factor
 *   as prod (1 - q^(n+i)) / (1 - q^i) and truncated at the degree needed:
 *   O(min(m,n) * u) operations and one array, where the textbook recursion
 *   needs a table of m * n * (m*n).  Checked against exact integers for
 *   m = n = 49: relative error below 1e-15 in the lower half.
 * - Hodges-Lehmann needs order statistics of m*n pairwise differences
 *   (10^8 pairs for 2 x 10,000 samples).  Counting the pairs <= v is linear
 *   with two pointers over the sorted samples, because fl(y - x) is
 *   monotone in both arguments; bisection over the 2^64 ordered doubles
 *   then finds the exact k-th difference in at most 64 counts.
 * - The bootstrap needs the median of each resample.  A resample of a
 *   sorted sample puts Binomial(c, w) of its c draws in the left part of
 *   any split of weight w, so the rank-r element of the resample is found
 *   by descending a binary split of the indices: O(log n) binomial draws,
 *   exactly the distribution of "resample, sort, take the median".
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

#include "log.h"
#include "stats.h"

/* Beyond this, the exact U distribution is not used. */
#define MW_EXACT_MAX	50

const char *stats_direction_str(enum stats_direction d)
{
	return d == STATS_HIGHER_IS_BETTER ? "higher-is-better" :
					     "lower-is-better";
}

int stats_direction_parse(const char *s, enum stats_direction *out)
{
	if (!strcmp(s, "lower") || !strcmp(s, "lower-is-better")) {
		*out = STATS_LOWER_IS_BETTER;
		return 0;
	}
	if (!strcmp(s, "higher") || !strcmp(s, "higher-is-better")) {
		*out = STATS_HIGHER_IS_BETTER;
		return 0;
	}
	return -1;
}

const char *stats_verdict_str(enum stats_verdict v)
{
	switch (v) {
	case STATS_INSUFFICIENT_DATA:	return "insufficient-data";
	case STATS_INCONCLUSIVE:	return "inconclusive";
	case STATS_NO_CHANGE:		return "no-change";
	case STATS_MINOR:		return "minor";
	case STATS_LIKELY_REGRESSION:	return "likely-regression";
	case STATS_LIKELY_IMPROVEMENT:	return "likely-improvement";
	case STATS_REGRESSION:		return "regression";
	case STATS_IMPROVEMENT:		return "improvement";
	}
	return "?";
}

void stats_opts_init(struct stats_opts *o)
{
	o->threshold = 0.03;
	o->alpha = 0.05;
	o->min_samples = 3;
	o->bootstrap = 2000;
	o->seed = 1;
	o->noisy_cv = 0.10;
	o->noisy_cv_ratio = 3;
	o->suspicious_cv_ratio = 10;
	o->direction = STATS_LOWER_IS_BETTER;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		die("stats", "out of memory");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*var = n > 1 ? ss / (n - 1) : NAN;
}

/*
 * Counts of U = 0..umax under the null for sizes m, n (any order), in
 * cnt[0..umax]; the total is C(m+n, m).
 */
static void mw_counts(size_t m, size_t n, size_t umax, double *cnt)
{
	size_t i, u, k;

	if (m > n) {
		k = m;
		m = n;
		n = k;
	}
	memset(cnt, 0, (umax + 1) * sizeof(*cnt));
	cnt[0] = 1;
	for (i = 1; i <= m; i++) {
		for (u = i; u <= umax; u++)
			cnt[u] += cnt[u - i];
		if (umax < n + i)
			continue;
		for (u = umax; u >= n + i; u--)
			cnt[u] -= cnt[u - n - i];
	}
}

double stats_mw_cdf(double u, size_t m, size_t n)
{
	double *cnt, sum = 0, total;
	size_t umax, k;

	if (!m || !n || (double)m * n > 1e7)
		return NAN;
	if (u < 0)
		return 0;
	if (u >= (double)m * n)
		return 1;
	umax = (size_t)floor(u);
	/* Symmetric distribution: sum the shorter tail. */
	if (umax > m * n / 2)
		return 1 - stats_mw_cdf((double)(m * n - umax - 1), m, n);
	cnt = malloc((umax + 1) * sizeof(*cnt));
	if (!cnt)
		die("stats", "out of memory");
	mw_counts(m, n, umax, cnt);
	for (k = 0; k <= umax; k++)
		sum += cnt[k];
	total = gsl_sf_choose(m + n, m);
	free(cnt);
	return sum / total;
}

/*
 * Walks the two sorted samples as one pooled sorted sample: the rank sum
 * of x (average ranks for ties) and the tie-corrected sigma of U under
 * the null; *ties is set if any value repeats.
 */
static double rank_stats(const double *x, size_t m, const double *y,
			 size_t n, double *rank_sum_x, int *ties)
{
	size_t i = 0, j = 0;
	double tie = 0, N = (double)m + n, rank = 0, rs = 0;

	*ties = 0;
	while (i < m || j < n) {
		double v = j >= n || (i < m && x[i] <= y[j]) ? x[i] : y[j];
		double tx = 0, t;

		while (i < m && x[i] == v)
			i++, tx++;
		t = tx;
		while (j < n && y[j] == v)
			j++, t++;
		rs += tx * (rank + (t + 1) / 2);
		rank += t;
		if (t > 1) {
			*ties = 1;
			tie += t * t * t - t;
		}
	}
	*rank_sum_x = rs;
	return sqrt((double)m * n / 12 * ((N + 1) - tie / (N * (N - 1))));
}

/* Mann-Whitney on sorted samples (see stats_mann_whitney). */
static void mw_sorted(const double *x, size_t na, const double *y,
		      size_t nb, struct stats_mw *out)
{
	double rs, s, u1, umax, mn = (double)na * nb;
	int ties;

	s = rank_stats(x, na, y, nb, &rs, &ties);
	u1 = rs - (double)na * (na + 1) / 2;
	umax = u1 > mn - u1 ? u1 : mn - u1;
	out->u = u1;
	out->z = 0;
	out->exact = !ties && na < MW_EXACT_MAX && nb < MW_EXACT_MAX;
	if (out->exact) {
		/* P(U >= umax) = P(U <= mn - umax) by symmetry. */
		out->p = 2 * stats_mw_cdf(mn - umax, na, nb);
		out->p_min = 2 / gsl_sf_choose(na + nb, na);
	} else if (s > 0) {
		out->z = (umax - mn / 2 - 0.5) / s;
		out->p = 2 * gsl_cdf_ugaussian_Q(out->z);
		out->p_min = 2 * gsl_cdf_ugaussian_Q((mn / 2 - 0.5) / s);
	} else {
		/* Every value equal: no evidence of anything. */
		out->p = 1;
		out->p_min = 1;
	}
	if (out->p > 1)
		out->p = 1;
	if (out->p_min > 1)
		out->p_min = 1;
}

int stats_mann_whitney(const double *a, size_t na, const double *b,
		       size_t nb, struct stats_mw *out)
{
	double *x, *y;

	if (!na || !nb)
		return error("stats", "mann-whitney: empty sample");
	x = sorted_copy(a, na);
	y = sorted_copy(b, nb);
	mw_sorted(x, na, y, nb, out);
	free(x);
	free(y);
	return 0;
}

/* Welch's t from two means, variances and sizes; fills t, df, p. */
static void welch_core(double m1, double v1, double n1, double m2,
		       double v2, double n2, struct stats_welch *w,
		       double *se_out)
{
	double a = v1 / n1, b = v2 / n2, se = sqrt(a + b);

	*se_out = se;
	if (se > 0) {
		w->t = (m2 - m1) / se;
		w->df = (a + b) * (a + b) /
			(a * a / (n1 - 1) + b * b / (n2 - 1));
		w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	} else {
		w->df = n1 + n2 - 2;
		w->t = m2 == m1 ? 0 : (m2 > m1 ? INFINITY : -INFINITY);
		w->p = m2 == m1 ? 1 : 0;
	}
}

static double t_quantile(double alpha, double df)
{
	return gsl_cdf_tdist_Pinv(1 - alpha / 2, df);
}

int stats_welch_log(const double *base, size_t nb, const double *new,
		    size_t nn, double alpha, struct stats_welch *out)
{
	double *lb, *ln, m1, v1, m2, v2, se, q;
	size_t i;

	if (nb < 2 || nn < 2)
		return error("stats", "welch: need 2 values per side");
	lb = malloc((nb + nn) * sizeof(*lb));
	if (!lb)
		die("stats", "out of memory");
	ln = lb + nb;
	for (i = 0; i < nb; i++) {
		if (!(base[i] > 0))
			goto nonpositive;
		lb[i] = log(base[i]);
	}
	for (i = 0; i < nn; i++) {
		if (!(new[i] > 0))
			goto nonpositive;
		ln[i] = log(new[i]);
	}
	mean_var(lb, nb, &m1, &v1);
	mean_var(ln, nn, &m2, &v2);
	free(lb);
	welch_core(m1, v1, nb, m2, v2, nn, out, &se);
	q = se > 0 ? t_quantile(alpha, out->df) : 0;
	out->ratio = exp(m2 - m1);
	out->lo = exp(m2 - m1 - q * se);
	out->hi = exp(m2 - m1 + q * se);
	out->diff_lo = out->diff_hi = NAN;
	return 0;
nonpositive:
	free(lb);
	return error("stats", "welch on logs: values must be > 0");
}

int stats_welch_summary(const struct stats_summary *base,
			const struct stats_summary *new, double alpha,
			struct stats_welch *out)
{
	double se, q, a, b, lr, ser, dfr;

	if (base->n < 2 || new->n < 2 || !(base->sd >= 0) ||
	    !(new->sd >= 0))
		return error("stats", "welch: need n >= 2 and a known sd");
	welch_core(base->mean, base->sd * base->sd, base->n, new->mean,
		   new->sd * new->sd, new->n, out, &se);
	q = se > 0 ? t_quantile(alpha, out->df) : 0;
	out->diff_lo = new->mean - base->mean - q * se;
	out->diff_hi = new->mean - base->mean + q * se;
	if (!(base->mean > 0) || !(new->mean > 0)) {
		out->ratio = out->lo = out->hi = NAN;
		return error("stats", "welch: ratio needs positive means");
	}
	/* Delta method on log(mean_new / mean_base). */
	a = base->sd / base->mean;
	a = a * a / base->n;
	b = new->sd / new->mean;
	b = b * b / new->n;
	ser = sqrt(a + b);
	lr = log(new->mean / base->mean);
	out->ratio = new->mean / base->mean;
	if (ser > 0) {
		dfr = (a + b) * (a + b) /
		      (a * a / (base->n - 1) + b * b / (new->n - 1));
		q = t_quantile(alpha, dfr);
	} else {
		q = 0;
	}
	out->lo = exp(lr - q * ser);
	out->hi = exp(lr + q * ser);
	return 0;
}

/* The k-th smallest (0-based) of v[0..n), reordering v (Wirth). */
static double select_kth(double *v, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, kk = (long)k;

	while (l < m) {
		double x = v[kk], t;
		long i = l, j = m;

		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return v[kk];
}

/* Pairs (i, j) with y[j] - x[i] <= v; x, y sorted. */
static double pairs_le(const double *x, size_t m, const double *y, size_t n,
		       double v)
{
	double c = 0;
	size_t i = 0, j;

	for (j = 0; j < n; j++) {
		while (i < m && y[j] - x[i] > v)
			i++;
		c += m - i;
	}
	return c;
}

/*
 * The k-th smallest (1-based) of the differences y[j] - x[i], x and y
 * sorted.  Bisection in value keeps count(<= lo) < k <= count(<= hi); once
 * at most a few times m + n differences lie in (lo, hi], they are listed
 * (two pointers per bound) and the one of the right rank is picked, so
 * that about log2(m n / (m + n)) linear counts are needed.  Heavily tied
 * differences never thin out; they end when lo and hi are adjacent.
 */
static double pairs_kth(const double *x, size_t m, const double *y,
			size_t n, double k)
{
	double lo = y[0] - x[m - 1], hi = y[n - 1] - x[0], clo, chi;
	size_t limit = m + n + 64;

	/* (lo, hi] must contain the minimum too. */
	if (k <= 1)
		return lo;
	clo = pairs_le(x, m, y, n, lo);
	if (clo >= k)
		return lo;
	chi = (double)m * n;
	for (;;) {
		double mid = lo / 2 + hi / 2, cm;

		if (chi - clo <= limit)
			break;
		/*
		 * No double between lo and hi: every difference in (lo, hi]
		 * is hi (many tied differences end here).
		 */
		if (mid <= lo || mid >= hi)
			return hi;
		cm = pairs_le(x, m, y, n, mid);
		if (cm >= k) {
			hi = mid;
			chi = cm;
		} else {
			lo = mid;
			clo = cm;
		}
	}
	{
		/* List the differences in (lo, hi]. */
		double *c = malloc(((size_t)(chi - clo) + 1) * sizeof(*c));
		double ret;
		size_t a = 0, b = 0, j, i, got = 0;

		if (!c)
			die("stats", "out of memory");
		for (j = 0; j < n; j++) {
			while (a < m && y[j] - x[a] > hi)
				a++;	/* x[a..] gives <= hi */
			while (b < m && y[j] - x[b] > lo)
				b++;	/* x[b..] gives <= lo */
			for (i = a; i < b; i++)
				c[got++] = y[j] - x[i];
		}
		ret = select_kth(c, got, (size_t)(k - clo) - 1);
		free(c);
		return ret;
	}
}

/* HL on sorted x, y; exact says which critical value the CI uses. */
static void hl_core(const double *x, size_t nb, const double *y, size_t nn,
		    double alpha, int exact, double sigma, struct stats_hl *out)
{
	double N = (double)nb * nn, k;

	if (((size_t)N) & 1)
		out->shift = pairs_kth(x, nb, y, nn, (N + 1) / 2);
	else
		out->shift = (pairs_kth(x, nb, y, nn, N / 2) +
			      pairs_kth(x, nb, y, nn, N / 2 + 1)) / 2;

	if (exact) {
		/* R's qwilcox(alpha/2): smallest q with P(U <= q) >= a/2. */
		size_t umax = (size_t)N, q;
		double *cnt = malloc((umax + 1) * sizeof(*cnt));
		double total = gsl_sf_choose(nb + nn, nb), cum = 0;

		if (!cnt)
			die("stats", "out of memory");
		mw_counts(nb, nn, umax, cnt);
		for (q = 0; q <= umax; q++) {
			cum += cnt[q];
			if (cum / total >= alpha / 2 * (1 - 1e-12))
				break;
		}
		free(cnt);
		k = q ? (double)q : 1;
	} else {
		k = floor(N / 2 - gsl_cdf_ugaussian_Pinv(1 - alpha / 2) *
			  sigma);
		if (k < 1)
			k = 1;
	}
	out->lo = pairs_kth(x, nb, y, nn, k);
	out->hi = pairs_kth(x, nb, y, nn, N - k + 1);
}

int stats_hodges_lehmann(const double *base, size_t nb, const double *new,
			 size_t nn, double alpha, struct stats_hl *out)
{
	double *x, *y, sigma, rs;
	int ties;

	if (!nb || !nn)
		return error("stats", "hodges-lehmann: empty sample");
	x = sorted_copy(base, nb);
	y = sorted_copy(new, nn);
	sigma = rank_stats(x, nb, y, nn, &rs, &ties);
	hl_core(x, nb, y, nn, alpha,
		!ties && nb < MW_EXACT_MAX && nn < MW_EXACT_MAX, sigma, out);
	free(x);
	free(y);
	return 0;
}

/* Index of the rank-r (1-based) draw among c draws over [lo, hi). */
static size_t boot_descend(gsl_rng *rng, size_t lo, size_t hi,
			   unsigned int c, unsigned int r)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned int cl = gsl_ran_binomial(rng,
			(double)(mid - lo) / (hi - lo), c);

		if (r <= cl) {
			hi = mid;
			c = cl;
		} else {
			r -= cl;
			c -= cl;
			lo = mid;
		}
	}
	return lo;
}

/* The median of one resample (with replacement) of the sorted s[0..n). */
static double boot_median(gsl_rng *rng, const double *s, size_t n)
{
	size_t lo = 0, hi = n;
	unsigned int c = n, r = n / 2;

	if (n & 1)
		return s[boot_descend(rng, 0, n, n, n / 2 + 1)];
	/* Ranks r and r + 1 share the path until they fall apart. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned int cl = gsl_ran_binomial(rng,
			(double)(mid - lo) / (hi - lo), c);

		if (r + 1 <= cl) {
			hi = mid;
			c = cl;
		} else if (r > cl) {
			r -= cl;
			c -= cl;
			lo = mid;
		} else {
			return (s[boot_descend(rng, lo, mid, cl, r)] +
				s[boot_descend(rng, mid, hi, c - cl, 1)]) / 2;
		}
	}
	return s[lo];
}

/* Median of sorted s[0..n) without element i. */
static double median_without(const double *s, size_t n, size_t i)
{
	size_t m = n - 1;
#define AT(j) ((j) < i ? s[(j)] : s[(j) + 1])
	return m & 1 ? AT(m / 2) : (AT(m / 2 - 1) + AT(m / 2)) / 2;
#undef AT
}

/* numpy's default (linear) percentile of sorted v[0..n). */
static double quantile_sorted(const double *v, size_t n, double q)
{
	double pos = q * (n - 1), f = floor(pos);
	size_t i = (size_t)f;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - f) * (v[i + 1] - v[i]);
}

/* Jackknife acceleration of BCa for the two-sample statistic. */
static double boot_accel(const double *x, size_t m, const double *y,
			 size_t n)
{
	double mx = median_sorted(x, m), my = median_sorted(y, n);
	double num = 0, den = 0;
	const double *s[2] = { x, y };
	size_t len[2] = { m, n }, j, i;

	for (j = 0; j < 2; j++) {
		double *th = malloc(len[j] * sizeof(*th)), mean = 0;

		if (!th)
			die("stats", "out of memory");
		for (i = 0; i < len[j]; i++) {
			double med = median_without(s[j], len[j], i);

			th[i] = j ? med / mx : my / med;
			mean += th[i];
		}
		mean /= len[j];
		for (i = 0; i < len[j]; i++) {
			double u = (len[j] - 1) * (mean - th[i]);
			double nn = len[j];

			num += u * u * u / (nn * nn * nn);
			den += u * u / (nn * nn);
		}
		free(th);
	}
	return den > 0 ? num / (6 * pow(den, 1.5)) : 0;
}

/* The bootstrap on sorted samples with positive medians. */
static void boot_sorted(const double *x, size_t nb, const double *y,
			size_t nn, double alpha, int resamples,
			unsigned long seed, struct stats_boot *out)
{
	double *th, below = 0, zl, zh;
	gsl_rng *rng;
	int b;

	th = malloc(resamples * sizeof(*th));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!th || !rng)
		die("stats", "out of memory");
	gsl_rng_set(rng, seed);

	out->ratio = median_sorted(y, nn) / median_sorted(x, nb);
	out->resamples = resamples;
	out->seed = seed;
	for (b = 0; b < resamples; b++) {
		th[b] = boot_median(rng, y, nn) / boot_median(rng, x, nb);
		below += th[b] < out->ratio ? 1 : th[b] == out->ratio ? 0.5 : 0;
	}
	qsort(th, resamples, sizeof(*th), cmp_double);
	out->lo_pct = quantile_sorted(th, resamples, alpha / 2);
	out->hi_pct = quantile_sorted(th, resamples, 1 - alpha / 2);

	out->accel = boot_accel(x, nb, y, nn);
	if (below > 0 && below < resamples) {
		double a = out->accel, z0, q1, q2;

		z0 = gsl_cdf_ugaussian_Pinv(below / resamples);
		zl = gsl_cdf_ugaussian_Pinv(alpha / 2);
		zh = -zl;
		q1 = gsl_cdf_ugaussian_P(z0 + (z0 + zl) / (1 - a * (z0 + zl)));
		q2 = gsl_cdf_ugaussian_P(z0 + (z0 + zh) / (1 - a * (z0 + zh)));
		out->z0 = z0;
		out->lo_bca = quantile_sorted(th, resamples, q1);
		out->hi_bca = quantile_sorted(th, resamples, q2);
	} else {
		/* Every resample on one side: BCa is undefined. */
		out->z0 = below ? INFINITY : -INFINITY;
		out->lo_bca = out->hi_bca = NAN;
	}
	gsl_rng_free(rng);
	free(th);
}

int stats_bootstrap_median_ratio(const double *base, size_t nb,
				 const double *new, size_t nn, double alpha,
				 int resamples, unsigned long seed,
				 struct stats_boot *out)
{
	double *x, *y;
	int ret = -1;

	if (nb < 2 || nn < 2 || resamples < 10 || nb > UINT32_MAX ||
	    nn > UINT32_MAX)
		return error("stats", "bootstrap: need 2 values per side "
			     "and 10 resamples");
	x = sorted_copy(base, nb);
	y = sorted_copy(new, nn);
	if (!(median_sorted(x, nb) > 0) || !(median_sorted(y, nn) > 0)) {
		error("stats", "bootstrap: medians must be > 0");
	} else {
		boot_sorted(x, nb, y, nn, alpha, resamples, seed, out);
		ret = 0;
	}
	free(x);
	free(y);
	return ret;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static struct pidx *sort_p(const double *p, size_t n)
{
	struct pidx *s = malloc((n ? n : 1) * sizeof(*s));
	size_t i;

	if (!s)
		die("stats", "out of memory");
	for (i = 0; i < n; i++)
		s[i] = (struct pidx){ p[i], i };
	qsort(s, n, sizeof(*s), cmp_pidx);
	return s;
}

void stats_holm(const double *p, size_t n, double *adj)
{
	struct pidx *s = sort_p(p, n);
	double run = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		double v = (n - k) * s[k].p;

		if (v > run)
			run = v;
		adj[s[k].i] = run < 1 ? run : 1;
	}
	free(s);
}

void stats_bh(const double *p, size_t n, double *adj)
{
	struct pidx *s = sort_p(p, n);
	double run = 1;
	size_t k;

	for (k = n; k-- > 0;) {
		double v = s[k].p * n / (k + 1);

		if (v < run)
			run = v;
		adj[s[k].i] = run;
	}
	free(s);
}

enum stats_verdict stats_verdict_decide(int significant, double change,
					double lo, double hi, double threshold,
					enum stats_direction d)
{
	double w = change, wl = lo, wh = hi;

	/* Orient so that positive means worse. */
	if (d == STATS_HIGHER_IS_BETTER) {
		w = -change;
		wl = -hi;
		wh = -lo;
	}
	if (significant) {
		if (wl > threshold)
			return STATS_REGRESSION;
		if (wh < -threshold)
			return STATS_IMPROVEMENT;
		if (w > threshold)
			return STATS_LIKELY_REGRESSION;
		if (w < -threshold)
			return STATS_LIKELY_IMPROVEMENT;
		return STATS_MINOR;
	}
	if (wl > -threshold && wh < threshold)
		return STATS_NO_CHANGE;
	return STATS_INCONCLUSIVE;
}

static void why_add(struct stats_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why_add(struct stats_result *r, const char *fmt, ...)
{
	size_t len = strlen(r->why);
	va_list ap;

	if (len && len + 2 < sizeof(r->why)) {
		strcpy(r->why + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->why + len, sizeof(r->why) - len, fmt, ap);
	va_end(ap);
}

static void result_init(struct stats_result *r, const struct stats_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->verdict = STATS_INSUFFICIENT_DATA;
	r->test = "none";
	r->center_base = r->center_new = NAN;
	r->cv_base = r->cv_new = NAN;
	r->change = r->ci_lo = r->ci_hi = r->p = NAN;
	r->worse_max = r->better_max = NAN;
	r->alpha = o->alpha;
}

/*
 * Noise and plausibility flags from the two coefficients of variation:
 * high CV, a CV ratio beyond noisy_cv_ratio with 10+ samples per side
 * (noisy), a CV ratio beyond suspicious_cv_ratio or no variation at all
 * (suspicious).
 */
static void flag_cv(struct stats_result *r, const struct stats_opts *o,
		    size_t nb, size_t nn)
{
	double cb = r->cv_base, cn = r->cv_new;

	if (cb > o->noisy_cv || cn > o->noisy_cv) {
		r->flags |= STATS_FLAG_NOISY;
		why_add(r, "noisy: CV %.1f%% base, %.1f%% new", cb * 100,
			cn * 100);
	}
	if (isnan(cb) || isnan(cn))
		return;
	if ((cb == 0 && nb > 1) || (cn == 0 && nn > 1)) {
		r->flags |= STATS_FLAG_SUSPICIOUS;
		why_add(r, "suspicious: no variation in the %s values "
			"(timer resolution?)",
			cb == 0 && cn == 0 ? "base and new" :
			cb == 0 ? "base" : "new");
		return;
	}
	if (cb > cn * o->suspicious_cv_ratio ||
	    cn > cb * o->suspicious_cv_ratio) {
		r->flags |= STATS_FLAG_SUSPICIOUS | STATS_FLAG_NOISY;
		why_add(r, "suspicious: %s sd implausibly small (CV %.2f%% "
			"vs %.2f%%)", cb < cn ? "base" : "new",
			(cb < cn ? cb : cn) * 100, (cb < cn ? cn : cb) * 100);
	} else if (nb >= 10 && nn >= 10 &&
		   (cb > cn * o->noisy_cv_ratio ||
		    cn > cb * o->noisy_cv_ratio)) {
		/* Below 10 per side, sd ratios of 3 are common chance. */
		r->flags |= STATS_FLAG_NOISY;
		why_add(r, "noisy: CV ratio %.1f between sides",
			cb > cn ? cb / cn : cn / cb);
	}
}

/*
 * Sarle's bimodality coefficient (g^2 + 1) / (k + 3 (n-1)^2/((n-2)(n-3)))
 * with sample skewness g and excess kurtosis k; above 5/9 (the value of a
 * uniform distribution) suggests more than one mode.  Needs n >= 10.
 */
static double bimodality(const double *v, size_t n)
{
	double m, var, m2 = 0, m3 = 0, m4 = 0, g, k;
	size_t i;

	mean_var(v, n, &m, &var);
	for (i = 0; i < n; i++) {
		double d = v[i] - m;

		m2 += d * d;
		m3 += d * d * d;
		m4 += d * d * d * d;
	}
	m2 /= n;
	m3 /= n;
	m4 /= n;
	if (!(m2 > 0))
		return 0;
	g = m3 / pow(m2, 1.5);
	k = m4 / (m2 * m2) - 3;
	return (g * g + 1) /
	       (k + 3.0 * (n - 1) * (n - 1) / ((n - 2.0) * (n - 3.0)));
}

static void fill_worse_better(struct stats_result *r,
			      const struct stats_opts *o)
{
	double worse = r->ci_hi, better = -r->ci_lo;

	if (o->direction == STATS_HIGHER_IS_BETTER) {
		worse = -r->ci_lo;
		better = r->ci_hi;
	}
	r->worse_max = worse > 0 ? worse : 0;
	r->better_max = better > 0 ? better : 0;
}

static void finish(struct stats_result *r, const struct stats_opts *o,
		   int significant)
{
	r->verdict = stats_verdict_decide(significant, r->change, r->ci_lo,
					  r->ci_hi, o->threshold,
					  o->direction);
	fill_worse_better(r, o);
	if (r->verdict == STATS_INCONCLUSIVE)
		why_add(r, "more samples needed: the data rule out a "
			"regression above %.1f%% and an improvement above "
			"%.1f%%", r->worse_max * 100, r->better_max * 100);
}

static int check_opts(const struct stats_opts *o)
{
	if (!(o->alpha > 0 && o->alpha < 1))
		return error("stats", "alpha must be in (0, 1)");
	if (!(o->threshold >= 0 && o->threshold < 10))
		return error("stats", "threshold must be in [0, 1000%%)");
	return 0;
}

int stats_compare_samples(const double *base, size_t nb, const double *new,
			  size_t nn, const struct stats_opts *o,
			  struct stats_result *r)
{
	double *x = NULL, *y = NULL, mb, vb, mn, vn;
	size_t i, min = o->min_samples > 2 ? o->min_samples : 2;
	int positive = 1;

	result_init(r, o);
	if (check_opts(o) < 0)
		return -1;
	if ((nb && !base) || (nn && !new))
		return error("stats", "compare: missing values");
	for (i = 0; i < nb + nn; i++) {
		double v = i < nb ? base[i] : new[i - nb];

		if (!isfinite(v))
			return error("stats", "compare: %s value %zu is not "
				     "a finite number", i < nb ? "base" : "new",
				     (i < nb ? i : i - nb) + 1);
		if (!(v > 0))
			positive = 0;
	}
	r->n_base = nb;
	r->n_new = nn;
	r->test = "mann-whitney";
	if (nb) {
		x = sorted_copy(base, nb);
		r->center_base = median_sorted(x, nb);
		mean_var(base, nb, &mb, &vb);
		if (nb > 1 && mb > 0)
			r->cv_base = sqrt(vb) / mb;
	}
	if (nn) {
		y = sorted_copy(new, nn);
		r->center_new = median_sorted(y, nn);
		mean_var(new, nn, &mn, &vn);
		if (nn > 1 && mn > 0)
			r->cv_new = sqrt(vn) / mn;
	}
	if (nb < min || nn < min) {
		why_add(r, "%zu base and %zu new samples: at least %zu per "
			"side are needed", nb, nn, min);
		goto out;
	}
	mw_sorted(x, nb, y, nn, &r->mw);
	r->have_mw = 1;
	r->p = r->mw.p;
	flag_cv(r, o, nb, nn);
	for (i = 0; i < 2; i++) {
		size_t n = i ? nn : nb;

		if (n >= 10 && bimodality(i ? new : base, n) > 5.0 / 9) {
			r->flags |= STATS_FLAG_NOISY;
			why_add(r, "noisy: %s looks multi-modal",
				i ? "new" : "base");
		}
	}
	if (r->mw.p_min > o->alpha) {
		why_add(r, "with %zu and %zu samples the rank test cannot "
			"reach p < %g (best possible p = %.3g)", nb, nn,
			o->alpha, r->mw.p_min);
		goto out;
	}
	if (positive) {
		if (stats_welch_log(base, nb, new, nn, o->alpha,
				    &r->welch) < 0)
			goto out;
	} else {
		struct stats_summary sb = { mb, sqrt(vb), nb };
		struct stats_summary sn = { mn, sqrt(vn), nn };

		if (stats_welch_summary(&sb, &sn, o->alpha, &r->welch) < 0) {
			why_add(r, "values <= 0 and a non-positive mean: "
				"no ratio can be estimated");
			goto out;
		}
	}
	r->have_welch = 1;
	r->change = r->welch.ratio - 1;
	r->ci_lo = r->welch.lo - 1;
	r->ci_hi = r->welch.hi - 1;
	{
		double rs, sigma;
		int ties;

		sigma = rank_stats(x, nb, y, nn, &rs, &ties);

		hl_core(x, nb, y, nn, o->alpha, r->mw.exact, sigma, &r->hl);
		r->have_hl = 1;
	}
	if (o->bootstrap >= 10 && r->center_base > 0 && r->center_new > 0 &&
	    nb <= UINT32_MAX && nn <= UINT32_MAX) {
		boot_sorted(x, nb, y, nn, o->alpha, o->bootstrap, o->seed,
			    &r->boot);
		r->have_boot = 1;
	}
	finish(r, o, r->mw.p < o->alpha);
out:
	free(x);
	free(y);
	return 0;
}

static int check_summary(const struct stats_summary *s, const char *side)
{
	if (!isfinite(s->mean))
		return error("stats", "%s: mean is not a finite number", side);
	if (isinf(s->sd) || s->sd < 0)
		return error("stats", "%s: sd must be a finite number >= 0",
			     side);
	if (s->n == 0)
		return error("stats", "%s: n must be at least 1", side);
	return 0;
}

int stats_compare_summaries(const struct stats_summary *base,
			    const struct stats_summary *new,
			    const struct stats_opts *o,
			    struct stats_result *r)
{
	size_t min = o->min_samples > 2 ? o->min_samples : 2;

	result_init(r, o);
	if (check_opts(o) < 0 || check_summary(base, "base") < 0 ||
	    check_summary(new, "new") < 0)
		return -1;
	r->test = "welch-summary";
	r->n_base = base->n;
	r->n_new = new->n;
	r->center_base = base->mean;
	r->center_new = new->mean;
	if (base->mean > 0 && new->mean > 0)
		r->change = new->mean / base->mean - 1;
	if (base->mean > 0 && !isnan(base->sd))
		r->cv_base = base->sd / base->mean;
	if (new->mean > 0 && !isnan(new->sd))
		r->cv_new = new->sd / new->mean;
	if (isnan(base->sd) || isnan(new->sd)) {
		why_add(r, "no standard deviation for %s: no test is "
			"possible from means alone",
			isnan(base->sd) && isnan(new->sd) ? "either side" :
			isnan(base->sd) ? "base" : "new");
		return 0;
	}
	if (base->n < min || new->n < min) {
		why_add(r, "n = %zu base and %zu new: at least %zu per side "
			"are needed", base->n, new->n, min);
		return 0;
	}
	flag_cv(r, o, base->n, new->n);
	if (stats_welch_summary(base, new, o->alpha, &r->welch) < 0) {
		why_add(r, "non-positive mean: no ratio can be estimated");
		return 0;
	}
	r->have_welch = 1;
	r->p = r->welch.p;
	r->ci_lo = r->welch.lo - 1;
	r->ci_hi = r->welch.hi - 1;
	finish(r, o, r->welch.p < o->alpha);
	return 0;
}

void stats_seq_init(struct stats_seq *s, double alpha, size_t n_max)
{
	s->alpha = alpha;
	s->n_max = n_max;
	s->spent = 0;
	s->looks = 0;
}

double stats_seq_look(struct stats_seq *s, size_t n)
{
	double t = s->n_max ? (double)n / s->n_max : 1, a;

	if (t >= 1)
		a = s->alpha - s->spent;
	else
		a = s->alpha * log(1 + (M_E - 1) * t) - s->spent;
	if (a < 0)
		a = 0;
	s->spent += a;
	s->looks++;
	return a;
}

double stats_seq_replay(double alpha, size_t n_max, const size_t *n,
			size_t nlooks)
{
	struct stats_seq s;
	double a = alpha;
	size_t i;

	stats_seq_init(&s, alpha, n_max);
	for (i = 0; i < nlooks; i++)
		a = stats_seq_look(&s, n[i]);
	return a;
}

int stats_seq_should_stop(const struct stats_seq *s,
			  const struct stats_result *r, size_t n)
{
	if (n >= s->n_max)
		return 1;
	switch (r->verdict) {
	case STATS_REGRESSION:
	case STATS_IMPROVEMENT:
	case STATS_MINOR:
	case STATS_NO_CHANGE:
		return 1;
	default:
		return 0;
	}
}
