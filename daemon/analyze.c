/*
 * analyze.c - per-boot medians, per-metric comparisons and the p-value
 * adjustment of a series' analysis (see analyze.h).  Pure: no I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	}
	free(s->m);
	free(s->it);
	analyze_set_init(s);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("analyze", "out of memory");
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (!p)
		die("analyze", "out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("analyze", "out of memory");
	return d;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Reduces the open boot's iterations to their median. */
static void close_boot(struct analyze_set *s)
{
	struct analyze_metric *m;
	size_t k, n = s->nit;
	double med;

	if (!s->open)
		return;
	s->open = 0;
	if (!n)
		return;
	qsort(s->it, n, sizeof(double), cmp_double);
	med = n % 2 ? s->it[n / 2] : (s->it[n / 2 - 1] + s->it[n / 2]) / 2;
	s->nit = 0;
	m = &s->m[s->cur];
	k = s->cur_side;
	if (m->n[k] == m->alloc[k]) {
		m->alloc[k] = m->alloc[k] ? 2 * m->alloc[k] : 16;
		m->v[k] = xrealloc(m->v[k], m->alloc[k] * sizeof(double));
	}
	m->v[k][m->n[k]++] = med;
}

static int same_group(const struct analyze_metric *m, const char *workload,
		      const char *metric, const char *params)
{
	return !strcmp(m->workload, workload) && !strcmp(m->metric, metric) &&
	       !strcmp(m->params, params);
}

/* The group of a new key: appended, or -1 when it was seen before. */
static int new_group(struct analyze_set *s, const char *workload,
		     const char *metric, const char *params, const char *unit,
		     const char *direction, struct strbuf *err)
{
	struct analyze_metric *m;
	enum stats_direction d;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (same_group(&s->m[i], workload, metric, params)) {
			strbuf_addf(err, "%s/%s: samples not grouped by "
				    "metric", workload, metric);
			return -1;
		}
	if (s->n >= ANALYZE_MAX_METRICS) {
		strbuf_addf(err, "more than %d metrics in one run",
			    ANALYZE_MAX_METRICS);
		return -1;
	}
	if (stats_direction_parse(direction, &d) < 0) {
		strbuf_addf(err, "%s/%s: direction '%.32s' is neither lower "
			    "nor higher", workload, metric, direction);
		return -1;
	}
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->m = xrealloc(s->m, s->alloc * sizeof(*s->m));
	}
	m = &s->m[s->n];
	memset(m, 0, sizeof(*m));
	m->workload = xstrdup(workload);
	m->metric = xstrdup(metric);
	m->params = xstrdup(params);
	m->unit = xstrdup(unit);
	m->direction = d;
	m->p_adjusted = m->p_holm = NAN;
	s->cur = s->n++;
	return 0;
}

int analyze_add(struct analyze_set *s, const char *workload,
		const char *metric, const char *params, const char *unit,
		const char *direction, enum analyze_side side,
		long long boot, double value, struct strbuf *err)
{
	struct analyze_metric *m;
	enum stats_direction d;

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
	/* Values in other units or directions cannot be compared. */
	if (strcmp(m->unit, unit) ||
	    stats_direction_parse(direction, &d) < 0 || d != m->direction) {
		strbuf_addf(err, "%s/%s: boot %lld: unit '%.32s' or direction "
			    "'%.32s' differs from '%s', '%s' of the first "
			    "sample", workload, metric, boot, unit, direction,
			    m->unit, analyze_direction_str(m->direction));
		return -1;
	}
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
	if (s->nit == s->ait) {
		s->ait = s->ait ? 2 * s->ait : 64;
		s->it = xrealloc(s->it, s->ait * sizeof(double));
	}
	s->it[s->nit++] = value;
	return 0;
}

void analyze_set_finish(struct analyze_set *s)
{
	close_boot(s);
}

int analyze_set_compare(struct analyze_set *s, const struct stats_opts *o)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct analyze_metric *m = &s->m[i];
		struct stats_opts mo = *o;

		mo.direction = m->direction;
		if (s->calib) {
			struct sample k = { .workload = m->workload,
					    .metric = m->metric,
					    .params = m->params };
			char *key = sample_key(&k);

			m->calibration_id = calib_table_apply(s->calib, key,
							      &mo);
			free(key);
		}
		m->threshold = mo.threshold;
		if (stats_compare_samples(m->v[0], m->n[0], m->v[1], m->n[1],
					  &mo, &m->r) < 0)
			return -1;
	}
	return 0;
}

void analyze_adjust(struct analyze_set *sets, size_t nsets,
		    enum analyze_fdr method)
{
	struct analyze_metric **idx;
	double *p, *holm, *adj;
	size_t total = 0, k = 0, i, j;

	for (i = 0; i < nsets; i++)
		total += sets[i].n;
	idx = xcalloc(total, sizeof(*idx));
	p = xcalloc(total, sizeof(*p));
	holm = xcalloc(total, sizeof(*holm));
	adj = xcalloc(total, sizeof(*adj));
	for (i = 0; i < nsets; i++)
		for (j = 0; j < sets[i].n; j++) {
			struct analyze_metric *m = &sets[i].m[j];

			m->p_adjusted = m->p_holm = NAN;
			if (!isfinite(m->r.p))
				continue;
			idx[k] = m;
			p[k++] = m->r.p;
		}
	stats_holm(p, k, holm);
	if (method == ANALYZE_FDR_BH)
		stats_bh(p, k, adj);
	for (i = 0; i < k; i++) {
		idx[i]->p_holm = holm[i];
		idx[i]->p_adjusted = method == ANALYZE_FDR_BH ? adj[i] :
				     method == ANALYZE_FDR_HOLM ? holm[i] :
				     p[i];
	}
	free(idx);
	free(p);
	free(holm);
	free(adj);
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
