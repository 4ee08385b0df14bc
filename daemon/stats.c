/*
 * stats.c - significance tests, intervals and verdicts (see stats.h).
 *
 * The only GSL user of the tree: t and normal quantiles, the binomial
 * coefficient and the seeded generator of the bootstrap come from GSL.
 *
 * Design notes:
 * - One procedure per verdict (DESIGN.md section 6): the test, the
 *   estimate and its interval come from one null distribution of
 *   Mann-Whitney's U.  The Hodges-Lehmann interval [D_(k), D_(mn-k+1)]
 *   of the pairwise differences D excludes 0 exactly when fewer than k
 *   differences are <= 0 or fewer than k are >= 0; with k the smallest
 *   count whose null cdf reaches alpha/2, that is the test at alpha in
 *   which a pair of equal values counts for no change.  The verdict reads
 *   "the interval excludes 0", so it cannot disagree with p.  On log
 *   values the differences are exact in sign (fl(a - b) > 0 iff a > b)
 *   and expm1() keeps it, so the printed fractions agree too.
 * - The exact null distribution without ties is the coefficient list of
 *   the Gaussian binomial [m+n choose m]_q, built factor by factor as
 *   prod (1 - q^(n+i)) / (1 - q^i), normalised to probabilities at each
 *   factor (no overflow) and truncated at the centre: O(min(m,n) m n)
 *   operations, one array of m n / 2 doubles.  Dividing by (1 - q^i) is
 *   a running sum with stride i whose rounding errors the next factors
 *   amplify at the centre: against integer arithmetic the relative error
 *   is 3e-14 at 150 x 150, 2e-12 at 200 x 200, 7e-11 at 250 x 250, and
 *   nothing is left at 1000 x 1000; hence the bound of 150 a side.  The
 *   tails stay at 1e-15 up to 250 a side, not at 1000.  Beyond 150 a side
 *   the distribution comes from its characteristic function (cf_init).
 * - With ties the exact permutation distribution of the midrank U is
 *   counted over the runs of equal values: choosing c of a run of t for
 *   the smaller side, after j of its members and P values below, adds
 *   2c(P - j) + c(t - c) to 2U.  One table of (min(m,n) + 1) (2 m n + 1)
 *   doubles updated in place.
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

#include "alloc.h"
#include "log.h"
#include "stats.h"

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
	memset(o, 0, sizeof(*o));
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
	double *s = xmalloc((n ? n : 1) * sizeof(*s));
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
 * P(U = u) for u = 0..umax under the null for sizes m, n (any order),
 * into p[0..umax] (see the design notes for the accuracy).
 */
static void harding_pmf(size_t m, size_t n, size_t umax, double *p)
{
	size_t i, u, k;

	if (m > n) {
		k = m;
		m = n;
		n = k;
	}
	memset(p, 0, (umax + 1) * sizeof(*p));
	p[0] = 1;
	for (i = 1; i <= m; i++) {
		double scale = (double)i / (n + i);

		for (u = i; u <= umax; u++)
			p[u] += p[u - i];
		for (u = umax + 1; u-- > 0;)
			p[u] = (p[u] - (u >= n + i ? p[u - n - i] : 0)) * scale;
	}
}

static int exact_fits(size_t m, size_t n)
{
	return (m < n ? m : n) <= STATS_MW_EXACT_SIDE &&
	       (double)m * n <= STATS_MW_EXACT_CELLS;
}

/* The inversion: both sides beyond Harding, at most 10^6 pairs. */
static int cf_fits(size_t m, size_t n)
{
	return (double)m * n <= STATS_MW_EXACT_CELLS;
}

static int perm_fits(size_t m, size_t n)
{
	double a = m < n ? m : n;

	return ((double)m + n) * a * m * n <= STATS_MW_PERM_WORK;
}

/* The pooled sorted sample as runs of equal values. */
struct ranks {
	double rank_sum_x;	/* midranks of x */
	double tie;		/* sum of t^3 - t over the runs */
	double cross;		/* pairs x_i == y_j */
	size_t *run;		/* run lengths, smallest value first */
	size_t nrun;
	int ties;
};

static void ranks_init(struct ranks *r, const double *x, size_t m,
		       const double *y, size_t n)
{
	size_t i = 0, j = 0;
	double rank = 0;

	memset(r, 0, sizeof(*r));
	r->run = xmalloc((m + n + 1) * sizeof(*r->run));
	while (i < m || j < n) {
		double v = j >= n || (i < m && x[i] <= y[j]) ? x[i] : y[j];
		double tx = 0, ty = 0, t;

		while (i < m && x[i] == v)
			i++, tx++;
		while (j < n && y[j] == v)
			j++, ty++;
		t = tx + ty;
		r->rank_sum_x += tx * (rank + (t + 1) / 2);
		r->cross += tx * ty;
		rank += t;
		r->run[r->nrun++] = (size_t)t;
		if (t > 1) {
			r->ties = 1;
			r->tie += t * t * t - t;
		}
	}
}

static void ranks_release(struct ranks *r)
{
	free(r->run);
	r->run = NULL;
}

/* The tie-corrected sd of U under the null. */
static double ranks_sigma(const struct ranks *r, size_t m, size_t n)
{
	double N = (double)m + n;

	return sqrt((double)m * n / 12 *
		    ((N + 1) - r->tie / (N * (N - 1))));
}

enum null_kind { NULL_EXACT, NULL_CF, NULL_PERMUTATION, NULL_NORMAL };

/* The null distribution of U that the test, interval and verdict use. */
struct mw_null {
	enum null_kind kind;
	double mn;
	double *cdf;		/* exact kinds: P(U <= i / scale) */
	double *sf;		/* permutation: P(U >= i / scale) */
	size_t len;		/* exact: the lower half; permutation: all */
	int scale;		/* 1 (U whole) or 2 (U in halves) */
	double sigma;		/* normal: tie-corrected sd */
	/* cf: the terms of the inversion (see cf_init) */
	size_t cf_n;
	unsigned long long *cf_k;	/* frequency index k of 2 pi k / L */
	double *cf_h;			/* H(theta_k) times 2 (1 at L/2) */
	unsigned long long cf_L;
	size_t bytes;		/* peak heap used to build it */
};

static const char *const null_name[] = {
	"exact", "exact", "permutation", "normal",
};

static void cumulate(double *p, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++)
		p[i] += p[i - 1];
}

/* Exact permutation cdf of 2U over the runs (see the design notes). */
static void perm_cdf(const struct ranks *r, size_t m, size_t n,
		     struct mw_null *z)
{
	size_t a = m < n ? m : n, b = m < n ? n : m, w = 2 * a * b + 1;
	size_t g, j, c, v, P = 0;
	double *f = xcalloc((a + 1) * w, sizeof(*f)), total;

	f[0] = 1;
	for (g = 0; g < r->nrun; g++) {
		size_t t = r->run[g], jmax = a < P ? a : P;
		size_t jmin = P > b ? P - b : 0;

		for (j = jmax + 1; j-- > jmin;) {
			double *row = f + j * w;
			size_t vmax = 2 * j * (P - j) + 1;

			for (c = 1; c <= t && j + c <= a; c++) {
				double wt = gsl_sf_choose(t, c);
				size_t d = 2 * c * (P - j) + c * (t - c);
				double *to = f + (j + c) * w + d;

				for (v = 0; v < vmax && v + d < w; v++)
					to[v] += wt * row[v];
			}
		}
		P += t;
	}
	total = gsl_sf_choose(m + n, a);
	z->cdf = xmalloc(w * sizeof(*z->cdf));
	z->sf = xmalloc(w * sizeof(*z->sf));
	/* The table counted the smaller side; U of x is mn minus U of y. */
	for (v = 0; v < w; v++)
		z->cdf[v] = z->sf[w - 1 - v] =
			f[a * w + (m <= n ? v : w - 1 - v)] / total;
	free(f);
	z->bytes = (a + 3) * w * sizeof(double);
	/* Not symmetric with ties: each tail is summed from its own end. */
	cumulate(z->cdf, w);
	cumulate(z->sf, w);
	for (v = 0; v < w / 2; v++) {
		double t = z->sf[v];

		z->sf[v] = z->sf[w - 1 - v];
		z->sf[w - 1 - v] = t;
	}
	z->len = w;
	z->scale = 2;
}

/*
 * The exact null distribution beyond Harding's reach, by inverting its
 * characteristic function (m <= n below, L = m n + 1 > the support):
 *
 *   phi(theta) = e^(i m n theta / 2) H(theta),
 *   H(theta) = prod_i (i sin((n + i) theta / 2)) / ((n + i) sin(i theta / 2))
 *
 * is a product of m well-conditioned factors, and with theta_k = 2 pi k / L
 *
 *   P(U <= s) = (s + 1 + sum_k w_k H_k sin((s + 1) theta_k / 2)
 *                cos((m n - s) theta_k / 2) / sin(theta_k / 2)) / L
 *
 * over k = 1 .. L / 2 (w_k = 2, 1 for k = L / 2): no subtraction of
 * large numbers: an absolute error of 1e-15 at most against integer
 * counts up to 400 x 250 (the s + 1 term cancels; p below 1e-12 keeps
 * that absolute error).  Every sine
 * is of pi r / L with r reduced exactly in integers.  Most H_k are
 * negligible, and the terms left out must be provably so (at most
 * CF_EPS each, which bounds the error of the sum by about 20 CF_EPS):
 * - theta <= pi / m: every factor is at most min(1, pi / ((n + i) theta))
 *   (sin t / t decreases on [0, pi]), a bound that decreases with theta;
 * - theta in [t0, t1] beyond: cut the pooled order into consecutive
 *   blocks of s = floor(2 pi / t1) positions; given how many x each block
 *   holds, U is a constant plus independent per-block U, so |phi| is at
 *   most the expectation, over the hypergeometric block counts, of the
 *   product of the blocks' bounds of the first kind at t0 (valid as each
 *   block has at most s / 2 <= pi / theta factors).  Octaves of theta
 *   are tried whole, then halved down to a ratio of 1.1.
 * Frequencies neither bound clears are evaluated: at 1000 x 1000 only
 * the first ones (of 500,000); at 200 x 200 the bounds clear little and
 * most of the 20,000 are evaluated.  The bounds are loose: they prove
 * what the evaluation shows, |H| far below 1e-25.
 */
#define CF_EPS		1e-25
#define CF_RATIO	1.1	/* the finest interval a bound is tried on */

static double sin_pi_over(unsigned long long r, unsigned long long L)
{
	return sin(M_PI * (double)(r % (2 * L)) / (double)L);
}

/* H(theta_k) for sizes m <= n. */
static double cf_h(size_t m, size_t n, unsigned long long k,
		   unsigned long long L)
{
	double h = 1;
	int e, ex = 0;
	size_t i;

	for (i = 1; i <= m; i++) {
		h *= (double)i * sin_pi_over((n + i) * k, L) /
		     ((double)(n + i) * sin_pi_over(i * k, L));
		if (fabs(h) > 1e100 || (fabs(h) < 1e-100 && h != 0)) {
			h = frexp(h, &e);
			ex += e;
		}
	}
	return ldexp(h, ex);
}

/* The first bound at theta (valid for theta <= pi / m), sizes m <= n. */
static double cf_bound1(size_t m, size_t n, double theta)
{
	double b = 1;
	size_t i;

	for (i = 1; i <= m && b > 0; i++)
		b *= fmin(1, M_PI / ((n + i) * theta));
	return b;
}

/* The block bound of |phi| on [t, tmax]; lf[] holds log(j!). */
static double cf_bound2(size_t m, size_t n, double t, double tmax,
			const double *lf)
{
	size_t N = m + n, s = (size_t)floor(2 * M_PI / tmax), P = 0, a, k;
	double *f, *g, *beta, r;

	if (s < 2)
		s = 2;
	if (s > N)
		s = N;
	f = xcalloc(2 * (m + 1) + s + 1, sizeof(*f));
	g = f + m + 1;
	beta = g + m + 1;
	f[0] = 1;
	while (P < N) {
		size_t len = N - P < s ? N - P : s, R = N - P;

		for (k = 0; k <= len; k++)
			beta[k] = cf_bound1(k < len - k ? k : len - k,
					    len - (k < len - k ? k : len - k),
					    t);
		memset(g, 0, (m + 1) * sizeof(*g));
		for (a = 0; a <= m; a++) {
			size_t rx = m - a, lo, hi, mode;
			double pm, pk;

			if (!(f[a] > 1e-300) || rx > R)
				continue;
			lo = rx > R - len ? rx - (R - len) : 0;
			hi = rx < len ? rx : len;
			mode = (size_t)((double)(len + 1) * (rx + 1) / (R + 2));
			mode = mode < lo ? lo : mode > hi ? hi : mode;
			/* Hypergeometric: C(len,k) C(R-len,rx-k) / C(R,rx). */
			pm = exp(lf[len] - lf[mode] - lf[len - mode] +
				 lf[R - len] - lf[rx - mode] -
				 lf[R - len - rx + mode] -
				 (lf[R] - lf[rx] - lf[R - rx]));
			for (k = mode, pk = pm; k <= hi; k++) {
				g[a + k] += f[a] * pk * beta[k];
				pk *= (double)(len - k) * (rx - k) /
				      ((k + 1.0) * (R - len - rx + k + 1));
			}
			for (k = mode, pk = pm; k-- > lo;) {
				pk *= (k + 1.0) * (R - len - rx + k + 1) /
				      ((double)(len - k) * (rx - k));
				g[a + k] += f[a] * pk * beta[k];
			}
		}
		memcpy(f, g, (m + 1) * sizeof(*f));
		P += len;
	}
	r = f[m];
	free(f);
	return r;
}

static void cf_add(struct mw_null *z, size_t *alloc, unsigned long long k,
		   double h)
{
	if (!(fabs(h) > 1e-300))
		return;
	if (z->cf_n == *alloc) {
		/* two arrays of one capacity */
		ALLOC_GROW(z->cf_k, z->cf_n + 1, *alloc);
		REALLOC_ARRAY(z->cf_h, *alloc);
	}
	z->cf_k[z->cf_n] = k;
	z->cf_h[z->cf_n++] = (2 * k == z->cf_L ? 1 : 2) * h;
}

/*
 * The last frequency index k with theta_k = 2 pi k / L <= t: intervals
 * (t0, t1] share their ends, so each k belongs to exactly one.
 */
static unsigned long long cf_index(double t, unsigned long long L)
{
	if (t >= M_PI)
		return L / 2;
	return (unsigned long long)floor(t * (double)L / (2 * M_PI));
}

/*
 * Frequencies with theta in (t0, t1] (m <= n): none if the block bound
 * clears them, else split down to a ratio of CF_RATIO, and evaluated
 * where that fails or where evaluating costs less than a bound (about m
 * sines per frequency against m n products per bound).
 */
static void cf_cover(struct mw_null *z, size_t *alloc, size_t m, size_t n,
		     double t0, double t1, const double *lf)
{
	unsigned long long L = z->cf_L, k;
	unsigned long long k0 = cf_index(t0, L) + 1, k1 = cf_index(t1, L);

	if (k0 > k1)
		return;
	if ((double)(k1 - k0 + 1) * 10 > (double)(m + n) &&
	    cf_bound2(m, n, t0, t1, lf) < CF_EPS)
		return;
	if (t1 > t0 * CF_RATIO &&
	    (double)(k1 - k0 + 1) * 10 > (double)(m + n)) {
		double mid = sqrt(t0 * t1);

		cf_cover(z, alloc, m, n, t0, mid, lf);
		cf_cover(z, alloc, m, n, mid, t1, lf);
		return;
	}
	for (k = k0; k <= k1; k++)
		cf_add(z, alloc, k, cf_h(m, n, k, L));
}

static void cf_init(struct mw_null *z, size_t m, size_t n)
{
	unsigned long long L = (unsigned long long)m * n + 1, k, kb;
	double t, *lf;
	size_t alloc = 0, i;

	if (m > n) {
		i = m;
		m = n;
		n = i;
	}
	z->cf_L = L;
	/* theta <= pi / m: evaluate until the first bound clears the rest. */
	kb = cf_index(M_PI / m, L);
	for (k = 1; k <= kb; k++) {
		if (cf_bound1(m, n, 2 * M_PI * k / L) < CF_EPS)
			break;
		cf_add(z, &alloc, k, cf_h(m, n, k, L));
	}
	lf = xmalloc((m + n + 1) * sizeof(*lf));
	lf[0] = 0;
	for (i = 1; i <= m + n; i++)
		lf[i] = lf[i - 1] + log((double)i);
	/* Beyond: octaves of theta, each cleared or split (cf_cover). */
	for (t = M_PI / m; t < M_PI; t *= 2)
		cf_cover(z, &alloc, m, n, t, fmin(2 * t, M_PI), lf);
	free(lf);
	z->bytes = alloc * (sizeof(*z->cf_k) + sizeof(*z->cf_h)) +
		   (3 * (m + n + 1) + 2) * sizeof(double);
}

/* P(U <= s) by the inversion, s whole. */
static double cf_cdf(const struct mw_null *z, double s)
{
	unsigned long long L = z->cf_L, S = (unsigned long long)s;
	unsigned long long mn = L - 1;
	double sum = (double)S + 1;
	size_t i;

	for (i = 0; i < z->cf_n; i++) {
		unsigned long long k = z->cf_k[i];

		sum += z->cf_h[i] * sin_pi_over((S + 1) * k, L) *
		       cos(M_PI * (double)(((mn - S) * k) % (2 * L)) /
			   (double)L) / sin_pi_over(k, L);
	}
	return fmin(1, fmax(0, sum / (double)L));
}

static void null_init(struct mw_null *z, const struct ranks *r, size_t m,
		      size_t n)
{
	memset(z, 0, sizeof(*z));
	z->mn = (double)m * n;
	if (!r->ties && exact_fits(m, n)) {
		z->kind = NULL_EXACT;
		z->scale = 1;
		z->len = m * n / 2 + 1;
		z->cdf = xmalloc(z->len * sizeof(*z->cdf));
		z->bytes = z->len * sizeof(*z->cdf);
		harding_pmf(m, n, z->len - 1, z->cdf);
		cumulate(z->cdf, z->len);
	} else if (!r->ties && cf_fits(m, n)) {
		z->kind = NULL_CF;
		z->scale = 1;
		cf_init(z, m, n);
	} else if (r->ties && perm_fits(m, n)) {
		z->kind = NULL_PERMUTATION;
		perm_cdf(r, m, n, z);
	} else {
		z->kind = NULL_NORMAL;
		z->scale = 1;
		z->sigma = ranks_sigma(r, m, n);
	}
}

static void null_release(struct mw_null *z)
{
	free(z->cdf);
	free(z->sf);
	free(z->cf_k);
	free(z->cf_h);
	z->cdf = z->sf = z->cf_h = NULL;
	z->cf_k = NULL;
}

/*
 * P(U <= s) under the null; for the normal approximation the upper tail
 * beyond mn - s with the continuity correction, so that 2 cdf(min(U,
 * mn - U)) is SciPy's p.
 */
static double null_cdf(const struct mw_null *z, double s)
{
	double v;

	if (z->kind == NULL_NORMAL)
		return z->sigma > 0 ?
		       gsl_cdf_ugaussian_Q((z->mn / 2 - s - 0.5) / z->sigma) :
		       1;
	if (s < 0)
		return 0;
	if (s >= z->mn)
		return 1;
	if (z->kind == NULL_CF)
		return cf_cdf(z, floor(s));
	v = floor(s * z->scale);
	if (v < z->len)
		return z->cdf[(size_t)v];
	/* Exact kind above its stored half: P(U >= u) = P(U <= mn - u). */
	return 1 - z->cdf[(size_t)(z->mn - v - 1)];
}

/* P(U >= s) under the null (the normal one: P(mn - U <= mn - s)). */
static double null_sf(const struct mw_null *z, double s)
{
	double v;

	if (z->kind != NULL_PERMUTATION)
		return null_cdf(z, z->mn - s);
	if (s <= 0)
		return 1;
	if (s > z->mn)
		return 0;
	v = ceil(s * z->scale);
	return z->sf[(size_t)v];
}

/*
 * The smallest whole k >= 0 with P(U <= k) >= alpha / 2 (upper = 0) or
 * with P(U >= mn - k) >= alpha / 2 (upper = 1).
 */
static size_t null_critical(const struct mw_null *z, double alpha, int upper)
{
	size_t lo = 0, hi = (size_t)ceil(z->mn / 2);
#define TAIL(k) (upper ? null_sf(z, z->mn - (double)(k)) : \
			 null_cdf(z, (double)(k)))

	if (TAIL(0) >= alpha / 2)
		return 0;
	/* Half the mass is on either side of mn / 2: TAIL(hi) >= 1/2. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (TAIL(mid) >= alpha / 2)
			hi = mid;
		else
			lo = mid;
	}
#undef TAIL
	return hi;
}

/* The two-sided p of a lower-tail count lo and an upper-tail count hi. */
static double null_p(const struct mw_null *z, double lo, double hi)
{
	return fmin(1, 2 * fmin(null_cdf(z, lo), null_sf(z, hi)));
}

/* The smallest p the null allows: at its lowest or highest value. */
static double null_p_min(const struct mw_null *z)
{
	size_t v = 0, w = 0;

	if (z->kind == NULL_PERMUTATION) {
		while (v + 1 < z->len && !(z->cdf[v] > 0))
			v++;
		while (w + 1 < z->len && !(z->sf[z->len - 1 - w] > 0))
			w++;
	}
	return null_p(z, (double)v / z->scale,
		      z->mn - (double)w / z->scale);
}

static void mw_fill(const struct ranks *r, const struct mw_null *z,
		    size_t m, struct stats_mw *out)
{
	double u1 = r->rank_sum_x - (double)m * (m + 1) / 2;
	double s = fmin(u1, z->mn - u1);

	out->u = u1;
	out->z = z->kind == NULL_NORMAL && z->sigma > 0 ?
		 (z->mn / 2 - s - 0.5) / z->sigma : 0;
	out->p = null_p(z, u1, u1);
	out->exact = z->kind != NULL_NORMAL;
	out->method = null_name[z->kind];
	out->null_bytes = z->bytes;
	out->p_min = null_p_min(z);
}

double stats_mw_cdf(double u, size_t m, size_t n)
{
	struct ranks r = { 0 };
	struct mw_null z;
	double c;

	if (!m || !n || !(exact_fits(m, n) || cf_fits(m, n)))
		return NAN;
	null_init(&z, &r, m, n);
	c = null_cdf(&z, floor(u));
	null_release(&z);
	return c;
}

int stats_mann_whitney(const double *a, size_t na, const double *b,
		       size_t nb, struct stats_mw *out)
{
	struct ranks r;
	struct mw_null z;
	double *x, *y;

	if (!na || !nb)
		return error("stats", "mann-whitney: empty sample");
	x = sorted_copy(a, na);
	y = sorted_copy(b, nb);
	ranks_init(&r, x, na, y, nb);
	null_init(&z, &r, na, nb);
	mw_fill(&r, &z, na, out);
	null_release(&z);
	ranks_release(&r);
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
	lb = xmalloc((nb + nn) * sizeof(*lb));
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
	/*
	 * se (t -+ q): the interval excludes 0 exactly when |t| > q, the
	 * sign of each end being that of t -+ q.
	 */
	if (se > 0) {
		q = t_quantile(alpha, out->df);
		out->diff_lo = se * (out->t - q);
		out->diff_hi = se * (out->t + q);
	} else {
		out->diff_lo = out->diff_hi = new->mean - base->mean;
	}
	if (!(base->mean > 0) || !(new->mean > 0)) {
		out->ratio = out->lo = out->hi = NAN;
		return 0;
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
		double *c = xmalloc(((size_t)(chi - clo) + 1) * sizeof(*c));
		double ret;
		size_t a = 0, b = 0, j, i, got = 0;
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

/*
 * HL on sorted x, y with the CI from the k-th smallest to the khi-th
 * largest difference (k, khi >= 1).
 */
static void hl_core(const double *x, size_t nb, const double *y, size_t nn,
		    size_t k, size_t khi, struct stats_hl *out)
{
	double N = (double)nb * nn;

	if (((size_t)N) & 1)
		out->shift = pairs_kth(x, nb, y, nn, (N + 1) / 2);
	else
		out->shift = (pairs_kth(x, nb, y, nn, N / 2) +
			      pairs_kth(x, nb, y, nn, N / 2 + 1)) / 2;
	out->rank_lo = k;
	out->rank_hi = khi;
	out->lo = pairs_kth(x, nb, y, nn, (double)k);
	out->hi = pairs_kth(x, nb, y, nn, N - khi + 1);
}

int stats_hodges_lehmann(const double *base, size_t nb, const double *new,
			 size_t nn, double alpha, struct stats_hl *out)
{
	struct ranks r;
	struct mw_null z;
	double *x, *y;
	size_t k, khi;

	if (!nb || !nn)
		return error("stats", "hodges-lehmann: empty sample");
	x = sorted_copy(base, nb);
	y = sorted_copy(new, nn);
	ranks_init(&r, x, nb, y, nn);
	null_init(&z, &r, nb, nn);
	k = null_critical(&z, alpha, 0);
	khi = null_critical(&z, alpha, 1);
	hl_core(x, nb, y, nn, k ? k : 1, khi ? khi : 1, out);
	null_release(&z);
	ranks_release(&r);
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
		double *th = xmalloc(len[j] * sizeof(*th)), mean = 0;

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

	th = xmalloc(alloc_mul(resamples, sizeof(*th)));
	rng = alloc_check(gsl_rng_alloc(gsl_rng_mt19937), "gsl_rng_alloc");
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
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t i;

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
	r->center = "median";
	r->estimate = "none";
	r->center_base = r->center_new = NAN;
	r->cv_base = r->cv_new = NAN;
	r->change = r->ci_lo = r->ci_hi = r->p = NAN;
	r->worse_max = r->better_max = NAN;
	r->alpha = o->alpha;
}

/*
 * Noisier than the host's A/A calibration: a side's variance above the
 * calibration's by more than the F distribution allows at this level
 * (CVs of one metric stand for its sds), and a CV of at least a tenth of
 * the threshold (smaller noise cannot move a verdict across it).
 */
#define NOISY_REF_P	0.001

static int above_ref(const struct stats_opts *o, double cv, size_t n)
{
	double f;

	if (!(cv > o->threshold / 10) || n < 2)
		return 0;
	f = gsl_cdf_fdist_Qinv(NOISY_REF_P, (double)n - 1,
			       (double)o->ref_n - 1);
	return cv > o->ref_cv * sqrt(f);
}

/* The noisy flag: against the calibration when there is one. */
static void flag_noise(struct stats_result *r, const struct stats_opts *o,
		       size_t nb, size_t nn)
{
	double cb = r->cv_base, cn = r->cv_new;
	int b, n;

	if (o->ref_n < 2) {
		if (cb > o->noisy_cv || cn > o->noisy_cv) {
			r->flags |= STATS_FLAG_NOISY;
			why_add(r, "noisy: CV %.1f%% base, %.1f%% new",
				cb * 100, cn * 100);
		}
		return;
	}
	b = above_ref(o, cb, nb);
	n = above_ref(o, cn, nn);
	if (b || n) {
		r->flags |= STATS_FLAG_NOISY;
		why_add(r, "noisy: CV %.2f%% %s, above the %.2f%% of the "
			"host's A/A calibration (%zu boots)",
			(b ? cb : cn) * 100, b && n ? "base (and new)" :
			b ? "base" : "new", o->ref_cv * 100, o->ref_n);
	}
	if (o->ref_failed) {
		r->flags |= STATS_FLAG_NOISY;
		why_add(r, "noisy: the host's A/A calibration of this metric "
			"saw more false alarms than its target");
	}
}

/*
 * Noise and plausibility flags from the two coefficients of variation:
 * noisy (flag_noise()), a CV ratio beyond noisy_cv_ratio with 10+
 * samples per side (noisy), a CV ratio beyond suspicious_cv_ratio or no
 * variation at all (suspicious).
 */
static void flag_cv(struct stats_result *r, const struct stats_opts *o,
		    size_t nb, size_t nn)
{
	double cb = r->cv_base, cn = r->cv_new;

	flag_noise(r, o, nb, nn);
	if (isnan(cb) || isnan(cn) || o->repeatable)
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

/* Sorted logs of sorted positive v (log may tie neighbours, not swap). */
static double *log_sorted(const double *v, size_t n)
{
	double *l = xmalloc((n ? n : 1) * sizeof(*l));
	size_t i;
	for (i = 0; i < n; i++)
		l[i] = log(v[i]);
	qsort(l, n, sizeof(*l), cmp_double);
	return l;
}

/*
 * The verdict's procedure on sorted x, y (log values when r->hl_log):
 * the test, its p, the Hodges-Lehmann estimate and the interval that
 * inverts the test; 0, or -1 when no test is possible (why is set).
 */
static int compare_ranks(const double *x, size_t nb, const double *y,
			 size_t nn, const struct stats_opts *o,
			 struct stats_result *r)
{
	struct ranks rk;
	struct mw_null z;
	int ret = -1;
	size_t k, khi;
	double u1;

	ranks_init(&rk, x, nb, y, nn);
	null_init(&z, &rk, nb, nn);
	mw_fill(&rk, &z, nb, &r->mw);
	r->have_mw = 1;
	if (r->mw.p_min >= o->alpha && rk.ties) {
		/*
		 * Values on a grid (instruction time repeats to the
		 * nanosecond) can tie so much that the permutation null
		 * never reaches alpha, however clear the data: eight equal
		 * values a side would be "insufficient" for ever.  For
		 * discrete values the closed interval between the untied
		 * null's critical differences still covers the shift with
		 * at least 1 - alpha (Hodges-Lehmann's interval is
		 * conservative under ties), so the verdict reads that
		 * interval, and p is the one it inverts.
		 */
		struct ranks untied = { .rank_sum_x = rk.rank_sum_x };

		null_release(&z);
		null_init(&z, &untied, nb, nn);
		mw_fill(&untied, &z, nb, &r->mw);
		r->mw.method = "exact, untied (values on a grid)";
		why_add(r, "ties: the interval uses the untied null (the "
			"permutation null cannot reach p < %g)", o->alpha);
	}
	if (r->mw.p_min >= o->alpha) {
		why_add(r, "with %zu and %zu samples the rank test cannot "
			"reach p < %g (best possible p = %.3g)", nb, nn,
			o->alpha, r->mw.p_min);
		goto out;
	}
	/*
	 * Pairs of equal values count for no change: the lower tail is
	 * tested at the count of differences <= 0 (U + ties / 2), the upper
	 * at mn minus the count >= 0 (U - ties / 2); the interval
	 * [D_(k), D_(mn-khi+1)] excludes 0 exactly when one of them is
	 * below alpha / 2.
	 */
	u1 = r->mw.u;
	r->p = null_p(&z, u1 + rk.cross / 2, u1 - rk.cross / 2);
	k = null_critical(&z, o->alpha, 0);
	khi = null_critical(&z, o->alpha, 1);
	hl_core(x, nb, y, nn, k, khi, &r->hl);
	r->have_hl = 1;
	ret = 0;
out:
	null_release(&z);
	ranks_release(&rk);
	return ret;
}

int stats_compare_samples(const double *base, size_t nb, const double *new,
			  size_t nn, const struct stats_opts *o,
			  struct stats_result *r)
{
	double *x = NULL, *y = NULL, *lx = NULL, *ly = NULL;
	double mb, vb, mn, vn;
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
	r->center = "median";
	r->estimate = positive ? "hodges-lehmann on log values" :
				 "hodges-lehmann / base median";
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
	flag_cv(r, o, nb, nn);
	/* A calibration's resampling saw the host's modes: its threshold
	 * accounts for them, and a mode count is not news. */
	for (i = 0; i < 2 && o->ref_n < 2; i++) {
		size_t n = i ? nn : nb;

		if (n >= 10 && bimodality(i ? new : base, n) > 5.0 / 9) {
			r->flags |= STATS_FLAG_NOISY;
			why_add(r, "noisy: %s looks multi-modal",
				i ? "new" : "base");
		}
	}
	if (!positive && !(r->center_base > 0)) {
		why_add(r, "values <= 0 and a base median <= 0: no relative "
			"change can be estimated");
		goto out;
	}
	r->hl_log = positive;
	if (positive) {
		lx = log_sorted(x, nb);
		ly = log_sorted(y, nn);
	}
	if (compare_ranks(positive ? lx : x, nb, positive ? ly : y, nn, o,
			  r) < 0)
		goto out;
	if (positive) {
		/* expm1 keeps the sign of each end (see the notes). */
		r->change = expm1(r->hl.shift);
		r->ci_lo = expm1(r->hl.lo);
		r->ci_hi = expm1(r->hl.hi);
	} else {
		r->change = r->hl.shift / r->center_base;
		r->ci_lo = r->hl.lo / r->center_base;
		r->ci_hi = r->hl.hi / r->center_base;
	}
	/* Cross-checks: reported, never part of the verdict. */
	if (positive) {
		r->have_welch = !stats_welch_log(base, nb, new, nn, o->alpha,
						 &r->welch);
	} else {
		struct stats_summary sb = { mb, sqrt(vb), nb };
		struct stats_summary sn = { mn, sqrt(vn), nn };

		r->have_welch = !stats_welch_summary(&sb, &sn, o->alpha,
						     &r->welch);
	}
	if (o->bootstrap >= 10 && r->center_base > 0 && r->center_new > 0 &&
	    nb <= UINT32_MAX && nn <= UINT32_MAX) {
		boot_sorted(x, nb, y, nn, o->alpha, o->bootstrap, o->seed,
			    &r->boot);
		r->have_boot = 1;
	}
	finish(r, o, r->ci_lo > 0 || r->ci_hi < 0);
out:
	free(x);
	free(y);
	free(lx);
	free(ly);
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
	r->center = "mean";
	r->estimate = "mean ratio, welch interval / base mean";
	r->n_base = base->n;
	r->n_new = new->n;
	r->center_base = base->mean;
	r->center_new = new->mean;
	if (base->mean > 0)
		r->change = (new->mean - base->mean) / base->mean;
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
	if (!(base->mean > 0)) {
		why_add(r, "base mean <= 0: no relative change can be "
			"estimated");
		return 0;
	}
	if (stats_welch_summary(base, new, o->alpha, &r->welch) < 0)
		return 0;
	r->have_welch = 1;
	r->p = r->welch.p;
	r->ci_lo = r->welch.diff_lo / base->mean;
	r->ci_hi = r->welch.diff_hi / base->mean;
	finish(r, o, r->ci_lo > 0 || r->ci_hi < 0);
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

double stats_seq_replay(struct stats_seq *s, double alpha, size_t n_max,
			const size_t *n, size_t nlooks)
{
	double a = alpha;
	size_t i;

	stats_seq_init(s, alpha, n_max);
	for (i = 0; i < nlooks; i++)
		a = stats_seq_look(s, n[i]);
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
