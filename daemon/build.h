/*
 * build.h - kernel builds: incremental, cached, sandboxed.
 *
 * build_run() turns (tree, revision, arch, configuration) into a kernel
 * image.  The configuration is a base (a kconfig target such as
 * "tinyconfig", or a file) plus fragments and KCFLAGS; its key is the
 * SHA-256 of those inputs, so a finished build is found again by (commit,
 * arch, config key) without running anything: that is the artefact cache.  Builds of one
 * (tree, arch, config key) share a "slot": a git worktree and an O= object
 * directory kept from build to build, so the patched build that follows its
 * base build recompiles only what the patch changed.  Every step that runs
 * code from the tree (kconfig, make) runs in the sandbox (sandbox.h).
 *
 * Cache layout under cache_dir:
 *   ccache/                                    compiler cache
 *   slots/<tree-key>/<arch>-<config-key>/      src/ cfg/ obj/ lock state
 *   builds/<commit>/<arch>-<config-key>/       image, vmlinux, config,
 *                                              System.map, build.log,
 *                                              warnings.txt, result.json
 *   builds/<commit>/lock                       orders the stores of caches
 *                                              sharing builds/ (build.c)
 */
#ifndef KREGRESS_BUILD_H
#define KREGRESS_BUILD_H

#include <signal.h>

#include "strbuf.h"

#define BUILD_MAX_FRAGMENTS	8
#define BUILD_DISK_MB		8192	/* the O= directory cap: 8 GiB */

enum build_status {
	BUILD_OK,
	BUILD_FAILED,		/* the kernel did not build: see reason */
	BUILD_INTERRUPTED,	/* stopped on request: no result, nothing
				 * cached; the slot resumes next time */
};

const char *build_status_str(enum build_status status);

struct build_progress {
	int compiled;		/* objects compiled so far (CC lines) */
	int expected;		/* compiled by the last cold build; 0 unknown */
	double elapsed_s;
};

struct build_request {
	const char *tree;	/* git repository of the kernel */
	const char *rev;	/* what to build */
	const char *base_rev;	/* for "new warnings"; NULL: none */
	const char *arch;	/* "x86_64", "arm64" or another name
				 * arch_parse() knows */
	const char *cross_compile;	/* CROSS_COMPILE; NULL: the arch's
					 * default (arch.h) */
	const char *base_config;	/* "tinyconfig" (default), "defconfig",
					 * ... or a path to a config file */
	const char *config_dir;	/* holds common-mm.config, <arch>.config */
	const char *fragments[BUILD_MAX_FRAGMENTS];	/* extra; NULL ends */
	const char *kcflags;	/* KCFLAGS, part of the config key; NULL:
				 * none */
	const char *cache_dir;	/* see the layout above */
	const char *sandbox_user;	/* build user when run as root */
	int jobs;		/* make -j; 0: 2 */
	int use_ccache;		/* compile through ccache */
	int timeout_s;		/* per build; 0: 3600 */
	unsigned long long mem_bytes;	/* RLIMIT_AS; 0: 4 GiB */
	unsigned long long log_bytes;	/* build log cap; 0: 64 MiB */
	unsigned long long disk_bytes;	/* O= dir cap; 0: BUILD_DISK_MB */
	/* called about once a second during make; may be NULL */
	void (*on_progress)(void *arg, const struct build_progress *p);
	void *arg;
	/* non-zero (set by a signal handler): stop soon; NULL = never */
	const volatile sig_atomic_t *stop;
};

struct build_result {
	enum build_status status;
	char *reason;		/* why it failed; NULL if it did not */
	char commit[41];
	char config_key[17];	/* hash of the configuration inputs */
	char config_hash[65];	/* SHA-256 of the effective .config */
	int cached;		/* found in the artefact cache, nothing ran */
	int cold;		/* the object directory started empty */
	double duration_s;	/* of this request */
	double cpu_s;		/* user + system time of make and kconfig */
	double self_cpu_s;	/* of build_run()'s own thread: checkout,
				 * log parsing, waiting for the sandbox */
	double checkout_cpu_s;	/* the part of it spent checking out */
	double checkout_s;	/* wall time of the steps, 0 if skipped */
	double configure_s;
	double make_s;
	int compiled;		/* objects compiled (CC lines) */
	/* warnings of the whole kernel (see buildlog) */
	int warnings;
	int new_warnings;	/* not in the base build; -1: unknown */
	struct strbuf new_warning_lines;
	struct strbuf error_lines;	/* first error lines on failure */
	struct strbuf dropped;	/* fragment options olddefconfig dropped */
	struct strbuf objects;	/* objects rebuilt, one a line */
	char *dir;		/* artefact directory */
	char *image;		/* bootable image in dir: bzImage or Image */
};

/*
 * Defaults: tinyconfig, the kregress-build user, ccache on, the config
 * fragments of build_config_dir() and the cache of build_cache_dir().
 */
void build_request_init(struct build_request *req);

/* $KREGRESS_CACHE, else /var/cache/kregress: builds, slots, ccache and
 * the guest initramfs cache (the configuration's cache_dir default). */
const char *build_cache_dir(void);
/* $KREGRESS_CONFIG_DIR, else KREGRESS_DATADIR/configs. */
const char *build_config_dir(void);
void build_result_init(struct build_result *res);
void build_result_release(struct build_result *res);

/*
 * Builds (or finds in the cache) and fills res.  Blocks for the whole
 * build; two requests for the same slot serialise on its lock.  Returns 0
 * when res holds a result, BUILD_OK or BUILD_FAILED (a kernel that does not
 * build is a result); -1 (logged) when no result could be produced (bad
 * request, unknown revision, no sandbox).
 *
 * When *req->stop becomes set, the build stops within a few seconds
 * (sandbox.h: SIGTERM to make and the compilers, SIGKILL after a grace
 * period) and build_run() returns 0 with BUILD_INTERRUPTED: nothing is
 * written to the artefact cache and the slot's "last cold build" count is
 * left alone.  The O= directory keeps what was compiled, and the slot
 * remembers the interrupted attempt (slot/resume: commit, cold or not,
 * objects compiled) and folds its warnings into the slot's warning
 * state, so the next request for that commit continues the build and
 * still reports it cold, with the objects of both attempts.
 */
int build_run(const struct build_request *req, struct build_result *res);

/*
 * The configuration key build_run() will use for req (result.config_key),
 * computed without building: reads the base file and fragments only.
 */
int build_request_key(const struct build_request *req, char key[17]);

/* Writes res as a JSON object to out. */
void build_result_json(const struct build_result *res, struct strbuf *out);

#endif
