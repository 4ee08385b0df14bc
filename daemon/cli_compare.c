/*
 * cli_compare.c - "kregress compare": the statistics of stats.c by hand.
 *
 *   kregress compare [options] BASE NEW
 *   kregress compare [options] --base MEAN,SD,N --new MEAN,SD,N
 *
 * BASE and NEW are files (or "-" for one of them) of one value per line,
 * or kregress sample JSON: an array of objects
 *   {"workload": "thp-fault", "metric": "pass", "unit": "us",
 *    "direction": "lower", "value": 1234.5}
 * (or {"samples": [...]} around it), one object per boot and metric.
 * Values are grouped by (workload, metric); every metric is compared, and
 * Holm and Benjamini-Hochberg adjust the p-values across metrics.
 *
 * With --budget N (boots per side) the comparison is one look of the
 * adaptive design of stats_seq_*: looks every --step boots per side, the
 * earlier looks' alpha is replayed, this look's alpha is used, and the
 * answer says whether to add boots or stop.
 *
 * Reading and printing only; every decision is in stats.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "analyze.h"
#include "cli.h"
#include "cli_compare.h"
#include "log.h"
#include "numfmt.h"
#include "stats.h"
#include "strbuf.h"

#define COMPARE_MAX_FILE	(16 << 20)	/* bytes per input file */
#define COMPARE_MAX_VALUES	1000000		/* values per input file */
#define COMPARE_MAX_METRICS	1000
#define COMPARE_MAX_NAME	128
#define COMPARE_MAX_UNIT	31	/* bytes of a unit kept */

/*
 * The metric (workload, name) of the set, added when new; NULL (logged)
 * past COMPARE_MAX_METRICS.
 */
static struct analyze_metric *metric_get(struct analyze_set *s,
					 const char *workload,
					 const char *name)
{
	struct strbuf err = STRBUF_INIT;
	struct analyze_metric *m;

	m = analyze_metric_get(s, workload, name, "{}", &err);
	strbuf_release(&err);
	if (!m || s->n > COMPARE_MAX_METRICS) {
		error("compare", "more than %d metrics", COMPARE_MAX_METRICS);
		return NULL;
	}
	return m;
}

/* One boot's value; boots are numbered in the order of the file. */
static int metric_add(struct analyze_metric *m, int side, double v,
		      const char *file)
{
	if (m->n[side] >= COMPARE_MAX_VALUES)
		return error("compare", "%s: more than %d values", file,
			     COMPARE_MAX_VALUES);
	analyze_metric_push(m, side, (long long)m->n[side], v);
	return 0;
}

/* A look of the adaptive design --budget describes, for one metric. */
struct look {
	size_t n;		/* samples per side; 0: not adaptive */
	int stop;		/* the design's decision */
};

static struct look look_of(const struct analyze_metric *m, size_t budget)
{
	struct look l = { 0, 0 };
	struct stats_seq seq;

	if (!budget)
		return l;
	l.n = m->n[0] < m->n[1] ? m->n[0] : m->n[1];
	stats_seq_init(&seq, m->r.alpha, budget);
	l.stop = l.n && stats_seq_should_stop(&seq, &m->r, l.n);
	return l;
}

/* Parses a whole string as a finite number. */
static int parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (*end || errno == ERANGE || !isfinite(*out))
		return -1;
	return 0;
}

static int read_lines(struct analyze_set *s, int side, const char *file,
		      char *text)
{
	struct analyze_metric *m = metric_get(s, "", "value");
	char *line, *save = NULL;
	size_t lineno = 0;
	double v;

	if (!m)
		return -1;
	for (line = text; line; line = save) {
		char *nl = strchr(line, '\n'), *p;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p || *p == '#' || *p == '\r')
			continue;
		if (strlen(p) > 64)
			return error("compare", "%s:%zu: line too long", file,
				     lineno);
		if (parse_number(p, &v) < 0)
			return error("compare", "%s:%zu: not a finite number: "
				     "'%s'", file, lineno, p);
		if (metric_add(m, side, v, file) < 0)
			return -1;
	}
	return 0;
}

static const char *json_str(json_t *o, const char *key, const char *def)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : def;
}

static int read_json(struct analyze_set *s, int side, const char *file,
		     const char *text)
{
	json_error_t jerr;
	json_t *root, *arr;
	size_t i;
	int ret = -1;

	root = json_loads(text, 0, &jerr);
	if (!root)
		return error("compare", "%s:%d: bad JSON: %s", file, jerr.line,
			     jerr.text);
	arr = json_is_object(root) ? json_object_get(root, "samples") : root;
	if (!json_is_array(arr)) {
		error("compare", "%s: expected an array of samples", file);
		goto out;
	}
	for (i = 0; i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i), *val;
		const char *workload, *name, *unit, *dir;
		struct analyze_metric *m;
		double v;

		if (!json_is_object(o)) {
			error("compare", "%s: sample %zu is not an object",
			      file, i);
			goto out;
		}
		workload = json_str(o, "workload", "");
		name = json_str(o, "metric", "value");
		unit = json_str(o, "unit", NULL);
		dir = json_str(o, "direction", NULL);
		val = json_object_get(o, "value");
		if (strlen(workload) >= COMPARE_MAX_NAME ||
		    strlen(name) >= COMPARE_MAX_NAME) {
			error("compare", "%s: sample %zu: name too long", file,
			      i);
			goto out;
		}
		if (!json_is_number(val)) {
			error("compare", "%s: sample %zu: \"value\" is not a "
			      "number", file, i);
			goto out;
		}
		v = json_number_value(val);
		if (!isfinite(v)) {
			error("compare", "%s: sample %zu: value is not finite",
			      file, i);
			goto out;
		}
		m = metric_get(s, workload, name);
		if (!m)
			goto out;
		if (unit) {
			free(m->unit);
			m->unit = xstrndup(unit, COMPARE_MAX_UNIT);
		}
		if (dir && stats_direction_parse(dir, &m->direction) < 0) {
			error("compare", "%s: sample %zu: direction '%s' is "
			      "not lower or higher", file, i, dir);
			goto out;
		}
		if (metric_add(m, side, v, file) < 0)
			goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

static int read_side(struct analyze_set *s, int side, const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	size_t before = 0, after = 0, i;
	int ret = -1;

	for (i = 0; i < s->n; i++)
		before += s->m[i].n[side];
	if (strbuf_read_file(&sb, file, COMPARE_MAX_FILE) < 0)
		goto out;
	if (memchr(sb.buf, '\0', sb.len)) {
		error("compare", "%s: binary data", file);
		goto out;
	}
	for (p = sb.buf; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
	     p++)
		;
	if (*p == '[' || *p == '{')
		ret = read_json(s, side, file, sb.buf);
	else
		ret = read_lines(s, side, file, sb.buf);
	if (ret < 0)
		goto out;
	for (i = 0; i < s->n; i++)
		after += s->m[i].n[side];
	if (after == before)
		ret = error("compare", "%s: no values", file);
out:
	strbuf_release(&sb);
	return ret;
}

/* "MEAN,SD,N": SD may be empty or "?" when the source gave none. */
static int parse_summary(const char *opt, const char *arg,
			 struct stats_summary *s)
{
	char buf[128], *f[3], *p;
	double n;
	int i;

	if (strlen(arg) >= sizeof(buf))
		return error("compare", "%s: too long", opt);
	strcpy(buf, arg);
	p = buf;
	for (i = 0; i < 3; i++) {
		f[i] = p;
		p = strchr(p, ',');
		if (!p && i < 2)
			return error("compare", "%s '%s': expected MEAN,SD,N",
				     opt, arg);
		if (p)
			*p++ = '\0';
	}
	if (p)
		return error("compare", "%s '%s': expected MEAN,SD,N", opt,
			     arg);
	if (parse_number(f[0], &s->mean) < 0)
		return error("compare", "%s: mean '%s' is not a finite number",
			     opt, f[0]);
	if (!*f[1] || !strcmp(f[1], "?")) {
		s->sd = NAN;
	} else if (parse_number(f[1], &s->sd) < 0) {
		return error("compare", "%s: sd '%s' is not a finite number",
			     opt, f[1]);
	} else if (s->sd < 0) {
		return error("compare", "%s: sd %s is negative", opt, f[1]);
	}
	if (parse_number(f[2], &n) < 0 || n != floor(n) || n > 1e9)
		return error("compare", "%s: n '%s' is not a whole number",
			     opt, f[2]);
	if (n < 1)
		return error("compare", "%s: n %s: need at least 1", opt, f[2]);
	s->n = (size_t)n;
	return 0;
}

static void json_num(json_t *o, const char *key, double v)
{
	json_object_set_new(o, key, isfinite(v) ? json_real(v) : json_null());
}

static json_t *json_pair(double a, double b)
{
	json_t *arr = json_array();

	json_array_append_new(arr, isfinite(a) ? json_real(a) : json_null());
	json_array_append_new(arr, isfinite(b) ? json_real(b) : json_null());
	return arr;
}

static json_t *metric_json(const struct analyze_metric *m,
			   const struct stats_opts *o, size_t budget)
{
	const struct stats_result *r = &m->r;
	struct look l = look_of(m, budget);
	json_t *j = json_object(), *flags = json_array(), *x;

	json_object_set_new(j, "workload", json_string(m->workload));
	json_object_set_new(j, "metric", json_string(m->metric));
	json_object_set_new(j, "unit", json_string(m->unit));
	json_object_set_new(j, "direction",
			    json_string(stats_direction_str(m->direction)));
	json_object_set_new(j, "test", json_string(r->test));
	json_object_set_new(j, "n_base", json_integer(r->n_base));
	json_object_set_new(j, "n_new", json_integer(r->n_new));
	json_object_set_new(j, "center", json_string(r->center));
	json_num(j, "base", r->center_base);
	json_num(j, "new", r->center_new);
	json_object_set_new(j, "estimate", json_string(r->estimate));
	json_num(j, "cv_base", r->cv_base);
	json_num(j, "cv_new", r->cv_new);
	json_num(j, "change", r->change);
	json_object_set_new(j, "ci", json_pair(r->ci_lo, r->ci_hi));
	json_num(j, "p", r->p);
	json_num(j, "p_holm", m->p_holm);
	json_num(j, "p_bh", m->p_adjusted);
	json_num(j, "alpha", r->alpha);
	json_num(j, "threshold", o->threshold);
	json_object_set_new(j, "verdict",
			    json_string(stats_verdict_str(r->verdict)));
	if (r->flags & STATS_FLAG_NOISY)
		json_array_append_new(flags, json_string("noisy"));
	if (r->flags & STATS_FLAG_SUSPICIOUS)
		json_array_append_new(flags, json_string("suspicious"));
	json_object_set_new(j, "flags", flags);
	json_object_set_new(j, "why", json_string(r->why));
	if (l.n) {
		x = json_object();
		json_object_set_new(x, "n", json_integer(l.n));
		json_num(x, "look_alpha", r->alpha);
		json_object_set_new(x, "next", json_string(l.stop ? "stop" :
							    "continue"));
		json_object_set_new(j, "adaptive", x);
	}
	if (r->verdict == STATS_INCONCLUSIVE) {
		json_num(j, "rules_out_worse_than", r->worse_max);
		json_num(j, "rules_out_better_than", r->better_max);
	}
	if (r->have_mw) {
		x = json_object();
		json_num(x, "u", r->mw.u);
		json_num(x, "p", r->mw.p);
		json_object_set_new(x, "exact", json_boolean(r->mw.exact));
		json_object_set_new(x, "method", json_string(r->mw.method));
		json_object_set_new(j, "mann_whitney", x);
	}
	if (r->have_hl) {
		x = json_object();
		json_object_set_new(x, "on", json_string(r->hl_log ?
						"log values" : "values"));
		json_num(x, "shift", r->hl.shift);
		json_object_set_new(x, "ci", json_pair(r->hl.lo, r->hl.hi));
		json_object_set_new(x, "rank_lo", json_integer(r->hl.rank_lo));
		json_object_set_new(x, "rank_hi", json_integer(r->hl.rank_hi));
		json_object_set_new(j, "hodges_lehmann", x);
	}
	/* Cross-checks: never part of the verdict. */
	if (r->have_welch) {
		x = json_object();
		json_num(x, "t", r->welch.t);
		json_num(x, "df", r->welch.df);
		json_num(x, "p", r->welch.p);
		json_num(x, "ratio", r->welch.ratio);
		json_object_set_new(x, "ratio_ci",
				    json_pair(r->welch.lo, r->welch.hi));
		json_object_set_new(j, "welch", x);
	}
	if (r->have_boot) {
		x = json_object();
		json_num(x, "median_ratio", r->boot.ratio);
		json_object_set_new(x, "percentile",
				    json_pair(r->boot.lo_pct, r->boot.hi_pct));
		json_object_set_new(x, "bca",
				    json_pair(r->boot.lo_bca, r->boot.hi_bca));
		json_object_set_new(x, "resamples",
				    json_integer(r->boot.resamples));
		json_object_set_new(x, "seed", json_integer(r->boot.seed));
		json_object_set_new(j, "bootstrap", x);
	}
	return j;
}

/* Replays the looks at step, 2 step, ... before n; returns n's alpha. */
static double look_alpha(double alpha, size_t budget, size_t step, size_t n)
{
	struct stats_seq seq;
	size_t l;

	stats_seq_init(&seq, alpha, budget);
	for (l = step; l < n && l < budget; l += step)
		stats_seq_look(&seq, l);
	return stats_seq_look(&seq, n);
}

/* A ratio as the change in percent it is, in one of the caller's bufs. */
static const char *ratio_pct(double ratio, char buf[NUMFMT_BUF])
{
	numfmt_pct((ratio - 1) * 100, buf, NUMFMT_BUF);
	return buf;
}

/* The cross-checks of one metric, for the line under it. */
static void print_checks(const struct analyze_metric *m)
{
	const struct stats_result *r = &m->r;
	char a[NUMFMT_BUF], b[NUMFMT_BUF], c[NUMFMT_BUF];
	char d[NUMFMT_BUF], e[NUMFMT_BUF];
	const char *sep = " ";

	if (!(r->have_welch && isfinite(r->welch.ratio)) && !r->have_boot)
		return;
	printf("    cross-checks, not in the verdict:");
	if (r->have_welch && isfinite(r->welch.ratio)) {
		if (!strcmp(r->test, "mann-whitney"))
			printf(" Welch on %s %s [%s, %s] p %.3g",
			       r->hl_log ? "logs" : "means",
			       ratio_pct(r->welch.ratio, a),
			       ratio_pct(r->welch.lo, b),
			       ratio_pct(r->welch.hi, c), r->welch.p);
		else
			printf(" ratio CI by the delta method [%s, %s]",
			       ratio_pct(r->welch.lo, a),
			       ratio_pct(r->welch.hi, b));
		sep = "; ";
	}
	if (r->have_boot)
		printf("%sbootstrap ratio of medians %s: percentile [%s, %s], "
		       "BCa [%s, %s] (%d resamples, seed %lu)", sep,
		       ratio_pct(r->boot.ratio, a),
		       ratio_pct(r->boot.lo_pct, b),
		       ratio_pct(r->boot.hi_pct, c),
		       ratio_pct(r->boot.lo_bca, d),
		       ratio_pct(r->boot.hi_bca, e),
		       r->boot.resamples, r->boot.seed);
	printf("\n");
}

static void print_table(const struct analyze_set *s,
			const struct stats_opts *o, size_t budget)
{
	int summary = s->n && !strcmp(s->m[0].r.test, "welch-summary");
	size_t i;

	printf("%-28s %9s %12s %12s %9s %19s %9s %9s  %s\n", "metric",
	       "n base/new", summary ? "mean base" : "median base",
	       summary ? "mean new" : "median new",
	       summary ? "change" : "HL change", "CI", "p", "p(Holm)",
	       "verdict");
	for (i = 0; i < s->n; i++) {
		const struct analyze_metric *m = &s->m[i];
		const struct stats_result *r = &m->r;
		struct look l = look_of(m, budget);
		char name[2 * COMPARE_MAX_NAME + 2], n[24], ch[NUMFMT_BUF];
		char ci[NUMFMT_CI_BUF], base[NUMFMT_BUF], new[NUMFMT_BUF];
		char p[16] = "-", ph[16] = "-";

		snprintf(name, sizeof(name), "%s%s%s", m->workload,
			 *m->workload ? "/" : "", m->metric);
		snprintf(n, sizeof(n), "%zu/%zu", r->n_base, r->n_new);
		numfmt_value(r->center_base, base, sizeof(base));
		numfmt_value(r->center_new, new, sizeof(new));
		numfmt_pct(r->change * 100, ch, sizeof(ch));
		numfmt_ci(r->ci_lo * 100, r->ci_hi * 100, ci, sizeof(ci));
		if (isfinite(r->p))
			snprintf(p, sizeof(p), "%.3g", r->p);
		if (isfinite(m->p_holm))
			snprintf(ph, sizeof(ph), "%.3g", m->p_holm);
		printf("%-28s %9s %12s %12s %9s %19s %9s %9s  %s%s%s\n",
		       name, n, base, new, ch, ci, p, ph,
		       stats_verdict_str(r->verdict),
		       r->flags & STATS_FLAG_NOISY ? " noisy" : "",
		       r->flags & STATS_FLAG_SUSPICIOUS ? " suspicious" : "");
		if (*r->why)
			printf("    %s\n", r->why);
		if (l.n)
			printf("    adaptive: look at %zu per side, alpha "
			       "%.4g: %s\n", l.n, r->alpha,
			       l.stop ? "stop" : "continue, add boots");
		if (r->have_hl)
			printf("    Mann-Whitney U %g (%s null); the CI is the "
			       "pairs ranked %zu from the bottom and %zu from "
			       "the top of the %zu x %zu %s\n", r->mw.u,
			       r->mw.method, r->hl.rank_lo, r->hl.rank_hi,
			       r->n_base, r->n_new, r->hl_log ?
			       "ratios new/base" : "differences new - base");
		print_checks(m);
	}
	if (summary)
		printf("mean base, mean new: the published means; change: "
		       "mean new / mean base - 1;\nCI: Welch's interval of "
		       "mean new - mean base, in percent of mean base; p: "
		       "Welch's t on the summaries\n");
	else
		printf("median base, median new: medians of the values; HL "
		       "change: Hodges-Lehmann estimate of\nnew/base - 1, "
		       "the median of the new/base ratios of all pairs (not "
		       "the ratio of the\nmedians); CI: the interval that "
		       "inverts the Mann-Whitney test; p: that test, in which\n"
		       "pairs of equal values count for no change; "
		       "significant (p < alpha) = the CI excludes 0\n");
	printf("%s; T = %.3g%%, alpha = %g",
	       s->n ? stats_direction_str(s->m[0].direction) : "",
	       o->threshold * 100, o->alpha);
	if (s->n && look_of(&s->m[0], budget).n)
		printf(" overall; test and CI at the look's alpha\n");
	else
		printf(", CI level %g%%\n", (1 - o->alpha) * 100);
}

static int parse_double_opt(const char *opt, const char *arg, double lo,
			    double hi, double *out)
{
	if (parse_number(arg, out) < 0 || *out < lo || *out > hi)
		return error("compare", "%s '%s': expected a number in "
			     "[%g, %g]", opt, arg, lo, hi);
	return 0;
}

int cli_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "new", required_argument, NULL, 'n' },
		{ "direction", required_argument, NULL, 'd' },
		{ "threshold", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-samples", required_argument, NULL, 'm' },
		{ "bootstrap", required_argument, NULL, 'B' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "budget", required_argument, NULL, 'N' },
		{ "step", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base_sum = NULL, *new_sum = NULL;
	struct analyze_set set;
	struct stats_opts o;
	int c, json = 0, ret = CLI_FAILED, dir_set = 0;
	size_t budget = 0, step = 5;
	double v;
	size_t i;

	stats_opts_init(&o);
	analyze_set_init(&set);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			base_sum = optarg;
			break;
		case 'n':
			new_sum = optarg;
			break;
		case 'd':
			if (stats_direction_parse(optarg, &o.direction) < 0) {
				error("compare", "--direction '%s': expected "
				      "lower or higher", optarg);
				return CLI_USAGE;
			}
			dir_set = 1;
			break;
		case 't':
			if (parse_double_opt("--threshold", optarg, 0, 100,
					     &v) < 0)
				return CLI_USAGE;
			o.threshold = v / 100;
			break;
		case 'a':
			if (parse_double_opt("--alpha", optarg, 1e-12, 0.5,
					     &v) < 0)
				return CLI_USAGE;
			o.alpha = v;
			break;
		case 'm':
			if (parse_double_opt("--min-samples", optarg, 2, 1e6,
					     &v) < 0 || v != floor(v))
				return CLI_USAGE;
			o.min_samples = (size_t)v;
			break;
		case 'B':
			if (parse_double_opt("--bootstrap", optarg, 0, 1e6,
					     &v) < 0 || v != floor(v) ||
			    (v > 0 && v < 10))
				return cli_usage("compare");
			o.bootstrap = (int)v;
			break;
		case 's':
			if (parse_double_opt("--seed", optarg, 0, 4294967295.0,
					     &v) < 0 || v != floor(v))
				return CLI_USAGE;
			o.seed = (unsigned long)v;
			break;
		case 'j':
			json = 1;
			break;
		case 'N':
		case 'S':
			if (parse_double_opt(c == 'N' ? "--budget" : "--step",
					     optarg, 1, 1e6, &v) < 0 ||
			    v != floor(v))
				return CLI_USAGE;
			*(c == 'N' ? &budget : &step) = (size_t)v;
			break;
		case 'h':
			printf("usage: kregress compare [--json] "
			       "[--direction lower|higher] [--threshold PCT] "
			       "[--alpha A] [--min-samples N] [--bootstrap N] "
			       "[--seed S] [--budget N [--step S]] BASE NEW | "
			       "--base MEAN,SD,N --new MEAN,SD,N\n");
			return CLI_OK;
		default:
			return cli_usage("compare");
		}
	}

	if (base_sum || new_sum) {
		struct stats_summary sb, sn;
		struct analyze_metric *m;

		if (!base_sum || !new_sum || optind != argc || budget)
			return cli_usage("compare");
		if (parse_summary("--base", base_sum, &sb) < 0 ||
		    parse_summary("--new", new_sum, &sn) < 0)
			return CLI_FAILED;
		m = metric_get(&set, "", "mean");
		m->direction = o.direction;
		if (stats_compare_summaries(&sb, &sn, &o, &m->r) < 0)
			goto out;
		m->compared = 1;	/* analyze_adjust() takes it */
	} else {
		if (argc - optind != 2)
			return cli_usage("compare");
		if (!strcmp(argv[optind], "-") &&
		    !strcmp(argv[optind + 1], "-")) {
			error("compare", "only one side can be standard input");
			return CLI_USAGE;
		}
		if (read_side(&set, 0, argv[optind]) < 0 ||
		    read_side(&set, 1, argv[optind + 1]) < 0)
			goto out;
		for (i = 0; i < set.n; i++) {
			struct analyze_metric *m = &set.m[i];
			struct stats_opts mo = o;
			size_t n = m->n[0] < m->n[1] ? m->n[0] : m->n[1];

			/* Without --direction: the samples' own, else
			 * lower (o's default). */
			if (dir_set)
				m->direction = o.direction;
			mo.direction = m->direction;
			if (budget && n)
				mo.alpha = look_alpha(o.alpha, budget, step,
						      n);
			if (stats_compare_samples(m->v[0], m->n[0], m->v[1],
						  m->n[1], &mo, &m->r) < 0)
				goto out;
			m->compared = 1;
		}
	}
	/* Holm into p_holm, Benjamini-Hochberg into p_adjusted. */
	analyze_adjust(&set, 1, ANALYZE_FDR_BH);

	if (json) {
		json_t *root = json_object(), *arr = json_array();
		char *text;

		for (i = 0; i < set.n; i++)
			json_array_append_new(arr, metric_json(&set.m[i], &o,
							       budget));
		json_object_set_new(root, "comparisons", arr);
		text = alloc_check(json_dumps(root, JSON_INDENT(2) |
					      JSON_REAL_PRECISION(10)),
				   "json_dumps");
		puts(text);
		free(text);
		json_decref(root);
	} else {
		print_table(&set, &o, budget);
	}
	ret = CLI_OK;
out:
	analyze_set_release(&set);
	return ret;
}
