/*
 * cli_calibrate.c - "kregress calibrate": the base kernel booted against
 * itself on one host in the runs' ABBA design, and what that says about
 * the host (calibrate.h, calib.h), as a table or JSON.
 *
 *   kregress calibrate --host URI --arch A [--plan PLAN] [--kernel IMG]
 *                      [-c CONFIG] [options]
 *   kregress calibrate --replay FILE [options]
 *
 * The runs' design (threshold, alpha, min samples, budget) and the
 * calibration's knobs (boots, simulations) are the configuration's: that
 * of -c CONFIG, else the built-in defaults; options override them.  With
 * -c the host must be one the configuration names (by URI and arch), the
 * kernel defaults to the newest base build of its database (--kernel
 * must be a build there), the plan to the one the configuration gives
 * the host's accel, and the calibration is stored there, for the
 * daemon's runs to use, as a daemon's would be.  Without it --kernel is
 * required and nothing is stored.
 *
 * --changes 2,10 adds, per metric, how the design fares with a real
 * change of that size: boots per side at its first decisive look, and
 * how often it is decided and found.  --json prints everything,
 * per-boot values included; --replay FILE computes the figures again
 * from such a file, without booting (other options, other seed).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "alloc.h"
#include "arch.h"
#include "build.h"
#include "calibrate.h"
#include "cli.h"
#include "cli_calibrate.h"
#include "config.h"
#include "db.h"
#include "db_calib.h"
#include "db_run.h"
#include "fs.h"
#include "guest_image.h"
#include "hosts.h"
#include "log.h"
#include "numfmt.h"
#include "options.h"
#include "plan.h"
#include "plan_file.h"
#include "strbuf.h"
#include "vm.h"

#define MAX_CHANGES	8

struct opts {
	const char *host, *arch, *plan, *kernel, *config, *accel;
	const char *log_dir, *replay;
	long boots, budget, simulations, timeout;	/* -1: not given */
	double threshold;				/* NAN: not given */
	uint64_t seed;
	int have_seed, json;
	double changes[MAX_CHANGES];	/* fractions */
	size_t nchanges;
};

/* What the output says about where the figures came from. */
struct about {
	const char *host, *arch, *accel, *clock, *plan, *kernel;
	long long calibration_id;
	unsigned int boots_per_side, boots, failed_boots;
	double boot_ms;
	uint64_t seed;
};

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < min || v > max)
		return error("calibrate", "%s: not a number from %ld to %ld",
			     s, min, max);
	*out = v;
	return 0;
}

static int parse_changes(const char *s, struct opts *o)
{
	const char *p = s;
	char *end;

	while (*p) {
		double v = strtod(p, &end);

		if (end == p || !(v > 0 && v <= 1000) ||
		    o->nchanges == MAX_CHANGES)
			return error("calibrate", "--changes %s: up to %d "
				     "percentages in (0, 1000]", s,
				     MAX_CHANGES);
		o->changes[o->nchanges++] = v / 100;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return error("calibrate", "--changes %s: a comma-"
				     "separated list of percentages", s);
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "arch", required_argument, NULL, 'a' },
		{ "plan", required_argument, NULL, 'p' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "config", required_argument, NULL, 'c' },
		{ "accel", required_argument, NULL, 'A' },
		{ "boots", required_argument, NULL, 'b' },
		{ "budget", required_argument, NULL, 'B' },
		{ "simulations", required_argument, NULL, 's' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 'S' },
		{ "changes", required_argument, NULL, 'C' },
		{ "log-dir", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "replay", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->boots = o->budget = o->simulations = o->timeout = -1;
	o->threshold = NAN;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': o->host = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'p': o->plan = optarg; break;
		case 'k': o->kernel = optarg; break;
		case 'c': o->config = optarg; break;
		case 'A': o->accel = optarg; break;
		case 'l': o->log_dir = optarg; break;
		case 'r': o->replay = optarg; break;
		case 'j': o->json = 1; break;
		case 'b':
			if (parse_long(optarg, 2, 1000, &o->boots))
				return -1;
			break;
		case 'B':
			if (parse_long(optarg, 2, 10000, &o->budget))
				return -1;
			break;
		case 's':
			if (parse_long(optarg, 0, 1000000, &o->simulations))
				return -1;
			break;
		case 't':
			if (parse_long(optarg, 1, 86400, &o->timeout))
				return -1;
			break;
		case 'T':
			o->threshold = strtod(optarg, &end) / 100;
			if (!*optarg || *end || !(o->threshold > 0))
				return error("calibrate", "--threshold %s: a "
					     "percentage above 0", optarg);
			break;
		case 'S':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end)
				return error("calibrate", "--seed %s: not a "
					     "number", optarg);
			o->have_seed = 1;
			break;
		case 'C':
			if (parse_changes(optarg, o))
				return -1;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc)
		return -1;
	if (o->replay)
		return 0;
	if (!o->host || !o->arch)
		return -1;
	return 0;
}

/* The design: the configuration's, with the options over it. */
static void design_of(const struct config *cfg, const struct opts *o,
		      struct calib_design *d)
{
	options_calib_design(cfg, d);
	if (o->budget > 0)
		d->budget = (size_t)o->budget;
	if (o->simulations >= 0)
		d->simulations = (size_t)o->simulations;
	if (!isnan(o->threshold))
		d->stats.threshold = o->threshold;
	d->seed = o->seed;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *pct_or_null(double fraction)
{
	return num_or_null(fraction * 100);
}

static void print_json(const struct about *a, const struct calib_design *d,
		       const struct calib_data *data,
		       const struct calib_result *r,
		       struct calib_shift *const *shift, const struct opts *o)
{
	json_t *doc, *metrics = json_array(), *boots = json_array();
	size_t i, j;
	char *text;

	for (i = 0; i < data->nm; i++) {
		const struct calib_metric *m = &data->m[i];
		json_t *changes = json_array();
		json_t *params = json_loads(m->params, JSON_DECODE_ANY, NULL);

		for (j = 0; j < o->nchanges; j++)
			json_array_append_new(changes, json_pack(
				"{s:f,s:f,s:f,s:o}", "change_pct",
				o->changes[j] * 100, "decided",
				shift[j][i].decided, "detected",
				shift[j][i].detected, "n_median",
				num_or_null(shift[j][i].n_median)));
		json_array_append_new(metrics, json_pack(
			"{s:s,s:s,s:o,s:s,s:s,s:b,s:I,s:o,s:o,s:I,s:I,s:I,"
			"s:o,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"workload", m->workload, "metric", m->metric,
			"params", params ? params : json_string(m->params),
			"unit", m->unit, "direction",
			m->direction == STATS_HIGHER_IS_BETTER ? "higher" :
			"lower", "primary", m->primary,
			"n", (json_int_t)r[i].n, "median",
			num_or_null(r[i].median), "cv", num_or_null(r[i].cv),
			"comparisons", (json_int_t)r[i].comparisons,
			"false_alarms", (json_int_t)r[i].false_alarms,
			"significant", (json_int_t)r[i].significant,
			"stop_mean", num_or_null(r[i].stop_mean),
			"real_comparisons", (json_int_t)r[i].real_comparisons,
			"real_false_alarms",
			(json_int_t)r[i].real_false_alarms,
			"real_truncated", (json_int_t)r[i].real_truncated,
			"real_stop_mean", num_or_null(r[i].real_stop_mean),
			"real_verdict", r[i].have_real ?
			json_string(stats_verdict_str(r[i].real_verdict)) :
			json_null(),
			"resolve_pct", pct_or_null(r[i].resolve),
			"alarm_pct", pct_or_null(r[i].alarm),
			"threshold_pct", pct_or_null(r[i].threshold),
			"detectable_pct", pct_or_null(r[i].detectable),
			"changes", changes));
	}
	for (i = 0; i < data->nb; i++) {
		const struct calib_boot *b = &data->b[i];
		json_t *v = json_array();

		for (j = 0; j < data->nm; j++)
			json_array_append_new(v, num_or_null(b->v[j]));
		json_array_append_new(boots, json_pack("{s:i,s:s,s:o,s:o}",
			"seq", (int)b->seq, "side", analyze_side_str(b->side),
			"ms", num_or_null(b->ms), "v", v));
	}
	doc = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:o,s:I,s:i,s:i,s:i,"
			"s:o,s:{s:f,s:f,s:I,s:I,s:I,s:I,s:f,s:f,s:f},s:o,"
			"s:o}",
			"host", a->host, "arch", a->arch, "accel", a->accel,
			"clock", a->clock, "plan", a->plan, "kernel",
			a->kernel, "calibration_id", a->calibration_id ?
			json_integer(a->calibration_id) : json_null(),
			"seed", (json_int_t)(a->seed & INT64_MAX),
			"boots_per_side", (int)a->boots_per_side,
			"boots", (int)a->boots, "failed_boots",
			(int)a->failed_boots, "boot_ms",
			num_or_null(a->boot_ms), "design", "threshold_pct",
			d->stats.threshold * 100, "alpha", d->stats.alpha,
			"min_samples", (json_int_t)d->stats.min_samples,
			"budget", (json_int_t)d->budget, "pairs",
			(json_int_t)d->pairs, "simulations",
			(json_int_t)d->simulations, "target", d->target,
			"coverage", d->coverage, "power", d->power,
			"metrics", metrics, "per_boot", boots);
	text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	printf("%s\n", text ? text : "null");
	free(text);
	json_decref(doc);
}

static void fmt_pct(char *buf, size_t size, double fraction)
{
	if (isfinite(fraction))
		snprintf(buf, size, "%.3g%%", fraction * 100);
	else
		snprintf(buf, size, "-");
}

static void print_table(const struct about *a, const struct calib_design *d,
			const struct calib_data *data,
			const struct calib_result *r,
			struct calib_shift *const *shift, const struct opts *o)
{
	size_t i, j, over = 0, sims = 0, fa = 0, real = 0, real_fa = 0;
	char name[96], cv[16], res[16], al[16], thr[16], det[16], ch[40];
	char med[NUMFMT_BUF];

	printf("calibration%s%.0lld: %s %s %s, %s time; %u boots (%u a side "
	       "asked, %u failed), median boot %.1f s, seed %llu\n",
	       a->calibration_id ? " " : "", a->calibration_id,
	       a->host ? a->host : "(replay)", a->arch ? a->arch : "",
	       a->accel ? a->accel : "", a->clock && !strcmp(a->clock,
	       "instructions") ? "instruction" : "real", a->boots,
	       a->boots_per_side, a->failed_boots, a->boot_ms / 1000,
	       (unsigned long long)a->seed);
	printf("the runs it stands for: threshold %.3g%%, alpha %g, %zu "
	       "boots a side at least, budget %zu; %zu resampled A/A runs\n",
	       d->stats.threshold * 100, d->stats.alpha, d->stats.min_samples,
	       d->budget, d->simulations);
	printf("  %-34s %4s %11s %8s %11s %5s %7s %7s %7s %7s %5s", "METRIC",
	       "N", "MEDIAN", "CV", "FALSE ALARM", "REAL", "RESOLVE", "ALARM",
	       "THRESH", "DETECT", "STOP");
	for (j = 0; j < o->nchanges; j++) {
		snprintf(ch, sizeof(ch), "+%.3g%%: N DEC FOUND",
			 o->changes[j] * 100);
		printf(" %20s", ch);
	}
	printf("\n");
	for (i = 0; i < data->nm; i++) {
		const struct calib_metric *m = &data->m[i];

		snprintf(name, sizeof(name), "%s/%s%s", m->workload, m->metric,
			 m->primary ? " *" : "");
		numfmt_value(r[i].median, med, sizeof(med));
		fmt_pct(cv, sizeof(cv), r[i].cv);
		fmt_pct(res, sizeof(res), r[i].resolve);
		fmt_pct(al, sizeof(al), r[i].alarm);
		fmt_pct(thr, sizeof(thr), r[i].threshold);
		fmt_pct(det, sizeof(det), r[i].detectable);
		snprintf(ch, sizeof(ch), "%zu/%zu", r[i].false_alarms,
			 r[i].comparisons);
		printf("  %-34s %4zu %11s %8s %11s %2zu/%-2zu %7s %7s %7s "
		       "%7s %5.1f", name, r[i].n, med, cv, ch,
		       r[i].real_false_alarms, r[i].real_comparisons, res, al,
		       thr, det, r[i].stop_mean);
		for (j = 0; j < o->nchanges; j++) {
			char n[16];

			if (isnan(shift[j][i].n_median))
				snprintf(n, sizeof(n), "-");
			else
				snprintf(n, sizeof(n), "%.3g",
					 shift[j][i].n_median);
			snprintf(ch, sizeof(ch), "%s %3.0f%% %3.0f%%", n,
				 shift[j][i].decided * 100,
				 shift[j][i].detected * 100);
			printf(" %20s", ch);
		}
		printf("\n");
		if (strcmp(m->params, "{}"))
			printf("      params %s\n", m->params);
		sims += r[i].comparisons;
		fa += r[i].false_alarms;
		real += r[i].real_comparisons;
		real_fa += r[i].real_false_alarms;
		over += (double)r[i].false_alarms >
			d->target * (double)r[i].comparisons;
	}
	printf("false alarms: %zu in %zu resampled A/A comparisons (%zu of "
	       "%zu metrics above the %.3g%% target), %zu in %zu real ones\n",
	       fa, sims, over, data->nm, d->target * 100, real_fa, real);
	printf("* primary metric; FALSE ALARM: regression, improvement or "
	       "likely-* in resampled A/A runs\nof the design at THRESH; REAL: "
	       "the same over the real boots replayed in their order;\n"
	       "RESOLVE: half-width of the interval at the budget in %.0f%% "
	       "of the runs; ALARM: the largest\nchange a look called "
	       "significant in more than %.3g%% of them; THRESH: the largest "
	       "of those\nand the configured threshold, what runs use; DETECT: "
	       "smallest change found with %.0f%%\npower by the budget; STOP: "
	       "boots per side at the stop of an A/A run%s\n",
	       d->coverage * 100, d->target * 100, d->power * 100,
	       o->nchanges ? ";\n+X%: N DEC FOUND: boots per side at the "
	       "first decisive look with a real change of X%,\nthe share of "
	       "runs decisive by the budget, and of those whose decision "
	       "found the change" : "");
}

/* The figures of data, printed. */
static int report(const struct about *a, const struct calib_design *d,
		  const struct calib_data *data, const struct calib_result *r,
		  const struct opts *o)
{
	struct calib_shift *shift[MAX_CHANGES] = { NULL };
	double *thr = xcalloc(data->nm + 1, sizeof(*thr));
	size_t i, j, runs = d->simulations ? d->simulations : 200;
	int ret = 0;

	for (i = 0; i < data->nm; i++)
		thr[i] = r[i].threshold;
	for (j = 0; j < o->nchanges; j++) {
		shift[j] = xcalloc(data->nm + 1, sizeof(**shift));
		if (calib_shift(data, d, thr, o->changes[j], runs, shift[j]))
			ret = -1;
	}
	if (!ret && o->json)
		print_json(a, d, data, r, shift, o);
	else if (!ret)
		print_table(a, d, data, r, shift, o);
	for (j = 0; j < o->nchanges; j++)
		free(shift[j]);
	free(thr);
	return ret;
}

/* A --json output read back into data; the about strings borrow doc. */
static int read_replay(const char *path, struct calib_data *data,
		       struct about *a, json_t **doc)
{
	json_error_t err;
	json_t *metrics, *boots, *m, *b;
	size_t i, j, k;

	*doc = json_load_file(path, 0, &err);
	if (!*doc)
		return error("calibrate", "%s: line %d: %s", path, err.line,
			     err.text);
	metrics = json_object_get(*doc, "metrics");
	boots = json_object_get(*doc, "per_boot");
	if (!json_is_array(metrics) || !json_is_array(boots))
		return error("calibrate", "%s: no metrics and per_boot "
			     "arrays (the output of --json?)", path);
	a->host = json_string_value(json_object_get(*doc, "host"));
	a->arch = json_string_value(json_object_get(*doc, "arch"));
	a->accel = json_string_value(json_object_get(*doc, "accel"));
	a->clock = json_string_value(json_object_get(*doc, "clock"));
	a->boots_per_side = (unsigned int)json_integer_value(
		json_object_get(*doc, "boots_per_side"));
	a->boots = (unsigned int)json_integer_value(json_object_get(*doc,
						   "boots"));
	a->failed_boots = (unsigned int)json_integer_value(
		json_object_get(*doc, "failed_boots"));
	a->boot_ms = json_number_value(json_object_get(*doc, "boot_ms"));
	json_array_foreach(boots, i, b) {
		json_t *v = json_object_get(b, "v");
		const char *side = json_string_value(json_object_get(b,
								     "side"));

		if (!json_is_array(v) || !side || json_array_size(v) !=
		    json_array_size(metrics) ||
		    calib_data_new_boot(data, (unsigned int)json_integer_value(
			json_object_get(b, "seq")), strcmp(side, "base") ?
			ANALYZE_PATCHED : ANALYZE_BASE, json_number_value(
			json_object_get(b, "ms")), &k))
			return error("calibrate", "%s: boot %zu: not one "
				     "value per metric", path, i);
		json_array_foreach(metrics, j, m) {
			json_t *x = json_array_get(v, j), *p;
			char *params;
			enum stats_direction dir;
			int rc;

			if (!json_is_number(x))
				continue;
			p = json_object_get(m, "params");
			params = json_is_string(p) ?
				 xstrdup(json_string_value(p)) :
				 alloc_check(json_dumps(p, JSON_COMPACT |
							JSON_SORT_KEYS),
					     "json_dumps");
			if (stats_direction_parse(json_string_value(
				json_object_get(m, "direction")) ?
				json_string_value(json_object_get(m,
				"direction")) : "lower", &dir))
				dir = STATS_LOWER_IS_BETTER;
			rc = calib_data_set(data, k, json_string_value(
				json_object_get(m, "workload")) ?: "?",
				json_string_value(json_object_get(m,
				"metric")) ?: "?", params, json_string_value(
				json_object_get(m, "unit")) ?: "",
				dir, json_is_true(json_object_get(m,
				"primary")), json_number_value(x));
			free(params);
			if (rc)
				return error("calibrate", "%s: too many "
					     "metrics", path);
		}
	}
	return 0;
}

static int replay(const struct opts *o, const struct config *cfg)
{
	struct calib_design d;
	struct calib_data data;
	struct calib_result *r = NULL;
	struct about a;
	json_t *doc = NULL;
	int ret = CLI_FAILED;

	memset(&a, 0, sizeof(a));
	calib_data_init(&data);
	design_of(cfg, o, &d);
	a.seed = o->seed;
	if (read_replay(o->replay, &data, &a, &doc))
		goto out;
	r = xcalloc(data.nm + 1, sizeof(*r));
	if (calib_compute(&data, &d, r) || report(&a, &d, &data, r, o))
		goto out;
	ret = CLI_OK;
out:
	free(r);
	calib_data_release(&data);
	json_decref(doc);
	return ret;
}

static void progress(void *opaque, const struct runner_boot *b)
{
	const struct opts *o = opaque;

	fprintf(o->json ? stderr : stdout, "boot %u %s attempt %d on %s: "
		"%s%s%s (%.1f s)\n", b->order, analyze_side_str(b->side),
		b->attempt, b->host, b->complete ? "ok" : "failed",
		b->complete ? "" : ": ", b->reason,
		b->vm->create_s + b->vm->run_s);
	fflush(o->json ? stderr : stdout);
}

/* The configured host of -c CONFIG with this URI and arch, or NULL. */
static const struct config_host *configured(const struct config *cfg,
					    const char *uri,
					    const struct arch *arch)
{
	size_t i;

	for (i = 0; i < cfg->n_hosts; i++)
		if (cfg->hosts[i].arch == arch &&
		    !strcmp(cfg->hosts[i].uri, uri))
			return &cfg->hosts[i];
	return NULL;
}

/* The kernel to boot and its build: given, or the database's base. */
static int kernel_of(struct db *db, const struct opts *o, const char *arch,
		     char **kernel, long long *build_id)
{
	int rc;

	if (!db) {
		*kernel = xstrdup(o->kernel);
		return 0;
	}
	if (o->kernel) {
		rc = db_calib_build_of(db, o->kernel, build_id);
		if (rc > 0)
			error("calibrate", "%s: not a build of the "
			      "configuration's database (without -c nothing "
			      "is stored and any kernel will do)", o->kernel);
		*kernel = rc ? NULL : xstrdup(o->kernel);
		return rc ? -1 : 0;
	}
	rc = db_calib_base(db, arch, build_id, kernel);
	if (rc > 0)
		error("calibrate", "%s: the database has no base build of "
		      "the arch yet: give --kernel", arch);
	return rc ? -1 : 0;
}

static int boot(const struct opts *o, const struct config *cfg)
{
	const struct config_host *ch = NULL;
	struct calibrate_spec spec;
	struct calibrate_outcome out;
	struct db_calib_design dd;
	struct db_run_host dh = { 0 };
	struct runner_host host;
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT;
	struct about a;
	struct db *db = NULL;
	const struct arch *arch;
	enum arch_accel accel = ARCH_TCG;
	struct guest_image guest = { 0 };
	char *kernel = NULL;
	char tmp[] = "/tmp/kregress-calib-XXXXXX";
	int ret = CLI_FAILED;

	memset(&spec, 0, sizeof(spec));
	memset(&host, 0, sizeof(host));
	memset(&a, 0, sizeof(a));
	calibrate_outcome_init(&out);
	arch = arch_find(o->arch);
	if (!arch || (o->accel && arch_accel_parse(o->accel, &accel))) {
		error("calibrate", "%s %s: not an arch and accel", o->arch,
		      o->accel ? o->accel : "");
		return CLI_USAGE;
	}
	if (o->config) {
		ch = configured(cfg, o->host, arch);
		if (!ch) {
			error("calibrate", "%s: not a host of arch %s in %s",
			      o->host, o->arch, o->config);
			goto out;
		}
		if (db_open(cfg->database, &db) ||
		    db_run_host_sync(db, ch->name, ch->uri, o->arch,
				     arch_accel_str(ch->accel), ch->capacity,
				     &dh))
			goto out;
		if (!o->accel && !strcmp(dh.accel, "kvm"))
			accel = ARCH_KVM;
	} else if (!o->kernel) {
		error("calibrate", "without -c CONFIG, --kernel is required");
		ret = CLI_USAGE;
		goto out;
	}
	if (o->plan ? plan_file_load(&pf, o->plan, &err) :
	    plan_file_load_configured(&pf, cfg, arch, accel, &err)) {
		error("calibrate", "%s", err.buf);
		goto out;
	}
	if (pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS &&
	    accel != ARCH_TCG) {
		error("calibrate", "%s: instruction time needs --accel tcg",
		      pf.path);
		goto out;
	}
	if (kernel_of(db, o, o->arch, &kernel, &spec.build_id) ||
	    guest_initramfs(arch, cfg->cache_dir, &guest))
		goto out;
	if (!o->have_seed && getrandom(&spec.seed, sizeof(spec.seed), 0) !=
	    (ssize_t)sizeof(spec.seed)) {
		error("calibrate", "getrandom failed");
		goto out;
	}
	if (o->have_seed)
		spec.seed = o->seed;
	spec.seed &= INT64_MAX;
	design_of(cfg, o, &spec.design);
	spec.boots_per_side = o->boots > 0 ? (unsigned int)o->boots :
			      (unsigned int)cfg->calibration.boots_per_side;
	if (db) {
		dd.host_id = dh.id;
		dd.build_id = spec.build_id;
		dd.arch = o->arch;
		dd.accel = arch_accel_str(accel);
		dd.clock = plan_clock_str(pf.plan->clock);
		dd.plan = pf.cmdline.buf;
		dd.guest = guest.id;
		dd.reason = "by hand";
		dd.seed = spec.seed;
		dd.boots_per_side = spec.boots_per_side;
		dd.budget = (unsigned int)spec.design.budget;
		dd.min_samples = (unsigned int)spec.design.stats.min_samples;
		dd.simulations = (unsigned int)spec.design.simulations;
		dd.alpha = spec.design.stats.alpha;
		dd.threshold_pct = spec.design.stats.threshold * 100;
		dd.target = spec.design.target;
		if (db_calib_start(db, &dd, &spec.calibration_id))
			goto out;
		spec.db = db;
		spec.host_id = dh.id;
	}
	log_error_reset();	/* a failure below logs its cause: the reason */
	if (o->log_dir) {
		strbuf_addstr(&dir, o->log_dir);
	} else if (db) {
		strbuf_addf(&dir, "%s/runs/calibration-%lld", cfg->state_dir,
			    spec.calibration_id);
		if (fs_mkdir_p(dir.buf, 0755))
			goto fail;
	} else if (mkdtemp(tmp) && !chmod(tmp, 0755)) {
		strbuf_addstr(&dir, tmp);
	} else {
		error("calibrate", "%s: cannot create", tmp);
		goto fail;
	}
	if (vm_host_open(o->host, &host.vm))
		goto fail;
	hosts_sched_init(&host.sched, o->host, ch, arch, accel);
	spec.kernel = kernel;
	spec.initrd = guest.path;
	spec.pf = &pf;
	spec.host = &host;
	spec.timeout_s = o->timeout > 0 ? (unsigned int)o->timeout :
			 (unsigned int)cfg->limits.boot_timeout_s;
	spec.log_dir = dir.buf;
	spec.on_boot = progress;
	spec.opaque = (void *)o;
	if (!o->json)
		printf("calibrating %s (%s) with %s: %u boots a side, logs in "
		       "%s\n", o->host, o->arch, kernel, spec.boots_per_side,
		       dir.buf);
	strbuf_reset(&err);
	if (calibrate_run(&spec, &out, &err)) {
		error("calibrate", "%s: %s", o->host, err.buf);
		goto fail;
	}
	if (db && db_calib_done(db, spec.calibration_id, &out.data,
				out.results, out.boot_ms))
		goto out;
	a.host = o->host;
	a.arch = o->arch;
	a.accel = arch_accel_str(accel);
	a.clock = plan_clock_str(pf.plan->clock);
	a.plan = pf.cmdline.buf;
	a.kernel = kernel;
	a.calibration_id = spec.calibration_id;
	a.boots_per_side = spec.boots_per_side;
	a.boots = out.boots;
	a.failed_boots = out.failed_boots;
	a.boot_ms = out.boot_ms;
	a.seed = spec.seed;
	if (report(&a, &spec.design, &out.data, out.results, o) == 0)
		ret = CLI_OK;
	goto out;
fail:
	if (db && spec.calibration_id)
		db_calib_end(db, spec.calibration_id, "failed", err.len ?
			     err.buf : log_error_first());
out:
	vm_host_free(host.vm);
	calibrate_outcome_release(&out);
	plan_file_release(&pf);
	db_run_host_release(&dh);
	db_close(db);
	free(kernel);
	guest_image_release(&guest);
	strbuf_release(&err);
	strbuf_release(&dir);
	return ret;
}

int cli_calibrate(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	struct opts o;
	int ret;

	if (parse_opts(argc, argv, &o))
		return cli_usage("calibrate");
	if (o.config ? config_load(o.config, &cfg, &err) :
	    config_parse("{}", 2, "(defaults)", &cfg, &err)) {
		error("calibrate", "%s", err.buf);
		strbuf_release(&err);
		return CLI_FAILED;
	}
	strbuf_release(&err);
	ret = o.replay ? replay(&o, cfg) : boot(&o, cfg);
	config_free(cfg);
	return ret;
}
