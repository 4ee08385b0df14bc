/*
 * report.c - the report mails' text (see report.h).
 *
 * Everything a report says about a comparison is decided here, once: the
 * significance rule (significant()), what a verdict is shown as
 * (shown_verdict()), the column labels and their legend (legend()).  The
 * body is built from paragraphs wrapped at REPORT_WIDTH columns and from
 * tables whose rows take two lines (the metric with its verdict, then
 * the numbers), because ten columns do not fit in 78 on one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "diff.h"
#include "escape.h"
#include "layout.h"
#include "log.h"
#include "numfmt.h"
#include "report.h"
#include "sha256.h"

static const char *const kind_names[REPORT_KIND_COUNT] = {
	"regression", "improvement", "no-change", "inconclusive",
	"does-not-apply", "build-failed", "boot-failed",
};

const char *report_kind_str(enum report_kind kind)
{
	return (unsigned)kind < REPORT_KIND_COUNT ? kind_names[kind] : "?";
}

int report_kind_parse(const char *s, enum report_kind *kind)
{
	int i;

	for (i = 0; i < REPORT_KIND_COUNT; i++)
		if (!strcmp(s, kind_names[i])) {
			*kind = i;
			return 0;
		}
	return -1;
}

int report_kind_significant(enum report_kind kind)
{
	return kind == REPORT_REGRESSION || kind == REPORT_IMPROVEMENT;
}

void report_mail_init(struct report_mail *m)
{
	memset(m, 0, sizeof(*m));
	strbuf_init(&m->body);
}

void report_mail_release(struct report_mail *m)
{
	free(m->subject);
	free(m->message_id);
	free(m->in_reply_to);
	strbuf_release(&m->body);
	report_mail_init(m);
}

/* --- what a comparison says --------------------------------------------- */

/* +1 when a positive change is worse (lower is better), else -1. */
static int worse_sign(const struct report_comparison *c)
{
	return strcmp(c->direction, "higher") ? 1 : -1;
}

/* The alpha of the row's interval: what its Holm p is held against. */
static double row_alpha(const struct report_comparison *c,
			const struct report_settings *rs)
{
	return isfinite(c->ci_level) && c->ci_level > 0 && c->ci_level < 1 ?
	       1 - c->ci_level : rs->alpha;
}

static int verdict_is(const struct report_comparison *c, const char *v)
{
	return !strcmp(c->verdict, v);
}

/* A verdict that claims a significant difference (before Holm). */
static int claims_significance(const struct report_comparison *c)
{
	return verdict_is(c, "regression") ||
	       verdict_is(c, "likely-regression") ||
	       verdict_is(c, "improvement") ||
	       verdict_is(c, "likely-improvement") || verdict_is(c, "minor");
}

static int ci_excludes_zero(const struct report_comparison *c)
{
	return isfinite(c->ci_low_pct) && isfinite(c->ci_high_pct) &&
	       (c->ci_low_pct > 0 || c->ci_high_pct < 0);
}

/* The test says significant but the interval includes no change. */
static int contradicts(const struct report_comparison *c)
{
	return claims_significance(c) && !ci_excludes_zero(c);
}

/* The verdict a report shows for c. */
static const char *shown_verdict(const struct report_comparison *c)
{
	return contradicts(c) ? "inconclusive" : c->verdict;
}

/*
 * +1 for a significant regression, -1 for a significant improvement, 0
 * otherwise: the verdict says so (minor changes are not news), the Holm
 * p is below the interval's alpha, and the interval excludes 0.
 */
static int significant(const struct report_comparison *c,
		       const struct report_settings *rs)
{
	int reg = verdict_is(c, "regression") ||
		  verdict_is(c, "likely-regression");
	int imp = verdict_is(c, "improvement") ||
		  verdict_is(c, "likely-improvement");

	if ((!reg && !imp) || !ci_excludes_zero(c) || !isfinite(c->p_holm) ||
	    c->p_holm >= row_alpha(c, rs))
		return 0;
	return reg ? 1 : -1;
}

static int undecided(const struct report_comparison *c)
{
	const char *v = shown_verdict(c);

	return !strcmp(v, "inconclusive") || !strcmp(v, "insufficient-data");
}

/*
 * A change the metric's own test calls significant (its interval agrees)
 * that Holm's correction within its run does not confirm:
 * more boots would.
 */
static int unconfirmed(const struct report_comparison *c,
		       const struct report_settings *rs)
{
	return claims_significance(c) && !verdict_is(c, "minor") &&
	       !contradicts(c) && !significant(c, rs);
}

/* What keeps a primary metric from an answer: more boots would give one. */
static int open_question(const struct report_comparison *c,
			 const struct report_settings *rs)
{
	return undecided(c) || unconfirmed(c, rs);
}

/* Whether the run of c names primary metrics at all. */
static int run_has_primary(const struct report_series *s, long long run_id)
{
	size_t i;

	for (i = 0; i < s->ncmp; i++)
		if (s->cmp[i].run_id == run_id && s->cmp[i].is_primary)
			return 1;
	return 0;
}

/* A plan without primary metrics is decided by all of them (runner.c). */
static int primary(const struct report_series *s,
		   const struct report_comparison *c)
{
	return c->is_primary || !run_has_primary(s, c->run_id);
}

static const struct report_run *run_of(const struct report_series *s,
				       long long run_id)
{
	size_t i;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].id == run_id)
			return &s->runs[i];
	return NULL;
}

int report_decide(const struct report_series *s,
		  const struct report_settings *rs, enum report_kind *kind)
{
	int reg = 0, imp = 0, open = 0;
	size_t i;

	if (s->status && !strcmp(s->status, "does-not-apply")) {
		*kind = REPORT_DOES_NOT_APPLY;
		return 0;
	}
	if (s->status && !strcmp(s->status, "build-failed")) {
		*kind = REPORT_BUILD_FAILED;
		return 0;
	}
	if (s->status && !strcmp(s->status, "boot-failed")) {
		*kind = REPORT_BOOT_FAILED;
		return 0;
	}
	if (!s->ncmp || (s->status && (strstr(s->status, "failed") ||
				       !strcmp(s->status, "incomplete"))))
		return -1;
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];
		int sig = significant(c, rs);

		reg |= sig > 0;
		imp |= sig < 0;
		open |= primary(s, c) && open_question(c, rs);
	}
	*kind = reg ? REPORT_REGRESSION : imp ? REPORT_IMPROVEMENT :
		open ? REPORT_INCONCLUSIVE : REPORT_NO_CHANGE;
	return 0;
}

/* --- text --------------------------------------------------------------- */

/*
 * Appends text wrapped at REPORT_WIDTH: the first line starts with
 * first, the others with rest.  A word too long for any line (a URL)
 * gets a line of its own without indentation, the one way a body line
 * can be longer than REPORT_WIDTH.  Words are split at spaces, tabs and
 * line feeds; each is escaped (escape.h), because paragraphs carry text
 * from mail (a patch's subject, an author, a path, a reason quoting
 * them) and a mail is read on terminals.
 */
static void wrap(struct strbuf *out, const char *first, const char *rest,
		 const char *text)
{
	struct strbuf word = STRBUF_INIT;
	const char *indent = first, *p = text;
	size_t col = 0;
	int fresh = 1;

	while (*p) {
		size_t wl;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		wl = strcspn(p, " \t\n");
		strbuf_reset(&word);
		escape_text_add(&word, p, wl);
		p += wl;
		wl = word.len;
		if (!fresh && col + 1 + wl > REPORT_WIDTH) {
			strbuf_addch(out, '\n');
			indent = rest;
			fresh = 1;
		}
		if (fresh) {
			if (strlen(indent) + wl <= REPORT_WIDTH) {
				strbuf_addstr(out, indent);
				col = strlen(indent);
			} else {
				col = 0;
			}
			fresh = 0;
		} else {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, word.buf, wl);
		col += wl;
	}
	if (!fresh)
		strbuf_addch(out, '\n');
	strbuf_release(&word);
}

static __attribute__((format(printf, 4, 5)))
void wrapf(struct strbuf *out, const char *first, const char *rest,
	   const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	wrap(out, first, rest, sb.buf);
	strbuf_release(&sb);
}

/*
 * One line of verbatim text as it is shown: tabs expanded to stops of 8,
 * then escaped (escape.h), replacing what line holds.
 */
static void verbatim_line(const char *p, size_t len, struct strbuf *line)
{
	struct strbuf spaced = STRBUF_INIT;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != '\t') {
			strbuf_addch(&spaced, p[i]);
			continue;
		}
		do
			strbuf_addch(&spaced, ' ');
		while (spaced.len % 8);
	}
	strbuf_reset(line);
	escape_text_add(line, spaced.buf, spaced.len);
	strbuf_release(&spaced);
}

/*
 * Appends verbatim text (compiler output, a hunk heading, a panic line)
 * indented by indent, each line as verbatim_line() shows it, cut into
 * pieces that fit (never inside a UTF-8 character), at most max_lines
 * lines.
 */
static void verbatim(struct strbuf *out, const char *indent,
		     const char *text, int max_lines)
{
	struct strbuf line = STRBUF_INIT;
	size_t room = REPORT_WIDTH - strlen(indent);
	const char *p = text;
	int n = 0;

	while (*p && n < max_lines) {
		size_t len = strcspn(p, "\n"), at = 0;

		verbatim_line(p, len, &line);
		do {
			size_t take = line.len - at > room ? room :
				      line.len - at;

			while (take < line.len - at && take > 1 &&
			       ((unsigned char)line.buf[at + take] & 0xc0) ==
			       0x80)
				take--;
			strbuf_addstr(out, indent);
			strbuf_add(out, line.buf + at, take);
			strbuf_addch(out, '\n');
			at += take;
			n++;
		} while (at < line.len && n < max_lines);
		p += len + (p[len] == '\n');
	}
	strbuf_release(&line);
}

static void fmt_p(double p, char *buf, size_t size)
{
	if (isfinite(p))
		snprintf(buf, size, "%.2g", p);
	else
		snprintf(buf, size, "-");
}

/* "95%", "98.7%": the interval's level; "" when not recorded. */
static void fmt_level(double level, char *buf, size_t size)
{
	if (!isfinite(level))
		snprintf(buf, size, "%s", "");
	else if (fabs(level * 100 - round(level * 100)) < 0.05)
		snprintf(buf, size, "%.0f%%", level * 100);
	else
		snprintf(buf, size, "%.1f%%", level * 100);
}

/* "mremap/move_pud" */
static void metric_name(const struct report_comparison *c,
			struct strbuf *out)
{
	strbuf_addf(out, "%s/%s", c->workload, c->metric);
}

/* {"mb":16,"order":"forward"} as mb=16 order=forward; "" for {}. */
static void params_text(const char *json, struct strbuf *out)
{
	const char *p = json;
	int in_str = 0;

	for (; *p; p++) {
		if (*p == '"') {
			in_str = !in_str;
			continue;
		}
		if (in_str) {
			strbuf_addch(out, *p);
			continue;
		}
		if (*p == '{' || *p == '}' || *p == ' ')
			continue;
		strbuf_addch(out, *p == ':' ? '=' : *p == ',' ? ' ' : *p);
	}
}

/* "the patched kernel is slower" and the like, for the lead. */
static const char *moved(const struct report_comparison *c, int sign)
{
	int timed = !strcmp(c->unit, "ns") || !strcmp(c->unit, "us") ||
		    !strcmp(c->unit, "ms") || !strcmp(c->unit, "s");
	int up = c->change_pct > 0;

	if (timed && worse_sign(c) > 0)
		return up ? "slower" : "faster";
	if (sign > 0)
		return "worse";
	return "better";
}

#define COLUMNS	"%10s%11s%10s  %-21s%8s%8s%6s"

/* The table of rows[0..n) (all of one run), with its header. */
static void table(const struct report_comparison *const *rows, size_t n,
		  struct strbuf *out, int *notes)
{
	char level[16], head[32], line[256];
	size_t i;

	fmt_level(n ? rows[0]->ci_level : NAN, level, sizeof(level));
	snprintf(head, sizeof(head), "%s%sCI", level, *level ? " " : "");
	snprintf(line, sizeof(line), "  %-58s%18s\n", "METRIC (UNIT)",
		 "VERDICT");
	strbuf_addstr(out, line);
	snprintf(line, sizeof(line), COLUMNS "\n", "BASE", "PATCHED",
		 "HL CHANGE", head, "P", "P HOLM", "BOOTS");
	strbuf_addstr(out, line);
	for (i = 0; i < n; i++) {
		const struct report_comparison *c = rows[i];
		struct strbuf name = STRBUF_INIT, verdict = STRBUF_INIT;
		struct strbuf params = STRBUF_INIT;
		char b[NUMFMT_BUF], p[NUMFMT_BUF], ch[NUMFMT_BUF];
		char ci[NUMFMT_CI_BUF];
		char pv[24], ph[24], nb[24];

		strbuf_addstr(&name, "  ");
		metric_name(c, &name);
		if (*c->unit)
			strbuf_addf(&name, " (%s)", c->unit);
		strbuf_addstr(&verdict, shown_verdict(c));
		if (contradicts(c)) {
			strbuf_addstr(&verdict, " (*)");
			*notes = 1;
		}
		if (*c->flags)
			strbuf_addf(&verdict, " %s", c->flags);
		if (name.len + 1 + verdict.len <= REPORT_WIDTH) {
			strbuf_addf(out, "%s%*s\n", name.buf,
				    (int)(REPORT_WIDTH - name.len),
				    verdict.buf);
		} else {
			strbuf_addf(out, "%s\n%*s\n", name.buf, REPORT_WIDTH,
				    verdict.buf);
		}
		params_text(c->params, &params);
		if (params.len)
			wrap(out, "    ", "    ", params.buf);
		numfmt_value(c->median_base, b, sizeof(b));
		numfmt_value(c->median_new, p, sizeof(p));
		numfmt_pct(c->change_pct, ch, sizeof(ch));
		numfmt_ci(c->ci_low_pct, c->ci_high_pct, ci, sizeof(ci));
		fmt_p(c->p, pv, sizeof(pv));
		fmt_p(c->p_holm, ph, sizeof(ph));
		snprintf(nb, sizeof(nb), "%lld/%lld", c->n_base, c->n_new);
		snprintf(line, sizeof(line), COLUMNS "\n", b, p, ch, ci, pv,
			 ph, nb);
		strbuf_addstr(out, line);
		strbuf_release(&name);
		strbuf_release(&verdict);
		strbuf_release(&params);
	}
}

/* What the columns are: the one place that says so. */
static void legend(struct strbuf *out, int notes)
{
	wrapf(out, "", "",
	      "BASE, PATCHED: medians of the per-boot medians (a boot is one "
	      "sample). HL CHANGE: the Hodges-Lehmann estimate of "
	      "patched/base - 1, the median of the patched/base ratios of all "
	      "(base boot, patched boot) pairs, not the ratio of the two "
	      "medians; CI: the interval at the level in its header that "
	      "inverts Mann-Whitney's test. P: that test on the per-boot "
	      "medians, below alpha exactly when the CI excludes 0. P HOLM: P "
	      "adjusted by Holm within its run, a primary metric's over the "
	      "run's primary metrics and another's over all of the run's, "
	      "which is what this report goes by. BOOTS: complete boots, "
	      "base/patched.");
	if (notes)
		wrap(out, "", "", "(*) the test's p is below alpha but the "
		     "interval includes no change: the two disagree, so the "
		     "metric is reported as inconclusive.");
}

static const char *clock_words(const char *clock)
{
	return clock && !strcmp(clock, "instructions") ? "instruction time" :
	       "real time";
}

/* "x86_64 on host local (tcg, instruction time): 8 boots a side" */
static void run_title(const struct report_run *r, struct strbuf *out)
{
	strbuf_addf(out, "%s on %s%s (%s, %s): run %lld %s after %d "
		    "round%s, boots base %d ok / %d failed, patched %d ok / "
		    "%d failed", r->arch, r->host ? "host " : "several hosts",
		    r->host ? r->host : "", r->accel, clock_words(r->clock),
		    r->id, r->status, r->rounds, r->rounds == 1 ? "" : "s",
		    r->ok[0], r->failed[0], r->ok[1], r->failed[1]);
}

/* Which rows of a run the body shows: primary, or significant. */
static int shown(const struct report_series *s,
		 const struct report_settings *rs,
		 const struct report_comparison *c)
{
	return primary(s, c) || significant(c, rs);
}

/* Per run: its title and the table of the rows the body shows. */
static void tables(const struct report_series *s,
		   const struct report_settings *rs, struct strbuf *out)
{
	const struct report_comparison **rows;
	size_t i, j, n;
	int notes = 0;

	rows = xcalloc(s->ncmp + 1, sizeof(*rows));
	for (i = 0; i < s->nruns; i++) {
		const struct report_run *r = &s->runs[i];
		struct strbuf title = STRBUF_INIT;

		for (j = n = 0; j < s->ncmp; j++)
			if (s->cmp[j].run_id == r->id &&
			    shown(s, rs, &s->cmp[j]))
				rows[n++] = &s->cmp[j];
		if (!n)
			continue;
		run_title(r, &title);
		wrap(out, "", "    ", title.buf);
		strbuf_release(&title);
		table(rows, n, out, &notes);
		strbuf_addch(out, '\n');
	}
	free(rows);
	legend(out, notes);
}

/* Whether another row of c's arch has c's workload and metric. */
static int ambiguous(const struct report_series *s,
		     const struct report_comparison *c)
{
	size_t i;

	for (i = 0; i < s->ncmp; i++)
		if (&s->cmp[i] != c && !strcmp(s->cmp[i].arch, c->arch) &&
		    !strcmp(s->cmp[i].workload, c->workload) &&
		    !strcmp(s->cmp[i].metric, c->metric))
			return 1;
	return 0;
}

/* "x86_64 mremap/move_pud", with its params when the name is not enough */
static void label(const struct report_series *s,
		  const struct report_comparison *c, struct strbuf *out)
{
	strbuf_addf(out, "%s ", c->arch);
	metric_name(c, out);
	if (ambiguous(s, c)) {
		strbuf_addstr(out, " (");
		params_text(c->params, out);
		strbuf_addch(out, ')');
	}
}

/* "x86_64 mremap/move_pud: +790.3%, 95% CI [+780.1%, +801.0%]" */
static void finding(const struct report_series *s,
		    const struct report_comparison *c, struct strbuf *out)
{
	char ch[NUMFMT_BUF], ci[NUMFMT_CI_BUF], level[16];

	numfmt_pct(c->change_pct, ch, sizeof(ch));
	numfmt_ci(c->ci_low_pct, c->ci_high_pct, ci, sizeof(ci));
	fmt_level(c->ci_level, level, sizeof(level));
	label(s, c, out);
	strbuf_addf(out, ": %s, %s%sCI %s", ch, level, *level ? " " : "",
		    ci);
}

/* The most telling significant row of sign: primary first, then the
 * largest change. */
static const struct report_comparison *
headline(const struct report_series *s, const struct report_settings *rs,
	 int sign)
{
	const struct report_comparison *best = NULL;
	size_t i;

	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];

		if (significant(c, rs) != sign)
			continue;
		if (!best || (primary(s, c) && !primary(s, best)) ||
		    (primary(s, c) == primary(s, best) &&
		     fabs(c->change_pct) > fabs(best->change_pct)))
			best = c;
	}
	return best;
}

static void lead_significant(const struct report_series *s,
			     const struct report_settings *rs, int sign,
			     struct strbuf *out)
{
	const struct report_comparison *h = headline(s, rs, sign);
	const struct report_run *r = run_of(s, h->run_id);
	struct strbuf line = STRBUF_INIT;
	char ch[NUMFMT_BUF];
	size_t i, n = 0;

	for (i = 0; i < s->ncmp; i++)
		n += significant(&s->cmp[i], rs) == sign;
	numfmt_pct(h->change_pct, ch, sizeof(ch));
	strbuf_addf(&line, "%s: ", sign > 0 ? "Regression" : "Improvement");
	metric_name(h, &line);
	strbuf_addf(&line, " %s on %s", ch, h->arch);
	if (r && r->host)
		strbuf_addf(&line, ", host %s", r->host);
	if (n > 1)
		strbuf_addf(&line, ", and %zu more", n - 1);
	wrap(out, "", "  ", line.buf);
	strbuf_addch(out, '\n');
	strbuf_reset(&line);
	metric_name(h, &line);
	wrapf(out, "", "", "kregress booted the base and the patched kernels "
	      "of this series in interleaved order and compared them metric "
	      "by metric. After Holm's correction within each run, %s "
	      "significantly (on %s the patched kernel is %s):",
	      n == 1 ? "this one changed" : "these changed",
	      line.buf, moved(h, sign));
	strbuf_addch(out, '\n');
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];

		if (significant(c, rs) != sign)
			continue;
		strbuf_reset(&line);
		finding(s, c, &line);
		strbuf_addf(&line, ", %s%s", c->verdict,
			    primary(s, c) ? "" : " (not a primary metric)");
		wrap(out, "  ", "      ", line.buf);
	}
	if (sign > 0) {
		for (i = 0, n = 0; i < s->ncmp; i++)
			n += significant(&s->cmp[i], rs) < 0;
		if (n) {
			strbuf_addch(out, '\n');
			wrapf(out, "", "", "It also improved %zu metric%s: see "
			      "the tables.", n, n == 1 ? "" : "s");
		}
	}
	strbuf_addch(out, '\n');
	strbuf_release(&line);
}

/* The size of a regression the interval of c rules out, in percent. */
static double ruled_out(const struct report_comparison *c)
{
	return worse_sign(c) > 0 ? c->ci_high_pct : -c->ci_low_pct;
}

/*
 * A bound in percent, rounded up to what is printed, so that "rules out
 * more than X" stays true: 0.01% at least, two decimals below 1%.
 */
static const char *pct_up(double b, char *buf, size_t size)
{
	if (b < 0.01)
		snprintf(buf, size, "0.01%%");
	else if (b < 1)
		snprintf(buf, size, "%.2f%%", ceil(b * 100) / 100);
	else
		snprintf(buf, size, "%.1f%%", ceil(b * 10) / 10);
	return buf;
}

/* A threshold in percent, rounded up to a tenth: "3", "18.8". */
static const char *pct_threshold(double t, char *buf, size_t size)
{
	snprintf(buf, size, "%g", ceil(t * 10 - 1e-9) / 10);
	return buf;
}

/* One primary metric of a calibrated run: the threshold it was decided
 * at and where it came from. */
static void noise_metric(const struct report_series *s,
			 const struct report_settings *rs,
			 const struct report_comparison *c, struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;
	double t = isfinite(c->threshold_pct) ? c->threshold_pct :
		   rs->threshold_pct;
	char buf[32];

	label(s, c, &line);
	strbuf_addf(&line, ": +-%s%%", pct_threshold(t, buf, sizeof(buf)));
	if (!c->calibration_id)
		strbuf_addstr(&line, " (configured; the calibration does not "
			      "know the metric)");
	else if (t > rs->threshold_pct)
		strbuf_addstr(&line, " (what the host resolves");
	else
		strbuf_addstr(&line, " (configured");
	if (c->calibration_id && isfinite(c->noise_cv))
		strbuf_addf(&line, "; A/A CV %.2g%%)", c->noise_cv * 100);
	else if (c->calibration_id)
		strbuf_addch(&line, ')');
	wrap(out, "  ", "      ", line.buf);
	strbuf_release(&line);
}

/*
 * What the hosts' A/A calibrations measured (DESIGN.md: the no-change
 * report gives the host's noise floor): per run, its false alarms and
 * each primary metric's threshold; the configured threshold for a run
 * whose hosts have none.
 */
static void noise_floor(const struct report_series *s,
			const struct report_settings *rs, struct strbuf *out)
{
	size_t i, j, any = 0;
	char buf[32];

	for (i = 0; i < s->nruns; i++)
		any += s->runs[i].noise.calibrations > 0;
	if (!any) {
		wrap(out, "", "", "Noise floor: the hosts have no A/A "
		     "calibration yet, so their false-alarm rate is not "
		     "measured; the threshold below which a change is called "
		     "no-change is the configured one.");
		strbuf_addch(out, '\n');
		return;
	}
	for (i = 0; i < s->nruns; i++) {
		const struct report_run *r = &s->runs[i];
		const struct report_noise *n = &r->noise;
		const char *host = r->host ? r->host : "its hosts";

		if (!n->calibrations) {
			wrapf(out, "", "", "Noise floor of %s on %s: no A/A "
			      "calibration yet, so its false-alarm rate is not "
			      "measured; a change within the configured "
			      "+-%s%% is no-change.", r->arch, host,
			      pct_threshold(rs->threshold_pct, buf,
					    sizeof(buf)));
			strbuf_addch(out, '\n');
			continue;
		}
		wrapf(out, "", "", "Noise floor of %s on %s, from %d A/A "
		      "calibration%s: %lld false alarm%s in %lld resampled A/A "
		      "runs of the design (target %g%%), %lld in %lld real A/A "
		      "comparisons. A change within each primary metric's "
		      "threshold is no-change:", r->arch, host,
		      n->calibrations, n->calibrations == 1 ? "" : "s",
		      n->false_alarms, n->false_alarms == 1 ? "" : "s",
		      n->comparisons, n->target * 100, n->real_false_alarms,
		      n->real);
		strbuf_addch(out, '\n');
		for (j = 0; j < s->ncmp; j++)
			if (s->cmp[j].run_id == r->id &&
			    primary(s, &s->cmp[j]))
				noise_metric(s, rs, &s->cmp[j], out);
		strbuf_addch(out, '\n');
	}
}

static void lead_no_change(const struct report_series *s,
			   const struct report_settings *rs,
			   struct strbuf *out)
{
	size_t i, np = 0;

	for (i = 0; i < s->ncmp; i++)
		np += primary(s, &s->cmp[i]);
	strbuf_addf(out, "No significant change: %zu primary metric%s "
		    "decided, none moved\n\n", np, np == 1 ? "" : "s");
	wrapf(out, "", "", "kregress booted the base and the patched kernels "
	      "of this series in interleaved order and compared them metric "
	      "by metric: no metric changed significantly after Holm's "
	      "correction within each run. What the data rule out, from each "
	      "primary metric's confidence interval:");
	strbuf_addch(out, '\n');
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];
		struct strbuf line = STRBUF_INIT;
		double b = ruled_out(c);
		char buf[32];

		if (!primary(s, c))
			continue;
		label(s, c, &line);
		if (!isfinite(b))
			strbuf_addstr(&line, ": no interval");
		else if (b <= 0)
			strbuf_addstr(&line, ": any regression");
		else
			strbuf_addf(&line, ": a regression of more than %s",
				    pct_up(b, buf, sizeof(buf)));
		wrap(out, "  ", "      ", line.buf);
		strbuf_release(&line);
	}
	strbuf_addch(out, '\n');
	noise_floor(s, rs, out);
}

/*
 * The factor by which c's interval must shrink for it to settle: inside
 * +-t (no-change) or wholly beyond t on the side of the estimate, with
 * each end keeping its distance from the estimate (the interval need not
 * be symmetric).  INFINITY when nothing settles it.
 */
static double shrink_to_settle(const struct report_comparison *c, double t)
{
	double x = c->change_pct;
	double lo = x - c->ci_low_pct, hi = c->ci_high_pct - x;
	double none = INFINITY, beyond = INFINITY;

	if (fabs(x) < t)
		none = fmax(lo / (x + t), hi / (t - x));
	if (x > t)
		beyond = lo / (x - t);
	else if (x < -t)
		beyond = hi / (-t - x);
	return fmin(none, beyond);
}

/*
 * Boots a side that would settle c if its spread stays as it is: an
 * interval's width shrinks as 1/sqrt(n).  0 when no number would.
 */
static long long boots_to_settle(const struct report_comparison *c,
				 double t)
{
	double s = shrink_to_settle(c, t);
	double n = (double)(c->n_base < c->n_new ? c->n_base : c->n_new);

	if (!isfinite(c->ci_low_pct) || !isfinite(c->ci_high_pct) ||
	    !isfinite(s) || n < 1)
		return 0;
	n = fmax(ceil(n * s * s), n + 1);
	return n > 1e6 ? 0 : (long long)n;
}

/*
 * Boots a side at which Mann-Whitney, with the two sides apart, gives a
 * p that Holm's multiplier for c still leaves below alpha: its smallest
 * p is 2 / C(2n, n).  0 beyond a thousand.
 */
static long long boots_for_holm(const struct report_comparison *c,
				const struct report_settings *rs, size_t nmetrics)
{
	double mult = c->p > 0 && c->p_holm < 1 ? c->p_holm / c->p :
		      (double)nmetrics;
	double alpha = row_alpha(c, rs), comb = 1;
	long long n;

	if (mult < 1)
		mult = 1;
	for (n = 1; n <= 1000; n++) {
		/* C(2n, n) = C(2n - 2, n - 1) (2n - 1) 2n / n^2 */
		comb *= (double)(2 * n - 1) * (double)(2 * n) /
			((double)n * (double)n);
		if (2 / comb * mult < alpha)
			return n;
	}
	return 0;
}

static void lead_inconclusive(const struct report_series *s,
			      const struct report_settings *rs,
			      struct strbuf *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->ncmp; i++)
		n += primary(s, &s->cmp[i]) && open_question(&s->cmp[i], rs);
	strbuf_addf(out, "Inconclusive: %zu primary metric%s need%s more "
		    "boots\n\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	wrapf(out, "", "", "kregress booted the base and the patched kernels "
	      "of this series in interleaved order, up to %d boots a side, "
	      "and no metric changed significantly after Holm's correction "
	      "within each run. These primary metrics have no answer yet; "
	      "what more boots would settle:",
	      rs->max_boots_per_side);
	strbuf_addch(out, '\n');
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];
		struct strbuf line = STRBUF_INIT;
		char p[24], ph[24];
		long long need;

		if (!primary(s, c) || !open_question(c, rs))
			continue;
		if (isfinite(c->change_pct))
			finding(s, c, &line);
		else {
			label(s, c, &line);
			strbuf_addstr(&line, ": no estimate");
		}
		strbuf_addf(&line, " after %lld/%lld boots; ", c->n_base,
			    c->n_new);
		if (unconfirmed(c, rs)) {
			fmt_p(c->p, p, sizeof(p));
			fmt_p(c->p_holm, ph, sizeof(ph));
			need = boots_for_holm(c, rs, s->ncmp);
			strbuf_addf(&line, "%s for this metric alone (p %s) but "
				    "not after Holm (p Holm %s); ", c->verdict,
				    p, ph);
			if (need)
				strbuf_addf(&line, "it takes at least %lld "
					    "boots a side, with the two sides "
					    "apart", need);
			else
				strbuf_addstr(&line, "no number of boots "
					      "would confirm it");
		} else if ((need = boots_to_settle(c, rs->threshold_pct))) {
			strbuf_addf(&line, "about %lld a side would settle it "
				    "if the spread stays as it is", need);
		} else {
			strbuf_addstr(&line, "its spread is too large for "
				      "more boots to settle it");
		}
		wrap(out, "  ", "      ", line.buf);
		strbuf_release(&line);
	}
	strbuf_addch(out, '\n');
}

/*
 * "Re: [PATCH v2 0/3] title", or the series' id when it has none.  The
 * Subject is mail: escaped (escape.h), so that one whose RFC 2047 words
 * decode to CR LF neither breaks the header nor stops the report.
 */
static void thread_subject(const struct report_series *s,
			   struct strbuf *out)
{
	if (!s->subject || !*s->subject) {
		strbuf_addf(out, "Re: series %lld", s->id);
		return;
	}
	if (strncasecmp(s->subject, "Re:", 3))
		strbuf_addstr(out, "Re: ");
	escape_str_add(out, s->subject);
}

static void short_commit(const char *id, struct strbuf *out)
{
	strbuf_addf(out, "%.12s", id && *id ? id : "(unknown)");
}

/* The reason after "stage: " and "arch: " prefixes, as a reader wants it. */
static const char *reason_text(const struct report_series *s)
{
	const char *r = s->status_reason ? s->status_reason : "";
	const char *colon = strstr(r, ": ");

	return colon && colon - r < 16 ? colon + 2 : r;
}

/*
 * What apply says beyond the patch, file and hunk shown above it: its
 * reason after "patch N/M (FILE, HUNK): ", or all of it.
 */
static const char *apply_detail(const struct report_series *s)
{
	const char *r = reason_text(s), *p = strstr(r, "): ");

	return s->apply_failed_file && p && p[3] ? p + 3 : r;
}

/* Where the base came from, as apply_base_source_str() names it. */
static const char *base_from(const char *source)
{
	if (source && !strcmp(source, "base-commit"))
		return "the series' base-commit: line";
	if (source && !strcmp(source, "explicit"))
		return "an explicit base";
	return "the tree's branch";
}

static void lead_does_not_apply(const struct report_series *s,
				struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addstr(&line, "Does not apply");
	if (s->apply_failed_patch)
		strbuf_addf(&line, ": patch %d/%d", s->apply_failed_patch,
			    s->total);
	strbuf_addf(&line, " to %s at ", s->tree ? s->tree : "the tree");
	short_commit(s->base, &line);
	wrap(out, "", "", line.buf);
	strbuf_addch(out, '\n');
	if (s->apply_failed_subject)
		wrapf(out, "  patch: ", "         ", "%s",
		      s->apply_failed_subject);
	if (s->apply_failed_file)
		wrapf(out, "  file:  ", "         ", "%s", s->apply_failed_file);
	if (s->apply_failed_hunk)
		verbatim(out, "  hunk:  ", s->apply_failed_hunk, 1);
	strbuf_addch(out, '\n');
	wrap(out, "", "", apply_detail(s));
	strbuf_addch(out, '\n');
	wrapf(out, "", "", "The base came from %s: %s. If the series is meant "
	      "for another tree or commit, a base-commit: line in the cover "
	      "letter (git format-patch --base) tells kregress which.",
	      base_from(s->base_source), s->base_reason ? s->base_reason :
	      "no reason recorded");
	strbuf_addch(out, '\n');
	strbuf_release(&line);
}

static void lead_failed(const struct report_series *s, const char *what,
			struct strbuf *out)
{
	wrapf(out, "", "  ", "%s: %s", what, reason_text(s));
	if (s->build_errors && *s->build_errors) {
		strbuf_addstr(out, "\nThe first errors:\n");
		verbatim(out, "  ", s->build_errors, 12);
	}
	strbuf_addch(out, '\n');
}

/* Verdict changes of the primary metrics since the previous version. */
static void since_previous(const struct report_series *s,
			   struct strbuf *out)
{
	const struct report_previous *pv = s->prev;
	size_t i, j, changed = 0, same = 0;

	if (!pv)
		return;
	strbuf_addf(out, "Since v%d (series %lld):\n", pv->version,
		    pv->series_id);
	if (!pv->ncmp) {
		wrapf(out, "  ", "  ", "v%d gave no comparisons; these are the "
		      "first results of the series.", pv->version);
		strbuf_addch(out, '\n');
		return;
	}
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i], *o = NULL;
		struct strbuf line = STRBUF_INIT;
		char a[NUMFMT_BUF], b[NUMFMT_BUF];

		if (!primary(s, c))
			continue;
		for (j = 0; j < pv->ncmp && !o; j++)
			if (!strcmp(pv->cmp[j].arch, c->arch) &&
			    !strcmp(pv->cmp[j].workload, c->workload) &&
			    !strcmp(pv->cmp[j].metric, c->metric) &&
			    !strcmp(pv->cmp[j].params, c->params))
				o = &pv->cmp[j];
		if (o && !strcmp(shown_verdict(o), shown_verdict(c))) {
			same++;
			continue;
		}
		numfmt_pct(c->change_pct, b, sizeof(b));
		label(s, c, &line);
		if (o) {
			numfmt_pct(o->change_pct, a, sizeof(a));
			strbuf_addf(&line, ": %s %s -> %s %s", shown_verdict(o),
				    a, shown_verdict(c), b);
		} else {
			strbuf_addf(&line, ": new, %s %s", shown_verdict(c),
				    b);
		}
		wrap(out, "  ", "      ", line.buf);
		changed++;
		strbuf_release(&line);
	}
	if (!changed)
		wrapf(out, "  ", "  ", "the verdicts of the primary metrics are "
		      "the same as v%d's.", pv->version);
	else if (same)
		wrapf(out, "  ", "  ", "the other %zu primary metrics have "
		      "v%d's verdict.", same, pv->version);
	strbuf_addch(out, '\n');
}

/* kregress.plan="kregress-plan 1;a;b" as "a; b" */
static void plan_text(const char *plan, struct strbuf *out)
{
	const char *p = plan, *e;

	if (!strncmp(p, "kregress.plan=", 14))
		p += 14;
	if (*p == '"')
		p++;
	if (!strncmp(p, "kregress-plan ", 14) && strchr(p, ';'))
		p = strchr(p, ';') + 1;
	e = p + strlen(p);
	if (e > p && e[-1] == '"')
		e--;
	for (; p < e; p++) {
		if (*p == ';')
			strbuf_addstr(out, "; ");
		else
			strbuf_addch(out, *p);
	}
}

static void environment(const struct report_series *s,
			struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;
	size_t i, j;

	strbuf_addstr(out, "Environment\n");
	strbuf_addf(&line, "%s at ", s->tree ? s->tree : "(no tree)");
	short_commit(s->base, &line);
	if (s->base_source)
		strbuf_addf(&line, " (%s%s%s)", s->base_source,
			    s->base_reason ? ": " : "",
			    s->base_reason ? s->base_reason : "");
	wrap(out, "  tree:    ", "           ", line.buf);
	for (i = 0; i < s->nruns; i++) {
		const struct report_run *r = &s->runs[i];

		strbuf_reset(&line);
		strbuf_addf(&line, "%s: ", r->arch);
		if (r->config_hash)
			strbuf_addf(&line, "kernel .config %.12s, ",
				    r->config_hash);
		strbuf_addf(&line, "%s%s%s%s%s, %s, %s; ABBA-interleaved "
			    "boots, seed %lld", r->host ? "host " : "several "
			    "hosts", r->host ? r->host : "",
			    r->host_cpu ? " (" : "",
			    r->host_cpu ? r->host_cpu : "",
			    r->host_cpu ? ")" : "", r->accel,
			    clock_words(r->clock), r->seed);
		wrap(out, "  run:     ", "           ", line.buf);
	}
	for (i = 0; i < s->nruns; i++) {
		const struct report_run *r = &s->runs[i];
		int dup = 0;

		if (!r->plan)
			continue;
		for (j = 0; j < i; j++)
			dup |= s->runs[j].plan &&
			       !strcmp(s->runs[j].plan, r->plan);
		if (dup)
			continue;
		strbuf_reset(&line);
		strbuf_addstr(&line, r->arch);
		for (j = i + 1; j < s->nruns; j++)
			if (s->runs[j].plan && !strcmp(s->runs[j].plan,
						       r->plan))
				strbuf_addf(&line, ", %s", s->runs[j].arch);
		strbuf_addstr(&line, ": ");
		plan_text(r->plan, &line);
		wrap(out, "  plan:    ", "           ", line.buf);
	}
	for (i = 0; i < s->nruns; i++)
		if (!strcmp(s->runs[i].clock ? s->runs[i].clock : "",
			    "instructions")) {
			wrap(out, "  clock:   ", "           ", "instruction "
			     "time: the emulated guest's clock counts the "
			     "instructions it runs (QEMU -icount), so it sees "
			     "what the kernel does, not caches or memory; "
			     "never compared with real time");
			break;
		}
	strbuf_addch(out, '\n');
	strbuf_release(&line);
}

static void reproduce(const struct report_series *s,
		      const struct report_settings *rs, struct strbuf *out)
{
	static const char cmd[] = "  kregress submit ";
	static const char cont[] = "    ";

	strbuf_addstr(out, "Reproduce (with a kregressd of the same "
		      "configuration):\n");
	/*
	 * A command too long for a line goes on two, joined by a \ so that
	 * it can be pasted into a shell whole; a URL too long for any line
	 * starts its own without indentation, as in wrap().
	 */
	if (s->source_url && strlen(cmd) + strlen(s->source_url) >
	    REPORT_WIDTH)
		strbuf_addf(out, "%s\\\n%s%s\n", cmd,
			    strlen(cont) + strlen(s->source_url) <=
			    REPORT_WIDTH ? cont : "", s->source_url);
	else if (s->source_url)
		strbuf_addf(out, "%s%s\n", cmd, s->source_url);
	else
		wrap(out, "  ", "  ", "kregress submit SERIES.mbox   (the "
		     "series as it was submitted)");
	strbuf_addf(out, "\nDetails (every metric, build, boot and sample):\n"
		    "  %sseries/%lld\n  kregress status %lld; kregress results "
		    "%lld\n\n", rs->dashboard, s->id, s->id, s->id);
}

static void tags(const struct report_series *s,
		 const struct report_settings *rs, struct strbuf *out)
{
	wrap(out, "", "", "If you fix the issue in a new version of the "
	     "series, kindly add these tags:");
	strbuf_addf(out, "  Reported-by: %s\n  Closes: %sseries/%lld\n\n",
		    rs->from, rs->dashboard, s->id);
}

static void caveat(const struct report_series *s, struct strbuf *out)
{
	if (!s->layout_only)
		return;
	wrapf(out, "", "", "Caveat: this series changes only comments and "
	      "blank lines (%s). The kernel's code is the same but for line "
	      "numbers and layout, so the difference may come from code "
	      "alignment rather than from the patch.", s->layout_only);
	strbuf_addch(out, '\n');
}

/*
 * What the layout control found, a paragraph per metric it compared
 * ("x86_64 mremap/move: layout-sensitive: ..."), and once per arch and
 * reason why significant changes had none.
 */
static void layout_control(const struct report_series *s,
			   struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;
	const struct report_comparison *said = NULL;	/* the last reason */
	char ch[NUMFMT_BUF], ci[NUMFMT_CI_BUF];
	size_t i;
	int head = 0;

	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];

		if (!c->layout && (!c->layout_reason ||
		    (said && !strcmp(said->arch, c->arch) &&
		     !strcmp(said->layout_reason, c->layout_reason))))
			continue;
		if (!head++)
			wrap(out, "", "", "Layout control (base and patched "
			     "rebuilt with every function and loop aligned "
			     "to 64 bytes, KCFLAGS=\"" LAYOUT_KCFLAGS "\", "
			     "and booted again):");
		strbuf_reset(&line);
		if (!c->layout) {
			said = c;
			strbuf_addf(&line, "%s: no control: %s", c->arch,
				    c->layout_reason);
			wrap(out, "  ", "    ", line.buf);
			continue;
		}
		label(s, c, &line);
		strbuf_addf(&line, ": %s", c->layout);
		if (c->layout_verdict) {
			numfmt_pct(c->layout_change_pct, ch, sizeof(ch));
			numfmt_ci(c->layout_ci_low_pct, c->layout_ci_high_pct,
				  ci, sizeof(ci));
			strbuf_addf(&line, ": aligned %s %s %s",
				    c->layout_verdict, ch, ci);
		}
		if (c->verdict_as_built) {
			numfmt_pct(c->change_pct, ch, sizeof(ch));
			strbuf_addf(&line, ", as built %s %s: the change comes "
				    "from where the patch moved code, not "
				    "from what it does", c->verdict_as_built,
				    ch);
		}
		if (c->layout_reason)
			strbuf_addf(&line, ": %s", c->layout_reason);
		wrap(out, "  ", "    ", line.buf);
	}
	if (head)
		strbuf_addch(out, '\n');
	strbuf_release(&line);
}

static void hold_preface(const struct report_hold *hold,
			 struct strbuf *out)
{
	int i;

	wrapf(out, "", "", "This report is held for moderation. It goes to %s "
	      "once a moderator releases it with:", hold->recipients);
	if (hold->notification_id)
		strbuf_addf(out, "\n    kregress report release %lld\n\n",
			    hold->notification_id);
	else
		strbuf_addstr(out, "\n    kregress report release ID\n\n");
	for (i = 0; i < REPORT_WIDTH; i++)
		strbuf_addch(out, '-');
	strbuf_addstr(out, "\n\n");
}

void report_message_id(const struct report_series *s,
		       const struct report_settings *rs,
		       enum report_kind kind, int moderation,
		       struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	const char *at = rs->from ? strrchr(rs->from, '@') : NULL;
	size_t dlen;

	if (s->msgid && *s->msgid)
		strbuf_addf(&key, "msgid:%s", s->msgid);
	else
		strbuf_addf(&key, "series:%lld", s->id);
	sha256_hex(key.buf, key.len, hex);
	strbuf_addf(out, "kregress.%s.v%d.%.16s%s@", report_kind_str(kind),
		    s->version, hex, moderation ? ".moderation" : "");
	if (at) {
		dlen = strcspn(at + 1, "> \t");
		strbuf_add(out, at + 1, dlen);
	}
	if (!at || !dlen)
		strbuf_addstr(out, "localhost");
	strbuf_release(&key);
}

void report_render(const struct report_series *s,
		   const struct report_settings *rs, enum report_kind kind,
		   const struct report_hold *hold, struct report_mail *m)
{
	struct strbuf sb = STRBUF_INIT;
	struct strbuf *b = &m->body;

	m->kind = kind;
	strbuf_addf(&sb, "[kregress %s] ", report_kind_str(kind));
	thread_subject(s, &sb);
	m->subject = strbuf_detach(&sb, NULL);
	report_message_id(s, rs, kind, hold != NULL, &sb);
	m->message_id = strbuf_detach(&sb, NULL);
	m->in_reply_to = s->msgid && *s->msgid ? xstrdup(s->msgid) : NULL;
	if (hold)
		hold_preface(hold, b);
	switch (kind) {
	case REPORT_REGRESSION:
	case REPORT_IMPROVEMENT:
		lead_significant(s, rs, kind == REPORT_REGRESSION ? 1 : -1,
				 b);
		break;
	case REPORT_NO_CHANGE:
		lead_no_change(s, rs, b);
		break;
	case REPORT_INCONCLUSIVE:
		lead_inconclusive(s, rs, b);
		break;
	case REPORT_DOES_NOT_APPLY:
		lead_does_not_apply(s, b);
		break;
	case REPORT_BUILD_FAILED:
		lead_failed(s, "Build failed", b);
		break;
	case REPORT_BOOT_FAILED:
		lead_failed(s, "Boot failed", b);
		break;
	case REPORT_KIND_COUNT:
		break;
	}
	if (kind <= REPORT_INCONCLUSIVE) {
		if (report_kind_significant(kind))
			caveat(s, b);
		layout_control(s, b);
		tables(s, rs, b);
		strbuf_addch(b, '\n');
		since_previous(s, b);
		environment(s, b);
	} else if (kind != REPORT_DOES_NOT_APPLY) {
		environment(s, b);
	}
	reproduce(s, rs, b);
	if (kind == REPORT_REGRESSION || kind == REPORT_BUILD_FAILED ||
	    kind == REPORT_BOOT_FAILED)
		tags(s, rs, b);
	strbuf_addf(b, "-- \nkregress: performance regression tests of Linux "
		    "patches\n%s\n", rs->dashboard);
}

/* Whether the failure reason ("build: x86_64: ...") names arch. */
static int failed_arch(const struct report_series *s, const char *arch)
{
	const char *r = s->status_reason ? strstr(s->status_reason, ": ") :
			NULL;
	size_t n = strlen(arch);

	return r && !strncmp(r + 2, arch, n) && r[2 + n] == ':';
}

const char *report_check_state(const struct report_series *s,
			       const struct report_settings *rs,
			       enum report_kind kind, const char *arch,
			       struct strbuf *desc)
{
	const struct report_comparison *worst = NULL;
	int reg = 0, imp = 0, open = 0;
	size_t i, rows = 0;

	switch (kind) {
	case REPORT_DOES_NOT_APPLY:
		strbuf_addf(desc, "does not apply to %s: not tested",
			    s->tree ? s->tree : "the tree");
		return "warning";
	case REPORT_BUILD_FAILED:
	case REPORT_BOOT_FAILED:
		if (failed_arch(s, arch)) {
			strbuf_addf(desc, "%.*s", 200, reason_text(s));
			return "fail";
		}
		strbuf_addf(desc, "not tested: %s on another arch",
			    report_kind_str(kind));
		return "warning";
	default:
		break;
	}
	for (i = 0; i < s->ncmp; i++) {
		const struct report_comparison *c = &s->cmp[i];
		int sig;

		if (strcmp(c->arch, arch))
			continue;
		rows++;
		sig = significant(c, rs);
		reg |= sig > 0;
		imp |= sig < 0;
		open |= primary(s, c) && open_question(c, rs);
		if (sig > 0 && (!worst ||
				fabs(c->change_pct) > fabs(worst->change_pct)))
			worst = c;
	}
	if (!rows) {
		strbuf_addf(desc, "not analysed on %s: no complete run", arch);
		return "warning";
	}
	if (reg) {
		struct strbuf f = STRBUF_INIT;

		finding(s, worst, &f);
		strbuf_addf(desc, "regression: %.180s", f.buf);
		strbuf_release(&f);
		return "fail";
	}
	if (imp) {
		strbuf_addstr(desc, "improvement, no regression");
		return "warning";
	}
	if (open) {
		strbuf_addstr(desc, "inconclusive: more boots needed");
		return "warning";
	}
	strbuf_addstr(desc, "no significant change");
	return "success";
}

/* --- the layout caveat ---------------------------------------------------- */

/* A changed line that is only a comment or blank (C sources). */
static int comment_or_blank(const char *p, size_t len)
{
	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	if (!len)
		return 1;
	if (len >= 2 && (!strncmp(p, "/*", 2) || !strncmp(p, "//", 2) ||
			 !strncmp(p, "*/", 2)))
		return 1;
	return *p == '*' && (len == 1 || p[1] == ' ' || p[1] == '\t' ||
			     p[1] == '/');
}

static int c_source(const char *name, size_t len)
{
	return len > 2 && name[len - 2] == '.' &&
	       (name[len - 1] == 'c' || name[len - 1] == 'h');
}

/* Whether files ("a, b") holds name already. */
static int listed(const struct strbuf *files, const char *name, size_t n)
{
	const char *p = files->buf;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !memcmp(p, name, n))
			return 1;
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

/* Whether a hunk changes more than comments and blank lines. */
static int hunk_has_code(const char *text, const struct diff_hunk *h)
{
	const char *p = text + h->body, *end = text + h->end;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n && (*p == '+' || *p == '-') &&
		    !comment_or_blank(p + 1, n - 1))
			return 1;
		p += n + 1;
	}
	return 0;
}

void report_scan_patch(const char *text, size_t len, struct strbuf *files,
		       int *code)
{
	struct diff d;
	size_t i, j;

	if (diff_scan(text, len, &d)) {
		diff_release(&d);
		return;
	}
	for (i = 0; i < d.nr_files; i++) {
		const struct diff_file *f = &d.files[i];
		struct diff_path name = diff_path_strip1(f->git ? f->git_new :
							 f->new);

		if (name.p && !listed(files, name.p, name.n)) {
			if (files->len)
				strbuf_addstr(files, ", ");
			strbuf_add(files, name.p, name.n);
		}
		if (f->binary || !name.p || !c_source(name.p, name.n))
			*code = 1;
		for (j = 0; j < f->nr_hunks; j++)
			if (hunk_has_code(text, &d.hunks[f->first_hunk + j]))
				*code = 1;
	}
	diff_release(&d);
}
