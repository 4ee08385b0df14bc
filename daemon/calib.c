/*
 * calib.c - noise, false alarms and thresholds from an A/A calibration's
 * per-boot values (see calib.h).  Pure: no I/O.
 *
 * Design notes:
 * - Every simulated or replayed run goes through the same look as the
 *   runner (analyze_set_look()): after each round, every metric compared
 *   by stats_compare_samples() at the alpha stats_seq gives that look,
 *   the run stopping when every primary metric (every metric when none
 *   is primary) is decisive, a change only when the correction for all
 *   of them confirms it (analyze_confirmed()), or the budget is
 *   reached.  So the false alarms counted here are those of the rules
 *   the runs use, not of a test at a fixed size.
 * - Resampling draws whole boots, uniformly with replacement, so that
 *   what moves the metrics of one boot together (a slow boot is slow in
 *   every workload) moves them together in the simulation too.  Values
 *   that repeat (instruction time) repeat as they do on the host.
 * - The thresholds come from one set of runs that never stop early
 *   (they look at every round up to the budget): alarm bounds what any
 *   look calls significant, whatever the other metrics make the run do,
 *   and resolve is read at the budget's look, which every run that did
 *   not stop earlier reaches.  A second set, with those thresholds and
 *   the stop rule, counts the false alarms and boots that runs will see.
 * - The generator is schedule.c's splitmix64, so that a seed gives the
 *   same figures on every machine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "analyze.h"
#include "calib.h"
#include "log.h"
#include "sample.h"
#include "schedule.h"
#include "strbuf.h"

/* The changes tried for detectable (fractions), smallest first. */
static const double detect_grid[] = {
	0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.10, 0.15, 0.20,
	0.30, 0.50, 0.75, 1.00,
};
#define DETECT_GRID_N	(sizeof(detect_grid) / sizeof(detect_grid[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void calib_data_init(struct calib_data *d)
{
	memset(d, 0, sizeof(*d));
}

void calib_data_release(struct calib_data *d)
{
	size_t i;

	for (i = 0; i < d->nm; i++) {
		free(d->m[i].key);
		free(d->m[i].workload);
		free(d->m[i].metric);
		free(d->m[i].params);
		free(d->m[i].unit);
	}
	for (i = 0; i < d->nb; i++)
		free(d->b[i].v);
	free(d->m);
	free(d->b);
	calib_data_init(d);
}

/* Every boot's values have room for am metrics, NAN where unknown. */
static void grow_metrics(struct calib_data *d)
{
	size_t am = d->am ? 2 * d->am : 64, i, j;

	REALLOC_ARRAY(d->m, am);
	for (i = 0; i < d->nb; i++) {
		REALLOC_ARRAY(d->b[i].v, am);
		for (j = d->am; j < am; j++)
			d->b[i].v[j] = NAN;
	}
	d->am = am;
}

/* The index of a metric, added when new; -1 at the cap. */
static long metric_index(struct calib_data *d, const struct sample *s)
{
	char *key = sample_key(s);
	struct calib_metric *m;
	size_t i;

	for (i = 0; i < d->nm; i++)
		if (!strcmp(d->m[i].key, key)) {
			free(key);
			d->m[i].primary |= s->primary;
			return (long)i;
		}
	if (d->nm >= CALIB_MAX_METRICS) {
		free(key);
		return -1;
	}
	if (d->nm == d->am)
		grow_metrics(d);
	m = &d->m[d->nm];
	m->key = key;
	m->workload = xstrdup(s->workload);
	m->metric = xstrdup(s->metric);
	m->params = xstrdup(s->params);
	m->unit = xstrdup(s->unit);
	m->direction = s->direction;
	m->primary = s->primary;
	return (long)d->nm++;
}

int calib_data_new_boot(struct calib_data *d, unsigned int seq,
			enum analyze_side side, double ms, size_t *boot)
{
	struct calib_boot *b;
	size_t j;

	if (d->nb >= CALIB_MAX_BOOTS)
		return -1;
	ALLOC_GROW(d->b, d->nb + 1, d->ab);
	if (!d->am)
		grow_metrics(d);
	b = &d->b[d->nb];
	b->seq = seq;
	b->side = side;
	b->ms = ms;
	b->v = xcalloc(d->am, sizeof(double));
	for (j = 0; j < d->am; j++)
		b->v[j] = NAN;
	*boot = d->nb++;
	return 0;
}

int calib_data_set(struct calib_data *d, size_t boot, const char *workload,
		   const char *metric, const char *params, const char *unit,
		   enum stats_direction direction, int primary, double value)
{
	struct sample s = {
		.workload = (char *)workload, .metric = (char *)metric,
		.params = (char *)params, .unit = (char *)unit,
		.direction = direction, .primary = primary,
	};
	long i = metric_index(d, &s);

	if (i < 0 || boot >= d->nb)
		return -1;
	d->b[boot].v[i] = value;
	return 0;
}

int calib_data_add_boot(struct calib_data *d, unsigned int seq,
			enum analyze_side side, double ms,
			const struct sample *s, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	struct analyze_group *g = NULL;
	size_t ng = 0, boot, i;
	long *idx = NULL;
	int ret = -1;

	/* Each metric's iterations to their median, as the runs have it. */
	if (analyze_group_boot(s, n, &g, &ng, &err))
		goto out;
	idx = xcalloc(ng, sizeof(*idx));
	for (i = 0; i < ng; i++) {
		idx[i] = metric_index(d, g[i].first);
		if (idx[i] < 0)
			goto out;
		d->m[idx[i]].primary |= g[i].primary;
	}
	if (calib_data_new_boot(d, seq, side, ms, &boot))
		goto out;
	for (i = 0; i < ng; i++)
		d->b[boot].v[idx[i]] = g[i].median;
	ret = 0;
out:
	analyze_groups_free(g, ng);
	strbuf_release(&err);
	free(idx);
	return ret;
}

void calib_design_init(struct calib_design *d)
{
	memset(d, 0, sizeof(*d));
	stats_opts_init(&d->stats);
	d->stats.bootstrap = 0;
	d->budget = 10;
	d->pairs = 2;
	d->simulations = 1000;
	d->target = 0.01;
	d->coverage = 0.9;
	d->power = 0.8;
	d->seed = 1;
}

int calib_false_alarm(enum stats_verdict v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT ||
	       v == STATS_LIKELY_REGRESSION || v == STATS_LIKELY_IMPROVEMENT;
}

/* One run of the design in progress, and what its looks said. */
struct sim {
	const struct calib_data *d;
	struct calib_design o;
	const double *thr;	/* [nm] thresholds */
	double shift;		/* patched values times 1 + shift */
	int any_primary;
	size_t cap;		/* values per side and metric: the budget */
	double *val[2];		/* [nm * cap] */
	size_t *cnt[2];		/* [nm] */
	size_t ok[2];		/* boots per side */
	struct stats_seq seq;
	size_t n;		/* boots per side at the last look */
	/* per metric */
	enum stats_verdict *verdict;	/* at the last look */
	double *p;			/* its p; NAN if none */
	enum stats_verdict *first;	/* at the first decisive look */
	size_t *first_n;		/* its n; 0 = none yet */
	double *change;			/* at the last look */
	int *significant;		/* the last look's CI excludes 0 */
	double *max_sig;		/* largest |change| a look called
					 * significant; 0 = none */
	double *half;			/* max(-lo, hi) at the last look */
};

static void sim_init(struct sim *s, const struct calib_data *d,
		     const struct calib_design *o)
{
	size_t i, nm = d->nm;

	memset(s, 0, sizeof(*s));
	s->d = d;
	s->o = *o;
	if (!s->o.budget)
		s->o.budget = 10;
	if (!s->o.pairs)
		s->o.pairs = 2;
	s->o.stats.bootstrap = 0;
	s->cap = s->o.budget;
	for (i = 0; i < 2; i++) {
		s->val[i] = xcalloc(nm * s->cap, sizeof(double));
		s->cnt[i] = xcalloc(nm, sizeof(size_t));
	}
	s->verdict = xcalloc(nm, sizeof(*s->verdict));
	s->p = xcalloc(nm, sizeof(double));
	s->first = xcalloc(nm, sizeof(*s->first));
	s->first_n = xcalloc(nm, sizeof(*s->first_n));
	s->change = xcalloc(nm, sizeof(double));
	s->significant = xcalloc(nm, sizeof(int));
	s->max_sig = xcalloc(nm, sizeof(double));
	s->half = xcalloc(nm, sizeof(double));
	for (i = 0; i < nm; i++)
		s->any_primary |= d->m[i].primary;
}

static void sim_release(struct sim *s)
{
	free(s->val[0]);
	free(s->val[1]);
	free(s->cnt[0]);
	free(s->cnt[1]);
	free(s->verdict);
	free(s->p);
	free(s->first);
	free(s->first_n);
	free(s->change);
	free(s->significant);
	free(s->max_sig);
	free(s->half);
}

static void sim_reset(struct sim *s)
{
	size_t nm = s->d->nm, i;

	memset(s->cnt[0], 0, nm * sizeof(size_t));
	memset(s->cnt[1], 0, nm * sizeof(size_t));
	memset(s->first_n, 0, nm * sizeof(size_t));
	memset(s->max_sig, 0, nm * sizeof(double));
	for (i = 0; i < nm; i++) {
		s->verdict[i] = STATS_INSUFFICIENT_DATA;
		s->significant[i] = 0;
		s->change[i] = NAN;
		s->half[i] = INFINITY;
	}
	s->ok[0] = s->ok[1] = 0;
	s->n = 0;
	stats_seq_init(&s->seq, s->o.stats.alpha, s->o.budget);
}

static size_t sim_done(const struct sim *s)
{
	return s->ok[0] < s->ok[1] ? s->ok[0] : s->ok[1];
}

/* A boot's values join a side (a side already at the cap takes none). */
static void sim_add(struct sim *s, const struct calib_boot *b,
		    enum analyze_side side)
{
	double f = side == ANALYZE_PATCHED ? 1 + s->shift : 1;
	size_t m;

	if (s->ok[side] >= s->cap)
		return;
	for (m = 0; m < s->d->nm; m++) {
		size_t *c = &s->cnt[side][m];

		if (isnan(b->v[m]))
			continue;
		s->val[side][m * s->cap + *c] = b->v[m] * f;
		(*c)++;
	}
	s->ok[side]++;
}

/*
 * A look after a round: every metric compared as analyze_set_look()
 * does for the runner.  Returns 1 when the run stops here: every metric
 * that decides is decisive (a regression or improvement only when the
 * correction for all of them confirms it), or the budget is reached.
 */
static int sim_look(struct sim *s)
{
	const struct calib_data *d = s->d;
	struct stats_opts mo = s->o.stats;
	struct stats_result r;
	size_t m, k = 0, cap = s->cap;
	int all = 1;

	/* The runner looks once per round, with boots on both sides. */
	if (!sim_done(s) || sim_done(s) == s->n)
		return 0;
	s->n = sim_done(s);
	mo.alpha = stats_seq_look(&s->seq, s->n);
	for (m = 0; m < d->nm; m++) {
		int decides = d->m[m].primary || !s->any_primary;

		s->p[m] = NAN;
		mo.threshold = s->thr[m];
		mo.direction = d->m[m].direction;
		if (stats_compare_samples(s->val[0] + m * cap, s->cnt[0][m],
					  s->val[1] + m * cap, s->cnt[1][m],
					  &mo, &r) < 0) {
			if (decides)
				all = 0;
			continue;
		}
		s->p[m] = r.p;
		k += decides && isfinite(r.p);
		s->verdict[m] = r.verdict;
		s->change[m] = r.change;
		s->significant[m] = r.ci_lo > 0 || r.ci_hi < 0;
		if (s->significant[m] && fabs(r.change) > s->max_sig[m])
			s->max_sig[m] = fabs(r.change);
		/* + 0 makes -0 (an interval of [0, 0]) a plain 0 */
		s->half[m] = isfinite(r.ci_lo) && isfinite(r.ci_hi) ?
			     fmax(-r.ci_lo, r.ci_hi) + 0.0 : INFINITY;
		if (analyze_decisive(r.verdict) && !s->first_n[m]) {
			s->first_n[m] = s->n;
			s->first[m] = r.verdict;
		}
		if (decides && !analyze_decisive(r.verdict))
			all = 0;
	}
	for (m = 0; all && m < d->nm; m++)
		if ((d->m[m].primary || !s->any_primary) &&
		    !analyze_confirmed(s->verdict[m], s->p[m], k, mo.alpha))
			all = 0;
	return all || s->n >= s->o.budget;
}

/*
 * A resampled run: rounds of pairs boots a side drawn with replacement,
 * as runner_run() schedules them, until the stop (early) or the budget.
 */
static void sim_resampled(struct sim *s, struct schedule_rng *rng, int early)
{
	size_t nb = s->d->nb;

	sim_reset(s);
	while (sim_done(s) < s->o.budget) {
		size_t want = s->o.pairs, i;
		int stop;

		if (sim_done(s) + want > s->o.budget)
			want = s->o.budget - sim_done(s);
		for (i = 0; i < 2 * want; i++)
			sim_add(s, &s->d->b[schedule_rng_next(rng) % nb],
				i % 2 ? ANALYZE_PATCHED : ANALYZE_BASE);
		stop = sim_look(s);
		if (early && stop)
			break;
	}
}

/* The smallest t with P(x > t) <= q over the n values (sorted in place). */
static double upper_quantile(double *x, size_t n, double q)
{
	size_t k = (size_t)floor(q * (double)n);

	qsort(x, n, sizeof(*x), cmp_double);
	return k >= n ? 0 : x[n - 1 - k];
}

static void noise(const struct calib_data *d, size_t m,
		  struct calib_result *r)
{
	double *v = xcalloc(d->nb, sizeof(double)), mean = 0, ss = 0;
	size_t i, n = 0;

	for (i = 0; i < d->nb; i++)
		if (!isnan(d->b[i].v[m]))
			v[n++] = d->b[i].v[m];
	r->n = n;
	r->median = r->cv = NAN;
	if (n) {
		for (i = 0; i < n; i++)
			mean += v[i];
		mean /= (double)n;
		for (i = 0; i < n; i++)
			ss += (v[i] - mean) * (v[i] - mean);
		if (n > 1 && mean > 0)
			r->cv = sqrt(ss / (double)(n - 1)) / mean;
		r->median = median_of(v, n);
	}
	free(v);
}

/* Pass one: runs to the budget; resolve and alarm per metric. */
static void thresholds(struct sim *s, size_t runs, struct schedule_rng *rng,
		       struct calib_result *out)
{
	size_t nm = s->d->nm, m, i;
	double *sig = xcalloc(nm * runs, sizeof(double));
	double *half = xcalloc(nm * runs, sizeof(double));

	for (i = 0; i < runs; i++) {
		sim_resampled(s, rng, 0);
		for (m = 0; m < nm; m++) {
			sig[m * runs + i] = s->max_sig[m];
			half[m * runs + i] = s->half[m];
		}
	}
	for (m = 0; m < nm; m++) {
		struct calib_result *r = &out[m];

		r->alarm = upper_quantile(sig + m * runs, runs,
					  s->o.target);
		r->resolve = upper_quantile(half + m * runs, runs,
					    1 - s->o.coverage);
		if (!isfinite(r->resolve))
			r->resolve = NAN;
	}
	free(sig);
	free(half);
}

/* Pass two: runs of the design at the thresholds, stopping as runs do. */
static void alarms(struct sim *s, size_t runs, struct schedule_rng *rng,
		   struct calib_result *out)
{
	size_t nm = s->d->nm, m, i;
	double *stop = xcalloc(nm, sizeof(double));

	for (i = 0; i < runs; i++) {
		sim_resampled(s, rng, 1);
		for (m = 0; m < nm; m++) {
			out[m].comparisons++;
			out[m].false_alarms +=
				calib_false_alarm(s->verdict[m]);
			out[m].significant += s->significant[m];
			stop[m] += (double)s->n;
		}
	}
	for (m = 0; m < nm; m++)
		out[m].stop_mean = runs ? stop[m] / (double)runs : NAN;
	free(stop);
}

/* The smallest change of the grid found with the design's power. */
static void detectable(struct sim *s, size_t runs, struct schedule_rng *rng,
		       struct calib_result *out)
{
	size_t nm = s->d->nm, m, g, i, left = nm;
	size_t *hits = xcalloc(nm, sizeof(size_t));

	for (m = 0; m < nm; m++)
		out[m].detectable = NAN;
	for (g = 0; g < DETECT_GRID_N && left; g++) {
		s->shift = detect_grid[g];
		memset(hits, 0, nm * sizeof(size_t));
		for (i = 0; i < runs; i++) {
			sim_resampled(s, rng, 1);
			for (m = 0; m < nm; m++)
				hits[m] += s->significant[m] &&
					   s->change[m] > 0;
		}
		for (m = 0; m < nm; m++)
			if (isnan(out[m].detectable) &&
			    (double)hits[m] >= s->o.power * (double)runs) {
				out[m].detectable = detect_grid[g];
				left--;
			}
	}
	s->shift = 0;
	free(hits);
}

static int cmp_seq(const void *a, const void *b, void *arg)
{
	const struct calib_data *d = arg;
	unsigned int x = d->b[*(const size_t *)a].seq;
	unsigned int y = d->b[*(const size_t *)b].seq;

	return x < y ? -1 : x > y;
}

/*
 * The real boots in their order through the design, one comparison
 * after the other: a look whenever a round's boots (2 pairs slots of
 * the ABBA order from the comparison's first) are in.
 */
static void replay(struct sim *s, struct calib_result *out)
{
	const struct calib_data *d = s->d;
	size_t nb = d->nb, i = 0, m, *order = xcalloc(nb, sizeof(size_t));
	unsigned int round = 2 * (unsigned int)s->o.pairs;

	for (i = 0; i < nb; i++)
		order[i] = i;
	qsort_r(order, nb, sizeof(*order), cmp_seq, (void *)d);
	i = 0;
	while (i < nb) {
		unsigned int start = d->b[order[i]].seq, cur = 0;
		int stop = 0;

		sim_reset(s);
		while (i < nb) {
			const struct calib_boot *b = &d->b[order[i]];
			unsigned int blk = (b->seq - start) / round;

			if (blk != cur) {
				if ((stop = sim_look(s)))
					break;
				cur = blk;
			}
			sim_add(s, b, b->side);
			i++;
		}
		if (!stop)
			stop = sim_look(s);
		for (m = 0; m < d->nm; m++) {
			struct calib_result *r = &out[m];

			if (!stop) {
				r->real_truncated++;
				continue;
			}
			/* the running mean (NAN before the first) */
			r->real_stop_mean = ((r->real_comparisons ?
					      r->real_stop_mean *
					      (double)r->real_comparisons :
					      0) + (double)s->n) /
					    (double)(r->real_comparisons + 1);
			r->real_comparisons++;
			r->real_false_alarms +=
				calib_false_alarm(s->verdict[m]);
			if (!r->have_real) {
				r->have_real = 1;
				r->real_verdict = s->verdict[m];
			}
		}
	}
	free(order);
}

int calib_compute(const struct calib_data *d, const struct calib_design *o,
		  struct calib_result *out)
{
	struct schedule_rng rng;
	struct sim s;
	double *thr;
	size_t m, runs = o->simulations;

	if (!d->nb || !d->nm)
		return error("calib", "no boots to calibrate with");
	if (!(o->stats.alpha > 0 && o->stats.alpha < 1) ||
	    !(o->target >= 0 && o->target < 1) ||
	    !(o->coverage > 0 && o->coverage <= 1))
		return error("calib", "alpha, target or coverage out of range");
	memset(out, 0, d->nm * sizeof(*out));
	sim_init(&s, d, o);
	thr = xcalloc(d->nm, sizeof(double));
	schedule_rng_init(&rng, o->seed);
	for (m = 0; m < d->nm; m++) {
		noise(d, m, &out[m]);
		out[m].resolve = out[m].alarm = out[m].detectable = NAN;
		out[m].stop_mean = NAN;
		out[m].real_stop_mean = NAN;
		thr[m] = o->stats.threshold;
	}
	s.thr = thr;
	if (runs) {
		thresholds(&s, runs, &rng, out);
		for (m = 0; m < d->nm; m++) {
			if (out[m].resolve > thr[m])
				thr[m] = out[m].resolve;
			if (out[m].alarm > thr[m])
				thr[m] = out[m].alarm;
		}
		alarms(&s, runs, &rng, out);
		detectable(&s, runs / 5 > 50 ? runs / 5 : 50, &rng, out);
	}
	for (m = 0; m < d->nm; m++)
		out[m].threshold = thr[m];
	replay(&s, out);
	free(thr);
	sim_release(&s);
	return 0;
}

int calib_shift(const struct calib_data *d, const struct calib_design *o,
		const double *threshold, double change, size_t runs,
		struct calib_shift *out)
{
	struct schedule_rng rng;
	struct sim s;
	double *n;
	size_t m, i, *dec, *det;

	if (!d->nb || !d->nm || !runs)
		return error("calib", "no boots or no runs to simulate");
	sim_init(&s, d, o);
	s.thr = threshold;
	s.shift = change;
	schedule_rng_init(&rng, o->seed);
	n = xcalloc(d->nm * runs, sizeof(double));
	dec = xcalloc(d->nm, sizeof(size_t));
	det = xcalloc(d->nm, sizeof(size_t));
	for (i = 0; i < runs; i++) {
		/* To the budget: each metric's own first decisive look. */
		sim_resampled(&s, &rng, 0);
		for (m = 0; m < d->nm; m++) {
			if (!s.first_n[m])
				continue;
			n[m * runs + dec[m]++] = (double)s.first_n[m];
			det[m] += s.first[m] != STATS_NO_CHANGE &&
				  (change > 0) == (s.change[m] > 0);
		}
	}
	for (m = 0; m < d->nm; m++) {
		out[m].decided = (double)dec[m] / (double)runs;
		out[m].detected = (double)det[m] / (double)runs;
		out[m].n_median = dec[m] ? median_of(n + m * runs, dec[m]) :
					   NAN;
	}
	free(n);
	free(dec);
	free(det);
	sim_release(&s);
	return 0;
}

void calib_table_init(struct calib_table *t)
{
	memset(t, 0, sizeof(*t));
}

void calib_table_release(struct calib_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->e[i].key);
	free(t->e);
	calib_table_init(t);
}

static struct calib_entry *table_find(const struct calib_table *t,
				      const char *key)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].key, key))
			return &t->e[i];
	return NULL;
}

void calib_table_add(struct calib_table *t, const struct calib_entry *e)
{
	struct calib_entry *x = table_find(t, e->key);

	if (!x) {
		ALLOC_GROW(t->e, t->n + 1, t->alloc);
		x = &t->e[t->n++];
		*x = *e;
		x->key = xstrdup(e->key);
		return;
	}
	if (e->floor > x->floor) {
		x->floor = e->floor;
		x->calibration_id = e->calibration_id;
	}
	if (e->cv > x->cv) {
		x->cv = e->cv;
		x->n = e->n;
	}
	x->failed |= e->failed;
}

long long calib_table_apply(const struct calib_table *t, const char *key,
			    struct stats_opts *o)
{
	const struct calib_entry *e = t ? table_find(t, key) : NULL;

	if (!e)
		return 0;
	if (e->floor > o->threshold)
		o->threshold = e->floor;
	o->ref_n = e->n;
	o->ref_cv = e->cv;
	o->ref_failed = e->failed;
	return e->calibration_id;
}
