/*
 * config.h - kregressd's configuration: one JSON file (DESIGN.md §5).
 *
 * config_load() reads and validates the whole file before anything uses
 * it: an unknown key, a wrong type, a bad value, a duplicate key, a
 * missing required key, JSON it cannot parse (with the line and column
 * too), an empty "trees" list, or a plan file that cannot be read or
 * would not go on a kernel command line makes it fail with ONE line
 * naming the key's path, e.g. "config.json: hosts[1].uri: not a libvirt
 * URI".  Optional keys get the defaults documented in
 * config.example.json.  Relative paths in the file are relative to the
 * file's directory; after loading, every path field is absolute or as
 * given (when absolute).
 *
 * The structure is read-only after loading and may be shared by threads;
 * a reload (SIGHUP) loads a new one and swaps the pointer.
 */
#ifndef KREGRESS_CONFIG_H
#define KREGRESS_CONFIG_H

#include <stddef.h>

#include "arch.h"
#include "layout.h"
#include "report.h"

struct strbuf;

enum config_mail_policy {
	CONFIG_MAIL_OUTBOX,	/* write messages to outbox_dir only */
	CONFIG_MAIL_MODERATE,	/* send to moderation_address only */
	CONFIG_MAIL_LIST,	/* reply on opted-in lists, else moderate */
};
const char *config_mail_policy_str(enum config_mail_policy policy);

/* Who receives a kind of report under policy "list" (mail.recipients). */
enum config_mail_to {
	CONFIG_MAIL_TO_OUTBOX,		/* an .eml file in outbox_dir */
	CONFIG_MAIL_TO_MODERATION,	/* moderation_address */
	CONFIG_MAIL_TO_AUTHOR,		/* the series' author */
	CONFIG_MAIL_TO_THREAD,		/* the author, To and Cc: a reply on
					 * the list when it is opted in */
};
const char *config_mail_to_str(enum config_mail_to to);

struct config_token {
	char *name;
	char *value;		/* from "value" or the first line of "file" */
};

struct config_api {
	char *listen;		/* as written: "127.0.0.1:8080" */
	char *host;		/* "127.0.0.1", "::1" (no brackets) */
	int port;
	struct config_token *tokens;
	size_t n_tokens;
	size_t max_body_bytes;	/* cap of a request body (JSON or mbox) */
};

struct config_tree {
	char *name;
	char *path;		/* absolute */
	char *branch;
	char **lists;		/* names of lists[] feeding this tree */
	size_t n_lists;
	char *refresh_remote;	/* NULL = no refresh */
	int refresh_interval_s;	/* 0 = never */
};

struct config_arch_cfg {
	const struct arch *arch;	/* NULL: not configured */
	char *base_config;	/* "tinyconfig" or "defconfig" */
	char **fragments;	/* absolute paths of config fragments */
	size_t n_fragments;
	int make_jobs;
	char *cross_compile;	/* CROSS_COMPILE prefix, "" = native */
};

struct config_host {
	char *name;
	char *uri;		/* libvirt URI */
	const struct arch *arch;
	enum arch_accel accel;	/* ARCH_AUTO: probed */
	int capacity;		/* guests at once */
};

struct config_stats {
	double threshold_pct;	/* practical threshold T, percent */
	double alpha;		/* significance level */
	int min_samples;	/* boots per side before any verdict */
	int max_boots_per_side;
	char *fdr_method;	/* "bh", "holm" or "none" */
	/* which runs get a layout control: "real-time" (default),
	 * "always" or "never" */
	enum layout_when layout_control;
};

/* A/A calibration of the hosts by the daemon (calibrate.c). */
struct config_calibration {
	int enabled;		/* 0: only by hand (kregress calibrate) */
	int interval_s;		/* again after this long; 0 = only when a
				 * host, plan or base is new */
	int idle_s;		/* the daemon idle this long before one */
	int boots_per_side;	/* of the base against itself */
	int simulations;	/* resampled A/A runs per calibration */
};

struct config_list {
	char *name;
	char *feed_url;		/* public-inbox Atom feed; or NULL */
	char *query_url;	/* lore/patchwork query URL; or NULL */
	char **subject_filters;	/* POSIX extended regexes; any matches */
	size_t n_subject_filters;
	char **path_filters;	/* fnmatch globs on touched files */
	size_t n_path_filters;
	int poll_interval_s;
	int incomplete_wait_s;	/* wait for missing patches of a series */
	char *tree;		/* name of a trees[] entry; NULL = first */
};

/* A patchwork instance the report stage posts checks to. */
struct config_patchwork {
	char *url;		/* "https://patchwork.kernel.org/" */
	char *token;		/* from "token" or the first line of
				 * "token_file" */
};

struct config_mail {
	char *smtp_url;		/* NULL = no SMTP (outbox only) */
	char *smtp_user;	/* NULL = no SMTP AUTH */
	char *smtp_password;	/* from "smtp_password(_file)" */
	int smtp_require_tls;	/* smtp://: fail unless STARTTLS works */
	char *from;
	enum config_mail_policy policy;
	char *moderation_address;
	char *outbox_dir;	/* absolute */
	char **opt_in_lists;	/* lists whose threads get replies */
	size_t n_opt_in_lists;
	enum config_mail_to recipients[REPORT_KIND_COUNT];
	/* a significant report to an opted-in thread waits for release */
	int moderate_significant;
	char *dashboard_url;	/* ends in '/'; links /series/ID */
	int dashboard_listen;	/* dashboard_url made from api.listen */
	struct config_patchwork *patchwork;
	size_t n_patchwork;
};

struct config_limits {
	size_t max_body_bytes;	/* a body fetched from a URL */
	size_t max_mbox_bytes;	/* an mbox after decompression */
	int max_messages;	/* messages in one mbox */
	int build_timeout_s;
	int boot_timeout_s;
	int build_memory_mb;
	int build_disk_mb;	/* a build's O= directory */
	size_t log_max_bytes;	/* a build or console log kept */
	int workers;		/* job worker threads */
	int api_connections;	/* API connections open at once, in all */
	int api_connections_per_address;	/* ... from one address */
	int api_header_timeout_s;	/* to send a request's headers */
	int api_idle_timeout_s;	/* an API connection without traffic */
};

struct config {
	char *file;		/* as given to config_load() */
	char *state_dir;	/* absolute */
	char *database;		/* absolute */
	char *cache_dir;	/* absolute: builds, slots, ccache, initramfs */
	struct config_api api;
	struct config_tree *trees;
	size_t n_trees;
	/* By arch_index(); the arches not configured have a NULL arch. */
	struct config_arch_cfg arches[ARCH_MAX];
	struct config_host *hosts;
	size_t n_hosts;
	/* plans[arch_index()][ARCH_KVM or ARCH_TCG]: a plan file, NULL = the
	 * built-in default plan */
	char *plans[ARCH_MAX][ARCH_ACCEL_COUNT];
	struct config_stats stats;
	struct config_calibration calibration;
	struct config_list *lists;
	size_t n_lists;
	char **url_allowlist;	/* URL prefixes submissions must match */
	size_t n_url_allowlist;
	struct config_mail mail;
	struct config_limits limits;
};

/* The largest configuration file accepted. */
#define CONFIG_MAX_BYTES (1024 * 1024)

/*
 * Loads and validates the file at path.  0 and *out (free with
 * config_free()) on success; -1 with the one-line reason appended to err
 * (no newline, not logged: the caller prints it) on failure.
 */
int config_load(const char *path, struct config **out, struct strbuf *err);

/*
 * Same, from text in memory; path names the file in messages and its
 * directory anchors relative paths.
 */
int config_parse(const char *text, size_t len, const char *path,
		 struct config **out, struct strbuf *err);

void config_free(struct config *cfg);

/* The configuration of arch a, or NULL when "arches" leaves it out. */
const struct config_arch_cfg *config_arch_get(const struct config *cfg,
					      const struct arch *a);

/*
 * An API on port 0 gets its port when it starts: a dashboard_url made
 * from api.listen then takes that port (before cfg is shared).
 */
void config_dashboard_port(struct config *cfg, int port);

#endif
