/*
 * t-analyze.c - analyze.c on its own: per-boot medians (odd and even
 * counts), grouping by params, the order and consistency rules, the caps
 * on names, params and iterations, and the p-value adjustment across
 * several runs' metrics.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "calib.h"
#include "strbuf.h"
#include "tap.h"

static int add(struct analyze_set *s, const char *metric, const char *params,
	       enum analyze_side side, long long boot, double v,
	       struct strbuf *err)
{
	strbuf_reset(err);
	return analyze_add(s, "w", metric, params, "ns", "lower", side, boot,
			   v, err);
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
	is_int(analyze_add(&s, "w", "m2", "{}", "ns", "lower", ANALYZE_BASE,
			   1, 1, &err), 0, "a new metric");
	is_int(analyze_add(&s, "w", "m2", "{}", "ms", "lower", ANALYZE_BASE,
			   2, 1, &err), -1, "the same metric in another unit");
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
	is_int(analyze_add(&s, "w", "m4", "{}", "ns", "up", ANALYZE_BASE, 1,
			   1, &err), -1, "an unknown direction");
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
	is_double(sets[0].m[0].p_holm, 3 * sets[0].m[0].r.p, 1e-15,
		  "Holm over the 3 p-values of both runs");
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
	return done_testing();
}
