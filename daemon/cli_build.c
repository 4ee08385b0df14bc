/*
 * cli_build.c - "kregress build": one kernel build from the command line.
 *
 * SIGINT and SIGTERM stop the build the way a stopping daemon does
 * (build.h): make gets SIGTERM, nothing is cached, the slot remembers the
 * attempt, and the command exits with 128 + the signal's number.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"
#include "cli_build.h"
#include "layout.h"
#include "log.h"
#include "strbuf.h"


static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* SIGINT and SIGTERM set stop_signal, unless they were ignored. */
static void catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &old) &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

static void print_progress(void *arg, const struct build_progress *p)
{
	static double last;

	if (p->elapsed_s - last < 10)
		return;
	last = p->elapsed_s;
	if (p->expected)
		fprintf(stderr, "build: %d/%d objects, %.0f s\n", p->compiled,
			p->expected, p->elapsed_s);
	else
		fprintf(stderr, "build: %d objects, %.0f s\n", p->compiled,
			p->elapsed_s);
}

/* Copies every regular file of the artefact directory into out. */
static int copy_out(const char *dir, const char *out)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = -1;

	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		return error("build", "%s: %s", out, strerror(errno));
	d = opendir(dir);
	if (!d)
		return error("build", "%s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		FILE *in = NULL, *o = NULL;
		char buf[65536];
		size_t n;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&from);
		strbuf_reset(&to);
		strbuf_addf(&from, "%s/%s", dir, de->d_name);
		strbuf_addf(&to, "%s/%s", out, de->d_name);
		if (stat(from.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		in = fopen(from.buf, "rb");
		o = fopen(to.buf, "wb");
		if (!in || !o) {
			error("build", "%s: %s", !in ? from.buf : to.buf,
			      strerror(errno));
			if (in)
				fclose(in);
			if (o)
				fclose(o);
			goto out;
		}
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, o);
		fclose(in);
		if (fclose(o)) {
			error("build", "%s: %s", to.buf, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	closedir(d);
	strbuf_release(&from);
	strbuf_release(&to);
	return ret;
}

static void print_lines(const char *title, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n)
			printf("%s: %.*s\n", title, (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

int cli_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "rev", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "base", required_argument, NULL, 'b' },
		{ "base-config", required_argument, NULL, 'B' },
		{ "config-fragment", required_argument, NULL, 'f' },
		{ "config-dir", required_argument, NULL, 'C' },
		{ "cache", required_argument, NULL, 'c' },
		{ "user", required_argument, NULL, 'u' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "no-ccache", no_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "log-limit", required_argument, NULL, 'L' },
		{ "disk-limit", required_argument, NULL, 'D' },
		{ "aligned", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct build_request req;
	struct build_result res;
	const char *out = NULL, *env;
	struct strbuf json = STRBUF_INIT;
	int c, nfrag = 0, as_json = 0, ret = CLI_FAILED;

	build_request_init(&req);
	build_result_init(&res);
	env = getenv("KREGRESS_BUILD_USER");
	if (env)
		req.sandbox_user = *env ? env : NULL;
	req.jobs = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
		switch (c) {
		case 't': req.tree = optarg; break;
		case 'r': req.rev = optarg; break;
		case 'a': req.arch = optarg; break;
		case 'o': out = optarg; break;
		case 'b': req.base_rev = optarg; break;
		case 'B': req.base_config = optarg; break;
		case 'c': req.cache_dir = optarg; break;
		case 'u': req.sandbox_user = *optarg ? optarg : NULL; break;
		case 'N': req.use_ccache = 0; break;
		case 'J': as_json = 1; break;
		case 'C': req.config_dir = optarg; break;
		case 'A': req.kcflags = layout_kcflags(LAYOUT_ALIGNED); break;
		case 'f':
			if (nfrag == BUILD_MAX_FRAGMENTS) {
				error("build", "at most %d fragments",
				      BUILD_MAX_FRAGMENTS);
				goto usage;
			}
			req.fragments[nfrag++] = optarg;
			break;
		case 'j':
			req.jobs = atoi(optarg);
			if (req.jobs < 1 || req.jobs > 256)
				goto usage;
			break;
		case 'L':
			req.log_bytes = strtoull(optarg, NULL, 10);
			if (!req.log_bytes)
				goto usage;
			break;
		case 'D':
			req.disk_bytes = strtoull(optarg, NULL, 10) << 20;
			if (!req.disk_bytes)
				goto usage;
			break;
		case 'T':
			req.timeout_s = atoi(optarg);
			if (req.timeout_s < 1)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || !req.tree || !req.rev || !req.arch)
		goto usage;
	req.on_progress = print_progress;
	req.stop = &stop_signal;
	catch_stop_signals();

	if (build_run(&req, &res))
		goto out;
	if (out && res.dir && copy_out(res.dir, out))
		goto out;
	if (as_json) {
		build_result_json(&res, &json);
		fputs(json.buf, stdout);
	} else {
		printf("build: %s %s %.12s config %s%s in %.2f s",
		       build_status_str(res.status), req.arch, res.commit,
		       res.config_key, res.cached ? " (cached)" : "",
		       res.duration_s);
		if (!res.cached)
			printf(" (cpu %.1f s)", res.cpu_s);
		printf("\n");
		if (!res.cached)
			printf("steps: checkout %.1f s, configure %.1f s, "
			       "make %.1f s\n", res.checkout_s,
			       res.configure_s, res.make_s);
		if (res.reason)
			printf("reason: %s\n", res.reason);
		if (res.image)
			printf("image: %s\n", res.image);
		printf("compiled: %d objects%s; warnings: %d", res.compiled,
		       res.cold ? " (cold)" : "", res.warnings);
		if (res.new_warnings >= 0)
			printf(" (new: %d)", res.new_warnings);
		printf("\n");
		print_lines("new warning", res.new_warning_lines.buf);
		print_lines("dropped", res.dropped.buf);
		print_lines("error", res.error_lines.buf);
	}
	ret = res.status == BUILD_OK ? CLI_OK : CLI_FAILED;
	if (res.status == BUILD_INTERRUPTED)
		ret = 128 + (stop_signal ? stop_signal : SIGTERM);
	goto out;
usage:
	ret = cli_usage("build");
out:
	build_result_release(&res);
	strbuf_release(&json);
	return ret;
}
