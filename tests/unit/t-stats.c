/*
 * t-stats.c - stats.c against SciPy's golden values and the seed threads.
 *
 * tests/fixtures/stats/golden.txt is produced by make-golden.py next to it
 * (SciPy and a pairwise Hodges-Lehmann); every line is recomputed here.
 * Then the numbers the seed threads publish get the verdicts a careful
 * reader would give them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"
#include "tap.h"

/* Relative closeness with an absolute floor for values near zero. */
static int close_to(double got, double want, double rel)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= rel * fabs(want) + 1e-300 ||
	       fabs(got - want) <= 1e-13;
}

/*
 * Interval ends go through gsl_cdf_tdist_Pinv, which agrees with SciPy's
 * t.ppf to about 1e-8 relative (measured); p-values and t go the other
 * way through the cdf, which agrees to 1e-12.
 */
#define QTOL 2e-7

struct tally {
	const char *name;
	int cases, bad;
};

static void mismatch(struct tally *t, const char *line, const char *what,
		     double got, double want)
{
	if (t->bad++ < 5)
		diag("%s %s: got %.17g want %.17g (case %.60s...)", t->name,
		     what, got, want, line);
}

static void check(struct tally *t, const char *line, const char *what,
		  double got, double want, double rel)
{
	if (!close_to(got, want, rel))
		mismatch(t, line, what, got, want);
}

/* Reads n doubles from *p (advancing it). */
static double *read_vals(char **p, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = strtod(*p, p);
	return v;
}

static double next(char **p)
{
	return strtod(*p, p);
}

static char *after_bar(char *p)
{
	char *bar = strchr(p, '|');

	return bar ? bar + 1 : p + strlen(p);
}

static void golden(void)
{
	struct tally mw = { "MW", 0, 0 }, wl = { "WL", 0, 0 },
		     ws = { "WS", 0, 0 }, hl = { "HL", 0, 0 },
		     holm = { "HOLM", 0, 0 }, bh = { "BH", 0, 0 },
		     cdf = { "MWCDF", 0, 0 };
	int exact = 0, perm = 0;
	const char *src = getenv("KREGRESS_SRC");
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/stats/golden.txt",
		 src ? src : ".");
	f = fopen(path, "r");
	if (!ok(f != NULL, "golden file %s opens", path))
		return;
	while (getline(&line, &cap, f) > 0) {
		char *p = line + 3;
		char orig[80];

		snprintf(orig, sizeof(orig), "%s", line);
		if (!strncmp(line, "MW ", 3)) {
			size_t na = strtoul(p, &p, 10), nb = strtoul(p, &p, 10);
			double *a = read_vals(&p, na), *b = read_vals(&p, nb);
			struct stats_mw r;

			p = after_bar(p);
			mw.cases++;
			if (stats_mann_whitney(a, na, b, nb, &r) < 0) {
				mismatch(&mw, orig, "failed", 0, 0);
			} else {
				char method[16] = "";

				check(&mw, orig, "U", r.u, next(&p), 1e-12);
				check(&mw, orig, "p", r.p, next(&p), 1e-9);
				sscanf(p, "%15s", method);
				if (strcmp(method, r.method))
					mismatch(&mw, orig, r.method, 0, 0);
				exact += !strcmp(method, "exact");
				perm += !strcmp(method, "permutation");
			}
			free(a);
			free(b);
		} else if (!strncmp(line, "WL ", 3)) {
			double alpha = next(&p);
			size_t na = strtoul(p, &p, 10), nb = strtoul(p, &p, 10);
			double *a = read_vals(&p, na), *b = read_vals(&p, nb);
			struct stats_welch r;

			p = after_bar(p);
			wl.cases++;
			if (stats_welch_log(a, na, b, nb, alpha, &r) < 0) {
				mismatch(&wl, orig, "failed", 0, 0);
			} else {
				check(&wl, orig, "t", r.t, next(&p), 1e-9);
				check(&wl, orig, "df", r.df, next(&p), 1e-9);
				check(&wl, orig, "p", r.p, next(&p), 1e-7);
				check(&wl, orig, "ratio", r.ratio, next(&p),
				      1e-12);
				check(&wl, orig, "lo", r.lo, next(&p), QTOL);
				check(&wl, orig, "hi", r.hi, next(&p), QTOL);
			}
			free(a);
			free(b);
		} else if (!strncmp(line, "WS ", 3)) {
			struct stats_summary sb, sn;
			struct stats_welch r;
			double alpha = next(&p);

			sb.mean = next(&p);
			sb.sd = next(&p);
			sb.n = strtoul(p, &p, 10);
			sn.mean = next(&p);
			sn.sd = next(&p);
			sn.n = strtoul(p, &p, 10);
			p = after_bar(p);
			ws.cases++;
			if (stats_welch_summary(&sb, &sn, alpha, &r) < 0) {
				mismatch(&ws, orig, "failed", 0, 0);
				continue;
			}
			check(&ws, orig, "t", r.t, next(&p), 1e-9);
			check(&ws, orig, "df", r.df, next(&p), 1e-9);
			check(&ws, orig, "p", r.p, next(&p), 1e-7);
			check(&ws, orig, "dlo", r.diff_lo, next(&p), QTOL);
			check(&ws, orig, "dhi", r.diff_hi, next(&p), QTOL);
			check(&ws, orig, "ratio", r.ratio, next(&p), 1e-12);
			check(&ws, orig, "rlo", r.lo, next(&p), QTOL);
			check(&ws, orig, "rhi", r.hi, next(&p), QTOL);
		} else if (!strncmp(line, "HL ", 3)) {
			double alpha = next(&p);
			size_t na = strtoul(p, &p, 10), nb = strtoul(p, &p, 10);
			double *a = read_vals(&p, na), *b = read_vals(&p, nb);
			struct stats_hl r;

			p = after_bar(p);
			hl.cases++;
			if (stats_hodges_lehmann(a, na, b, nb, alpha, &r) < 0) {
				mismatch(&hl, orig, "failed", 0, 0);
			} else {
				check(&hl, orig, "shift", r.shift, next(&p),
				      1e-12);
				check(&hl, orig, "lo", r.lo, next(&p), 1e-12);
				check(&hl, orig, "hi", r.hi, next(&p), 1e-12);
				check(&hl, orig, "rank", r.rank_lo, next(&p),
				      0);
				check(&hl, orig, "rank", r.rank_hi, next(&p),
				      0);
			}
			free(a);
			free(b);
		} else if (!strncmp(line, "MWCDF ", 6)) {
			size_t m, n;
			double u, want, got;

			p = line + 6;
			m = strtoul(p, &p, 10);
			n = strtoul(p, &p, 10);
			u = next(&p);
			p = after_bar(p);
			cdf.cases++;
			want = next(&p);
			got = stats_mw_cdf(u, m, n);
			/* 1e-12 relative or the inversion's 3e-15. */
			if (!(fabs(got - want) <= 1e-12 * want + 3e-15))
				mismatch(&cdf, orig, "cdf", got, want);
		} else if (!strncmp(line, "HOLM ", 5) ||
			   !strncmp(line, "BH ", 3)) {
			int is_holm = line[0] == 'H' && line[1] == 'O';
			struct tally *t = is_holm ? &holm : &bh;
			size_t n, i;
			double *pv, *adj;

			p = line + (is_holm ? 5 : 3);
			n = strtoul(p, &p, 10);
			pv = read_vals(&p, n);
			adj = malloc(n * sizeof(*adj));
			p = after_bar(p);
			t->cases++;
			if (is_holm)
				stats_holm(pv, n, adj);
			else
				stats_bh(pv, n, adj);
			for (i = 0; i < n; i++)
				check(t, orig, "adj", adj[i], next(&p), 1e-12);
			free(pv);
			free(adj);
		}
	}
	free(line);
	fclose(f);
	ok(mw.cases >= 300 && !mw.bad, "Mann-Whitney U, p and method match "
	   "SciPy (%d cases: %d exact, %d permutation; %d mismatches)",
	   mw.cases, exact, perm, mw.bad);
	ok(exact >= 100 && perm >= 100, "... with at least 100 exact and 100 "
	   "permutation p-values");
	ok(cdf.cases >= 60 && !cdf.bad, "exact U cdf up to 400 x 250 matches "
	   "integer counts to 1e-12 relative or 3e-15 absolute (%d cases, %d "
	   "mismatches)", cdf.cases, cdf.bad);
	ok(wl.cases >= 150 && !wl.bad, "Welch on logs matches SciPy "
	   "(%d cases, %d mismatches)", wl.cases, wl.bad);
	ok(ws.cases >= 100 && !ws.bad, "Welch from summaries matches SciPy "
	   "(%d cases, %d mismatches)", ws.cases, ws.bad);
	ok(hl.cases >= 300 && !hl.bad, "Hodges-Lehmann shift, CI and rank "
	   "match pairwise reference (%d cases, %d mismatches)", hl.cases,
	   hl.bad);
	ok(holm.cases >= 40 && !holm.bad, "Holm matches (%d cases)",
	   holm.cases);
	ok(bh.cases >= 40 && !bh.bad, "Benjamini-Hochberg matches (%d cases)",
	   bh.cases);
}

static void summary_case(const char *what, struct stats_summary b,
			 struct stats_summary n, enum stats_verdict want,
			 unsigned int want_flags, struct stats_result *r)
{
	struct stats_opts o;

	stats_opts_init(&o);
	ok(stats_compare_summaries(&b, &n, &o, r) == 0, "%s: compares", what);
	is_str(stats_verdict_str(r->verdict), stats_verdict_str(want),
	       "%s: verdict", what);
	is_int(r->flags, want_flags, "%s: flags", what);
	diag("%s: change %+.1f%% [%+.1f%%, %+.1f%%] p=%.3g; %s", what,
	     r->change * 100, r->ci_lo * 100, r->ci_hi * 100, r->p, r->why);
}

#define SUM(m, s, n) ((struct stats_summary){ (m), (s), (n) })

static void seeds(void)
{
	static const double control[] = { 180394, 235728, 238931, 187330,
		241742, 177925, 182758, 160872, 205813, 245722 };
	static const double pud[] = { 15089, 14056, 25741, 13838, 14187,
		14778, 14728, 14418, 15107, 13998 };
	struct stats_result r;
	struct stats_opts o;
	double orig = 2850, memchr = 3936;

	/* 000: both claims are large, significant improvements; CVs of
	 * 21-27% make both sides noisy. */
	summary_case("000 ftrace 349.5+-74.5 vs 131+-32.7 n=48",
		     SUM(349.5, 74.5, 48), SUM(131, 32.7, 48),
		     STATS_IMPROVEMENT, STATS_FLAG_NOISY, &r);
	ok(r.ci_hi < -0.55 && r.ci_lo > -0.70,
	   "000 ftrace: CI of the change inside -70%%..-55%%");
	summary_case("000 malloc 31831+-4286 vs 18193+-4915 n=100",
		     SUM(31831, 4286, 100), SUM(18193, 4915, 100),
		     STATS_IMPROVEMENT, STATS_FLAG_NOISY, &r);

	/* 004: v1 is a large improvement on both CPUs, but CPU0's sd of
	 * 0.36 on a mean of 112 (0.3%, against 13% on the base side) is
	 * implausible; exp-v2 differences are small: significant on CPU6
	 * (-6.4%, CI entirely beyond -3%), likely on CPU0 where the CI
	 * reaches inside the threshold. */
	summary_case("004 CPU0 base vs v1", SUM(237.383, 31.288, 95),
		     SUM(112.298, 0.36, 80), STATS_IMPROVEMENT,
		     STATS_FLAG_NOISY | STATS_FLAG_SUSPICIOUS, &r);
	summary_case("004 CPU6 base vs v1", SUM(258.065, 19.97, 61),
		     SUM(71.238, 13.7819, 83), STATS_IMPROVEMENT,
		     STATS_FLAG_NOISY, &r);
	summary_case("004 CPU0 base vs exp-v2", SUM(237.383, 31.288, 95),
		     SUM(218.911, 54.306, 69), STATS_LIKELY_IMPROVEMENT,
		     STATS_FLAG_NOISY, &r);
	summary_case("004 CPU6 base vs exp-v2", SUM(258.065, 19.97, 61),
		     SUM(241.522, 19.3068, 101), STATS_IMPROVEMENT, 0, &r);
	ok(r.change > -0.07 && r.change < -0.06 && r.ci_hi < -0.03,
	   "004 CPU6 exp-v2: -6.4%%, the whole CI beyond -3%%");

	/* 001: means of 100 iterations, no sd ("variation is ignorable"). */
	summary_case("001 arm64 forward vs reverse, means only",
		     SUM(8876.16, NAN, 100), SUM(18157.6, NAN, 100),
		     STATS_INSUFFICIENT_DATA, 0, &r);
	ok(strstr(r.why, "no standard deviation") != NULL,
	   "001: says that means alone allow no test");
	summary_case("001 x86 forward vs reverse, means only",
		     SUM(5766.46, NAN, 100), SUM(5187.86, NAN, 100),
		     STATS_INSUFFICIENT_DATA, 0, &r);

	/* 002: ten raw timings per side. */
	stats_opts_init(&o);
	ok(stats_compare_samples(control, 10, pud, 10, &o, &r) == 0,
	   "002 compares");
	is_str(stats_verdict_str(r.verdict), "improvement", "002: verdict");
	ok(r.mw.exact && close_to(r.p, 2 / 184756.0, 1e-9),
	   "002: exact Mann-Whitney p = 2/C(20,10) (complete separation)");
	ok(r.flags & STATS_FLAG_NOISY, "002: flagged noisy (CV %.0f%%/%.0f%%)",
	   r.cv_base * 100, r.cv_new * 100);
	ok(r.change < -0.9 && r.ci_hi < -0.9, "002: about -92%% (~13x)");
	ok(r.have_boot && r.boot.hi_pct < 0.1 && r.have_hl && r.hl_log &&
	   exp(r.hl.shift) < 0.1, "002: bootstrap and HL agree");
	diag("002: change %+.1f%% [%+.1f%%, %+.1f%%] p=%.3g HL ratio %.4f "
	     "[%.4f, %.4f] boot median ratio %.4f pct [%.4f, %.4f] BCa "
	     "[%.4f, %.4f]; %s", r.change * 100, r.ci_lo * 100,
	     r.ci_hi * 100, r.p, exp(r.hl.shift), exp(r.hl.lo),
	     exp(r.hl.hi), r.boot.ratio,
	     r.boot.lo_pct, r.boot.hi_pct, r.boot.lo_bca, r.boot.hi_bca,
	     r.why);

	/* 003: one timing per side: no test can say anything. */
	ok(stats_compare_samples(&orig, 1, &memchr, 1, &o, &r) == 0,
	   "003 compares");
	is_str(stats_verdict_str(r.verdict), "insufficient-data",
	       "003: one timing per side is insufficient-data");
	ok(isnan(r.p) && isnan(r.ci_lo), "003: no p-value, no CI invented");
	diag("003: %s", r.why);
}

static void edges(void)
{
	double a[] = { 10, 11, 12, 13 }, b[] = { 20, 21, 22, 23 };
	double same[] = { 5, 5, 5, 5, 5 }, bad[] = { 1, NAN, 3 };
	double inf[] = { 1, INFINITY, 3 };
	double p[] = { 0.01, 0.04, 0.03, 0.5 }, adj[4];
	struct stats_summary sb = { 100, 5, 10 }, sn = { 100, -1, 10 };
	struct stats_result r;
	struct stats_opts o;
	struct stats_seq s;
	double total = 0;
	int i;

	stats_opts_init(&o);
	/* n = 4 per side: best possible exact p = 2/70 < 0.05. */
	stats_compare_samples(a, 4, b, 4, &o, &r);
	is_str(stats_verdict_str(r.verdict), "regression",
	       "4 vs 4 separated, +80%%: regression (lower is better)");
	o.direction = STATS_HIGHER_IS_BETTER;
	stats_compare_samples(a, 4, b, 4, &o, &r);
	is_str(stats_verdict_str(r.verdict), "improvement",
	       "same data, higher is better: improvement");
	stats_opts_init(&o);
	stats_compare_samples(a, 3, b, 3, &o, &r);
	is_str(stats_verdict_str(r.verdict), "insufficient-data",
	       "3 vs 3: best exact p 0.1 cannot reach 0.05");
	ok(strstr(r.why, "cannot reach") != NULL, "... and says why: %s",
	   r.why);
	stats_compare_samples(same, 5, same, 5, &o, &r);
	is_str(stats_verdict_str(r.verdict), "no-change",
	       "identical constant samples: every ratio is 1, no-change");
	ok(r.flags & STATS_FLAG_SUSPICIOUS, "... flagged suspicious in real "
	   "time: %s", r.why);
	ok(stats_compare_samples(bad, 3, a, 4, &o, &r) < 0,
	   "NaN value is an error");
	ok(stats_compare_samples(inf, 3, a, 4, &o, &r) < 0,
	   "inf value is an error");
	ok(stats_compare_summaries(&sb, &sn, &o, &r) < 0,
	   "negative sd is an error");
	sn.sd = 5;
	sn.n = 0;
	ok(stats_compare_summaries(&sb, &sn, &o, &r) < 0, "n = 0 is an error");
	sn.n = 1;
	stats_compare_summaries(&sb, &sn, &o, &r);
	is_str(stats_verdict_str(r.verdict), "insufficient-data",
	       "n = 1 is insufficient-data");
	o.alpha = 0;
	ok(stats_compare_summaries(&sb, &sb, &o, &r) < 0, "alpha 0 refused");

	/* Wide CI around zero: inconclusive, with what is ruled out. */
	stats_opts_init(&o);
	{
		double x[] = { 100, 120, 90, 110, 95 };
		double y[] = { 105, 92, 118, 99, 111 };

		stats_compare_samples(x, 5, y, 5, &o, &r);
		is_str(stats_verdict_str(r.verdict), "inconclusive",
		       "CV 11%%, n=5, no shift: inconclusive");
		ok(r.worse_max > o.threshold && r.worse_max < 0.3 &&
		   strstr(r.why, "rule out"), "... reports what it rules "
		   "out: %s", r.why);
	}

	/* Zeros: no logarithms; Welch on the raw means takes over. */
	{
		double z0[] = { 0, 10, 11, 9, 10, 0, 10, 11 };
		double z1[] = { 0, 10, 12, 9, 11, 10, 10, 11 };

		ok(stats_compare_samples(z0, 8, z1, 8, &o, &r) == 0 &&
		   r.have_welch && isnan(r.welch.diff_lo) == 0 &&
		   r.verdict == STATS_INCONCLUSIVE,
		   "samples with zeros: raw Welch, inconclusive (%s)",
		   stats_verdict_str(r.verdict));
	}

	/* The adaptive loop stops on decisive verdicts and at the budget. */
	stats_seq_init(&s, 0.05, 20);
	r.verdict = STATS_LIKELY_REGRESSION;
	ok(!stats_seq_should_stop(&s, &r, 10), "likely-*: keep sampling");
	ok(stats_seq_should_stop(&s, &r, 20), "... until the budget");
	r.verdict = STATS_NO_CHANGE;
	ok(stats_seq_should_stop(&s, &r, 5), "no-change: stop");

	stats_holm(p, 4, adj);
	ok(close_to(adj[0], 0.04, 1e-12) && close_to(adj[2], 0.09, 1e-12) &&
	   close_to(adj[1], 0.09, 1e-12) && close_to(adj[3], 0.5, 1e-12),
	   "Holm by hand: 0.04 0.09 0.09 0.5");
	stats_bh(p, 4, adj);
	ok(close_to(adj[0], 0.04, 1e-12) && close_to(adj[1], 0.16 / 3, 1e-12) &&
	   close_to(adj[2], 0.16 / 3, 1e-12) && close_to(adj[3], 0.5, 1e-12),
	   "BH by hand: 0.04 0.0533 0.0533 0.5");

	stats_seq_init(&s, 0.05, 20);
	for (i = 5; i <= 20; i += 5) {
		double a_k = stats_seq_look(&s, i);

		ok(a_k > 0.008 && a_k < 0.02, "look at n=%d spends %.4f", i,
		   a_k);
		total += a_k;
	}
	ok(close_to(total, 0.05, 1e-12), "the looks spend exactly alpha");
	{
		size_t looks[2] = { 2, 4 };
		/* 0.05 ln(1 + (e-1) 0.4) - 0.05 ln(1 + (e-1) 0.2) */
		double want = 0.05 * (log(1 + (M_E - 1) * 0.4) -
				      log(1 + (M_E - 1) * 0.2));

		ok(close_to(stats_seq_replay(&s, 0.05, 10, looks, 2), want,
			    1e-12), "replayed looks: the last one's alpha "
		   "(%.5f)", want);
		ok(close_to(stats_seq_replay(&s, 0.05, 10, looks, 0), 0.05,
			    1e-15), "no look: the overall alpha");
	}
	ok(close_to(stats_mw_cdf(0, 10, 10), 1 / 184756.0, 1e-12) &&
	   close_to(stats_mw_cdf(1, 3, 4), 2 / 35.0, 1e-12) &&
	   close_to(stats_mw_cdf(30, 10, 12) + stats_mw_cdf(89, 10, 12), 1,
		    1e-12), "U cdf: by hand, and symmetric");
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Naive resample-sort-median, to check the binomial-split sampler. */
static double naive_median(gsl_rng *g, const double *s, size_t n,
			   double *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = s[gsl_rng_uniform_int(g, n)];
	for (i = 1; i < n; i++) {
		double v = buf[i];
		size_t j = i;

		while (j && buf[j - 1] > v) {
			buf[j] = buf[j - 1];
			j--;
		}
		buf[j] = v;
	}
	return n & 1 ? buf[n / 2] : (buf[n / 2 - 1] + buf[n / 2]) / 2;
}

static void bootstrap(void)
{
	double x[12], y[12], buf[12];
	struct stats_boot b1, b2, one = { 0 };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	size_t n;
	int i;

	for (i = 0; i < 12; i++) {
		x[i] = 100 + (i * 7) % 12;	/* a permutation of 100..111 */
		y[i] = 1;
	}
	stats_bootstrap_median_ratio(x, 12, x, 12, 0.05, 2000, 42, &b1);
	stats_bootstrap_median_ratio(x, 12, x, 12, 0.05, 2000, 42, &b2);
	ok(b1.lo_pct == b2.lo_pct && b1.hi_bca == b2.hi_bca,
	   "bootstrap is reproducible for a seed");
	ok(b1.lo_pct < 1 && b1.hi_pct > 1 && b1.lo_bca < 1 && b1.hi_bca > 1,
	   "A/A: percentile and BCa intervals contain 1 ([%.4f, %.4f], "
	   "[%.4f, %.4f])", b1.lo_pct, b1.hi_pct, b1.lo_bca, b1.hi_bca);
	ok(stats_bootstrap_median_ratio(x, 12, y, 1, 0.05, 2000, 1, &one) < 0,
	   "bootstrap refuses n = 1");

	/*
	 * The binomial descent must draw resample medians with the same
	 * distribution as resampling and sorting: compare the mean and the
	 * probability of each order statistic over 40,000 draws (odd and
	 * even n).
	 */
	for (n = 11; n <= 12; n++) {
		double sorted[12], mean_a = 0, sd = 0, ones[3] = { 1, 1, 1 };
		int draws = 40000;
		struct stats_boot tmp;

		for (i = 0; i < (int)n; i++)
			sorted[i] = i * i;	/* spread-out values */
		gsl_rng_set(g, 7);
		for (i = 0; i < draws; i++) {
			double v = naive_median(g, sorted, n, buf);

			mean_a += v;
			sd += v * v;
		}
		mean_a /= draws;
		sd = sqrt(sd / draws - mean_a * mean_a);
		/*
		 * The library's sampler through its public interface: with
		 * base constant 1 the ratio is the new median itself.
		 */
		stats_bootstrap_median_ratio(ones, 3, sorted + 1, n - 1, 0.5,
					     draws, 9, &tmp);
		/* Percentile interval at alpha 0.5 is the quartiles; the
		 * naive sampler's quartiles of the same sample must match
		 * within a few percent of the spread. */
		{
			double *v = malloc(draws * sizeof(*v));
			int k;

			gsl_rng_set(g, 11);
			for (k = 0; k < draws; k++)
				v[k] = naive_median(g, sorted + 1, n - 1, buf);
			qsort(v, draws, sizeof(*v), cmp_d);
			ok(fabs(tmp.lo_pct - v[draws / 4]) <= 0.05 * sd + 1 &&
			   fabs(tmp.hi_pct - v[3 * draws / 4]) <= 0.05 * sd + 1,
			   "n=%zu: quartiles of resample medians match naive "
			   "resampling ([%g, %g] vs [%g, %g])", n - 1,
			   tmp.lo_pct, tmp.hi_pct, v[draws / 4],
			   v[3 * draws / 4]);
			free(v);
		}
	}
	gsl_rng_free(g);
}

/* HL against the O(n^2) definition on a larger sample with ties. */
static void hl_large(void)
{
	size_t m = 300, n = 257, i, j, k = 0;
	double *x = malloc(m * sizeof(*x)), *y = malloc(n * sizeof(*y));
	double *d = malloc(m * n * sizeof(*d)), want;
	struct stats_hl r;

	for (i = 0; i < m; i++)
		x[i] = (double)((i * 7919) % 101) / 3;
	for (j = 0; j < n; j++)
		y[j] = (double)((j * 104729) % 97) / 3 + 0.5;
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[k++] = y[j] - x[i];
	qsort(d, k, sizeof(*d), cmp_d);
	want = k & 1 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
	stats_hodges_lehmann(x, m, y, n, 0.05, &r);
	is_double(r.shift, want, 1e-12, "HL 300 x 257 with ties: shift is "
		  "the median of the 77,100 sorted differences");
	ok(r.lo <= r.shift && r.shift <= r.hi && r.lo >= d[0] &&
	   r.hi <= d[k - 1], "... inside its CI [%g, %g]", r.lo, r.hi);
	free(d);
	free(x);
	free(y);
}

/* 10^6 pairs taking 11 values: ties that never thin out. */
static void hl_ties(void)
{
	size_t m = 1000, n = 1000, i, j, k = 0;
	double *x = malloc(m * sizeof(*x)), *y = malloc(n * sizeof(*y));
	double *d = malloc(m * n * sizeof(*d)), N;
	struct stats_hl r;
	int good = 1;

	for (i = 0; i < m; i++)
		x[i] = (double)((i * 7) % 6);
	for (j = 0; j < n; j++)
		y[j] = (double)((j * 5) % 6) + (j % 3 == 0);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[k++] = y[j] - x[i];
	qsort(d, k, sizeof(*d), cmp_d);
	N = (double)k;
	stats_hodges_lehmann(x, m, y, n, 0.05, &r);
	good = r.shift == (d[k / 2 - 1] + d[k / 2]) / 2;
	/* The CI ends must be differences at symmetric ranks. */
	for (i = 0; i < k && d[i] < r.lo; i++)
		;
	good = good && i < k && d[i] == r.lo;
	for (j = k; j > 0 && d[j - 1] > r.hi; j--)
		;
	good = good && j > 0 && d[j - 1] == r.hi;
	ok(good, "HL 1000 x 1000 integers (11 distinct "
	   "differences of %.0f): shift %g [%g, %g] as sorted pairs", N,
	   r.shift, r.lo, r.hi);
	free(d);
	free(x);
	free(y);
}

static int significant_verdict(enum stats_verdict v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT ||
	       v == STATS_LIKELY_REGRESSION || v == STATS_LIKELY_IMPROVEMENT ||
	       v == STATS_MINOR;
}

/*
 * One result against itself: p < alpha exactly when the CI excludes 0,
 * exactly when the verdict is a significant one; the estimate inside its
 * CI; the verdict where the CI and the threshold put it.  0 if it holds.
 */
static int disagrees(const struct stats_result *r, double T, char *why,
		     size_t len)
{
	int sig_p = r->p < r->alpha;
	int sig_ci = r->ci_lo > 0 || r->ci_hi < 0;
	double wl = r->ci_lo, wh = r->ci_hi;

	if (r->verdict == STATS_INSUFFICIENT_DATA)
		return 0;
	if (sig_p != sig_ci || sig_ci != significant_verdict(r->verdict)) {
		snprintf(why, len, "p %.17g alpha %g CI [%.17g, %.17g] %s",
			 r->p, r->alpha, r->ci_lo, r->ci_hi,
			 stats_verdict_str(r->verdict));
		return 1;
	}
	if (!(r->ci_lo <= r->change && r->change <= r->ci_hi)) {
		snprintf(why, len, "change %g outside [%g, %g]", r->change,
			 r->ci_lo, r->ci_hi);
		return 1;
	}
	if ((r->verdict == STATS_REGRESSION && !(wl > T)) ||
	    (r->verdict == STATS_IMPROVEMENT && !(wh < -T)) ||
	    (r->verdict == STATS_NO_CHANGE && !(wl > -T && wh < T))) {
		snprintf(why, len, "%s with CI [%g, %g], T %g",
			 stats_verdict_str(r->verdict), wl, wh, T);
		return 1;
	}
	return 0;
}

/* Random, tied, zero and separated samples; and random summaries. */
static void agreement(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	int cases = 0, bad = 0, tied = 0, sig = 0, kinds[3] = { 0 }, i;
	int scases = 0, sbad = 0, ssig = 0;
	double x[320], y[320];
	char why[200];

	gsl_rng_set(g, 14);
	for (i = 0; i < 6000; i++) {
		size_t nb = 3 + gsl_rng_uniform_int(g, i % 10 ? 25 : 160);
		size_t nn = 3 + gsl_rng_uniform_int(g, i % 7 ? 25 : 160);
		double shift = 1 + (gsl_rng_uniform_int(g, 5) * 0.03 - 0.06);
		int kind = i % 4;
		struct stats_result r;
		struct stats_opts o;
		size_t k;

		if (i % 20 == 1 || i % 20 == 2) {
			/* Ties beyond the permutation bound: normal. */
			nb = 151 + gsl_rng_uniform_int(g, 169);
			nn = 151 + gsl_rng_uniform_int(g, 169);
		} else if (i % 400 == 0) {
			/* No ties beyond Harding: the inversion. */
			nb = 151 + gsl_rng_uniform_int(g, 50);
			nn = 151 + gsl_rng_uniform_int(g, 50);
		}

		for (k = 0; k < nb + nn; k++) {
			double v, f = k < nb ? 1 : shift;

			if (kind == 0)		/* lognormal, CV 5% */
				v = 100 * f * exp(gsl_ran_gaussian(g, 0.05));
			else if (kind == 1)	/* integers: many ties */
				v = floor(f * (10 + gsl_rng_uniform_int(g, 4)));
			else if (kind == 2)	/* zeros and negatives */
				v = gsl_rng_uniform(g) < 0.3 ? 0 :
				    f * (1 + gsl_ran_gaussian(g, 0.5));
			else			/* coarse timer: 1% steps */
				v = floor(f * 100 * exp(gsl_ran_gaussian(g,
						0.03))) + 1000;
			if (k < nb)
				x[k] = v;
			else
				y[k - nb] = v;
		}
		stats_opts_init(&o);
		o.bootstrap = 0;
		o.alpha = (double[]){ 0.05, 0.01, 0.1, 0.0179 }[i % 4];
		o.threshold = (double[]){ 0.03, 0.01, 0 }[i % 3];
		o.direction = i % 5 ? STATS_LOWER_IS_BETTER :
				      STATS_HIGHER_IS_BETTER;
		if (stats_compare_samples(x, nb, y, nn, &o, &r) < 0)
			continue;
		if (r.verdict == STATS_INSUFFICIENT_DATA)
			continue;
		cases++;
		tied += strcmp(r.mw.method, "exact") != 0;
		kinds[r.mw.method[0] == 'e' ? 0 : r.mw.method[0] == 'p' ? 1 :
		      2]++;
		sig += significant_verdict(r.verdict);
		if (o.direction == STATS_HIGHER_IS_BETTER) {
			/* Orient as the verdict does: positive is worse. */
			double lo = r.ci_lo;

			r.ci_lo = -r.ci_hi;
			r.ci_hi = -lo;
			r.change = -r.change;
		}
		if (disagrees(&r, o.threshold, why, sizeof(why)) &&
		    bad++ < 5)
			diag("samples %zu/%zu kind %d: %s", nb, nn, kind, why);
	}
	ok(cases > 4000 && !bad, "%d sample verdicts (%d significant; %d "
	   "exact, %d permutation, %d normal): p < alpha <=> the CI "
	   "excludes 0 <=> a significant verdict, the estimate inside its "
	   "CI (%d disagree)", cases, sig, kinds[0], kinds[1], kinds[2], bad);
	ok(tied > 1000 && kinds[2] > 100, "... %d of them with ties, %d "
	   "beyond the exact bounds", tied, kinds[2]);

	for (i = 0; i < 3000; i++) {
		struct stats_summary b, n;
		struct stats_result r;
		struct stats_opts o;

		b.mean = 100 + 50 * gsl_rng_uniform(g);
		n.mean = b.mean * (0.9 + 0.2 * gsl_rng_uniform(g));
		b.sd = b.mean * 0.2 * gsl_rng_uniform(g);
		n.sd = n.mean * 0.2 * gsl_rng_uniform(g);
		b.n = 2 + gsl_rng_uniform_int(g, 100);
		n.n = 2 + gsl_rng_uniform_int(g, 100);
		stats_opts_init(&o);
		o.alpha = (double[]){ 0.05, 0.01 }[i % 2];
		if (stats_compare_summaries(&b, &n, &o, &r) < 0 ||
		    r.verdict == STATS_INSUFFICIENT_DATA)
			continue;
		scases++;
		ssig += significant_verdict(r.verdict);
		if (!(close_to(r.change, n.mean / b.mean - 1, 1e-12)) &&
		    sbad++ < 5)
			diag("summary: change %g is not the ratio of the "
			     "means", r.change);
		if (disagrees(&r, o.threshold, why, sizeof(why)) &&
		    sbad++ < 5)
			diag("summary: %s", why);
	}
	ok(scases > 2500 && !sbad, "%d summary verdicts (%d significant): "
	   "Welch's p < alpha <=> its CI excludes 0, the change is the ratio "
	   "of the means shown (%d disagree)", scases, ssig, sbad);
	gsl_rng_free(g);
}

/* 5 and 15 boots against 80 (a cached base's history), separated. */
static void unbalanced(void)
{
	double a[15], b[80];
	struct stats_result r;
	struct stats_opts o;
	size_t i;

	for (i = 0; i < 80; i++)
		b[i] = 1000 + i;
	for (i = 0; i < 15; i++)
		a[i] = 1200 + i;
	stats_opts_init(&o);
	stats_compare_samples(b, 80, a, 5, &o, &r);
	ok(!strcmp(r.mw.method, "exact") && close_to(r.p, 6.097278976457094e-8,
						   1e-9),
	   "80 vs 5 separated: exact p %.3g (the normal approximation said "
	   "1.9e-4)", r.p);
	is_str(stats_verdict_str(r.verdict), "regression", "... a regression");
	stats_compare_samples(b, 80, a, 15, &o, &r);
	ok(close_to(r.p, 1.811998826863584e-17, 1e-9),
	   "80 vs 15 separated: exact p %.3g (normal: 9.4e-10)", r.p);
}

/*
 * Instruction time repeats to the nanosecond: eight equal values a side
 * (from tests/slow/t-defaults-e2e.sh's runs, thp-fault's 2 MiB first
 * touch) tie so that the permutation null cannot reach alpha; the verdict
 * reads the untied null's interval instead, and the zero spread is not
 * suspicious when the clock is repeatable.
 */
static void repeatable(void)
{
	static const double same[8] = {
		170800, 170800, 170800, 170800, 170800, 170800, 170800, 170800,
	};
	static const double more[8] = {
		171824, 171824, 171824, 171824, 171824, 171824, 171824, 171824,
	};
	/* move_pte of the e2e's comment-only x86_64 run: one boot 5% up */
	static const double pte_b[8] = {
		17506, 17506, 17506, 17506, 17506, 17506, 17506, 17506,
	};
	static const double pte_p[8] = {
		17506, 17506, 17506, 17506, 17506, 17506, 18339.5, 17506,
	};
	struct stats_result r;
	struct stats_opts o;
	char why[160];

	stats_opts_init(&o);
	o.alpha = 0.0086;	/* the last of four looks, budget 8 */
	o.repeatable = 1;
	stats_compare_samples(same, 8, same, 8, &o, &r);
	is_str(stats_verdict_str(r.verdict), "no-change",
	       "eight equal values a side: no-change");
	ok(r.ci_lo == 0 && r.ci_hi == 0 && r.change == 0,
	   "... the interval is exactly [0, 0]");
	ok(!(r.flags & STATS_FLAG_SUSPICIOUS), "... and, with a repeatable "
	   "clock, not suspicious");
	ok(!disagrees(&r, o.threshold, why, sizeof(why)), "... and agrees "
	   "with itself %s", why);
	stats_compare_samples(same, 8, more, 8, &o, &r);
	is_str(stats_verdict_str(r.verdict), "minor",
	   "a constant +0.6%%: significant, within the threshold: minor");
	ok(r.p < o.alpha && r.ci_lo > 0 && close_to(r.change, 1024.0 / 170800,
						 1e-9),
	   "... p %.3g, interval above 0, the change is the ratio", r.p);
	stats_compare_samples(pte_b, 8, pte_p, 8, &o, &r);
	is_str(stats_verdict_str(r.verdict), "inconclusive",
	       "one boot in eight 5%% up: inconclusive, not no-change");
	o.repeatable = 0;
	stats_compare_samples(same, 8, same, 8, &o, &r);
	ok(r.flags & STATS_FLAG_SUSPICIOUS, "in real time, no spread at all "
	   "is still suspicious (a coarse timer)");
}

/* The noisy flag against a host's A/A calibration (stats.h, ref_*). */
static void calibrated(void)
{
	/* CV about 16%, the same on both sides */
	static const double b[10] = {
		80, 120, 95, 105, 70, 130, 100, 90, 110, 100,
	};
	static const double n[10] = {
		82, 122, 97, 107, 72, 132, 102, 92, 112, 102,
	};
	/* two values, half and half: "multi-modal" */
	static const double two[20] = {
		100, 103, 100, 103, 100, 103, 100, 103, 100, 103,
		100, 103, 100, 103, 100, 103, 100, 103, 100, 103,
	};
	struct stats_result r;
	struct stats_opts o;

	stats_opts_init(&o);
	stats_compare_samples(b, 10, n, 10, &o, &r);
	ok(r.flags & STATS_FLAG_NOISY, "no calibration: CV %.0f%% is noisy "
	   "(above noisy_cv)", r.cv_base * 100);
	o.ref_n = 16;
	o.ref_cv = 0.15;
	stats_compare_samples(b, 10, n, 10, &o, &r);
	ok(!(r.flags & STATS_FLAG_NOISY), "a host whose A/A CV is 15%%: not "
	   "noisy for that host (%s)", r.why);
	o.ref_cv = 0.04;
	stats_compare_samples(b, 10, n, 10, &o, &r);
	ok((r.flags & STATS_FLAG_NOISY) && strstr(r.why, "above the 4.00% "
	   "of the host's A/A calibration (16 boots)"),
	   "a host whose A/A CV is 4%%: noisy, and says so: %s", r.why);
	o.ref_cv = 0;
	o.threshold = 2;
	stats_compare_samples(b, 10, n, 10, &o, &r);
	ok(!(r.flags & STATS_FLAG_NOISY), "noise below a tenth of the "
	   "threshold (200%%) is never noisy, even against a CV of 0");
	o.threshold = 0.03;
	o.ref_cv = 0.15;
	o.ref_failed = 1;
	stats_compare_samples(b, 10, n, 10, &o, &r);
	ok((r.flags & STATS_FLAG_NOISY) && strstr(r.why, "more false alarms"),
	   "a calibration that failed its target: noisy (%s)", r.why);
	stats_opts_init(&o);
	stats_compare_samples(two, 20, two, 20, &o, &r);
	ok((r.flags & STATS_FLAG_NOISY) && strstr(r.why, "multi-modal"),
	   "no calibration: two values half and half look multi-modal");
	o.ref_n = 16;
	o.ref_cv = 0.015;
	stats_compare_samples(two, 20, two, 20, &o, &r);
	ok(!(r.flags & STATS_FLAG_NOISY), "with one, whose resampling saw "
	   "those modes: not noisy (%s)", r.why);
}

int main(void)
{
	golden();
	calibrated();
	repeatable();
	agreement();
	unbalanced();
	seeds();
	edges();
	bootstrap();
	hl_large();
	hl_ties();
	return done_testing();
}
