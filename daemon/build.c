/*
 * build.c - one kernel build request, from cache lookup to artefacts.
 *
 * The steps, in order (see build.h for the cache layout):
 *   1. resolve the revision, hash the configuration inputs (config key);
 *   2. artefact cache: builds/<commit>/<arch>-<key>/result.json with status
 *      ok means done, nothing runs;
 *   3. lock the slot, check the commit out into its worktree (tree.c);
 *   4. configure in the slot's cfg/ directory, in the sandbox: base target
 *      or file, fragments appended, olddefconfig; list dropped options;
 *   5. copy cfg/.config to obj/.config only if it changed, so an unchanged
 *      configuration keeps its mtime and kbuild rebuilds nothing for it;
 *   6. make the image in obj/, in the sandbox, parsing the log as it comes;
 *   7. fold the warnings into the slot's warning state, compare with the
 *      base build's, write the artefacts and result.json, then rename the
 *      directory into place so readers never see half an artefact.
 *
 * A stop request (req->stop) ends the sandboxed step early; then step 7
 * does not run.  Instead the slot keeps what the interrupted make did:
 * its warnings go into the warning state (they belong to objects now in
 * obj/, which the next make will not recompile) and slot/resume records
 * the commit, whether the build was cold and the objects compiled, so the
 * next build of that commit counts both attempts as one build and only a
 * complete cold build ever writes slot/cold-compiled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "arch.h"
#include "build.h"
#include "buildlog.h"
#include "fs.h"
#include "kconfig.h"
#include "log.h"
#include "now.h"
#include "sandbox.h"
#include "sha256.h"
#include "tree.h"

#define CONFIG_MAX	(4 * 1024 * 1024)	/* a .config or fragment */
#define STATE_MAX	(16 * 1024 * 1024)	/* warning state, result */
#define GiB		(1024ULL * 1024 * 1024)

const char *build_status_str(enum build_status status)
{
	switch (status) {
	case BUILD_OK:		return "ok";
	case BUILD_FAILED:	return "failed";
	case BUILD_INTERRUPTED:	return "interrupted";
	}
	return "?";
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

const char *build_cache_dir(void)
{
	return env_or("KREGRESS_CACHE", "/var/cache/kregress");
}

const char *build_config_dir(void)
{
	return env_or("KREGRESS_CONFIG_DIR", KREGRESS_DATADIR "/configs");
}

void build_request_init(struct build_request *req)
{
	memset(req, 0, sizeof(*req));
	req->base_config = "tinyconfig";
	req->config_dir = build_config_dir();
	req->cache_dir = build_cache_dir();
	req->sandbox_user = "kregress-build";
	req->use_ccache = 1;
}

void build_result_init(struct build_result *res)
{
	memset(res, 0, sizeof(*res));
	res->new_warnings = -1;
	strbuf_init(&res->new_warning_lines);
	strbuf_init(&res->error_lines);
	strbuf_init(&res->dropped);
	strbuf_init(&res->objects);
}

void build_result_release(struct build_result *res)
{
	free(res->reason);
	free(res->dir);
	free(res->image);
	strbuf_release(&res->new_warning_lines);
	strbuf_release(&res->error_lines);
	strbuf_release(&res->dropped);
	strbuf_release(&res->objects);
	build_result_init(res);
}

/* ---- small file helpers ---------------------------------------------- */

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0)
		return error("build", "%s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return error("build", "%s: %s", path, strerror(errno));
		}
		done += (size_t)n;
	}
	if (close(fd) < 0)
		return error("build", "%s: %s", path, strerror(errno));
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = -1;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return error("build", "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		error("build", "%s: %s", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, (size_t)n) != n) {
			error("build", "copying %s: %s", from,
			      strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	close(in);
	if (close(out) < 0 && !ret)
		ret = error("build", "%s: %s", to, strerror(errno));
	return ret;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- configuration key ----------------------------------------------- */

static int is_make_target(const char *base)
{
	size_t n = strlen(base);

	if (n < 7 || n > 64 || strcmp(base + n - 6, "config"))
		return 0;
	return strspn(base, "abcdefghijklmnopqrstuvwxyz0123456789_.") == n;
}

/* The fragment text: common-mm, the arch's, then the extra ones. */
static int gather_fragments(const struct build_request *req,
			    const struct arch *arch, struct strbuf *text)
{
	struct strbuf path = STRBUF_INIT, one = STRBUF_INIT;
	const char *name;
	int i, ret = -1;

	for (i = -2; i < BUILD_MAX_FRAGMENTS; i++) {
		strbuf_reset(&path);
		if (i == -2)
			strbuf_addf(&path, "%s/common-mm.config",
				    req->config_dir);
		else if (i == -1)
			strbuf_addf(&path, "%s/%s.config", req->config_dir,
				    arch->name);
		else if (req->fragments[i])
			strbuf_addstr(&path, req->fragments[i]);
		else
			break;
		strbuf_reset(&one);
		if (strbuf_read_file(&one, path.buf, CONFIG_MAX))
			goto out;
		/*
		 * Only the file name goes into the text (and so the config
		 * key): the same fragments installed elsewhere are the same
		 * configuration.
		 */
		name = strrchr(path.buf, '/');
		strbuf_addf(text, "# kregress: %s\n",
			    name ? name + 1 : path.buf);
		strbuf_add(text, one.buf, one.len);
		if (one.len && one.buf[one.len - 1] != '\n')
			strbuf_addch(text, '\n');
	}
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&one);
	return ret;
}

/*
 * key = sha256(arch, base, base file contents, fragment text,
 * KCFLAGS)[0..16); a request without KCFLAGS keeps the key it had
 * before they could be given.
 */
static int config_key(const struct build_request *req,
		      const struct arch *arch, const char *fragments,
		      char key[17])
{
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, arch->name, strlen(arch->name) + 1);
	sha256_update(&s, req->base_config, strlen(req->base_config) + 1);
	if (!is_make_target(req->base_config) &&
	    sha256_update_file(&s, req->base_config)) {
		sha256_release(&s);
		return -1;
	}
	sha256_update(&s, fragments, strlen(fragments));
	if (req->kcflags) {
		sha256_update(&s, "\0KCFLAGS=", 10);
		sha256_update(&s, req->kcflags, strlen(req->kcflags));
	}
	sha256_final_hex(&s, hex);
	memcpy(key, hex, 16);
	key[16] = '\0';
	return 0;
}

/* The arch of a request, or NULL (logged). */
static const struct arch *request_arch(const struct build_request *req)
{
	const struct arch *arch = arch_parse(req->arch ? req->arch : "");
	struct strbuf names = STRBUF_INIT;

	if (arch)
		return arch;
	arch_names(&names, "");
	error("build", "%s: unknown arch (%s)", req->arch ? req->arch : "",
	      names.buf);
	strbuf_release(&names);
	return NULL;
}

int build_request_key(const struct build_request *req, char key[17])
{
	const struct arch *arch = request_arch(req);
	struct strbuf fragments = STRBUF_INIT;
	int ret = -1;

	if (!arch)
		return -1;
	if (!req->config_dir)
		return error("build", "no config dir");
	if (!gather_fragments(req, arch, &fragments) &&
	    !config_key(req, arch, fragments.buf, key))
		ret = 0;
	strbuf_release(&fragments);
	return ret;
}

/* ---- result.json ------------------------------------------------------ */

static json_t *lines_json(const char *text)
{
	json_t *a = json_array();
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			nl = p + strlen(p);
		if (nl != p)
			json_array_append_new(a,
				json_stringn(p, (size_t)(nl - p)));
		p = *nl ? nl + 1 : nl;
	}
	return a;
}

static void json_lines(json_t *a, struct strbuf *out)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v))
			strbuf_addf(out, "%s\n", json_string_value(v));
}

void build_result_json(const struct build_result *res, struct strbuf *out)
{
	json_t *o = json_object();
	char *s;

	json_object_set_new(o, "status",
			    json_string(build_status_str(res->status)));
	json_object_set_new(o, "reason", res->reason ?
			    json_string(res->reason) : json_null());
	json_object_set_new(o, "commit", json_string(res->commit));
	json_object_set_new(o, "config_key", json_string(res->config_key));
	json_object_set_new(o, "config_hash", json_string(res->config_hash));
	json_object_set_new(o, "cached", json_boolean(res->cached));
	json_object_set_new(o, "cold", json_boolean(res->cold));
	json_object_set_new(o, "duration_s", json_real(res->duration_s));
	json_object_set_new(o, "cpu_s", json_real(res->cpu_s));
	json_object_set_new(o, "self_cpu_s", json_real(res->self_cpu_s));
	json_object_set_new(o, "checkout_cpu_s",
			    json_real(res->checkout_cpu_s));
	json_object_set_new(o, "checkout_s", json_real(res->checkout_s));
	json_object_set_new(o, "configure_s", json_real(res->configure_s));
	json_object_set_new(o, "make_s", json_real(res->make_s));
	json_object_set_new(o, "compiled", json_integer(res->compiled));
	json_object_set_new(o, "warnings", json_integer(res->warnings));
	json_object_set_new(o, "new_warnings",
			    json_integer(res->new_warnings));
	json_object_set_new(o, "new_warning_lines",
			    lines_json(res->new_warning_lines.buf));
	json_object_set_new(o, "error_lines",
			    lines_json(res->error_lines.buf));
	json_object_set_new(o, "dropped", lines_json(res->dropped.buf));
	json_object_set_new(o, "objects", lines_json(res->objects.buf));
	json_object_set_new(o, "dir", res->dir ? json_string(res->dir) :
			    json_null());
	json_object_set_new(o, "image", res->image ? json_string(res->image) :
			    json_null());
	s = json_dumps(o, JSON_INDENT(1));
	if (s)
		strbuf_addstr(out, s);
	strbuf_addch(out, '\n');
	free(s);
	json_decref(o);
}

/*
 * Loads a finished build; returns 1 if it is there and ok, 0 if not.  The
 * image is looked for in dir under the name it was stored with: the
 * cache may have been reached through another path when it was written
 * (a cache directory moved, or linked into another one).
 */
static int cache_lookup(const char *dir, struct build_result *res)
{
	struct strbuf path = STRBUF_INIT, image = STRBUF_INIT;
	json_error_t jerr;
	json_t *o = NULL;
	const char *s;
	int hit = 0;

	strbuf_addf(&path, "%s/result.json", dir);
	if (!file_exists(path.buf))
		goto out;
	o = json_load_file(path.buf, 0, &jerr);
	if (!o || !json_is_object(o))
		goto out;
	s = json_string_value(json_object_get(o, "status"));
	if (!s || strcmp(s, "ok"))
		goto out;
	s = json_string_value(json_object_get(o, "image"));
	if (!s)
		goto out;
	strbuf_addf(&image, "%s/%s", dir, strrchr(s, '/') ?
		    strrchr(s, '/') + 1 : s);
	if (!file_exists(image.buf))
		goto out;
	res->status = BUILD_OK;
	res->image = strbuf_detach(&image, NULL);
	res->dir = xstrdup(dir);
	s = json_string_value(json_object_get(o, "config_hash"));
	snprintf(res->config_hash, sizeof(res->config_hash), "%s",
		 s ? s : "");
	res->cold = json_is_true(json_object_get(o, "cold"));
	res->compiled = (int)json_integer_value(json_object_get(o,
								"compiled"));
	res->warnings = (int)json_integer_value(json_object_get(o,
								"warnings"));
	res->new_warnings = (int)json_integer_value(
		json_object_get(o, "new_warnings"));
	json_lines(json_object_get(o, "new_warning_lines"),
		   &res->new_warning_lines);
	json_lines(json_object_get(o, "dropped"), &res->dropped);
	json_lines(json_object_get(o, "objects"), &res->objects);
	hit = res->image && res->dir;
out:
	json_decref(o);
	strbuf_release(&path);
	strbuf_release(&image);
	return hit;
}

/* ---- running make in the sandbox ---------------------------------------- */

struct build_ctx {
	const struct build_request *req;
	const struct arch *arch;
	struct buildlog log;
	struct build_progress progress;
	double start;
	double last_report;
	uid_t uid;
	gid_t gid;
	int drop;		/* chown what the build user writes */
	int resumed;		/* continues an interrupted attempt */
	int prev_compiled;	/* objects the interrupted attempts compiled */
	struct strbuf prev_objects;	/* and which, one a line */
	char slot[PATH_MAX];
	char src[PATH_MAX + 8];
	char cfg[PATH_MAX + 8];
	char obj[PATH_MAX + 8];
	char ccache[PATH_MAX + 8];
	struct strbuf env[14];
};

/*
 * A directory the build user writes in: made if missing, and its own even
 * when it was there before (a cache directory made by root, or one that
 * a link points to).
 */
static int slot_mkdir(const struct build_ctx *ctx, const char *path)
{
	if (!ctx->drop)
		return fs_mkdir_p(path, 0755);
	if (fs_mkdir_p_owned(path, 0755, ctx->uid, ctx->gid))
		return -1;
	if (chown(path, ctx->uid, ctx->gid))
		return error("build", "chown %s: %s", path, strerror(errno));
	return 0;
}

static void on_line(void *arg, const char *line, size_t len)
{
	struct build_ctx *ctx = arg;

	buildlog_feed(&ctx->log, line, len);
}

static void on_tick(void *arg)
{
	struct build_ctx *ctx = arg;
	double t = now_s();

	if (!ctx->req->on_progress || t - ctx->last_report < 1.0)
		return;
	ctx->last_report = t;
	ctx->progress.compiled = ctx->prev_compiled + ctx->log.compiled;
	ctx->progress.elapsed_s = t - ctx->start;
	ctx->req->on_progress(ctx->req->arg, &ctx->progress);
}

/* Fills sb with the fixed part: binds, limits, environment. */
/* CROSS_COMPILE: the request's, else the arch's default. */
static const char *cross_compile(const struct build_ctx *ctx)
{
	return ctx->req->cross_compile ? ctx->req->cross_compile :
	       ctx->arch->cross_compile;
}

static void sandbox_setup(struct build_ctx *ctx, struct sandbox *sb,
			  const char *out_dir, int log_fd)
{
	const struct build_request *req = ctx->req;
	int i = 0;

	memset(sb, 0, sizeof(*sb));
	sb->user = req->sandbox_user;
	sb->ro[0] = ctx->src;
	sb->rw[0] = out_dir;
	if (req->use_ccache)
		sb->rw[1] = ctx->ccache;
	sb->chdir = ctx->src;
	sb->timeout_s = req->timeout_s ? req->timeout_s : 3600;
	sb->mem_bytes = req->mem_bytes ? req->mem_bytes : 4 * GiB;
	sb->file_bytes = 2 * GiB;
	sb->nproc = 4096;	/* no fork bombs, room for parallel builds */
	sb->log_bytes = req->log_bytes ? req->log_bytes : 64ULL << 20;
	sb->disk_path = out_dir;
	sb->disk_bytes = req->disk_bytes ? req->disk_bytes :
			 (unsigned long long)BUILD_DISK_MB << 20;
	sb->log_fd = log_fd;
	sb->on_line = on_line;
	sb->on_tick = on_tick;
	sb->arg = ctx;
	sb->stop = req->stop;
	for (i = 0; i < (int)(sizeof(ctx->env) / sizeof(ctx->env[0])); i++)
		strbuf_reset(&ctx->env[i]);
	i = 0;
	strbuf_addstr(&ctx->env[i++], "PATH=/usr/local/bin:/usr/bin:/bin");
	strbuf_addstr(&ctx->env[i++], "HOME=/tmp");
	strbuf_addstr(&ctx->env[i++], "LC_ALL=C");
	strbuf_addf(&ctx->env[i++], "ARCH=%s", ctx->arch->karch);
	strbuf_addf(&ctx->env[i++], "CROSS_COMPILE=%s", cross_compile(ctx));
	strbuf_addf(&ctx->env[i++], "KBUILD_OUTPUT=%s", out_dir);
	strbuf_addstr(&ctx->env[i++], "KBUILD_BUILD_USER=kregress");
	strbuf_addstr(&ctx->env[i++], "KBUILD_BUILD_HOST=kregress");
	strbuf_addf(&ctx->env[i++], "CCACHE_DIR=%s", ctx->ccache);
	strbuf_addf(&ctx->env[i++], "CCACHE_BASEDIR=%s", req->cache_dir);
	strbuf_addstr(&ctx->env[i++], "CCACHE_MAXSIZE=5G");
	/*
	 * Depend mode hashes the dependency list kbuild's -MMD writes
	 * anyway, instead of running the preprocessor once more on every
	 * miss: a cold build through ccache then costs what one without it
	 * costs.
	 */
	strbuf_addstr(&ctx->env[i++], "CCACHE_DEPEND=1");
	/* Appended to kbuild's own flags (the top Makefile's last word). */
	if (req->kcflags)
		strbuf_addf(&ctx->env[i++], "KCFLAGS=%s", req->kcflags);
	for (i = 0; i < (int)(sizeof(ctx->env) / sizeof(ctx->env[0])); i++)
		sb->env[i] = ctx->env[i].len ? ctx->env[i].buf : NULL;
}

static void cc_arg(struct build_ctx *ctx, struct strbuf *cc)
{
	strbuf_addf(cc, "CC=%s%sgcc", ctx->req->use_ccache ? "ccache " : "",
		    cross_compile(ctx));
}

/* Says why a sandboxed step failed, or returns NULL if it did not. */
static char *failure_reason(const struct build_ctx *ctx, const char *step,
			    const struct sandbox *sb,
			    const struct sandbox_result *sr)
{
	struct strbuf r = STRBUF_INIT;

	switch (sr->end) {
	case SANDBOX_EXITED:
		if (!sr->exit_status)
			return NULL;
		if (ctx->log.net_blocked)
			strbuf_addf(&r, "%s: the build tried to reach the "
				    "network, which the sandbox blocks", step);
		else if (ctx->log.write_blocked)
			strbuf_addf(&r, "%s: the build tried to write outside "
				    "its directories, which the sandbox "
				    "blocks", step);
		else if (ctx->log.error_lines.len) {
			const char *l = ctx->log.error_lines.buf;

			strbuf_addf(&r, "%s: %.*s", step,
				    (int)strcspn(l, "\n"), l);
		} else {
			strbuf_addf(&r, "%s: exit status %d", step,
				    sr->exit_status);
		}
		break;
	case SANDBOX_SIGNALED:
		strbuf_addf(&r, "%s: killed by signal %d (memory limit %llu "
			    "MiB?)", step, sr->signal, sb->mem_bytes >> 20);
		break;
	case SANDBOX_TIMEOUT:
		strbuf_addf(&r, "%s: timed out after %d s", step,
			    sb->timeout_s);
		break;
	case SANDBOX_LOG_LIMIT:
		strbuf_addf(&r, "%s: output exceeded the %llu byte log limit",
			    step, sb->log_bytes);
		break;
	case SANDBOX_DISK_LIMIT:
		strbuf_addf(&r, "%s: the output directory exceeded its "
			    "%llu MiB limit", step, sb->disk_bytes >> 20);
		break;
	case SANDBOX_STOPPED:	/* the callers do not get here */
		strbuf_addf(&r, "%s: stopped on request", step);
		break;
	}
	return strbuf_detach(&r, NULL);
}

/* Adds the CPU time the step's shell measured (see buildlog.h). */
static void add_cpu_time(const char *dir, struct build_result *res)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	double cpu;

	strbuf_addf(&path, "%s/.kregress-times", dir);
	if (file_exists(path.buf) && !strbuf_read_file(&text, path.buf, 256) &&
	    !buildlog_parse_times(text.buf, &cpu))
		res->cpu_s += cpu;
	unlink(path.buf);
	strbuf_release(&path);
	strbuf_release(&text);
}

/*
 * Step 4: configure in cfg/.  Returns 0 ok, 1 failed (reason), 2 stopped,
 * -1 error.
 */
static int configure(struct build_ctx *ctx, const char *fragments,
		     int log_fd, struct build_result *res)
{
	static const char script[] =
		"set -e\n"
		"if [ -n \"$KR_TARGET\" ]; then make -s \"$1\" \"$KR_TARGET\"\n"
		"else cp \"$KBUILD_OUTPUT/kregress-base.config\" "
		"\"$KBUILD_OUTPUT/.config\"; fi\n"
		"cat \"$KBUILD_OUTPUT/kregress-fragment.config\" >> "
		"\"$KBUILD_OUTPUT/.config\"\n"
		"make -s \"$1\" olddefconfig\n"
		"times > \"$KBUILD_OUTPUT/.kregress-times\"\n";
	const struct build_request *req = ctx->req;
	struct strbuf path = STRBUF_INIT, target = STRBUF_INIT;
	struct strbuf cc = STRBUF_INIT, config = STRBUF_INIT;
	struct sandbox sb;
	struct sandbox_result sr;
	char hex[SHA256_HEX_LEN + 1];
	int ret = -1, i;

	strbuf_addf(&path, "%s/kregress-fragment.config", ctx->cfg);
	if (write_file(path.buf, fragments, strlen(fragments)))
		goto out;
	if (!is_make_target(req->base_config)) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/kregress-base.config", ctx->cfg);
		if (copy_file(req->base_config, path.buf))
			goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/.config", ctx->cfg);
	unlink(path.buf);

	sandbox_setup(ctx, &sb, ctx->cfg, log_fd);
	strbuf_addf(&target, "KR_TARGET=%s", is_make_target(req->base_config) ?
		    req->base_config : "");
	for (i = 0; sb.env[i]; i++)
		;
	sb.env[i] = target.buf;
	cc_arg(ctx, &cc);
	{
		char *argv[] = { "sh", "-c", (char *)script, "sh", cc.buf,
				 NULL };

		if (sandbox_run(&sb, argv, &sr))
			goto out;
	}
	add_cpu_time(ctx->cfg, res);
	if (sr.end == SANDBOX_STOPPED) {
		ret = 2;
		goto out;
	}
	res->reason = failure_reason(ctx, "configure", &sb, &sr);
	if (res->reason || !file_exists(path.buf)) {
		if (!res->reason)
			res->reason = xstrdup("configure: no .config written");
		res->status = BUILD_FAILED;
		ret = 1;
		goto out;
	}
	if (strbuf_read_file(&config, path.buf, CONFIG_MAX))
		goto out;
	if (kconfig_dropped(fragments, config.buf, &res->dropped) < 0) {
		res->status = BUILD_FAILED;
		res->reason = xstrdup("configure: a fragment line is not a "
				     "CONFIG_ assignment");
		ret = 1;
		goto out;
	}
	sha256_hex(config.buf, config.len, hex);
	memcpy(res->config_hash, hex, sizeof(hex));
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&target);
	strbuf_release(&cc);
	strbuf_release(&config);
	return ret;
}

/* Step 5: obj/.config := cfg/.config, touched only if it changed. */
static int install_config(struct build_ctx *ctx)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, pa = STRBUF_INIT,
		      pb = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&pa, "%s/.config", ctx->cfg);
	strbuf_addf(&pb, "%s/.config", ctx->obj);
	if (strbuf_read_file(&a, pa.buf, CONFIG_MAX))
		goto out;
	if (file_exists(pb.buf) && !strbuf_read_file(&b, pb.buf, CONFIG_MAX) &&
	    a.len == b.len && !memcmp(a.buf, b.buf, a.len)) {
		ret = 0;
		goto out;
	}
	if (write_file(pb.buf, a.buf, a.len))
		goto out;
	if (ctx->drop && chown(pb.buf, ctx->uid, ctx->gid) < 0) {
		error("build", "%s: chown: %s", pb.buf, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&pa);
	strbuf_release(&pb);
	return ret;
}

/*
 * Step 6.  Returns 0 ok, 1 failed (reason set), 2 stopped, -1 error.
 *
 * A cold obj/ is first given the host tools configure just built in cfg/
 * for this commit (fixdep and kconfig's conf, with their .cmd files and
 * mtimes), so make does not build them a second time: kbuild's commands
 * name the source tree by its absolute path and objects relative to the
 * output directory, so they are the same commands in both, and make
 * rebuilds whatever does not match anyway.  Missing tools (a tree
 * without kbuild) are simply built by make.
 */
static int compile(struct build_ctx *ctx, int log_fd,
		   struct build_result *res)
{
	static const char script[] =
		"[ -z \"$KR_SEED\" ] || { mkdir -p \"$KBUILD_OUTPUT/scripts\" "
		"&& cp -a \"$KR_SEED/scripts/basic\" "
		"\"$KR_SEED/scripts/kconfig\" \"$KBUILD_OUTPUT/scripts/\"; "
		"} 2>/dev/null\n"
		"make \"$@\"; st=$?\n"
		"times > \"$KBUILD_OUTPUT/.kregress-times\"; exit $st\n";
	const struct build_request *req = ctx->req;
	struct strbuf cc = STRBUF_INIT, jobs = STRBUF_INIT,
		      image = STRBUF_INIT, seed = STRBUF_INIT;
	struct sandbox sb;
	struct sandbox_result sr;
	int ret = -1, i;

	sandbox_setup(ctx, &sb, ctx->obj, log_fd);
	if (res->cold && !ctx->resumed) {
		sb.ro[1] = ctx->cfg;
		strbuf_addf(&seed, "KR_SEED=%s", ctx->cfg);
		for (i = 0; sb.env[i]; i++)
			;
		sb.env[i] = seed.buf;
	}
	cc_arg(ctx, &cc);
	strbuf_addf(&jobs, "-j%d", req->jobs > 0 ? req->jobs : 2);
	{
		char *argv[] = { "sh", "-c", (char *)script,
				 "sh", cc.buf, jobs.buf,
				 (char *)ctx->arch->make_target, NULL };

		if (sandbox_run(&sb, argv, &sr))
			goto out;
	}
	add_cpu_time(ctx->obj, res);
	if (sr.end == SANDBOX_STOPPED) {
		ret = 2;
		goto out;
	}
	res->reason = failure_reason(ctx, "make", &sb, &sr);
	strbuf_addf(&image, "%s/%s", ctx->obj, ctx->arch->image);
	if (!res->reason && !file_exists(image.buf))
		res->reason = xstrdup("make: succeeded but wrote no image");
	ret = res->reason ? 1 : 0;
	if (ret)
		res->status = BUILD_FAILED;
out:
	strbuf_release(&cc);
	strbuf_release(&jobs);
	strbuf_release(&image);
	strbuf_release(&seed);
	return ret;
}

/* ---- the request -------------------------------------------------------- */

static int slot_paths(struct build_ctx *ctx, const char *key)
{
	const struct build_request *req = ctx->req;
	char treekey[SHA256_HEX_LEN + 1], real[PATH_MAX];

	if (!realpath(req->tree, real))
		return error("build", "%s: %s", req->tree, strerror(errno));
	sha256_hex(real, strlen(real), treekey);
	treekey[16] = '\0';
	if (snprintf(ctx->slot, sizeof(ctx->slot), "%s/slots/%s/%s-%s",
		     req->cache_dir, treekey, ctx->arch->name, key) >=
	    (int)sizeof(ctx->slot) - 16)
		return error("build", "%s: path too long", req->cache_dir);
	snprintf(ctx->src, sizeof(ctx->src), "%s/src", ctx->slot);
	snprintf(ctx->cfg, sizeof(ctx->cfg), "%s/cfg", ctx->slot);
	snprintf(ctx->obj, sizeof(ctx->obj), "%s/obj", ctx->slot);
	snprintf(ctx->ccache, sizeof(ctx->ccache), "%s/ccache",
		 req->cache_dir);
	return 0;
}

static int read_int_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int v = 0;

	if (file_exists(path) && !strbuf_read_file(&sb, path, 64))
		v = atoi(sb.buf);
	strbuf_release(&sb);
	return v;
}

/*
 * The slot's warning state (what obj/ holds) after this make: the old
 * state, unless obj/ started empty, with the warnings of every object
 * compiled now replaced by those seen now.  The new state goes to
 * slot/warnings.txt and to merged.
 */
static int fold_warnings(struct build_ctx *ctx,
			 const struct build_result *res, struct strbuf *merged)
{
	struct strbuf path = STRBUF_INIT, state = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&path, "%s/warnings.txt", ctx->slot);
	if ((!res->cold || ctx->resumed) && file_exists(path.buf) &&
	    strbuf_read_file(&state, path.buf, STATE_MAX))
		goto out;
	buildlog_merge_warnings(state.buf, ctx->log.objects.buf,
				ctx->log.warning_lines.buf, merged);
	ret = write_file(path.buf, merged->buf, merged->len);
out:
	strbuf_release(&path);
	strbuf_release(&state);
	return ret;
}

/*
 * Puts the finished directory tmp in place as final.  builds/ may be
 * shared by caches whose slots differ (a cache linked into another, as
 * the tests' caches are), so two builds of one commit and key can finish
 * at once: builds/<commit>/lock orders their stores, and an ok build
 * already in place is kept, tmp dropped: it is the same commit and
 * configuration key, and whoever stored it may be reading it.  Anything
 * else there (a failed build's result) is replaced.
 */
static int store(const char *tmp, const char *final)
{
	struct strbuf path = STRBUF_INIT;
	struct build_result there;
	int fd, ret = -1;

	strbuf_add(&path, final, strrchr(final, '/') - final);
	strbuf_addstr(&path, "/lock");
	fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		error("build", "%s: %s", path.buf, strerror(errno));
		goto out;
	}
	build_result_init(&there);
	if (cache_lookup(final, &there)) {
		ret = fs_rm_rf(tmp);
	} else if (!fs_rm_rf(final)) {
		ret = rename(tmp, final);
		if (ret < 0)
			error("build", "%s: %s", final, strerror(errno));
	}
	build_result_release(&there);
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&path);
	return ret;
}

/* Step 7: warnings, artefacts, result.json, rename into place. */
static int finish(struct build_ctx *ctx, const char *tmp, const char *final,
		  struct build_result *res)
{
	const struct build_request *req = ctx->req;
	struct strbuf path = STRBUF_INIT, merged = STRBUF_INIT,
		      base = STRBUF_INIT, json = STRBUF_INIT,
		      from = STRBUF_INIT;
	char base_commit[41];
	int ret = -1;

	if (fold_warnings(ctx, res, &merged))
		goto out;
	strbuf_addf(&path, "%s/warnings.txt", tmp);
	if (write_file(path.buf, merged.buf, merged.len))
		goto out;
	res->warnings = buildlog_count_lines(merged.buf);

	if (req->base_rev && !tree_resolve(req->tree, req->base_rev,
					   base_commit)) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/builds/%s/%s-%s/warnings.txt",
			    req->cache_dir, base_commit, ctx->arch->name,
			    res->config_key);
		if (file_exists(path.buf) &&
		    !strbuf_read_file(&base, path.buf, STATE_MAX))
			res->new_warnings = buildlog_new_warnings(base.buf,
				merged.buf, &res->new_warning_lines);
	}

	if (res->status == BUILD_OK) {
		static const char *const copies[][2] = {
			{ ".config", "config" },
			{ "System.map", "System.map" },
			{ "vmlinux", "vmlinux" },
		};
		size_t i;

		for (i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
			strbuf_reset(&from);
			strbuf_reset(&path);
			strbuf_addf(&from, "%s/%s", ctx->obj, copies[i][0]);
			strbuf_addf(&path, "%s/%s", tmp, copies[i][1]);
			if (copy_file(from.buf, path.buf))
				goto out;
		}
		strbuf_reset(&from);
		strbuf_reset(&path);
		strbuf_addf(&from, "%s/%s", ctx->obj, ctx->arch->image);
		strbuf_addf(&path, "%s/%s", tmp, ctx->arch->image_name);
		if (copy_file(from.buf, path.buf))
			goto out;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", final, ctx->arch->image_name);
		res->image = strbuf_detach(&path, NULL);
		if (res->cold) {
			char n[32];

			strbuf_reset(&path);
			strbuf_addf(&path, "%s/cold-compiled", ctx->slot);
			snprintf(n, sizeof(n), "%d\n", res->compiled);
			write_file(path.buf, n, strlen(n));
		}
	} else if (ctx->log.error_lines.len) {
		strbuf_addstr(&res->error_lines, ctx->log.error_lines.buf);
	}
	res->dir = xstrdup(final);
	build_result_json(res, &json);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/result.json", tmp);
	if (write_file(path.buf, json.buf, json.len))
		goto out;
	if (store(tmp, final))
		goto out;
	/* the attempts this build continued are accounted for now */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/resume", ctx->slot);
	unlink(path.buf);
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&merged);
	strbuf_release(&base);
	strbuf_release(&json);
	strbuf_release(&from);
	return ret;
}

/* ---- interrupted builds ----------------------------------------------- */

/*
 * Appends to out the lines of cur that are not in prev; returns how many
 * were there already (objects an interrupted make was compiling when it
 * was stopped are compiled again).
 */
static int objects_union(const char *prev, const char *cur,
			 struct strbuf *out)
{
	struct strbuf hay = STRBUF_INIT, needle = STRBUF_INIT;
	int dup = 0;

	strbuf_addf(&hay, "\n%s", prev);
	if (hay.len && hay.buf[hay.len - 1] != '\n')
		strbuf_addch(&hay, '\n');
	while (*cur) {
		size_t n = strcspn(cur, "\n");

		strbuf_reset(&needle);
		strbuf_addch(&needle, '\n');
		strbuf_add(&needle, cur, n);
		strbuf_addch(&needle, '\n');
		if (n && strstr(hay.buf, needle.buf))
			dup++;
		else if (n)
			strbuf_add(out, needle.buf + 1, needle.len - 1);
		cur += n;
		if (*cur)
			cur++;
	}
	strbuf_release(&hay);
	strbuf_release(&needle);
	return dup;
}

/*
 * Reads slot/resume: if an interrupted attempt built this same commit
 * into the object directory we are about to use, continue its accounting
 * (cold or not, objects compiled).
 */
static void resume_load(struct build_ctx *ctx, struct build_result *res)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	char commit[41];
	int cold, compiled;
	const char *nl;

	strbuf_addf(&path, "%s/.config", ctx->obj);
	if (!file_exists(path.buf))
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/resume", ctx->slot);
	if (!file_exists(path.buf) ||
	    strbuf_read_file(&text, path.buf, STATE_MAX) ||
	    sscanf(text.buf, "%40s %d %d", commit, &cold, &compiled) != 3 ||
	    strcmp(commit, res->commit) || compiled < 0)
		goto out;
	ctx->resumed = 1;
	res->cold = !!cold;
	ctx->prev_compiled = compiled;
	nl = strchr(text.buf, '\n');
	if (nl)
		strbuf_addstr(&ctx->prev_objects, nl + 1);
out:
	strbuf_release(&path);
	strbuf_release(&text);
}

/*
 * After a stopped make: the warnings of what it compiled join the slot's
 * warning state, and slot/resume says what this attempt did (res holds
 * the objects of this and the earlier attempts).
 */
static int resume_save(struct build_ctx *ctx, const struct build_result *res)
{
	struct strbuf path = STRBUF_INIT, merged = STRBUF_INIT,
		      text = STRBUF_INIT, tmp = STRBUF_INIT;
	int ret = -1;

	if (fold_warnings(ctx, res, &merged))
		goto out;
	strbuf_addf(&text, "%s %d %d\n%s", res->commit, res->cold,
		    res->compiled, res->objects.buf);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/resume", ctx->slot);
	strbuf_addf(&tmp, "%s.tmp", path.buf);
	if (write_file(tmp.buf, text.buf, text.len))
		goto out;
	if (rename(tmp.buf, path.buf) < 0) {
		error("build", "%s: %s", path.buf, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&merged);
	strbuf_release(&text);
	strbuf_release(&tmp);
	return ret;
}

/* Takes the slot lock, waiting; 1 if a stop came first, -1 on error. */
static int slot_lock(const struct build_request *req, int fd,
		     const char *path)
{
	struct timespec wait = { 0, 100 * 1000 * 1000 };

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return error("build", "%s: %s", path,
				     strerror(errno));
		if (req->stop && *req->stop)
			return 1;
		nanosleep(&wait, NULL);
	}
	return 0;
}

int build_run(const struct build_request *req, struct build_result *res)
{
	struct build_ctx *ctx;
	struct tree_worktree *wt = NULL;
	struct strbuf fragments = STRBUF_INIT, final = STRBUF_INIT,
		      tmp = STRBUF_INIT, path = STRBUF_INIT;
	struct passwd *pw;
	double start = now_s(), t, cpu0 = now_thread_cpu_s();
	int lock_fd = -1, log_fd = -1, ret = -1, r, dup;
	size_t i;

	ctx = xcalloc(1, sizeof(*ctx));
	ctx->req = req;
	strbuf_init(&ctx->prev_objects);
	for (i = 0; i < sizeof(ctx->env) / sizeof(ctx->env[0]); i++)
		strbuf_init(&ctx->env[i]);
	buildlog_init(&ctx->log, NULL);

	ctx->arch = request_arch(req);
	if (!ctx->arch)
		goto out;
	if (!req->tree || !req->rev || !req->cache_dir || !req->config_dir) {
		error("build", "tree, rev, cache and config dir are needed");
		goto out;
	}
	if (tree_resolve(req->tree, req->rev, res->commit))
		goto out;
	if (gather_fragments(req, ctx->arch, &fragments) ||
	    config_key(req, ctx->arch, fragments.buf, res->config_key))
		goto out;

	/* 2: the artefact cache */
	strbuf_addf(&final, "%s/builds/%s/%s-%s", req->cache_dir, res->commit,
		    ctx->arch->name, res->config_key);
	if (cache_lookup(final.buf, res)) {
		res->cached = 1;
		res->duration_s = now_s() - start;
		ret = 0;
		goto out;
	}

	/* 3: the slot */
	if (req->sandbox_user && geteuid() == 0) {
		pw = getpwnam(req->sandbox_user);
		if (!pw) {
			error("build", "build user %s does not exist (create "
			      "it with: make setup-builders)",
			      req->sandbox_user);
			goto out;
		}
		ctx->uid = pw->pw_uid;
		ctx->gid = pw->pw_gid;
		ctx->drop = 1;
	}
	if (slot_paths(ctx, res->config_key) ||
	    fs_mkdir_p(ctx->slot, 0755) || slot_mkdir(ctx, ctx->cfg) ||
	    slot_mkdir(ctx, ctx->obj) ||
	    (req->use_ccache && slot_mkdir(ctx, ctx->ccache)))
		goto out;
	strbuf_addf(&path, "%s/lock", ctx->slot);
	lock_fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock_fd < 0) {
		error("build", "%s: %s", path.buf, strerror(errno));
		goto out;
	}
	r = slot_lock(req, lock_fd, path.buf);
	if (r < 0)
		goto out;
	if (r > 0 || (req->stop && *req->stop))
		goto interrupted;
	/* someone may have built it while we waited for the lock */
	if (cache_lookup(final.buf, res)) {
		res->cached = 1;
		res->duration_s = now_s() - start;
		ret = 0;
		goto out;
	}
	t = now_s();
	res->checkout_cpu_s = now_thread_cpu_s();
	if (tree_worktree_open(req->tree, ctx->src, res->commit, &wt) ||
	    tree_worktree_switch(wt, res->commit, NULL))
		goto out;
	tree_worktree_free(wt);
	wt = NULL;
	res->checkout_s = now_s() - t;
	res->checkout_cpu_s = now_thread_cpu_s() - res->checkout_cpu_s;
	ctx->log.srctree = ctx->src;

	strbuf_addf(&tmp, "%s/builds/%s/.tmp-%s-%s-%d", req->cache_dir,
		    res->commit, ctx->arch->name, res->config_key,
		    (int)getpid());
	if (fs_rm_rf(tmp.buf) || fs_mkdir_p(tmp.buf, 0755))
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/build.log", tmp.buf);
	log_fd = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (log_fd < 0) {
		error("build", "%s: %s", path.buf, strerror(errno));
		goto out;
	}

	ctx->start = start;
	t = now_s();
	r = configure(ctx, fragments.buf, log_fd, res);
	res->configure_s = now_s() - t;
	if (r < 0)
		goto out;
	if (r == 2)
		goto interrupted;
	/* cold: the object directory never saw a build */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/.config", ctx->obj);
	res->cold = !file_exists(path.buf);
	resume_load(ctx, res);
	if (r == 0 && install_config(ctx))
		goto out;
	if (r == 0) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/cold-compiled", ctx->slot);
		ctx->progress.expected = res->cold ?
					 read_int_file(path.buf) : 0;
		/* the configure step's messages are not the build's */
		buildlog_release(&ctx->log);
		buildlog_init(&ctx->log, ctx->src);
		/* ccache's CCACHE_BASEDIR makes paths relative to obj/ */
		ctx->log.srctree_rel = "../src";
		t = now_s();
		r = compile(ctx, log_fd, res);
		res->make_s = now_s() - t;
		if (r < 0)
			goto out;
	}
	strbuf_addstr(&res->objects, ctx->prev_objects.buf);
	dup = objects_union(ctx->prev_objects.buf, ctx->log.objects.buf,
			    &res->objects);
	res->compiled = ctx->prev_compiled + ctx->log.compiled - dup;
	if (r == 2) {
		if (resume_save(ctx, res))
			goto out;
		goto interrupted;
	}
	if (r == 0)
		res->status = BUILD_OK;
	res->duration_s = now_s() - start;
	res->self_cpu_s = now_thread_cpu_s() - cpu0;
	if (finish(ctx, tmp.buf, final.buf, res))
		goto out;
	ret = 0;
	goto out;
interrupted:
	res->status = BUILD_INTERRUPTED;
	free(res->reason);
	res->reason = xstrdup("stopped on request");
	res->duration_s = now_s() - start;
	ret = 0;
out:
	if ((ret || res->status == BUILD_INTERRUPTED) && tmp.len)
		fs_rm_rf(tmp.buf);
	if (log_fd >= 0)
		close(log_fd);
	tree_worktree_free(wt);
	if (lock_fd >= 0)
		close(lock_fd);
	for (i = 0; i < sizeof(ctx->env) / sizeof(ctx->env[0]); i++)
		strbuf_release(&ctx->env[i]);
	buildlog_release(&ctx->log);
	strbuf_release(&ctx->prev_objects);
	free(ctx);
	strbuf_release(&fragments);
	strbuf_release(&final);
	strbuf_release(&tmp);
	strbuf_release(&path);
	return ret;
}
