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

struct strbuf;

enum config_arch {
	CONFIG_ARCH_X86_64,
	CONFIG_ARCH_ARM64,
	CONFIG_ARCH_COUNT
};
/* "x86_64", "arm64" */
const char *config_arch_str(enum config_arch arch);
/* Parses an arch name; -1 if unknown. */
int config_arch_parse(const char *name, enum config_arch *arch);

enum config_accel {
	CONFIG_ACCEL_AUTO,	/* probe: KVM if it really boots, else TCG */
	CONFIG_ACCEL_KVM,
	CONFIG_ACCEL_TCG,
};
const char *config_accel_str(enum config_accel accel);

enum config_mail_policy {
	CONFIG_MAIL_OUTBOX,	/* write messages to outbox_dir only */
	CONFIG_MAIL_MODERATE,	/* send to moderation_address only */
	CONFIG_MAIL_LIST,	/* reply on opted-in lists, else moderate */
};
const char *config_mail_policy_str(enum config_mail_policy policy);

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
	char *base_config;	/* "tinyconfig" or "defconfig" */
	char **fragments;	/* absolute paths of config fragments */
	size_t n_fragments;
	int make_jobs;
	char *cross_compile;	/* CROSS_COMPILE prefix, "" = native */
};

struct config_host {
	char *name;
	char *uri;		/* libvirt URI */
	enum config_arch arch;
	enum config_accel accel;
	int capacity;		/* guests at once */
};

struct config_stats {
	double threshold_pct;	/* practical threshold T, percent */
	double alpha;		/* significance level */
	int min_samples;	/* boots per side before any verdict */
	int max_boots_per_side;
	char *fdr_method;	/* "bh", "holm" or "none" */
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

struct config_mail {
	char *smtp_url;		/* NULL = no SMTP (outbox only) */
	char *from;
	enum config_mail_policy policy;
	char *moderation_address;
	char *outbox_dir;	/* absolute */
	char **opt_in_lists;	/* lists whose threads get replies */
	size_t n_opt_in_lists;
};

struct config_limits {
	size_t max_body_bytes;	/* a body fetched from a URL */
	size_t max_mbox_bytes;	/* an mbox after decompression */
	int max_messages;	/* messages in one mbox */
	int build_timeout_s;
	int boot_timeout_s;
	int build_memory_mb;
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
	struct config_api api;
	struct config_tree *trees;
	size_t n_trees;
	int has_arch[CONFIG_ARCH_COUNT];
	struct config_arch_cfg arches[CONFIG_ARCH_COUNT];
	struct config_host *hosts;
	size_t n_hosts;
	/* plans[arch][accel]: plan file, NULL = the built-in default plan */
	char *plans[CONFIG_ARCH_COUNT][3];
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

#endif
