/*
 * t-report.c - the report mails as a reader gets them: which kind a
 * result is (Holm, primary metrics, a test and an interval that
 * disagree), the subject and threading, 78 columns, each kind's first
 * line and body, the moderation copy, what changed since v1, the layout
 * caveat, the patchwork states, text from mail escaped in the body.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"
#include "tap.h"

static const struct report_settings rs = {
	.from = "kregress <bot@kregress.example>",
	.dashboard = "http://kregress.example:8080/",
	.alpha = 0.05, .threshold_pct = 3, .max_boots_per_side = 20,
};

static struct report_run runs[2] = {
	{ .id = 1, .arch = "x86_64", .accel = "tcg", .clock = "instructions",
	  .status = "decided", .host = "local", .host_cpu = "QEMU TCG",
	  .plan = "kregress.plan=\"kregress-plan 1;machine 1536 1;clock "
		  "instructions;run mremap --pud-mb 1024\"",
	  .seed = 42, .rounds = 2, .ok = { 8, 8 },
	  .config_hash = "0123456789abcdef" },
	{ .id = 2, .arch = "arm64", .accel = "kvm", .clock = "real",
	  .status = "budget", .host = "arm", .seed = 43, .rounds = 5,
	  .ok = { 20, 19 }, .failed = { 0, 1 } },
};

/* One row: primary unless stated, lower is better, 95% CI. */
static struct report_comparison row(const char *arch, long long run,
				    const char *metric, double change,
				    double lo, double hi, double p,
				    double holm, const char *verdict)
{
	struct report_comparison c = {
		.arch = arch, .workload = "mremap", .metric = metric,
		.params = "{\"mb\":1024}", .unit = "us", .direction = "lower",
		.run_id = run, .n_base = 8, .n_new = 8, .median_base = 16.9,
		.median_new = 16.9 * (1 + change / 100), .change_pct = change,
		.ci_low_pct = lo, .ci_high_pct = hi, .ci_level = 0.95,
		.p = p, .p_holm = holm, .verdict = verdict, .flags = "",
		.is_primary = 1,
	};
	return c;
}

static struct report_series series(struct report_comparison *cmp,
				   size_t n)
{
	struct report_series s = {
		.id = 12, .msgid = "cover.1.git.author@example.org",
		.subject = "[PATCH v2 0/2] mm/mremap: move PUDs the slow way",
		.author = "Patch Author <author@example.org>",
		.source_url = "https://lore.kernel.org/linux-mm/cover.1/",
		.version = 2, .total = 2, .status = "analyzed",
		.tree = "linux-6.1",
		.base = "ebbea9e8ee2096a1c1b526b2ba40dfee08b6940b",
		.base_source = "base-commit",
		.base_reason = "the series' base-commit: line",
		.runs = runs, .nruns = 2, .cmp = cmp, .ncmp = n,
	};
	return s;
}

static int decide(const struct report_series *s, const char *want)
{
	enum report_kind k;

	if (report_decide(s, &rs, &k))
		return want == NULL;
	return want && !strcmp(report_kind_str(k), want);
}

/* Whether text holds words, however they were wrapped. */
static int has(const char *text, const char *words)
{
	struct strbuf a = STRBUF_INIT;
	const char *p;
	int found;

	for (p = text; *p; p++) {
		if (*p == '\n' || *p == ' ') {
			if (a.len && a.buf[a.len - 1] != ' ')
				strbuf_addch(&a, ' ');
			continue;
		}
		strbuf_addch(&a, *p);
	}
	found = strstr(a.buf, words) != NULL;
	strbuf_release(&a);
	return found;
}

/* The first line of the body. */
static void first_line(const struct report_mail *m, char *buf, size_t size)
{
	size_t n = strcspn(m->body.buf, "\n");

	snprintf(buf, size, "%.*s", (int)n, m->body.buf);
}

static void render(const struct report_series *s, enum report_kind k,
		   const struct report_hold *hold, struct report_mail *m)
{
	report_mail_init(m);
	report_render(s, &rs, k, hold, m);
}

static void test_kinds(void)
{
	struct report_comparison c[4];
	struct report_series s;

	c[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		   0.0031, "regression");
	c[1] = row("x86_64", 1, "move_pmd", 0.1, -0.2, 0.3, 0.8, 1,
		   "no-change");
	s = series(c, 2);
	ok(decide(&s, "regression"), "a regression after Holm: regression");

	c[0].p_holm = 0.2;
	ok(decide(&s, "inconclusive"), "significant alone but not after "
	   "Holm: no regression mail, more boots needed");
	c[0].p_holm = 0.03;
	ok(decide(&s, "regression"), "Holm p 0.03 against a 95%% interval: "
	   "significant");
	c[0].ci_level = 0.99;
	ok(decide(&s, "inconclusive"), "but not against the alpha of a 99%% "
	   "interval (an adaptive run's last look)");
	c[0].ci_level = 0.95;
	c[0].p_holm = 0.0031;

	c[0].ci_low_pct = -1;
	ok(decide(&s, "inconclusive"), "a regression verdict whose interval "
	   "includes 0 is not significant, and is shown as inconclusive");
	c[0].ci_low_pct = 790.1;

	c[0] = row("x86_64", 1, "move_pud", -42, -45, -39, 0.00016, 0.0031,
		   "improvement");
	ok(decide(&s, "improvement"), "an improvement: improvement");
	c[2] = row("arm64", 2, "move_pud", 9, 6, 12, 0.001, 0.004,
		   "regression");
	s = series(c, 3);
	ok(decide(&s, "regression"), "a regression on one arch and an "
	   "improvement on the other: regression");

	c[0] = row("x86_64", 1, "move_pud", 2.1, -1.5, 5.8, 0.09, 1,
		   "inconclusive");
	s = series(c, 2);
	ok(decide(&s, "inconclusive"), "an undecided primary metric: "
	   "inconclusive");
	c[0].is_primary = 0;
	ok(decide(&s, "no-change"), "an undecided metric that is not "
	   "primary does not make the series inconclusive");
	c[0].is_primary = 1;
	c[0].verdict = "insufficient-data";
	ok(decide(&s, "inconclusive"), "insufficient data on a primary "
	   "metric: inconclusive");

	c[0] = row("x86_64", 1, "move_pud", 0.1, -0.3, 0.4, 0.7, 1,
		   "no-change");
	c[0].is_primary = c[1].is_primary = 0;
	c[1].verdict = "inconclusive";
	ok(decide(&s, "inconclusive"), "a run without primary metrics is "
	   "decided by all of them");

	s = series(c, 0);
	ok(decide(&s, NULL), "no comparisons: nothing to report");
	s.status = "does-not-apply";
	ok(decide(&s, "does-not-apply"), "does-not-apply");
	s.status = "build-failed";
	ok(decide(&s, "build-failed"), "build-failed");
	s.status = "boot-failed";
	ok(decide(&s, "boot-failed"), "boot-failed");
	s.status = "failed";
	ok(decide(&s, NULL), "an infrastructure failure: nothing to tell "
	   "the author");
}

static void test_regression_mail(void)
{
	struct report_comparison c[4];
	struct report_series s;
	struct report_mail m, m2;
	struct strbuf id = STRBUF_INIT;
	char line[256];

	c[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		   0.0031, "regression");
	c[1] = row("x86_64", 1, "move_pmd", 0.1, -0.2, 0.3, 0.8, 1,
		   "no-change");
	c[2] = row("x86_64", 1, "cpu_sys", 0.4, -2, 2.9, 0.6, 1, "no-change");
	c[2].is_primary = 0;
	c[2].flags = "noisy";
	c[3] = row("arm64", 2, "move_pud", 1.0, -0.5, 2.1, 0.03, 0.09,
		   "minor");
	c[3].unit = "ns";
	s = series(c, 4);
	render(&s, REPORT_REGRESSION, NULL, &m);
	is_str(m.subject, "[kregress regression] Re: [PATCH v2 0/2] "
	       "mm/mremap: move PUDs the slow way",
	       "subject: the kind, then Re: and the series' subject");
	is_str(m.in_reply_to, "cover.1.git.author@example.org",
	       "In-Reply-To the cover letter");
	/* issue 15, item 2: a Subject that decoded to ESC, CR and LF */
	s.subject = "\x1b[2J\r\nseries 1: done";
	render(&s, REPORT_REGRESSION, NULL, &m2);
	is_str(m2.subject, "[kregress regression] Re: \\x1b[2J\\x0d\\x0aseries "
	       "1: done", "an evil Subject is escaped in the report's Subject");
	report_mail_release(&m2);
	s = series(c, 4);
	ok(!strncmp(m.message_id, "kregress.regression.v2.", 23) &&
	   strstr(m.message_id, "@kregress.example"),
	   "Message-ID from kind and version, in the sender's domain (%s)",
	   m.message_id);
	first_line(&m, line, sizeof(line));
	is_str(line, "Regression: mremap/move_pud +812.5% on x86_64, host "
	       "local", "the first line: metric, change, arch and host");
	ok(widest_line(m.body.buf) <= 78, "no line over 78 columns (%zu)",
	   widest_line(m.body.buf));
	ok(strstr(m.body.buf, "  x86_64 mremap/move_pud: +812.5%, 95% CI "
		  "[+790.1%, +830.4%], regression\n") != NULL,
	   "the finding with its interval and verdict");
	ok(strstr(m.body.buf, "x86_64 on host local (tcg, instruction time)")
	   && strstr(m.body.buf, "arm64 on host arm (kvm, real time)"),
	   "each run says its clock: instruction time or real time");
	ok(strstr(m.body.buf, "  mremap/move_pud (us)      ") &&
	   strstr(m.body.buf, "      16.9    154.212   +812.5%  "
		  "[+790.1%, +830.4%]    0.00016  0.0031   8/8\n"),
	   "the table row: medians, change, CI, p, p Holm, boots");
	ok(strstr(m.body.buf, "BASE    PATCHED HL CHANGE  95% CI") != NULL,
	   "the change says what estimate it is, the CI its level");
	report_mail_release(&m);
	c[0] = row("x86_64", 1, "move_pud", 1534.9, 1534.9, 1534.9, 0.00016,
		   0.0071, "regression");
	c[0].median_base = 16434;
	c[0].median_new = 268676;
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(strstr(m.body.buf, "     16434     268676  +1534.9%  [+1534.9%, "
		  "+1534.9%]  0.00016  0.0071   8/8\n") != NULL,
	   "a four-digit change and its interval keep the columns");
	report_mail_release(&m);
	/* The example's move_pmd: 17023 against 17021 ns, 8 boots a side,
	 * every one the same, is a significant -0.012%, not -0.0%. */
	c[1] = row("x86_64", 1, "move_pmd", -0.0117, -0.0118, -0.0116,
		   0.0014, 0.017, "minor");
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(strstr(m.body.buf, "   -0.012%  [-0.012%, -0.012%]") != NULL,
	   "a change of hundredths of a percent is not shown as -0.0%%");
	ok(!strstr(m.body.buf, "-0.0%"), "no interval reads [-0.0%%, -0.0%%]");
	ok(!strstr(m.body.buf, "cpu_sys"), "a metric that is neither primary "
	   "nor significant stays behind the link");
	ok(has(m.body.buf, "BASE, PATCHED: medians of the per-boot medians")
	   && has(m.body.buf, "P HOLM: P adjusted by Holm within its run")
	   && has(m.body.buf, "HL CHANGE: the Hodges-Lehmann estimate of "
		  "patched/base - 1") &&
	   has(m.body.buf, "not the ratio of the two medians"),
	   "the legend says what the columns are");
	ok(strstr(m.body.buf, "Reported-by: kregress <bot@kregress.example>\n"
		  "  Closes: http://kregress.example:8080/series/12\n") != NULL,
	   "Reported-by and Closes to paste");
	ok(strstr(m.body.buf, "  kregress submit https://lore.kernel.org/"
		  "linux-mm/cover.1/\n") != NULL, "one command to reproduce");
	ok(has(m.body.buf, "tree: linux-6.1 at ebbea9e8ee20 (base-commit: "
	       "the series' base-commit: line)") &&
	   has(m.body.buf, "seed 42") && has(m.body.buf, ".config "
					      "0123456789ab") &&
	   has(m.body.buf, "plan: x86_64: machine 1536 1; clock "
	       "instructions; run mremap --pud-mb 1024"),
	   "the environment: tree, base and why, config, seed, plan");
	ok(!strstr(m.body.buf, "Caveat"), "no layout caveat for a code "
	   "change");

	render(&s, REPORT_REGRESSION, NULL, &m2);
	is_str(m2.message_id, m.message_id, "the same report, the same "
	       "Message-ID");
	report_mail_release(&m2);
	s.version = 3;
	report_message_id(&s, &rs, REPORT_REGRESSION, 0, &id);
	ok(strcmp(id.buf, m.message_id), "another version, another "
	   "Message-ID");
	strbuf_reset(&id);
	s.version = 2;
	report_message_id(&s, &rs, REPORT_NO_CHANGE, 0, &id);
	ok(strcmp(id.buf, m.message_id), "another kind, another Message-ID");
	strbuf_reset(&id);
	report_message_id(&s, &rs, REPORT_REGRESSION, 1, &id);
	ok(strstr(id.buf, ".moderation@") != NULL, "the moderation copy has "
	   "its own (%s)", id.buf);
	report_mail_release(&m);

	/* The test says significant, the interval does not. */
	c[1] = row("x86_64", 1, "move_pmd", 4, -0.5, 8, 0.01, 0.03,
		   "likely-regression");
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(strstr(m.body.buf, "inconclusive (*)") &&
	   strstr(m.body.buf, "(*) the test's p is below alpha but the "
		  "interval includes no change"), "a contradicting row is "
	   "shown inconclusive, with a note");
	ok(!strstr(m.body.buf, "likely-regression"), "and never called "
	   "significant");
	report_mail_release(&m);

	s.source_url = "https://lore.kernel.org/linux-mm/"
		       "cover.1796132719.git.author@example.org/";
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(strstr(m.body.buf, "  kregress submit \\\n    https://lore.kernel."
		  "org/linux-mm/cover.1796132719.git.author@example.org/\n")
	   != NULL, "a reproduce command too long for a line goes on two, "
	   "joined by a backslash");
	ok(widest_line(m.body.buf) <= 78, "... within 78 columns (%zu)",
	   widest_line(m.body.buf));
	report_mail_release(&m);
	strbuf_release(&id);
}

static void test_other_kinds(void)
{
	struct report_comparison c[3], prev[2];
	struct report_previous pv = { 7, 1, prev, 2 };
	struct report_hold hold = { 31, "Patch Author <author@example.org>, "
				    "linux-mm@kvack.org" };
	struct report_series s;
	struct report_mail m;
	char line[256];

	c[0] = row("x86_64", 1, "move_pud", 0.1, -0.4, 0.6, 0.7, 1,
		   "no-change");
	c[1] = row("arm64", 2, "move_pud", -0.2, -0.9, 0.5, 0.5, 1,
		   "no-change");
	c[1].direction = "higher";
	s = series(c, 2);
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	first_line(&m, line, sizeof(line));
	is_str(line, "No significant change: 2 primary metrics decided, none "
	       "moved", "no-change: the first line");
	ok(strstr(m.body.buf, "  x86_64 mremap/move_pud: a regression of "
		  "more than 0.60%\n") &&
	   strstr(m.body.buf, "  arm64 mremap/move_pud: a regression of more "
		  "than 0.90%\n"), "what the data rule out, by direction");
	report_mail_release(&m);
	c[0].ci_high_pct = 0.0424;
	c[1].ci_low_pct = -0.00009;
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	ok(strstr(m.body.buf, "move_pud: a regression of more than 0.05%\n") &&
	   strstr(m.body.buf, "move_pud: a regression of more than 0.01%\n"),
	   "a bound is rounded up, so that what it rules out stays true");
	report_mail_release(&m);
	c[2] = row("x86_64", 1, "move_pud", 0.1, -0.4, 0.6, 0.7, 1,
		   "no-change");
	c[2].params = "{\"mb\":2}";
	s.ncmp = 3;
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	ok(strstr(m.body.buf, "  x86_64 mremap/move_pud (mb=1024): a "
		  "regression") && strstr(m.body.buf, "  x86_64 mremap/move_pud "
		  "(mb=2): a regression") && strstr(m.body.buf, "  arm64 "
		  "mremap/move_pud: a regression"), "params tell apart two "
	   "metrics of one name, and only then");
	s.ncmp = 2;
	ok(strstr(m.body.buf, "Noise floor:") != NULL, "the noise floor");
	ok(!strstr(m.body.buf, "Reported-by"), "no tags for a clean result");
	ok(widest_line(m.body.buf) <= 78, "78 columns");
	report_mail_release(&m);

	c[0] = row("x86_64", 1, "move_pud", 2.1, -1.5, 5.8, 0.09, 1,
		   "inconclusive");
	render(&s, REPORT_INCONCLUSIVE, NULL, &m);
	first_line(&m, line, sizeof(line));
	is_str(line, "Inconclusive: 1 primary metric needs more boots",
	       "inconclusive: the first line");
	ok(strstr(m.body.buf, "after 8/8 boots; about\n      136 a side would "
		  "settle it") != NULL, "what more boots would settle (the "
	   "upper end, 3.7 from the estimate, must come within 0.9)");
	report_mail_release(&m);

	/* an interval on one side of its estimate, as ties give it */
	c[0] = row("x86_64", 1, "move_pte", 0, -3.6, 0, 1, 1, "inconclusive");
	render(&s, REPORT_INCONCLUSIVE, NULL, &m);
	ok(has(m.body.buf, "+0.0%, 95% CI [-3.6%, +0.0%] after 8/8 boots; about "
	       "12 a side would settle it"), "a lopsided interval: its far "
	   "end decides (8 x (3.6 / 3)^2)");
	report_mail_release(&m);

	/* a regression its test sees and Holm does not confirm */
	c[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		   0.2, "regression");
	render(&s, REPORT_INCONCLUSIVE, NULL, &m);
	ok(has(m.body.buf, "x86_64 mremap/move_pud: +812.5%, 95% CI [+790.1%, "
	       "+830.4%] after 8/8 boots; regression for this metric alone (p "
	       "0.00016) but not after Holm (p Holm 0.2); it takes at least 10 "
	       "boots a side, with the two sides apart"),
	   "a change Holm does not confirm: how many boots would");
	report_mail_release(&m);

	/* v2 against v1 */
	prev[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		      0.0031, "regression");
	prev[1] = row("arm64", 2, "move_pud", -0.2, -0.9, 0.5, 0.5, 1,
		      "no-change");
	prev[1].direction = "higher";
	c[0] = row("x86_64", 1, "move_pud", 0.1, -0.4, 0.6, 0.7, 1,
		   "no-change");
	s.prev = &pv;
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	ok(strstr(m.body.buf, "Since v1 (series 7):\n  x86_64 mremap/move_pud: "
		  "regression +812.5% -> no-change +0.1%\n  the other 1 "
		  "primary metrics have v1's verdict.\n") != NULL,
	   "v2 says what changed since v1");
	report_mail_release(&m);
	s.prev = NULL;

	/* the moderation copy of a held regression */
	c[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		   0.0031, "regression");
	s.layout_only = "mm/mremap.c";
	render(&s, REPORT_REGRESSION, &hold, &m);
	ok(has(m.body.buf, "This report is held for moderation. It goes to "
	       "Patch Author <author@example.org>, linux-mm@kvack.org once") &&
	   strstr(m.body.buf, "\n    kregress report release 31\n"),
	   "the moderation copy says how to release the report");
	ok(strstr(m.message_id, ".moderation@") != NULL, "with its own "
	   "Message-ID");
	ok(strstr(m.body.buf, "Caveat: this series changes only comments and "
		  "blank lines (mm/mremap.c)") != NULL, "the layout caveat");
	ok(widest_line(m.body.buf) <= 78, "78 columns");
	report_mail_release(&m);
	s.layout_only = NULL;

	s = series(c, 0);
	s.status = "does-not-apply";
	s.status_reason = "apply: patch 2/2 does not apply";
	s.apply_failed_patch = 2;
	s.apply_failed_subject = "[PATCH v2 2/2] mm/mremap: step 2";
	s.apply_failed_file = "mm/mremap.c";
	s.apply_failed_hunk = "@@ -301,7 +301,7 @@ static bool "
			      "move_pgt_entry(enum pgt_entry entry, struct "
			      "vm_area_struct *vma)";
	render(&s, REPORT_DOES_NOT_APPLY, NULL, &m);
	is_str(m.subject, "[kregress does-not-apply] Re: [PATCH v2 0/2] "
	       "mm/mremap: move PUDs the slow way", "does-not-apply: subject");
	first_line(&m, line, sizeof(line));
	is_str(line, "Does not apply: patch 2/2 to linux-6.1 at ebbea9e8ee20",
	       "does-not-apply: which patch, tree and base");
	ok(strstr(m.body.buf, "  file:  mm/mremap.c\n  hunk:  @@ -301,7 "
		  "+301,7 @@") != NULL, "the file and the hunk");
	ok(has(m.body.buf, "The base came from the series' base-commit: "
	       "line: the series' base-commit: line."), "where the base came "
	   "from, and why");
	report_mail_release(&m);
	s.status_reason = "apply: patch 2/2 (mm/mremap.c, @@ -301,7 +301,7 @@ "
			  "void f(void);): mm/mremap.c: hunk at line 301 did "
			  "not apply";
	render(&s, REPORT_DOES_NOT_APPLY, NULL, &m);
	ok(strstr(m.body.buf, "\n\nmm/mremap.c: hunk at line 301 did not "
		  "apply\n") != NULL, "apply's reason without the file and "
	   "hunk shown above it");
	ok(widest_line(m.body.buf) <= 78, "a long hunk header is cut at 78");
	report_mail_release(&m);

	s.status = "build-failed";
	s.status_reason = "build: x86_64: patched: mm/mremap.c:312:9: error: "
			  "expected ';' before 'return'";
	s.build_errors = "mm/mremap.c:312:9: error: expected ';' before "
			 "'return'\n  312 |  return move_pmds(old, new)";
	render(&s, REPORT_BUILD_FAILED, NULL, &m);
	first_line(&m, line, sizeof(line));
	is_str(line, "Build failed: x86_64: patched: mm/mremap.c:312:9: error: "
	       "expected ';' before", "build-failed: the first error line");
	ok(strstr(m.body.buf, "The first errors:\n  mm/mremap.c:312:9") &&
	   strstr(m.body.buf, "Reported-by:"), "the errors, and the tags");
	report_mail_release(&m);

	s.status = "boot-failed";
	s.build_errors = NULL;
	s.status_reason = "run: x86_64: the patched kernel did not boot to a "
			  "complete result: panic: Kernel panic - not "
			  "syncing: kregress test";
	render(&s, REPORT_BOOT_FAILED, NULL, &m);
	ok(!strncmp(m.body.buf, "Boot failed: x86_64: the patched kernel", 39)
	   && strstr(m.body.buf, "Kernel panic - not syncing: kregress test"),
	   "boot-failed: the panic line");
	ok(widest_line(m.body.buf) <= 78, "78 columns");
	report_mail_release(&m);
}

static void test_checks(void)
{
	struct report_comparison c[3];
	struct report_series s;
	struct strbuf d = STRBUF_INIT;

	c[0] = row("x86_64", 1, "move_pud", 812.5, 790.1, 830.4, 0.00016,
		   0.0031, "regression");
	c[1] = row("arm64", 2, "move_pud", -20, -25, -15, 0.001, 0.002,
		   "improvement");
	s = series(c, 2);
	is_str(report_check_state(&s, &rs, REPORT_REGRESSION, "x86_64", &d),
	       "fail", "a regression on x86_64: fail");
	ok(strstr(d.buf, "regression: x86_64 mremap/move_pud: +812.5%") != NULL,
	   "with the finding (%s)", d.buf);
	strbuf_reset(&d);
	is_str(report_check_state(&s, &rs, REPORT_REGRESSION, "arm64", &d),
	       "warning", "an improvement on arm64: warning");
	c[1] = row("arm64", 2, "move_pud", 0, -1, 1, 0.9, 1, "no-change");
	is_str(report_check_state(&s, &rs, REPORT_REGRESSION, "arm64", &d),
	       "success", "no change on arm64: success");
	c[1].verdict = "inconclusive";
	is_str(report_check_state(&s, &rs, REPORT_INCONCLUSIVE, "arm64", &d),
	       "warning", "inconclusive: warning");
	s.ncmp = 1;
	is_str(report_check_state(&s, &rs, REPORT_REGRESSION, "arm64", &d),
	       "warning", "an arch without comparisons: warning, not success");
	s.ncmp = 2;
	s.status = "boot-failed";
	s.status_reason = "run: x86_64: the patched kernel did not boot";
	is_str(report_check_state(&s, &rs, REPORT_BOOT_FAILED, "x86_64", &d),
	       "fail", "boot-failed on x86_64: fail there");
	is_str(report_check_state(&s, &rs, REPORT_BOOT_FAILED, "arm64", &d),
	       "warning", "and a warning on arm64, not tested");
	is_str(report_check_state(&s, &rs, REPORT_DOES_NOT_APPLY, "arm64",
				  &d), "warning", "does-not-apply: warning");
	ok(d.len <= 600, "descriptions stay short");
	strbuf_release(&d);
}

static void test_scan(void)
{
	static const char comment[] =
		"Fix a comment.\n\n---\n mm/mremap.c | 2 +-\n\n"
		"diff --git a/mm/mremap.c b/mm/mremap.c\n"
		"index 1..2 100644\n--- a/mm/mremap.c\n+++ b/mm/mremap.c\n"
		"@@ -1,4 +1,5 @@\n /*\n- * move the entries\n+ * move each "
		"entry\n+\n */\n int x;\n-- \n2.39.5\n";
	static const char code[] =
		"diff --git a/mm/mremap.c b/mm/mremap.c\n"
		"--- a/mm/mremap.c\n+++ b/mm/mremap.c\n"
		"@@ -10,2 +10,2 @@\n-\treturn a;\n+\treturn b;\n context\n";
	static const char kconfig[] =
		"diff --git a/arch/x86/Kconfig b/arch/x86/Kconfig\n"
		"--- a/arch/x86/Kconfig\n+++ b/arch/x86/Kconfig\n"
		"@@ -238,3 +238,2 @@ config X86\n \tselect A\n-\tselect "
		"HAVE_MOVE_PUD\n \tselect B\n";
	struct strbuf files = STRBUF_INIT;
	int c = 0;

	report_scan_patch(comment, sizeof(comment) - 1, &files, &c);
	ok(c == 0, "a comment and a blank line are not code; nor is the "
	   "signature after the hunk");
	is_str(files.buf, "mm/mremap.c", "the file it touches");
	report_scan_patch(comment, sizeof(comment) - 1, &files, &c);
	is_str(files.buf, "mm/mremap.c", "named once over the series");
	report_scan_patch(code, sizeof(code) - 1, &files, &c);
	ok(c == 1, "a changed statement is code");
	c = 0;
	report_scan_patch(kconfig, sizeof(kconfig) - 1, &files, &c);
	ok(c == 1, "a Kconfig line is code (it changes the kernel)");
	is_str(files.buf, "mm/mremap.c, arch/x86/Kconfig", "both files");
	strbuf_release(&files);
}

/*
 * A no-change report gives the noise floor the host's A/A calibration
 * measured: its false alarms and each primary metric's threshold, the
 * calibrated one where the host cannot resolve the configured 3%; a run
 * whose host has no calibration says so.
 */
static void test_noise_floor(void)
{
	struct report_comparison c[3];
	struct report_series s;
	struct report_mail m;

	c[0] = row("x86_64", 1, "move_pud", 0.1, -0.4, 0.6, 0.7, 1,
		   "no-change");
	c[0].threshold_pct = 3;
	c[0].calibration_id = 5;
	c[0].noise_cv = 0.0002;
	c[1] = row("x86_64", 1, "move_pmd", 4.2, -9.1, 12.6, 0.4, 1,
		   "no-change");
	c[1].threshold_pct = 18.75;
	c[1].calibration_id = 5;
	c[1].noise_cv = 0.061;
	c[2] = row("arm64", 2, "move_pud", -0.2, -0.9, 0.5, 0.5, 1,
		   "no-change");
	c[2].threshold_pct = 3;
	runs[0].noise.calibrations = 1;
	runs[0].noise.comparisons = 2000;
	runs[0].noise.false_alarms = 3;
	runs[0].noise.real = 4;
	runs[0].noise.target = 0.01;
	s = series(c, 3);
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	ok(has(m.body.buf, "Noise floor of x86_64 on local, from 1 A/A "
	       "calibration: 3 false alarms in 2000 resampled A/A runs of the "
	       "design (target 1%), 0 in 4 real A/A comparisons."),
	   "the host's published false alarms");
	ok(strstr(m.body.buf, "  x86_64 mremap/move_pmd: +-18.8% (what the "
		  "host resolves; A/A CV 6.1%)\n") != NULL,
	   "a metric the host resolves to 18.75%%: its threshold, rounded up");
	ok(strstr(m.body.buf, "  x86_64 mremap/move_pud: +-3% (configured; "
		  "A/A CV 0.02%)\n") != NULL,
	   "one it resolves within the configured 3%%");
	ok(has(m.body.buf, "Noise floor of arm64 on arm: no A/A calibration "
	       "yet") && !has(m.body.buf, "the hosts have no A/A calibration"),
	   "the uncalibrated run says so, alone");
	ok(widest_line(m.body.buf) <= 78, "78 columns");
	report_mail_release(&m);
	memset(&runs[0].noise, 0, sizeof(runs[0].noise));
}

/* The first byte of text that is a control other than LF, or NULL. */
static const char *control(const char *text)
{
	for (; *text; text++)
		if ((unsigned char)*text < 0x20 ? *text != '\n' :
		    *text == 0x7f)
			return text;
	return NULL;
}

/*
 * Text from mail in a body (a patch's subject, an author in the
 * recipients, a hunk heading, a reason quoting them, the compiler's
 * lines) reaches the reader's terminal escaped, as escape.h says.
 */
static void test_escaped(void)
{
	struct report_hold hold = { 7, "Evil\x1b[31m Author\r "
					  "<e@example.org>" };
	struct report_comparison c[1];
	struct report_series s = series(c, 0);
	struct report_mail m;

	s.status = "does-not-apply";
	s.subject = "[PATCH 0/2] mm: \x1b[2J\rforged";
	s.status_reason = "apply: patch 2/2 (mm/x.c, @@ -1 +1 @@ f\x1b[H): "
			  "mm/x.c: hunk \x1b[2K\rdid not apply";
	s.apply_failed_patch = 2;
	s.apply_failed_subject = "[PATCH 2/2] mm: \x1b[2J\rforged";
	s.apply_failed_file = "mm/x.c";
	s.apply_failed_hunk = "@@ -1 +1 @@ f\x1b]0;title\x07";
	render(&s, REPORT_DOES_NOT_APPLY, &hold, &m);
	ok(!control(m.body.buf), "no control character but LF in the body "
	   "(first at byte %td)", control(m.body.buf) ?
	   control(m.body.buf) - m.body.buf : -1);
	ok(has(m.body.buf, "patch: [PATCH 2/2] mm: \\x1b[2J\\x0dforged"),
	   "the patch's subject, escaped");
	ok(strstr(m.body.buf, "  hunk:  @@ -1 +1 @@ f\\x1b]0;title\\x07\n")
	   != NULL, "the hunk heading, escaped");
	ok(has(m.body.buf, "It goes to Evil\\x1b[31m Author\\x0d "
	       "<e@example.org> once"),
	   "the author in the recipients, escaped");
	ok(has(m.body.buf, "mm/x.c: hunk \\x1b[2K\\x0ddid not apply"),
	   "apply's reason, escaped");
	ok(strstr(m.subject, "\\x1b[2J\\x0dforged") != NULL,
	   "and the Subject, as before");
	report_mail_release(&m);

	s.status = "build-failed";
	s.status_reason = "build: x86_64: patched: mm/x.c:3:1: error: \x1b[2J";
	s.build_errors = "mm/x.c:3:1: error: stray '\\33' in program\n"
			 "    3 |\tint x = 1;\x1b[2J";
	render(&s, REPORT_BUILD_FAILED, NULL, &m);
	ok(!control(m.body.buf), "build-failed: no control character but LF");
	ok(strstr(m.body.buf, "\n      3 | int x = 1;\\x1b[2J\n") != NULL,
	   "a compiler line's tab is expanded (stops of 8), its ESC escaped");
	ok(widest_line(m.body.buf) <= 78, "78 columns");
	report_mail_release(&m);
}

/*
 * The layout control in a mail: a layout-sensitive change is no
 * regression (the series reads as no change), the paragraph gives both
 * changes and says what it means; a confirmed one keeps the regression
 * and says it was confirmed; a control not made says why, once per arch.
 */
static void test_layout(void)
{
	struct report_comparison c[3];
	struct report_series s;
	struct report_mail m;

	c[0] = row("x86_64", 1, "move", 20, 18, 22, 1e-4, 2e-4,
		   "layout-sensitive");
	c[0].layout = "layout-sensitive";
	c[0].verdict_as_built = "regression";
	c[0].layout_verdict = "no-change";
	c[0].layout_change_pct = 0.1;
	c[0].layout_ci_low_pct = -0.3;
	c[0].layout_ci_high_pct = 0.4;
	s = series(c, 1);
	ok(decide(&s, "no-change"), "layout: a layout-sensitive change "
	   "alone is no regression");
	render(&s, REPORT_NO_CHANGE, NULL, &m);
	ok(has(m.body.buf, "Layout control (base and patched rebuilt with "
	       "every function and loop aligned to 64 bytes, "
	       "KCFLAGS=\"-O2 -falign-functions=64 -falign-loops=64\", and "
	       "booted again):"), "layout: the mail says what the control "
	   "is");
	ok(has(m.body.buf, "x86_64 mremap/move: layout-sensitive: aligned "
	       "no-change +0.1% [-0.3%, +0.4%], as built regression +20.0%: "
	       "the change comes from where the patch moved code, not from "
	       "what it does"), "layout: both changes, and what they mean");
	report_mail_release(&m);

	c[1] = row("x86_64", 1, "move_pud", 50, 45, 55, 1e-4, 2e-4,
		   "regression");
	c[1].layout = "confirmed";
	c[1].layout_verdict = "regression";
	c[1].layout_change_pct = 49;
	c[1].layout_ci_low_pct = 44;
	c[1].layout_ci_high_pct = 54;
	s = series(c, 2);
	ok(decide(&s, "regression"), "layout: a confirmed regression is one");
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(has(m.body.buf, "x86_64 mremap/move_pud: confirmed: aligned "
	       "regression +49.0% [+44.0%, +54.0%]"), "layout: the confirmed "
	   "change");
	report_mail_release(&m);

	c[0] = row("x86_64", 1, "move", 20, 18, 22, 1e-4, 2e-4, "regression");
	c[0].layout_reason = "instruction time counts instructions";
	c[1] = c[0];
	c[1].metric = "move_pud";
	c[2] = c[0];
	c[2].arch = "arm64";
	c[2].run_id = 2;
	s = series(c, 3);
	render(&s, REPORT_REGRESSION, NULL, &m);
	ok(has(m.body.buf, "x86_64: no control: instruction time counts "
	       "instructions") && has(m.body.buf, "arm64: no control: "
	       "instruction time") && !has(m.body.buf, "mremap/move: no "
	       "control"), "layout: why no control, once per arch");
	ok(strstr(m.body.buf, "x86_64: no control") &&
	   !strstr(strstr(m.body.buf, "x86_64: no control") + 1,
		   "x86_64: no control"), "layout: the reason of two x86_64 "
	   "metrics is said once");
	report_mail_release(&m);
}

int main(void)
{
	test_kinds();
	test_regression_mail();
	test_other_kinds();
	test_noise_floor();
	test_checks();
	test_scan();
	test_escaped();
	test_layout();
	return done_testing();
}
