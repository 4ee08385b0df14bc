/*
 * t-analyze.c - analyze.c on its own: per-boot medians (odd and even
 * counts), grouping by params, the order and consistency rules, the caps
 * on names, params and iterations, the p-value adjustment across
 * several runs' metrics, the runner's last look taken again by the
 * analysis, and the correction for the metrics that decide a run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "calib.h"
#include "sample.h"
#include "strbuf.h"
#include "tap.h"

static int add(struct analyze_set *s, const char *metric, const char *params,
	       enum analyze_side side, long long boot, double v,
	       struct strbuf *err)
{
	strbuf_reset(err);
	return analyze_add(s, "w", metric, params, "ns", "lower", 0, side,
			   boot, v, err);
}

/* Boot b's value of metric k on side: "a" a clear regression, "b" not. */
static double value(int k, int side, int b)
{
	if (!k)
		return (side ? 120 : 100) + (b * 37 % 11) * 0.1;
	return 50 + (b * (side ? 53 : 29) % 13) * 0.1;
}

/*
 * The runner looks after each round of two boots a side at the set it
 * fills boot by boot; the analysis streams the same values in from the
 * database and takes the run's last look again: same verdicts, same p,
 * at the same alpha.
 */
static void test_final_is_last_look(void)
{
	static const char *const names[] = { "a", "b" };
	struct analyze_set run, stored;
	struct strbuf err = STRBUF_INIT;
	struct stats_seq seq;
	struct stats_opts o;
	struct sample smp[2];
	enum analyze_next next = ANALYZE_MORE;
	size_t looks[10], nlooks = 0, n = 0, i;
	int b, k, side, same = 1, r = 0;

	stats_opts_init(&o);
	o.bootstrap = 0;
	analyze_set_init(&run);
	analyze_set_init(&stored);
	stats_seq_init(&seq, 0.05, 20);
	memset(smp, 0, sizeof(smp));
	for (k = 0; k < 2; k++) {
		smp[k].workload = "w";
		smp[k].metric = (char *)names[k];
		smp[k].params = "{}";
		smp[k].unit = "ns";
		smp[k].primary = !k;
	}
	while (next == ANALYZE_MORE && n < 20) {
		for (b = (int)n; b < (int)n + 2; b++)
			for (side = 0; side < 2; side++) {
				for (k = 0; k < 2; k++)
					smp[k].value = value(k, side, b);
				r |= analyze_add_boot(&run, side, 2 * b + side,
						      smp, 2, &err) != 2;
			}
		n += 2;
		r |= analyze_set_look(&run, &seq, n, &o, &next);
		looks[nlooks++] = n;
	}
	is_int(r, 0, "the runner's boots added and looked at");
	ok(next == ANALYZE_DECIDED && nlooks > 1, "decided by the primary "
	   "metric at look %zu of %zu boots a side", nlooks, n);
	for (k = 0; k < 2; k++)
		for (b = 0; b < 2 * (int)n; b++)
			r |= analyze_add(&stored, "w", names[k], "{}", "ns",
					 "lower", !k, b % 2, b,
					 value(k, b % 2, b / 2), &err);
	analyze_set_finish(&stored);
	is_int(analyze_set_final(&stored, &o, 0.05, 20, looks, nlooks), 0,
	       "the stored boots compared");
	for (i = 0; i < run.n && i < stored.n; i++)
		same &= run.m[i].r.verdict == stored.m[i].r.verdict &&
			run.m[i].r.p == stored.m[i].r.p &&
			run.m[i].r.alpha == stored.m[i].r.alpha &&
			run.m[i].primary == stored.m[i].primary;
	ok(same && run.n == 2 && stored.n == 2, "the stored verdicts are the "
	   "ones the run stopped on");
	ok(stored.m[0].r.alpha < 0.05, "tested at the last look's alpha "
	   "(%.4f), not the overall one", stored.m[0].r.alpha);
	is_str(stats_verdict_str(stored.m[0].r.verdict), "regression",
	       "the primary metric's verdict");
	analyze_set_release(&run);
	analyze_set_release(&stored);
	strbuf_release(&err);
}

/*
 * nprimary of 13 metrics primary plus one that is not, each with the
 * two sides apart over n boots a side, looked at once in a design of 20.
 */
static enum analyze_next separated(struct analyze_set *s, size_t nprimary,
				   size_t n)
{
	struct strbuf err = STRBUF_INIT;
	struct stats_seq seq;
	struct stats_opts o;
	enum analyze_next next = ANALYZE_MORE;
	char m[8];
	size_t k, b;
	int r = 0;

	stats_opts_init(&o);
	o.bootstrap = 0;
	stats_seq_init(&seq, 0.05, 20);
	analyze_set_init(s);
	for (k = 0; k < 14; k++) {
		snprintf(m, sizeof(m), "m%02zu", k);
		for (b = 0; b < 2 * n; b++)
			r |= analyze_add(s, "w", m, "{}", "ns", "lower",
					 k < nprimary, b % 2, b,
					 100 + 50 * (b % 2) + b, &err);
	}
	analyze_set_finish(s);
	r |= analyze_set_look(s, &seq, n, &o, &next);
	is_int(r, 0, "%zu primary metrics, %zu boots a side: looked at",
	       nprimary, n);
	strbuf_release(&err);
	return next;
}

/*
 * The run stops on a change only when Holm over its primary metrics can
 * confirm it: at 6 boots a side the smallest p (2/924) is below the
 * look's alpha (0.021) for one metric alone, not for 13 of them.
 */
static void test_decided_after_holm(void)
{
	struct analyze_set s;
	enum analyze_next next;

	is_int(separated(&s, 1, 6), ANALYZE_DECIDED, "1 primary metric "
	       "apart at 6 boots a side: decided");
	analyze_set_release(&s);
	next = separated(&s, 13, 6);
	is_int(next, ANALYZE_MORE, "13 of them: p %.4f at "
	       "alpha %.4f is significant alone, not after Holm: go on",
	       s.m[0].r.p, s.m[0].r.alpha);
	is_str(stats_verdict_str(s.m[0].r.verdict), "regression", "(the "
	       "metric's own verdict)");
	analyze_set_release(&s);
	is_int(separated(&s, 13, 8), ANALYZE_DECIDED, "13 of them at 8 "
	       "boots a side: decided");
	analyze_adjust(&s, 1, ANALYZE_FDR_NONE);
	ok(s.m[0].p_holm < s.m[0].r.alpha, "and Holm confirms it: %.4f "
	   "below %.4f", s.m[0].p_holm, s.m[0].r.alpha);
	is_double(s.m[0].p_holm, 13 * s.m[0].r.p, 1e-15, "Holm over the 13 "
		  "primary metrics");
	is_double(s.m[13].p_holm, 14 * s.m[13].r.p, 1e-15, "the other metric: "
		  "Holm over all 14 of the run");
	analyze_set_release(&s);
}

/*
 * The calibrations of a run's hosts: a metric the host resolves only to
 * 30% is decided at 30%, and says so; one they do not know keeps the
 * configured threshold.
 */
static void calibrated(struct strbuf *err)
{
	struct calib_entry e = { "w coarse {}", 7, 0.30, 0.05, 16, 0 };
	struct calib_table t;
	struct analyze_set s;
	struct stats_opts o;
	int b, k, r = 0;

	calib_table_init(&t);
	calib_table_add(&t, &e);
	analyze_set_init(&s);
	for (k = 0; k < 2; k++)
		for (b = 0; b < 16; b++)
			r |= add(&s, k ? "fine" : "coarse", "{}", b % 2 ?
				 ANALYZE_PATCHED : ANALYZE_BASE, b + 1,
				 (b % 2 ? 120 : 100) + b / 2 % 3, err);
	analyze_set_finish(&s);
	is_int(r, 0, "two metrics, +20%%, 8 boots a side");
	stats_opts_init(&o);
	o.bootstrap = 0;
	s.calib = &t;
	is_int(analyze_set_compare(&s, &o), 0, "compared with a calibration");
	is_str(stats_verdict_str(s.m[0].r.verdict), "minor",
	       "+20%% where the host resolves 30%%: minor");
	ok(s.m[0].threshold == 0.30 && s.m[0].calibration_id == 7,
	   "... decided at 30%%, from calibration 7");
	is_str(stats_verdict_str(s.m[1].r.verdict), "regression",
	       "the metric the calibration does not know: a regression");
	ok(s.m[1].threshold == 0.03 && s.m[1].calibration_id == 0,
	   "... at the configured 3%%, no calibration");
	analyze_set_release(&s);
	calib_table_release(&t);
}

int main(void)
{
	struct strbuf err = STRBUF_INIT;
	struct analyze_set s, sets[2];
	struct stats_opts o;
	enum analyze_fdr fdr;
	char big[ANALYZE_MAX_PARAMS + 10];
	int i, r = 0;

	analyze_set_init(&s);
	/* Boot 1: 5, 1, 3 -> 3; boot 2: 4, 8 -> 6; boot 3 (patched): 7. */
	r |= add(&s, "m", "{}", ANALYZE_BASE, 1, 5, &err);
	r |= add(&s, "m", "{}", ANALYZE_BASE, 1, 1, &err);
	r |= add(&s, "m", "{}", ANALYZE_BASE, 1, 3, &err);
	r |= add(&s, "m", "{}", ANALYZE_BASE, 2, 4, &err);
	r |= add(&s, "m", "{}", ANALYZE_BASE, 2, 8, &err);
	r |= add(&s, "m", "{}", ANALYZE_PATCHED, 3, 7, &err);
	r |= add(&s, "m", "{\"mb\":1}", ANALYZE_BASE, 1, 10, &err);
	is_int(r, 0, "samples added");
	analyze_set_finish(&s);
	is_int(s.n, 2, "two metrics: the same name with other params is "
	       "another metric");
	is_int(s.m[0].n[0], 2, "two base boots");
	is_double(s.m[0].v[0][0], 3, 0, "odd count: the middle value");
	is_double(s.m[0].v[0][1], 6, 0, "even count: the mean of the middle "
		  "two");
	is_int(s.m[0].n[1], 1, "one patched boot");
	is_str(s.m[1].params, "{\"mb\":1}", "params kept");

	is_int(add(&s, "m", "{}", ANALYZE_BASE, 9, 1, &err), -1,
	       "a metric seen before and left: refused");
	is_str(err.buf, "w/m: samples not grouped by metric", "why");
	strbuf_reset(&err);
	is_int(analyze_add(&s, "w", "m2", "{}", "ns", "lower", 0,
			   ANALYZE_BASE, 1, 1, &err), 0, "a new metric");
	is_int(analyze_add(&s, "w", "m2", "{}", "ms", "lower", 0,
			   ANALYZE_BASE, 2, 1, &err), -1,
	       "the same metric in another unit");
	is_str(err.buf, "w/m2: boot 2: unit 'ms' or direction 'lower' differs "
	       "from 'ns', 'lower' of the first sample", "why");
	is_int(add(&s, "m2", "{}", ANALYZE_BASE, 5, 1, &err), 0, "boot 5");
	is_int(add(&s, "m2", "{}", ANALYZE_PATCHED, 5, 1, &err), -1,
	       "boot 5 on both sides: refused");
	is_int(add(&s, "m2", "{}", ANALYZE_BASE, 3, NAN, &err), -1, "NaN");
	is_str(err.buf, "w/m2: boot 3: a value is not a finite number",
	       "why");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(add(&s, "m3", big, ANALYZE_BASE, 1, 1, &err), -1,
	       "params over the cap");
	big[ANALYZE_MAX_NAME] = '\0';
	is_int(add(&s, big, "{}", ANALYZE_BASE, 1, 1, &err), -1,
	       "a metric name over the cap");
	strbuf_reset(&err);
	is_int(analyze_add(&s, "w", "m4", "{}", "ns", "up", 0, ANALYZE_BASE,
			   1, 1, &err), -1, "an unknown direction");
	for (i = 0; i <= ANALYZE_MAX_ITERATIONS && !r; i++)
		r = add(&s, "m5", "{}", ANALYZE_BASE, 1, i, &err);
	is_int(i, ANALYZE_MAX_ITERATIONS + 1, "iterations up to the cap");
	is_str(err.buf, "w/m5: boot 1: more than 100000 iterations", "then "
	       "refused");
	analyze_set_release(&s);

	/* Adjustment over two runs: 4 metrics, one without a p. */
	stats_opts_init(&o);
	o.bootstrap = 0;
	for (i = 0; i < 2; i++) {
		int b, k;

		analyze_set_init(&sets[i]);
		for (k = 0; k < 2; k++)
			for (b = 0; b < (i && k ? 2 : 8); b++) {
				char m[8];

				snprintf(m, sizeof(m), "m%d", k);
				add(&sets[i], m, "{}", ANALYZE_BASE, 2 * b, 100 +
				    b, &err);
				add(&sets[i], m, "{}", ANALYZE_PATCHED,
				    2 * b + 1, (k ? 100 : 150) + b, &err);
			}
		analyze_set_finish(&sets[i]);
		is_int(analyze_set_compare(&sets[i], &o), 0, "run %d compared",
		       i);
	}
	ok(isnan(sets[1].m[1].r.p), "2 boots a side: no p");
	analyze_adjust(sets, 2, ANALYZE_FDR_HOLM);
	is_double(sets[0].m[0].p_holm, 2 * sets[0].m[0].r.p, 1e-15,
		  "Holm within a run: over its 2 p-values, not the other "
		  "run's");
	is_double(sets[0].m[0].p_adjusted, sets[0].m[0].p_holm, 0,
		  "fdr_method holm: p_adjusted is Holm's");
	ok(isnan(sets[1].m[1].p_holm) && isnan(sets[1].m[1].p_adjusted),
	   "the metric without p stays without");
	analyze_adjust(sets, 2, ANALYZE_FDR_NONE);
	is_double(sets[1].m[0].p_adjusted, sets[1].m[0].r.p, 0,
		  "fdr_method none: p itself");
	is_int(analyze_fdr_parse("bh", &fdr) == 0 && fdr == ANALYZE_FDR_BH,
	       1, "bh parses");
	is_int(analyze_fdr_parse("BH", &fdr), -1, "BH does not");
	is_str(analyze_flags_str(STATS_FLAG_NOISY | STATS_FLAG_SUSPICIOUS),
	       "noisy,suspicious", "flags as stored");
	for (i = 0; i < 2; i++)
		analyze_set_release(&sets[i]);
	calibrated(&err);
	strbuf_release(&err);
	test_final_is_last_look();
	test_decided_after_holm();
	return done_testing();
}
