/*
 * cli_bench.c - `kregress bench --native PLAN [--workloads DIR] [--json]`.
 *
 * Native mode, for calibration and development: runs the static guest
 * /init of this host's architecture as an ordinary process ("hosted"
 * mode: no mounts, no power-off, no swap or THP changes) with the plan,
 * captures its console output and parses it with console.c exactly as a
 * guest boot's console log is parsed.  So the framing lives in one place
 * (init.c) and a native run checks the whole result path.
 *
 * The workload directory (holding init and the workload binaries) is
 * --workloads DIR, else $KREGRESS_WORKLOADS, else workloads/<arch> next to
 * this binary (the build tree), else DATADIR/workloads/<arch>.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "analyze.h"
#include "cli.h"
#include "cli_bench.h"
#include "console.h"
#include "guest_image.h"
#include "log.h"
#include "plan.h"
#include "sample.h"
#include "strbuf.h"

static int find_workloads(const char *opt, char *out, size_t size)
{
	const char *env = getenv("KREGRESS_WORKLOADS");
	struct utsname u;

	if (opt || env) {
		snprintf(out, size, "%s", opt ? opt : env);
		if (!guest_is_workloads_dir(out))
			return error("bench", "%s: no executable 'init' "
				     "there (build with make)", out);
		return 0;
	}
	if (uname(&u))
		return error("bench", "uname: %s", strerror(errno));
	return guest_workloads_dir(u.machine, out, size);
}

static void make_nonce(char *out, size_t size)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		for (i = 0; i < sizeof(r); i++)
			r[i] = rand();
	for (i = 0; i < sizeof(r) && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* Runs dir/init on the plan and collects its stdout (capped). */
static int run_init(const char *dir, const char *plan, const char *nonce,
		    struct strbuf *out, int *status)
{
	char init[PATH_MAX], buf[65536];
	int fds[2];
	pid_t pid;
	ssize_t n;

	if (snprintf(init, sizeof(init), "%s/init", dir) >= (int)sizeof(init))
		return error("bench", "%s: path too long", dir);
	if (pipe(fds))
		return error("bench", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return error("bench", "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		setenv("KREGRESS_NONCE", nonce, 1);
		setenv("KREGRESS_BIN_DIR", dir, 1);
		unsetenv("KREGRESS_INIT_MOUNT");
		unsetenv("KREGRESS_INIT_SYSFS");
		execl(init, init, plan, (char *)NULL);
		fprintf(stderr, "bench: exec %s: %s\n", init, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		/* Past the cap the parser would not look anyway. */
		if (out->len < CONSOLE_LOG_MAX)
			strbuf_add(out, buf, n);
	}
	close(fds[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* A string member of a record, or "?" (never NULL, for printf). */
static const char *field(json_t *rec, const char *key)
{
	const char *v = json_string_value(json_object_get(rec, key));

	return v ? v : "?";
}

static void print_table(const struct console_result *res)
{
	struct strbuf err = STRBUF_INIT;
	struct analyze_group *g = NULL;
	struct sample *s;
	size_t n = 0, ng = 0, i, j;

	s = xcalloc(res->nrecords + 1, sizeof(*s));
	for (i = 0; i < res->nrecords; i++)
		n += sample_parse(res->records[i].json, &s[n]);
	/* A boot's iterations, grouped as the runner and analysis do. */
	if (analyze_group_boot(s, n, &g, &ng, &err))
		printf("# samples: %s\n", err.buf);
	printf("%-16s %-22s %4s %14s %14s %7s %-5s %s\n", "workload", "metric",
	       "n", "median", "mean", "cv%", "unit", "better");
	for (i = 0; i < ng; i++) {
		const struct sample *f = g[i].first;
		double mean = 0, var = 0;

		for (j = 0; j < g[i].n; j++)
			mean += g[i].v[j];
		mean /= g[i].n;
		for (j = 0; j < g[i].n; j++)
			var += (g[i].v[j] - mean) * (g[i].v[j] - mean);
		var = g[i].n > 1 ? var / (g[i].n - 1) : 0;
		printf("%-16s %-22s %4zu %14.1f %14.1f %7.2f %-5s %s\n",
		       f->workload, f->metric, g[i].n, g[i].median, mean,
		       mean ? 100 * sqrt(var) / mean : 0, f->unit,
		       analyze_direction_str(f->direction));
		printf("%-16s   %s\n", "", f->params);
	}
	analyze_groups_free(g, ng);
	for (i = 0; i < n; i++)
		sample_release(&s[i]);
	free(s);
	strbuf_release(&err);
	/* The environment and any failure, as one line each. */
	for (i = 0; i < res->nrecords; i++) {
		json_t *rec = json_loads(res->records[i].json, 0, NULL);
		const char *w = json_string_value(json_object_get(rec,
								 "workload"));
		const char *why = json_string_value(json_object_get(rec,
								   "reason"));

		if (!strcmp(res->records[i].type, "env"))
			printf("# env: %s %s, THP %s, clocksource %s, "
			       "ASLR %s\n", field(rec, "release"),
			       field(rec, "machine"),
			       field(rec, "thp_enabled"),
			       field(rec, "clocksource"), field(rec, "aslr"));
		else if (!strcmp(res->records[i].type, "failure"))
			printf("# FAILED %s: %s\n", w ? w : "?",
			       why ? why : "?");
		json_decref(rec);
	}
}

static void print_json(const struct console_result *res, const char *nonce)
{
	json_t *out = json_object(), *recs = json_array();
	char *text;
	size_t i;

	json_object_set_new(out, "status",
			    json_string(console_status_str(res->status)));
	json_object_set_new(out, "reason", json_string(res->reason));
	json_object_set_new(out, "nonce", json_string(nonce));
	for (i = 0; i < res->nrecords; i++) {
		json_t *r = json_loads(res->records[i].json, 0, NULL);

		if (r)
			json_array_append_new(recs, r);
	}
	json_object_set_new(out, "records", recs);
	text = json_dumps(out, JSON_INDENT(1));
	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(out);
}

int cli_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "native", no_argument, NULL, 'n' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *wl_opt = NULL;
	char dir[PATH_MAX], nonce[32] = "", err[256];
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	struct console_result res = { 0 };
	struct plan *plan = NULL;
	int native = 0, json = 0, c, status, ret = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			native = 1;
			break;
		case 'w':
			wl_opt = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			return cli_usage("bench");
		}
	}
	if (!native || optind != argc - 1) {
		if (!native)
			fprintf(stderr, "bench: only --native is implemented "
				"here; guest runs are `kregress boot`\n");
		return cli_usage("bench");
	}
	plan = xcalloc(1, sizeof(*plan));
	if (strbuf_read_file(&text, argv[optind], PLAN_TEXT_MAX))
		goto out;
	if (plan_parse(plan, text.buf, text.len, err, sizeof(err))) {
		error("bench", "%s: %s", argv[optind], err);
		goto out;
	}
	if (find_workloads(wl_opt, dir, sizeof(dir)))
		goto out;
	make_nonce(nonce, sizeof(nonce));
	if (run_init(dir, argv[optind], nonce, &out, &status))
		goto out;
	console_parse(out.buf, out.len, nonce, &res);
	if (json)
		print_json(&res, nonce);
	else
		print_table(&res);
	if (res.status != CONSOLE_COMPLETE) {
		error("bench", "run %s: %s", console_status_str(res.status),
		      res.reason);
		goto out;
	}
	ret = CLI_OK;
out:
	console_result_release(&res);
	strbuf_release(&text);
	strbuf_release(&out);
	free(plan);
	return ret;
}
