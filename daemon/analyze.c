/*
 * analyze.c - the per-boot metric set: medians of a boot's iterations,
 * per-metric comparisons, the adaptive design's looks and the p-value
 * adjustment of a series' analysis (see analyze.h).  Pure: no I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "analyze.h"
#include "calib.h"
#include "log.h"
#include "sample.h"
#include "strbuf.h"

int analyze_fdr_parse(const char *s, enum analyze_fdr *out)
{
	if (!strcmp(s, "bh"))
		*out = ANALYZE_FDR_BH;
	else if (!strcmp(s, "holm"))
		*out = ANALYZE_FDR_HOLM;
	else if (!strcmp(s, "none"))
		*out = ANALYZE_FDR_NONE;
	else
		return -1;
	return 0;
}

void analyze_set_init(struct analyze_set *s)
{
	memset(s, 0, sizeof(*s));
}

void analyze_set_release(struct analyze_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct analyze_metric *m = &s->m[i];

		free(m->workload);
		free(m->metric);
		free(m->params);
		free(m->unit);
		free(m->v[0]);
		free(m->v[1]);
		free(m->boot[0]);
		free(m->boot[1]);
	}
	free(s->m);
	free(s->it);
	analyze_set_init(s);
}

const char *analyze_side_str(enum analyze_side side)
{
	return side == ANALYZE_PATCHED ? "patched" : "base";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v and returns its median. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void analyze_metric_push(struct analyze_metric *m, enum analyze_side side,
			 long long boot, double value)
{
	size_t k = side;

	/* v[k] and boot[k] are parallel: one capacity for both */
	if (m->n[k] == m->alloc[k]) {
		ALLOC_GROW(m->v[k], m->n[k] + 1, m->alloc[k]);
		REALLOC_ARRAY(m->boot[k], m->alloc[k]);
	}
	m->v[k][m->n[k]] = value;
	m->boot[k][m->n[k]++] = boot;
}

/* Reduces the open boot's iterations to their median. */
static void close_boot(struct analyze_set *s)
{
	size_t n = s->nit;

	if (!s->open)
		return;
	s->open = 0;
	if (!n)
		return;
	s->nit = 0;
	analyze_metric_push(&s->m[s->cur], s->cur_side, s->cur_boot,
			    median(s->it, n));
}

static int same_group(const struct analyze_metric *m, const char *workload,
		      const char *metric, const char *params)
{
	return !strcmp(m->workload, workload) && !strcmp(m->metric, metric) &&
	       !strcmp(m->params, params);
}

static struct analyze_metric *find(struct analyze_set *s,
				   const char *workload, const char *metric,
				   const char *params)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (same_group(&s->m[i], workload, metric, params))
			return &s->m[i];
	return NULL;
}

/* Appends a metric (the caller checked the cap). */
static struct analyze_metric *append(struct analyze_set *s,
				     const char *workload, const char *metric,
				     const char *params, const char *unit,
				     enum stats_direction d)
{
	struct analyze_metric *m;

	ALLOC_GROW(s->m, s->n + 1, s->alloc);
	m = &s->m[s->n++];
	memset(m, 0, sizeof(*m));
	m->workload = xstrdup(workload);
	m->metric = xstrdup(metric);
	m->params = xstrdup(params);
	m->unit = xstrdup(unit);
	m->direction = d;
	m->p_adjusted = m->p_holm = NAN;
	return m;
}

static int check_full(const struct analyze_set *s, size_t more,
		      struct strbuf *err)
{
	if (s->n + more <= ANALYZE_MAX_METRICS)
		return 0;
	strbuf_addf(err, "more than %d metrics in one run",
		    ANALYZE_MAX_METRICS);
	return -1;
}

/* The caps on a sample's names and params. */
static int check_names(const char *workload, const char *metric,
		       const char *params, const char *unit,
		       struct strbuf *err)
{
	if (strlen(workload) >= ANALYZE_MAX_NAME ||
	    strlen(metric) >= ANALYZE_MAX_NAME ||
	    strlen(unit) >= ANALYZE_MAX_NAME) {
		strbuf_addf(err, "a workload, metric or unit name longer "
			    "than %d bytes", ANALYZE_MAX_NAME - 1);
		return -1;
	}
	if (strlen(params) >= ANALYZE_MAX_PARAMS) {
		strbuf_addf(err, "%s/%s: params longer than %d bytes",
			    workload, metric, ANALYZE_MAX_PARAMS - 1);
		return -1;
	}
	return 0;
}

/* Values in other units or directions cannot be compared. */
static int check_kind(const struct analyze_metric *m, long long boot,
		      const char *unit, const char *direction,
		      int same_direction, struct strbuf *err)
{
	if (!strcmp(m->unit, unit) && same_direction)
		return 0;
	strbuf_addf(err, "%s/%s: boot %lld: unit '%.32s' or direction "
		    "'%.32s' differs from '%s', '%s' of the first sample",
		    m->workload, m->metric, boot, unit, direction, m->unit,
		    analyze_direction_str(m->direction));
	return -1;
}

/* The group of a new key: appended, or -1 when it was seen before. */
static int new_group(struct analyze_set *s, const char *workload,
		     const char *metric, const char *params, const char *unit,
		     const char *direction, struct strbuf *err)
{
	enum stats_direction d;

	if (find(s, workload, metric, params)) {
		strbuf_addf(err, "%s/%s: samples not grouped by metric",
			    workload, metric);
		return -1;
	}
	if (check_full(s, 1, err))
		return -1;
	if (stats_direction_parse(direction, &d) < 0) {
		strbuf_addf(err, "%s/%s: direction '%.32s' is neither lower "
			    "nor higher", workload, metric, direction);
		return -1;
	}
	append(s, workload, metric, params, unit, d);
	s->cur = s->n - 1;
	return 0;
}

int analyze_add(struct analyze_set *s, const char *workload,
		const char *metric, const char *params, const char *unit,
		const char *direction, int primary, enum analyze_side side,
		long long boot, double value, struct strbuf *err)
{
	struct analyze_metric *m;
	enum stats_direction d;

	if (check_names(workload, metric, params, unit, err))
		return -1;
	if (!isfinite(value)) {
		strbuf_addf(err, "%s/%s: boot %lld: a value is not a finite "
			    "number", workload, metric, boot);
		return -1;
	}
	m = s->n ? &s->m[s->cur] : NULL;
	if (!m || !same_group(m, workload, metric, params)) {
		close_boot(s);
		if (new_group(s, workload, metric, params, unit, direction,
			      err))
			return -1;
		m = &s->m[s->cur];
	} else if (s->open && s->cur_boot != boot) {
		close_boot(s);
	}
	if (check_kind(m, boot, unit, direction,
		       stats_direction_parse(direction, &d) == 0 &&
		       d == m->direction, err))
		return -1;
	if (!s->open) {
		s->open = 1;
		s->cur_boot = boot;
		s->cur_side = side;
	} else if (s->cur_side != side) {
		strbuf_addf(err, "boot %lld is on both sides", boot);
		return -1;
	}
	if (s->nit >= ANALYZE_MAX_ITERATIONS) {
		strbuf_addf(err, "%s/%s: boot %lld: more than %d iterations",
			    workload, metric, boot, ANALYZE_MAX_ITERATIONS);
		return -1;
	}
	ALLOC_GROW(s->it, s->nit + 1, s->ait);
	s->it[s->nit++] = value;
	m->primary |= primary;
	return 0;
}

void analyze_set_finish(struct analyze_set *s)
{
	close_boot(s);
}

static int cmp_key(const struct sample *x, const struct sample *y)
{
	int c = strcmp(x->workload, y->workload);

	if (!c)
		c = strcmp(x->metric, y->metric);
	return c ? c : strcmp(x->params, y->params);
}

/* Samples by (workload, metric, params), then in their order. */
static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int c = cmp_key(x, y);

	return c ? c : (x > y) - (x < y);
}

static int cmp_group(const void *a, const void *b)
{
	const struct analyze_group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

int analyze_group_boot(const struct sample *s, size_t n,
		       struct analyze_group **groups, size_t *ngroups,
		       struct strbuf *err)
{
	const struct sample **p = xcalloc(n, sizeof(*p));
	struct analyze_group *g = xcalloc(n, sizeof(*g)), *cur;
	size_t i, j, e, ng = 0;
	int ret = -1;

	for (i = 0; i < n; i++)
		p[i] = &s[i];
	qsort(p, n, sizeof(*p), cmp_sample);
	for (i = 0; i < n; i = e) {
		const struct sample *f = p[i];

		if (check_names(f->workload, f->metric, f->params, f->unit,
				err))
			goto out;
		for (e = i + 1; e < n && !cmp_key(p[e], f); e++)
			;
		if (e - i > ANALYZE_MAX_ITERATIONS) {
			strbuf_addf(err, "%s/%s: more than %d iterations",
				    f->workload, f->metric,
				    ANALYZE_MAX_ITERATIONS);
			goto out;
		}
		cur = &g[ng++];
		cur->first = f;
		cur->n = e - i;
		cur->v = xcalloc(cur->n, sizeof(double));
		for (j = i; j < e; j++) {
			if (strcmp(p[j]->unit, f->unit) ||
			    p[j]->direction != f->direction) {
				strbuf_addf(err, "%s/%s: unit '%.32s' or "
					    "direction '%s' differs from '%s', "
					    "'%s' of the first sample",
					    f->workload, f->metric, p[j]->unit,
					    analyze_direction_str(
						    p[j]->direction), f->unit,
					    analyze_direction_str(
						    f->direction));
				goto out;
			}
			cur->v[j - i] = p[j]->value;
			cur->primary |= p[j]->primary;
		}
		cur->median = median(cur->v, cur->n);
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	*groups = g;
	*ngroups = ng;
	g = NULL;
	ret = 0;
out:
	if (g)
		analyze_groups_free(g, ng);
	free(p);
	return ret;
}

void analyze_groups_free(struct analyze_group *g, size_t n)
{
	size_t i;

	for (i = 0; g && i < n; i++)
		free(g[i].v);
	free(g);
}

int analyze_add_boot(struct analyze_set *s, enum analyze_side side,
		     long long boot, const struct sample *samples, size_t n,
		     struct strbuf *err)
{
	struct analyze_group *g;
	struct analyze_metric *m;
	size_t ng, i, more = 0;
	int ret = -1;

	if (analyze_group_boot(samples, n, &g, &ng, err))
		return -1;
	/* Nothing is added unless the whole boot can be. */
	for (i = 0; i < ng; i++) {
		const struct sample *f = g[i].first;

		m = find(s, f->workload, f->metric, f->params);
		if (!m)
			more++;
		else if (check_kind(m, boot, f->unit,
				    analyze_direction_str(f->direction),
				    f->direction == m->direction, err))
			goto out;
	}
	if (check_full(s, more, err))
		goto out;
	for (i = 0; i < ng; i++) {
		const struct sample *f = g[i].first;

		m = find(s, f->workload, f->metric, f->params);
		if (!m)
			m = append(s, f->workload, f->metric, f->params,
				   f->unit, f->direction);
		analyze_metric_push(m, side, boot, g[i].median);
		m->primary |= g[i].primary;
	}
	ret = (int)ng;
out:
	analyze_groups_free(g, ng);
	return ret;
}

struct analyze_metric *analyze_metric_get(struct analyze_set *s,
					  const char *workload,
					  const char *metric,
					  const char *params,
					  struct strbuf *err)
{
	struct analyze_metric *m = find(s, workload, metric, params);

	if (m)
		return m;
	if (check_full(s, 1, err))
		return NULL;
	return append(s, workload, metric, params, "",
		      STATS_LOWER_IS_BETTER);
}

static int cmp_metric(const void *a, const void *b)
{
	const struct analyze_metric *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);

	if (!c)
		c = strcmp(x->metric, y->metric);
	return c ? c : strcmp(x->params, y->params);
}

void analyze_set_sort(struct analyze_set *s)
{
	if (s->n)
		qsort(s->m, s->n, sizeof(*s->m), cmp_metric);
}

/*
 * Compares one metric of s with o at alpha, at the threshold and noise
 * reference of s->calib's word on it; 0 or -1 (stats.c refused).
 */
static int compare(const struct analyze_set *s, struct analyze_metric *m,
		   const struct stats_opts *o, double alpha)
{
	struct stats_opts mo = *o;

	mo.alpha = alpha;
	mo.direction = m->direction;
	m->calibration_id = 0;
	if (s->calib) {
		struct sample k = { .workload = m->workload,
				    .metric = m->metric,
				    .params = m->params };
		char *key = sample_key(&k);

		m->calibration_id = calib_table_apply(s->calib, key, &mo);
		free(key);
	}
	m->threshold = mo.threshold;
	m->compared = stats_compare_samples(m->v[0], m->n[0], m->v[1],
					    m->n[1], &mo, &m->r) == 0;
	return m->compared ? 0 : -1;
}

int analyze_set_compare(struct analyze_set *s, const struct stats_opts *o)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < s->n; i++)
		ret |= compare(s, &s->m[i], o, o->alpha);
	return ret;
}

int analyze_decisive(enum stats_verdict v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT ||
	       v == STATS_MINOR || v == STATS_NO_CHANGE;
}

/* Whether s names primary metrics: then they alone decide the run. */
static int any_primary(const struct analyze_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->m[i].primary)
			return 1;
	return 0;
}

/*
 * p below alpha / k puts the Holm p over the same family
 * (analyze_adjust()) below alpha, so the run never stops on a change its
 * report could not call significant.
 */
int analyze_confirmed(enum stats_verdict v, double p, size_t k, double alpha)
{
	if (v != STATS_REGRESSION && v != STATS_IMPROVEMENT)
		return 1;
	return p * k < alpha;
}

static int confirmed(const struct analyze_metric *m, size_t k, double alpha)
{
	return analyze_confirmed(m->r.verdict, m->r.p, k, alpha);
}

int analyze_set_look(struct analyze_set *s, struct stats_seq *seq, size_t n,
		     const struct stats_opts *o, enum analyze_next *next)
{
	double alpha = stats_seq_look(seq, n);
	int stop = 1, all = 1, ret = 0, any = any_primary(s);
	size_t i, k = 0;

	for (i = 0; i < s->n; i++) {
		struct analyze_metric *m = &s->m[i];

		if (compare(s, m, o, alpha))
			ret = -1;
		else if ((m->primary || !any) && isfinite(m->r.p))
			k++;
	}
	for (i = 0; i < s->n; i++) {
		struct analyze_metric *m = &s->m[i];
		int sure;

		if (any && !m->primary)
			continue;
		if (!m->compared) {
			stop = all = 0;
			continue;
		}
		sure = confirmed(m, k, alpha);
		if (!stats_seq_should_stop(seq, &m->r, n) ||
		    (!sure && n < seq->n_max))
			stop = 0;
		if (!analyze_decisive(m->r.verdict) || !sure)
			all = 0;
	}
	*next = !s->n ? ANALYZE_MORE : all ? ANALYZE_DECIDED :
		stop ? ANALYZE_BUDGET : ANALYZE_MORE;
	return ret;
}

int analyze_set_final(struct analyze_set *s, const struct stats_opts *o,
		      double alpha, size_t max_per_side, const size_t *looks,
		      size_t nlooks)
{
	struct stats_seq seq;
	enum analyze_next next;

	if (!(alpha > 0) || !max_per_side || !nlooks)
		return analyze_set_compare(s, o);
	stats_seq_replay(&seq, alpha, max_per_side, looks, nlooks - 1);
	return analyze_set_look(s, &seq, looks[nlooks - 1], o, &next);
}

/*
 * Collects the compared metrics of s that have a p (only those that
 * decide when deciders) into idx and p; returns how many.
 */
static size_t family(struct analyze_set *s, int deciders,
		     struct analyze_metric **idx, double *p)
{
	size_t i, k = 0;
	int any = any_primary(s);

	for (i = 0; i < s->n; i++) {
		struct analyze_metric *m = &s->m[i];

		if (!m->compared || !isfinite(m->r.p) ||
		    (deciders && any && !m->primary))
			continue;
		idx[k] = m;
		p[k++] = m->r.p;
	}
	return k;
}

static void adjust_set(struct analyze_set *s, enum analyze_fdr method)
{
	struct analyze_metric **idx = xcalloc(s->n, sizeof(*idx));
	double *p = xcalloc(s->n, sizeof(*p));
	double *holm = xcalloc(s->n, sizeof(*holm));
	double *adj = xcalloc(s->n, sizeof(*adj));
	size_t i, k;

	for (i = 0; i < s->n; i++)
		s->m[i].p_adjusted = s->m[i].p_holm = NAN;
	/* Every metric of the run: p_adjusted, and the others' Holm p. */
	k = family(s, 0, idx, p);
	stats_holm(p, k, holm);
	if (method == ANALYZE_FDR_BH)
		stats_bh(p, k, adj);
	for (i = 0; i < k; i++) {
		idx[i]->p_holm = holm[i];
		idx[i]->p_adjusted = method == ANALYZE_FDR_BH ? adj[i] : p[i];
	}
	/* The metrics that decide: Holm over them alone. */
	k = family(s, 1, idx, p);
	stats_holm(p, k, holm);
	for (i = 0; i < k; i++)
		idx[i]->p_holm = holm[i];
	if (method == ANALYZE_FDR_HOLM)
		for (i = 0; i < s->n; i++)
			s->m[i].p_adjusted = s->m[i].p_holm;
	free(idx);
	free(p);
	free(holm);
	free(adj);
}

void analyze_adjust(struct analyze_set *sets, size_t nsets,
		    enum analyze_fdr method)
{
	size_t i;

	for (i = 0; i < nsets; i++)
		adjust_set(&sets[i], method);
}

const char *analyze_direction_str(enum stats_direction d)
{
	return d == STATS_HIGHER_IS_BETTER ? "higher" : "lower";
}

const char *analyze_flags_str(unsigned int flags)
{
	switch (flags & (STATS_FLAG_NOISY | STATS_FLAG_SUSPICIOUS)) {
	case STATS_FLAG_NOISY:
		return "noisy";
	case STATS_FLAG_SUSPICIOUS:
		return "suspicious";
	case STATS_FLAG_NOISY | STATS_FLAG_SUSPICIOUS:
		return "noisy,suspicious";
	}
	return "";
}
