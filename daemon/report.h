/*
 * report.h - the text of the report mails (DESIGN.md section 5,
 * "Reports"): which kind a series' result is, and each kind's subject,
 * threading and body.
 *
 * Pure code: no I/O, no SQL, no clock.  The report stage (stage_report.c)
 * reads the series, its runs and its comparison rows as they are stored
 * (db_report.c) into struct report_series, and this module decides and
 * renders; mail.c turns the result into an RFC 5322 message.  Every line
 * of a body is at most REPORT_WIDTH columns.
 *
 * The numbers are the stored ones, labelled by what they are (stats.c):
 * BASE and PATCHED are medians of the per-boot medians, HL CHANGE and its
 * interval the Hodges-Lehmann estimate of patched/base - 1 and the
 * interval that inverts Mann-Whitney's test (percent of base), P that
 * test's and P HOLM the Holm-adjusted one a mail goes by.  A metric counts
 * as significant for a mail only when its verdict says so, its Holm p is
 * below the alpha of its interval, AND that interval excludes 0; a row
 * whose test and interval disagree is shown as inconclusive, with a note,
 * so that no mail ever calls a change significant while printing an
 * interval that includes none.
 */
#ifndef KREGRESS_REPORT_H
#define KREGRESS_REPORT_H

#include <stddef.h>

#include "strbuf.h"

#define REPORT_WIDTH	78

enum report_kind {
	REPORT_REGRESSION,	/* a significant regression after Holm */
	REPORT_IMPROVEMENT,	/* significant improvements, no regression */
	REPORT_NO_CHANGE,	/* every primary metric decided, none moved */
	REPORT_INCONCLUSIVE,	/* a primary metric needs more boots */
	REPORT_DOES_NOT_APPLY,
	REPORT_BUILD_FAILED,
	REPORT_BOOT_FAILED,
	REPORT_KIND_COUNT
};

/* "regression", "improvement", "no-change", "inconclusive",
 * "does-not-apply", "build-failed", "boot-failed" */
const char *report_kind_str(enum report_kind kind);
/* -1 if s names no kind */
int report_kind_parse(const char *s, enum report_kind *kind);
/* 1 for regression and improvement: what moderation holds back */
int report_kind_significant(enum report_kind kind);

/* One comparison row as stored; NAN for a number that is NULL. */
struct report_comparison {
	const char *arch;
	const char *workload, *metric;
	const char *params;	/* JSON object text, "{}" for none */
	const char *unit;
	const char *direction;	/* "lower" or "higher": which is better */
	long long run_id;
	long long n_base, n_new;
	double median_base, median_new;
	double change_pct, ci_low_pct, ci_high_pct;
	double ci_level;	/* 0.95; NAN when not recorded */
	double p, p_holm;
	const char *verdict;	/* stats_verdict_str() */
	const char *flags;	/* "", "noisy", "noisy,suspicious" */
	int is_primary;
	double threshold_pct;	/* decided at; NAN when not recorded */
	long long calibration_id;	/* whose threshold; 0 = configured */
	double noise_cv;	/* that calibration's CV of it; NAN */
	/* The layout control (stage_layout.h): NULL layout when none was
	 * made (layout_reason says why, or NULL when none was needed). */
	const char *layout;	/* confirmed, layout-sensitive, unconfirmed */
	const char *layout_reason;
	const char *verdict_as_built;	/* of a layout-sensitive one */
	const char *layout_verdict;	/* the aligned kernels' */
	double layout_change_pct, layout_ci_low_pct, layout_ci_high_pct;
};

/*
 * The A/A calibrations a run's hosts had (run_calibration), their
 * published false alarms summed over them; calibrations 0: none.
 */
struct report_noise {
	int calibrations;
	long long comparisons, false_alarms;	/* resampled A/A runs */
	long long real, real_false_alarms;	/* real A/A comparisons */
	double target;				/* the rate aimed at */
};

/* The run an arch's comparisons come from. */
struct report_run {
	long long id;
	const char *arch;
	const char *accel;	/* kvm, tcg */
	const char *clock;	/* real, instructions */
	const char *status;	/* decided, budget, ... */
	const char *host;	/* the host of its boots; NULL if several */
	const char *host_cpu;	/* the host's CPU model, or NULL */
	const char *plan;	/* kregress.plan="a;b;c" as booted */
	long long seed;
	int rounds;
	int ok[2], failed[2];	/* boots per side: [0] base, [1] patched */
	const char *config_hash;	/* the patched build's .config */
	struct report_noise noise;	/* its hosts' calibrations */
};

/* The comparisons of an earlier version of the series. */
struct report_previous {
	long long series_id;
	int version;
	const struct report_comparison *cmp;
	size_t ncmp;
};

struct report_series {
	long long id;
	const char *msgid;	/* of the cover letter, else patch 1 */
	const char *subject;	/* that message's subject */
	const char *author;	/* "Name <address>" */
	const char *source_url;	/* NULL for a submitted mbox */
	int version, total;
	const char *status;	/* series.status */
	const char *status_reason;
	const char *tree;
	const char *base, *base_source, *base_reason;
	int apply_failed_patch;	/* 1-based; 0 = none */
	const char *apply_failed_subject;
	const char *apply_failed_file, *apply_failed_hunk;
	const char *build_errors;	/* first error lines of the failed
					 * build, or NULL */
	const struct report_run *runs;
	size_t nruns;
	const struct report_comparison *cmp;
	size_t ncmp;
	const struct report_previous *prev;	/* NULL: first version */
	/*
	 * The layout caveat: the files of the series when it changes only
	 * comments and blank lines in them ("mm/mremap.c"), else NULL.
	 */
	const char *layout_only;
};

struct report_settings {
	const char *from;	/* "kregress <kregress@localhost>" */
	const char *dashboard;	/* base URL ending in '/' */
	double alpha;		/* for rows without a ci_level */
	double threshold_pct;	/* T */
	int max_boots_per_side;
};

/* A moderation copy: the held report it stands for. */
struct report_hold {
	long long notification_id;	/* what `report release` takes;
					 * 0: not known yet ("ID") */
	const char *recipients;		/* who gets it when released */
};

struct report_mail {
	enum report_kind kind;
	char *subject;		/* "[kregress regression] Re: [PATCH ...]" */
	char *message_id;	/* without <> */
	char *in_reply_to;	/* without <>; NULL when the series has none */
	struct strbuf body;	/* LF line ends, <= REPORT_WIDTH columns */
};

void report_mail_init(struct report_mail *m);
void report_mail_release(struct report_mail *m);

/*
 * The kind of mail the series' result is: from its failure status
 * (does-not-apply, build-failed, boot-failed) or from its comparisons.
 * 0 with *kind, or -1 when there is nothing to tell the author (another
 * failure, or no comparison).
 */
int report_decide(const struct report_series *s,
		  const struct report_settings *rs, enum report_kind *kind);

/*
 * The Message-ID of the series' report of this kind (without <>):
 * derived from the series' own Message-ID (or its id), version and kind,
 * and "moderation" for a moderation copy, so that a report sent twice
 * carries the same id.  The domain is the one of rs->from.
 */
void report_message_id(const struct report_series *s,
		       const struct report_settings *rs,
		       enum report_kind kind, int moderation,
		       struct strbuf *out);

/*
 * Renders the mail of kind for s into *m (initialised by the caller;
 * release it with report_mail_release()).  hold is NULL, or says that
 * this is the moderation copy of a held report.
 */
void report_render(const struct report_series *s,
		   const struct report_settings *rs, enum report_kind kind,
		   const struct report_hold *hold, struct report_mail *m);

/*
 * What a patchwork check of arch says about s reported as kind:
 * "success", "warning" or "fail", with a one-line description (at most
 * 200 bytes) appended to desc.
 */
const char *report_check_state(const struct report_series *s,
			       const struct report_settings *rs,
			       enum report_kind kind, const char *arch,
			       struct strbuf *desc);

/*
 * Scans the text of one patch (its mail body) for the layout caveat:
 * appends each file its diff touches to files (", " between them) and
 * sets *code to 1 when a changed line is more than a comment or a blank
 * line (a file outside C sources and headers always counts as code).
 */
void report_scan_patch(const char *text, size_t len, struct strbuf *files,
		       int *code);

#endif
