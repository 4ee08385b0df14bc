/*
 * cli_boot.c - "kregress boot", "kregress host probe", "kregress host reap":
 * the runner's stages by hand, without the daemon.
 *
 * boot creates one transient domain on a host (local by default), copies
 * its console into a log, and prints the guest's result lines and the
 * boot's outcome; exit status 0 only when the boot ended cleanly.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_boot.h"
#include "console.h"
#include "log.h"
#include "plan.h"
#include "plan_file.h"
#include "probe.h"
#include "runner.h"
#include "strbuf.h"
#include "vm.h"

#define RESULT_LINES_MAX	(1 << 20)	/* bytes of result lines kept */

/* Collects the guest's "KREGRESS" lines from the console as they come. */
struct collect {
	struct strbuf lines;	/* complete KREGRESS lines */
	struct strbuf cur;	/* the line being assembled, capped */
	const char *end;	/* "KREGRESS 1 <nonce> END " */
	int done;
	double first_sample_s;	/* since the guest started; -1 none yet */
};

/* The guest's last line: our END line, or the test init's. */
static int line_is_end(const struct collect *c, const char *line)
{
	if (c->end)
		return !strncmp(line, c->end, strlen(c->end));
	return !strcmp(line, "KREGRESS-TEST end");
}

/* A sample record, or a result line of the test init. */
static int line_is_sample(const struct collect *c, const char *line)
{
	if (c->end)
		return strstr(line, "{\"type\":\"sample\"") != NULL;
	return !strncmp(line, "KREGRESS-TEST ", 14) &&
	       line[14] >= '0' && line[14] <= '9';
}

static int collect_console(void *opaque, const char *data, size_t len,
			   double elapsed_s)
{
	struct collect *c = opaque;
	size_t i;

	for (i = 0; i < len; i++) {
		if (data[i] == '\r')
			continue;
		if (data[i] != '\n') {
			if (c->cur.len < 4096)
				strbuf_addch(&c->cur, data[i]);
			continue;
		}
		if (!strncmp(c->cur.buf, "KREGRESS", 8) &&
		    c->lines.len + c->cur.len < RESULT_LINES_MAX) {
			strbuf_add(&c->lines, c->cur.buf, c->cur.len);
			strbuf_addch(&c->lines, '\n');
			if (line_is_end(c, c->cur.buf))
				c->done = 1;
			if (c->first_sample_s < 0 &&
			    line_is_sample(c, c->cur.buf))
				c->first_sample_s = elapsed_s;
		}
		strbuf_reset(&c->cur);
	}
	return c->done;
}

static void print_result(FILE *f, const struct vm_result *r,
			 const struct collect *c)
{
	fprintf(f, "boot: %s%s%s\n", vm_status_str(r->status),
		r->reason[0] ? ": " : "", r->reason);
	fprintf(f, "domain: %s\n", r->domain);
	fprintf(f, "create_s: %.3f\nrun_s: %.3f\n", r->create_s, r->run_s);
	if (r->first_output_s >= 0)
		fprintf(f, "first_output_s: %.3f\n", r->first_output_s);
	if (c && c->first_sample_s >= 0)
		fprintf(f, "first_sample_s: %.3f\n", c->first_sample_s);
	if (r->done_s >= 0)
		fprintf(f, "last_result_s: %.3f\n", r->done_s);
	fprintf(f, "teardown_s: %.3f\n", r->teardown_s);
	fprintf(f, "console_bytes: %zu%s\n", r->console_bytes,
		r->console_truncated ? " (truncated)" : "");
}

/* --arch and --accel; -1 (logged) when unknown. */
static int parse_arch(const char *s, const struct arch **out)
{
	struct strbuf names = STRBUF_INIT;

	*out = arch_parse(s);
	if (*out)
		return 0;
	arch_names(&names, "");
	error("boot", "%s: unknown arch (%s)", s, names.buf);
	strbuf_release(&names);
	return -1;
}

static int parse_accel(const char *s, enum arch_accel *out)
{
	if (arch_accel_parse(s, out))
		return error("boot", "%s: unknown accel (kvm, tcg)", s);
	return 0;
}

static int parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	v = strtoul(s, &end, 10);
	if (!*s || *end || v > max)
		return error("boot", "%s: not a number up to %u", s, max);
	*out = (unsigned int)v;
	return 0;
}

static int make_nonce(char *out, size_t size)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return error("boot", "getrandom failed");
	for (i = 0; i < sizeof(r) && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Prints the boot's sample records; 0 if the result protocol is whole. */
/* Loads the plan at path; -1 with the reason on stderr. */
static int load_plan(struct plan_file *pf, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	int ret = plan_file_load(pf, path, &err);

	if (ret)
		error("plan", "%s", err.buf);
	strbuf_release(&err);
	return ret;
}

static int print_records(const char *log, const char *nonce)
{
	struct strbuf text = STRBUF_INIT;
	struct console_result cr;
	size_t i, samples = 0;
	int ret = -1;

	if (strbuf_read_file(&text, log, CONSOLE_LOG_MAX) < 0)
		return -1;
	if (console_parse(text.buf, text.len, nonce, &cr) < 0)
		goto out;
	for (i = 0; i < cr.nrecords; i++) {
		if (strcmp(cr.records[i].type, "sample"))
			continue;
		printf("sample: %s\n", cr.records[i].json);
		samples++;
	}
	for (i = 0; i < cr.nrecords; i++)
		if (!strcmp(cr.records[i].type, "failure"))
			printf("failure: %s\n", cr.records[i].json);
	printf("results: %s%s%s (%zu samples)\n",
	       console_status_str(cr.status), cr.reason[0] ? ": " : "",
	       cr.reason, samples);
	if (cr.status == CONSOLE_COMPLETE)
		ret = 0;
	console_result_release(&cr);
out:
	strbuf_release(&text);
	return ret;
}

int cli_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "arch", required_argument, NULL, 'a' },
		{ "plan", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "accel", required_argument, NULL, 'A' },
		{ "memory", required_argument, NULL, 'm' },
		{ "vcpus", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cmdline", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct vm_boot_spec spec;
	struct vm_result res;
	struct vm_host *h = NULL;
	struct collect col = { STRBUF_INIT, STRBUF_INIT, NULL, 0, -1 };
	struct strbuf cmdline = STRBUF_INIT, end = STRBUF_INIT;
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	const char *host = NULL, *arch = NULL, *accel = "tcg", *plan = NULL;
	const char *extra = NULL;
	char logpath[PATH_MAX], nonce[32];
	int opt, ret = CLI_FAILED;

	memset(&spec, 0, sizeof(spec));
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			spec.kernel = optarg;
			break;
		case 'i':
			spec.initrd = optarg;
			break;
		case 'a':
			arch = optarg;
			break;
		case 'p':
			plan = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'A':
			accel = optarg;
			break;
		case 'm':
			if (parse_uint(optarg, 65536, &spec.memory_mib) < 0)
				return CLI_USAGE;
			break;
		case 'c':
			if (parse_uint(optarg, 64, &spec.vcpus) < 0)
				return CLI_USAGE;
			break;
		case 't':
			if (parse_uint(optarg, 86400, &spec.timeout_s) < 0)
				return CLI_USAGE;
			break;
		case 'C':
			extra = optarg;
			break;
		case 'l':
			spec.console_log = optarg;
			break;
		default:
			return cli_usage("boot");
		}
	}
	if (optind != argc || !spec.kernel || !arch || !spec.initrd)
		return cli_usage("boot");
	if (parse_arch(arch, &spec.arch) < 0 ||
	    parse_accel(accel, &spec.accel) < 0)
		return CLI_USAGE;
	if (plan) {
		if (load_plan(&pf, plan) < 0 ||
		    make_nonce(nonce, sizeof(nonce)) < 0)
			goto out;
		/* --memory and --vcpus win over the plan's machine line */
		if (!spec.memory_mib)
			spec.memory_mib = pf.plan->memory_mib;
		if (!spec.vcpus)
			spec.vcpus = pf.plan->vcpus;
		spec.icount = pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS;
		strbuf_add(&cmdline, pf.cmdline.buf, pf.cmdline.len);
		strbuf_addf(&cmdline, " kregress.nonce=%s", nonce);
		strbuf_addf(&end, "KREGRESS 1 %s END ", nonce);
		col.end = end.buf;
	}
	if (extra) {
		if (cmdline.len)
			strbuf_addch(&cmdline, ' ');
		strbuf_addstr(&cmdline, extra);
	}
	spec.cmdline = cmdline.buf;
	if (!spec.console_log) {
		snprintf(logpath, sizeof(logpath), "console-%d.log",
			 (int)getpid());
		spec.console_log = logpath;
	}
	spec.on_console = collect_console;
	spec.opaque = &col;

	if (vm_host_open(host, &h) < 0)
		goto out;
	if (vm_boot(h, &spec, &res) < 0) {
		print_result(stderr, &res, &col);
		goto out;
	}
	if (plan) {
		if (print_records(spec.console_log, nonce) < 0 &&
		    res.status == VM_STATUS_OK) {
			/* The guest ended, but its results are not whole. */
			res.status = VM_STATUS_ERROR;
			snprintf(res.reason, sizeof(res.reason),
				 "the result protocol is not complete");
		}
	} else {
		fputs(col.lines.buf, stdout);
	}
	print_result(stdout, &res, &col);
	printf("console_log: %s\n", spec.console_log);
	if (res.status == VM_STATUS_OK)
		ret = CLI_OK;
out:
	vm_host_free(h);
	plan_file_release(&pf);
	strbuf_release(&col.lines);
	strbuf_release(&col.cur);
	strbuf_release(&cmdline);
	strbuf_release(&end);
	return ret;
}

static const char *default_cache(void)
{
	const char *d = getenv("KREGRESS_KERNEL_CACHE");

	return d && *d ? d : "/var/cache/kregress/kernels";
}

int cli_host_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "arch", required_argument, NULL, 'a' },
		{ "kvm-timeout", required_argument, NULL, 'K' },
		{ "tcg-timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe_spec spec;
	struct probe_result res;
	struct vm_host *h = NULL;
	const char *arch = NULL;
	char kbuf[PATH_MAX], ibuf[PATH_MAX], dir[] = "/tmp/kregress-probe-XXXXXX";
	int opt, ret = CLI_FAILED;

	memset(&spec, 0, sizeof(spec));
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			spec.kernel = optarg;
			break;
		case 'i':
			spec.initrd = optarg;
			break;
		case 'a':
			arch = optarg;
			break;
		case 'K':
			if (parse_uint(optarg, 600, &spec.kvm_timeout_s) < 0)
				return CLI_USAGE;
			break;
		case 'T':
			if (parse_uint(optarg, 3600, &spec.tcg_timeout_s) < 0)
				return CLI_USAGE;
			break;
		default:
			return cli_usage("host probe");
		}
	}
	if (optind != argc - 1)
		return cli_usage("host probe");
	if (vm_host_open(argv[optind], &h) < 0)
		return CLI_FAILED;
	if (vm_host_info(h, &res.info) < 0)
		goto out;
	if (parse_arch(arch ? arch : res.info.arch, &spec.arch) < 0)
		goto out;
	/* The probe kernel: given, or the cached one for the arch. */
	if (!spec.kernel) {
		snprintf(kbuf, sizeof(kbuf), "%s/probe-%s/kernel",
			 default_cache(), spec.arch->name);
		spec.kernel = kbuf;
	}
	if (!spec.initrd) {
		snprintf(ibuf, sizeof(ibuf), "%s/probe-%s/initrd",
			 default_cache(), spec.arch->name);
		spec.initrd = ibuf;
	}
	if (access(spec.kernel, R_OK) || access(spec.initrd, R_OK)) {
		error("probe", "%s or %s: missing (give --kernel/--initrd)",
		      spec.kernel, spec.initrd);
		goto out;
	}
	if (!mkdtemp(dir)) {
		error("probe", "%s: cannot create", dir);
		goto out;
	}
	spec.log_dir = dir;
	spec.cmdline = "krtest=ok";
	if (probe_host(h, &spec, &res) < 0)
		goto out;
	printf("uri: %s\n", vm_host_uri(h));
	printf("arch: %s\ncpu_model: %s\ncpus: %u\nmemory_mib: %llu\n",
	       res.info.arch, res.info.cpu_model, res.info.cpus,
	       res.info.memory_kib / 1024);
	if (res.kvm_tried)
		printf("kvm: %s%s%s (%.1f s)\n", vm_status_str(res.kvm_status),
		       res.kvm_reason[0] ? ": " : "", res.kvm_reason,
		       res.kvm_s);
	else
		printf("kvm: not offered by the host\n");
	if (!res.ok || res.accel == ARCH_TCG)
		printf("tcg: %s%s%s (%.1f s)\n", vm_status_str(res.tcg_status),
		       res.tcg_reason[0] ? ": " : "", res.tcg_reason,
		       res.tcg_s);
	printf("accel: %s\n", res.ok ? arch_accel_str(res.accel) : "none");
	printf("probe_s: %.1f\nlogs: %s\n", res.total_s, dir);
	if (res.ok)
		ret = CLI_OK;
out:
	vm_host_free(h);
	return ret;
}

int cli_host_reap(int argc, char **argv)
{
	struct vm_host *h = NULL;
	int n = 0, ret = CLI_FAILED;

	if (argc > 2)
		return cli_usage("host reap");
	if (vm_host_open(argc == 2 ? argv[1] : NULL, &h) < 0)
		return CLI_FAILED;
	if (vm_reap(h, NULL, &n) == 0) {
		printf("reaped: %d\n", n);
		ret = CLI_OK;
	}
	vm_host_free(h);
	return ret;
}

struct ab_out {
	FILE *f;
};

static void ab_on_boot(void *opaque, const struct runner_boot *b)
{
	struct ab_out *o = opaque;

	fprintf(o->f, "boot %u round %u %s attempt %d on %s: %s%s%s "
		"(%zu values, %.1f s) %s\n", b->order, b->round,
		analyze_side_str(b->side), b->attempt, b->host,
		b->complete ? "ok" : "failed", b->complete ? "" : ": ",
		b->reason, b->nsamples, b->vm->run_s, b->console_log);
	fflush(o->f);
}

int cli_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "patched", required_argument, NULL, 'p' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "arch", required_argument, NULL, 'a' },
		{ "plan", required_argument, NULL, 'P' },
		{ "host", required_argument, NULL, 'H' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "accel", required_argument, NULL, 'A' },
		{ "seed", required_argument, NULL, 's' },
		{ "budget", required_argument, NULL, 'B' },
		{ "pairs", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "log-dir", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct runner_spec spec;
	struct runner_report rep;
	struct runner_host hosts[8];
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	struct ab_out out = { stdout };
	const char *uris[8], *plan = NULL, *arch = NULL, *accel = "tcg";
	unsigned int nhosts = 0, capacity = 1, budget = 10, pairs = 2, i;
	unsigned long long seed;
	enum arch_accel acc;
	char *end;
	int opt, have_seed = 0, ret = CLI_FAILED;

	memset(&spec, 0, sizeof(spec));
	memset(hosts, 0, sizeof(hosts));
	memset(&rep, 0, sizeof(rep));
	stats_opts_init(&spec.stats);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			spec.kernel[ANALYZE_BASE] = optarg;
			break;
		case 'p':
			spec.kernel[ANALYZE_PATCHED] = optarg;
			break;
		case 'i':
			spec.initrd[0] = spec.initrd[1] = optarg;
			break;
		case 'a':
			arch = optarg;
			break;
		case 'P':
			plan = optarg;
			break;
		case 'H':
			if (nhosts == 8)
				return error("ab", "at most 8 hosts"),
				       CLI_USAGE;
			uris[nhosts++] = optarg;
			break;
		case 'c':
			if (parse_uint(optarg, 64, &capacity) < 0)
				return CLI_USAGE;
			break;
		case 'A':
			accel = optarg;
			break;
		case 's':
			seed = strtoull(optarg, &end, 0);
			if (!*optarg || *end)
				return cli_usage("ab");
			have_seed = 1;
			break;
		case 'B':
			if (parse_uint(optarg, 1000, &budget) < 0)
				return CLI_USAGE;
			break;
		case 'r':
			if (parse_uint(optarg, 100, &pairs) < 0)
				return CLI_USAGE;
			break;
		case 't':
			if (parse_uint(optarg, 86400, &spec.timeout_s) < 0)
				return CLI_USAGE;
			break;
		case 'T':
			spec.stats.threshold = strtod(optarg, &end) / 100;
			if (!*optarg || *end || !(spec.stats.threshold > 0))
				return cli_usage("ab");
			break;
		case 'l':
			spec.log_dir = optarg;
			break;
		default:
			return cli_usage("ab");
		}
	}
	if (optind != argc || !spec.kernel[0] || !spec.kernel[1] ||
	    !spec.initrd[0] || !arch || !plan || !spec.log_dir)
		return cli_usage("ab");
	if (parse_arch(arch, &spec.arch) < 0 ||
	    parse_accel(accel, &acc) < 0)
		return CLI_USAGE;
	if (!have_seed && getrandom(&seed, sizeof(seed), 0) !=
	    (ssize_t)sizeof(seed))
		return error("ab", "getrandom failed"), CLI_FAILED;
	if (!nhosts)
		uris[nhosts++] = "qemu:///system";
	if (load_plan(&pf, plan) < 0)
		goto out;
	spec.memory_mib = pf.plan->memory_mib;
	spec.vcpus = pf.plan->vcpus;
	spec.icount = pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS;
	spec.plan_cmdline = pf.cmdline.buf;
	spec.accel = (int)acc;
	spec.seed = seed;
	spec.max_per_side = budget;
	spec.pairs_per_round = pairs;
	spec.on_boot = ab_on_boot;
	spec.opaque = &out;
	for (i = 0; i < nhosts; i++) {
		if (vm_host_open(uris[i], &hosts[i].vm) < 0)
			goto out;
		hosts[i].sched.uri = uris[i];
		hosts[i].sched.arch = spec.arch;
		hosts[i].sched.accel = acc;
		hosts[i].sched.capacity = capacity;
		hosts[i].sched.healthy = 1;
	}
	printf("seed: %llu\n", seed);
	fflush(stdout);
	if (runner_run(&spec, hosts, nhosts, &rep) < 0)
		goto out;
	printf("end: %s after %u rounds, %u boots (%u failed, %u retries)\n",
	       runner_end_str(rep.end), rep.rounds, rep.boots,
	       rep.failed_boots, rep.retries);
	for (i = 0; i < rep.set.n; i++) {
		const struct analyze_metric *m = &rep.set.m[i];

		if (!m->compared)
			continue;
		printf("%s %s %s: %s n=%zu/%zu change %+.2f%% CI [%+.2f%%, "
		       "%+.2f%%] p=%.3g\n", m->workload, m->metric, m->params,
		       stats_verdict_str(m->r.verdict), m->n[0], m->n[1],
		       100 * m->r.change, 100 * m->r.ci_lo, 100 * m->r.ci_hi,
		       m->r.p);
	}
	for (i = 0; i < nhosts; i++)
		printf("host %s: %s\n", uris[i],
		       hosts[i].sched.healthy ? "healthy" : "unhealthy");
	ret = rep.end == RUNNER_DECIDED || rep.end == RUNNER_BUDGET ?
	      CLI_OK : CLI_FAILED;
out:
	runner_report_release(&rep);
	for (i = 0; i < nhosts; i++)
		vm_host_free(hosts[i].vm);
	plan_file_release(&pf);
	return ret;
}
