/*
 * t-calib.c - calib.c on data whose answers are known: boots that never
 * vary (instruction time at its most exact), boots with 8% noise (plain
 * TCG), a host whose sides differ by their order (what only the real
 * replay sees), a budget too small for any test, changes of a known size,
 * and the table runs and analyses read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "sample.h"
#include "schedule.h"
#include "tap.h"

/* Deterministic standard normal draws (Box-Muller on splitmix64). */
static double normal(struct schedule_rng *r)
{
	double u = ((double)(schedule_rng_next(r) >> 11) + 0.5) / 0x1p53;
	double v = ((double)(schedule_rng_next(r) >> 11) + 0.5) / 0x1p53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * n boots in ABBA order of two metrics: "p" (primary) and "x" (not), each
 * 1000 * (1 + cv * N(0,1)) on the base side and that times 1 + offset on
 * the patched side.
 */
static void make(struct calib_data *d, size_t n, double cv, double offset,
		 uint64_t seed)
{
	struct schedule_rng r;
	enum analyze_side *order = calloc(n + 2, sizeof(*order));
	size_t i, b;

	calib_data_init(d);
	schedule_rng_init(&r, seed);
	schedule_abba(&r, (n + 1) / 2, order);
	for (i = 0; i < n; i++) {
		double f = order[i] == ANALYZE_PATCHED ? 1 + offset : 1;

		calib_data_new_boot(d, (unsigned int)i, order[i], 1000, &b);
		calib_data_set(d, b, "w", "p", "{}", "ns",
			       STATS_LOWER_IS_BETTER, 1,
			       1000 * (1 + cv * normal(&r)) * f);
		calib_data_set(d, b, "w", "x", "{}", "ns",
			       STATS_LOWER_IS_BETTER, 0,
			       500 * (1 + cv * normal(&r)) * f);
	}
	free(order);
}

static void design(struct calib_design *o, size_t budget, size_t sims)
{
	calib_design_init(o);
	o->stats.threshold = 0.03;
	o->stats.alpha = 0.05;
	o->stats.min_samples = 5;
	o->budget = budget;
	o->simulations = sims;
	o->seed = 7;
}

static void test_add_boot(void)
{
	struct calib_data d;
	struct sample s[5];
	const double v[] = { 5, 1, 3, 7, 8 };
	size_t i;

	memset(s, 0, sizeof(s));
	for (i = 0; i < 5; i++) {
		s[i].workload = "w";
		s[i].metric = i < 3 ? "a" : "b";
		s[i].params = "{}";
		s[i].unit = "ns";
		s[i].primary = i < 3;
		s[i].value = v[i];
	}
	calib_data_init(&d);
	is_int(calib_data_add_boot(&d, 4, ANALYZE_PATCHED, 1200, s, 5), 0,
	       "a boot of five records added");
	is_int(d.nm, 2, "two metrics");
	is_str(d.m[0].key, "w a {}", "keyed as sample_key() keys samples");
	is_double(d.b[0].v[0], 3, 0, "a's iterations: the median, 3");
	is_double(d.b[0].v[1], 7.5, 0, "b's two: their mean, 7.5");
	ok(d.m[0].primary && !d.m[1].primary, "primary as the records say");
	is_int(calib_data_add_boot(&d, 5, ANALYZE_BASE, 1100, s, 3), 0,
	       "a boot without b");
	ok(isnan(d.b[1].v[1]), "its b is missing, not 0");
	ok(d.b[1].side == ANALYZE_BASE && d.b[1].seq == 5 &&
	   d.b[0].ms == 1200, "order, side and wall time kept");
	calib_data_release(&d);
}

static void test_constant(void)
{
	struct calib_data d;
	struct calib_design o;
	struct calib_result r[2];
	struct calib_shift sh[2];
	double thr[2] = { 0.03, 0.03 };

	make(&d, 16, 0, 0, 1);
	design(&o, 20, 200);
	is_int(calib_compute(&d, &o, r), 0, "constant boots: computed");
	is_int(r[0].n, 16, "16 boots");
	is_double(r[0].cv, 0, 0, "cv 0");
	is_double(r[0].resolve, 0, 0, "the interval is [0, 0]: resolve 0");
	is_double(r[0].alarm, 0, 0, "nothing is ever significant: alarm 0");
	is_double(r[0].threshold, 0.03, 0, "the configured 3%% stands");
	is_int(r[0].false_alarms, 0, "no false alarm in 200 resampled runs");
	is_int(r[0].comparisons, 200, "200 comparisons counted");
	is_double(r[0].stop_mean, 6, 0, "every run stops at 6 boots a side, "
		  "the first look that can decide (budget 20, alpha spent "
		  "as the runner does)");
	is_int(r[0].real_comparisons, 1, "the real boots: one complete "
	       "comparison ...");
	is_int(r[0].real_truncated, 1, "... and the last 4 boots, one that "
	       "ran out");
	is_str(stats_verdict_str(r[0].real_verdict), "no-change",
	       "the real comparison: no-change");
	is_double(r[0].real_stop_mean, 6, 0, "... stopped at 6 boots a side");
	is_double(r[0].detectable, 0.0025, 0, "the smallest change tried is "
		  "detected");
	is_int(calib_shift(&d, &o, thr, 0.10, 100, sh), 0, "a 10%% change");
	is_double(sh[0].decided, 1, 0, "decided in every run");
	is_double(sh[0].detected, 1, 0, "found in every run");
	is_double(sh[0].n_median, 6, 0, "at 6 boots a side");
	calib_data_release(&d);
}

static void test_noisy(void)
{
	struct calib_data d;
	struct calib_design o;
	struct calib_result r[2], r2[2], fixed[2];
	struct calib_shift sh[2];
	double thr[2];

	make(&d, 40, 0.08, 0, 2);
	design(&o, 20, 600);
	is_int(calib_compute(&d, &o, r), 0, "8%% noise: computed");
	ok(r[0].cv > 0.05 && r[0].cv < 0.11, "cv near 8%% (%.3f)", r[0].cv);
	ok(r[0].threshold > 0.03, "the threshold is raised above the "
	   "configured 3%% (%.3f)", r[0].threshold);
	ok(r[0].threshold >= r[0].resolve && r[0].threshold >= r[0].alarm,
	   "to the larger of resolve %.3f and alarm %.3f", r[0].resolve,
	   r[0].alarm);
	ok(r[0].false_alarms <= 12, "false alarms at the raised threshold: "
	   "%zu of 600", r[0].false_alarms);
	ok(r[0].stop_mean < 20, "no-change is reachable: runs stop before "
	   "the budget on average (%.1f)", r[0].stop_mean);
	ok(r[0].detectable > r[0].resolve / 2 && r[0].detectable <= 0.5,
	   "detectable %.3f", r[0].detectable);
	/* The count is of the rules' false alarms: at alpha 0.5 the looks
	 * call noise a change, and the alarm threshold is what holds them
	 * to the target. */
	o.stats.alpha = 0.5;
	is_int(calib_compute(&d, &o, fixed), 0, "again, at alpha 0.5");
	ok(fixed[0].alarm > r[0].alarm && fixed[0].false_alarms <= 12,
	   "alarm rises to %.3f, false alarms %zu of 600", fixed[0].alarm,
	   fixed[0].false_alarms);
	o.coverage = 1e-9;
	o.target = 0.999;
	is_int(calib_compute(&d, &o, fixed), 0, "and with no threshold "
	       "raised");
	ok(fixed[0].threshold < 0.05 && fixed[0].false_alarms > 12,
	   "then false alarms abound: %zu of 600 (threshold %.3f)",
	   fixed[0].false_alarms, fixed[0].threshold);
	design(&o, 20, 600);
	calib_compute(&d, &o, r2);
	ok(!memcmp(r, r2, sizeof(r)), "the same seed gives the same figures");
	thr[0] = r[0].threshold;
	thr[1] = r[1].threshold;
	is_int(calib_shift(&d, &o, thr, 0.02, 100, sh), 0, "a 2%% change");
	ok(sh[0].detected < 0.5, "2%% under 8%% noise: found in under half "
	   "the runs (%.2f)", sh[0].detected);
	calib_data_release(&d);
}

static void test_order_effect(void)
{
	struct calib_data d;
	struct calib_design o;
	struct calib_result r[2];

	/* The patched slots of the ABBA order run 20% slower: a host with
	 * a side effect that resampling of pooled boots cannot see. */
	make(&d, 48, 0.01, 0.20, 3);
	design(&o, 20, 100);
	o.stats.threshold = 0.05;
	is_int(calib_compute(&d, &o, r), 0, "a side effect: computed");
	ok(r[0].cv > 0.05, "pooled, the two sides look like noise (cv "
	   "%.3f), and resampling raises the threshold to %.3f", r[0].cv,
	   r[0].threshold);
	ok(r[0].false_alarms <= 6, "resampled runs cannot see the side "
	   "effect: %zu false alarms of 100", r[0].false_alarms);
	ok(r[0].real_comparisons >= 1, "%zu real comparisons",
	   r[0].real_comparisons);
	is_int(r[0].real_false_alarms, r[0].real_comparisons,
	       "every real replay is a false alarm");
	ok(calib_false_alarm(r[0].real_verdict), "the first one too (%s)",
	   stats_verdict_str(r[0].real_verdict));
	calib_data_release(&d);
}

static void test_small_budget(void)
{
	struct calib_data d;
	struct calib_design o;
	struct calib_result r[2];

	make(&d, 12, 0.05, 0, 4);
	design(&o, 4, 100);
	is_int(calib_compute(&d, &o, r), 0, "budget 4: computed");
	ok(isnan(r[0].resolve), "4 boots a side can never test at alpha: "
	   "nothing is resolved");
	is_double(r[0].threshold, 0.03, 0, "the configured threshold stands");
	is_int(r[0].false_alarms + r[0].significant, 0, "and nothing is "
	       "ever significant");
	calib_data_release(&d);
}

static void test_table(void)
{
	struct calib_table t;
	struct calib_entry a = { "w m {}", 3, 0.08, 0.05, 16, 0 };
	struct calib_entry b = { "w m {}", 4, 0.05, 0.07, 12, 1 };
	struct calib_entry c = { "w n {}", 4, 0.01, 0.001, 12, 0 };
	struct stats_opts o;

	calib_table_init(&t);
	calib_table_add(&t, &a);
	calib_table_add(&t, &b);
	calib_table_add(&t, &c);
	is_int(t.n, 2, "two keys");
	stats_opts_init(&o);
	is_int(calib_table_apply(&t, "w m {}", &o), 3, "two hosts' word on "
	       "one metric: the larger floor's calibration");
	is_double(o.threshold, 0.08, 0, "threshold raised to 8%%");
	ok(o.ref_cv == 0.07 && o.ref_n == 12 && o.ref_failed,
	   "the noisier cv with its boots, failed from either");
	stats_opts_init(&o);
	is_int(calib_table_apply(&t, "w n {}", &o), 4, "a floor below the "
	       "configured threshold: the calibration is still in force");
	is_double(o.threshold, 0.03, 0, "and the configured 3%% stands");
	stats_opts_init(&o);
	is_int(calib_table_apply(&t, "w z {}", &o), 0, "an unknown key: 0");
	ok(o.ref_n == 0 && o.threshold == 0.03, "options left alone");
	calib_table_release(&t);
}

int main(void)
{
	test_add_boot();
	test_constant();
	test_noisy();
	test_order_effect();
	test_small_budget();
	test_table();
	return done_testing();
}
