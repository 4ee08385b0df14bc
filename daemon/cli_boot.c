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
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_boot.h"
#include "log.h"
#include "probe.h"
#include "strbuf.h"
#include "vm.h"

#define RESULT_LINES_MAX	(1 << 20)	/* bytes of result lines kept */

/* Collects the guest's "KREGRESS" lines from the console as they come. */
struct collect {
	struct strbuf lines;	/* complete KREGRESS lines */
	struct strbuf cur;	/* the line being assembled, capped */
	int done;
};

static int line_is_end(const char *line)
{
	/* "KREGRESS 1 <nonce> END ..." or the test init's "... end". */
	if (!strncmp(line, "KREGRESS 1 ", 11)) {
		const char *p = strchr(line + 11, ' ');

		return p && !strncmp(p, " END ", 5);
	}
	return !strcmp(line, "KREGRESS-TEST end");
}

static int collect_console(void *opaque, const char *data, size_t len)
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
			if (line_is_end(c->cur.buf))
				c->done = 1;
		}
		strbuf_reset(&c->cur);
	}
	return c->done;
}

static void print_result(FILE *f, const struct vm_result *r)
{
	fprintf(f, "boot: %s%s%s\n", vm_status_str(r->status),
		r->reason[0] ? ": " : "", r->reason);
	fprintf(f, "domain: %s\n", r->domain);
	fprintf(f, "create_s: %.3f\nrun_s: %.3f\n", r->create_s, r->run_s);
	if (r->first_output_s >= 0)
		fprintf(f, "first_output_s: %.3f\n", r->first_output_s);
	if (r->done_s >= 0)
		fprintf(f, "first_sample_s: %.3f\n", r->done_s);
	fprintf(f, "console_bytes: %zu%s\n", r->console_bytes,
		r->console_truncated ? " (truncated)" : "");
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
	struct collect col = { STRBUF_INIT, STRBUF_INIT, 0 };
	const char *host = NULL, *arch = NULL, *accel = "tcg", *plan = NULL;
	char logpath[PATH_MAX];
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
			spec.cmdline = optarg;
			break;
		case 'l':
			spec.console_log = optarg;
			break;
		default:
			return cli_usage("boot");
		}
	}
	if (optind != argc || !spec.kernel || !arch)
		return cli_usage("boot");
	if (vm_arch_parse(arch, &spec.arch) < 0 ||
	    vm_accel_parse(accel, &spec.accel) < 0)
		return CLI_USAGE;
	if (plan) {
		/* TODO(plan.c): the plan module packs the plan into the
		 * initramfs; until it is merged the plan must already be
		 * inside --initrd and --plan is only checked to exist. */
		if (access(plan, R_OK))
			return error("boot", "%s: cannot read the plan", plan),
			       CLI_FAILED;
	}
	if (!spec.initrd)
		return error("boot", "--initrd is required (no initramfs "
			     "packer yet)"), CLI_USAGE;
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
		print_result(stderr, &res);
		goto out;
	}
	fputs(col.lines.buf, stdout);
	print_result(stdout, &res);
	printf("console_log: %s\n", spec.console_log);
	if (res.status == VM_STATUS_OK)
		ret = CLI_OK;
out:
	vm_host_free(h);
	strbuf_release(&col.lines);
	strbuf_release(&col.cur);
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
	if (vm_arch_parse(arch ? arch : res.info.arch, &spec.arch) < 0)
		goto out;
	/* The probe kernel: given, or the cached one for the arch. */
	if (!spec.kernel) {
		snprintf(kbuf, sizeof(kbuf), "%s/probe-%s/kernel",
			 default_cache(), vm_arch_str(spec.arch));
		spec.kernel = kbuf;
	}
	if (!spec.initrd) {
		snprintf(ibuf, sizeof(ibuf), "%s/probe-%s/initrd",
			 default_cache(), vm_arch_str(spec.arch));
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
	if (!res.ok || res.accel == VM_ACCEL_TCG)
		printf("tcg: %s%s%s (%.1f s)\n", vm_status_str(res.tcg_status),
		       res.tcg_reason[0] ? ": " : "", res.tcg_reason,
		       res.tcg_s);
	printf("accel: %s\n", res.ok ? vm_accel_str(res.accel) : "none");
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
