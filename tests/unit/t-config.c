/*
 * t-config.c - configuration loading: the complete example, defaults,
 * relative paths, and each kind of bad input with the exact one-line
 * message naming the key's path, the parser's own errors (syntax, an
 * integer too big) included; plan files that cannot be used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "strbuf.h"
#include "tap.h"

#define X86	arch_find("x86_64")
#define ARM	arch_find("arm64")

static struct config *good(const char *json, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;

	if (!ok(config_parse(json, strlen(json), "/etc/kr/config.json", &cfg,
			     &err) == 0, "%s loads", what))
		diag("error: %s", err.buf);
	strbuf_release(&err);
	return cfg;
}

static void bad(const char *json, const char *want, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	int r;

	r = config_parse(json, strlen(json), "config.json", &cfg, &err);
	ok(r == -1 && !cfg, "%s: refused", what);
	is_str(err.buf, want, "%s: message", what);
	ok(!strchr(err.buf, '\n'), "%s: one line", what);
	config_free(cfg);
	strbuf_release(&err);
}

static void test_example(void)
{
	const char *src = getenv("KREGRESS_SRC");
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	struct config *cfg = NULL;

	strbuf_addf(&path, "%s/config.example.json", src ? src : ".");
	if (!ok(config_load(path.buf, &cfg, &err) == 0,
		"config.example.json loads")) {
		diag("error: %s", err.buf);
		goto out;
	}
	is_str(cfg->state_dir, "/var/lib/kregress", "state_dir");
	is_str(cfg->database, "/var/lib/kregress/kregress.db", "database");
	is_str(cfg->api.host, "127.0.0.1", "api host");
	is_int(cfg->api.port, 8080, "api port");
	is_int(cfg->api.n_tokens, 1, "one token");
	is_str(cfg->api.tokens[0].name, "admin", "token name");
	is_int(cfg->n_trees, 1, "one tree");
	is_str(cfg->trees[0].lists[0], "linux-mm", "tree's list");
	ok(!cfg->trees[0].refresh_remote, "the imported tree has no remote");
	is_int(cfg->trees[0].refresh_interval_s, 0, "so it is never refreshed");
	ok(config_arch_get(cfg, X86) && config_arch_get(cfg, ARM),
	   "both arches");
	is_str(cfg->arches[arch_index(ARM)].cross_compile,
	       "aarch64-linux-gnu-", "arm64 cross prefix");
	is_int(cfg->arches[arch_index(X86)].n_fragments, 0,
	       "no fragments beyond builders/configs' own");
	ok(cfg->plans[arch_index(X86)][ARCH_TCG][0] == '/',
	   "plan path made absolute");
	strbuf_addstr(&want, "/workloads/plans/default-tcg.plan");
	ok(strstr(cfg->plans[arch_index(X86)][ARCH_TCG],
		  want.buf) != NULL && !access(cfg->plans[arch_index(X86)]
					       [ARCH_TCG], R_OK),
	   "plan relative to the config's directory, and it exists");
	is_int(cfg->n_hosts, 2, "two hosts");
	is_str(cfg->hosts[1].arch->name, "arm64", "host arch");
	is_int(cfg->hosts[1].accel, ARCH_TCG, "host accel");
	ok(cfg->plans[arch_index(ARM)][ARCH_TCG] != NULL,
	   "arm64 tcg plan");
	is_double(cfg->stats.threshold_pct, 3, 1e-12, "threshold");
	is_str(cfg->stats.fdr_method, "bh", "fdr method");
	is_int(cfg->stats.layout_control, LAYOUT_WHEN_REAL_TIME,
	       "layout control of real-time runs by default");
	is_int(cfg->n_lists, 1, "one list");
	is_int(cfg->lists[0].n_path_filters, 2, "path filters");
	is_int(cfg->mail.policy, CONFIG_MAIL_OUTBOX, "mail policy");
	is_int(cfg->limits.workers, 2, "workers");
	is_int(cfg->limits.log_max_bytes, 16777216, "log_max_bytes");
	is_int(cfg->limits.api_connections_per_address, 64,
	       "api_connections_per_address");
	is_int(cfg->limits.api_header_timeout_s, 10, "api_header_timeout_s");
out:
	config_free(cfg);
	strbuf_release(&path);
	strbuf_release(&err);
	strbuf_release(&want);
}

/* The build cache: the file's cache_dir, else $KREGRESS_CACHE, else /var. */
static void test_cache_dir(void)
{
	struct config *cfg;

	setenv("KREGRESS_CACHE", "/srv/kr-cache", 1);
	cfg = good("{}", "no cache_dir, $KREGRESS_CACHE set");
	if (cfg)
		is_str(cfg->cache_dir, "/srv/kr-cache",
		       "cache_dir from the environment");
	config_free(cfg);
	cfg = good("{\"cache_dir\": \"cache\"}", "cache_dir in the file");
	unsetenv("KREGRESS_CACHE");
	if (cfg)
		is_str(cfg->cache_dir, "/etc/kr/cache",
		       "the file's, relative to it, over the environment");
	config_free(cfg);
}

static void test_defaults(void)
{
	struct config *cfg;

	/* The defaults of a caller without one (a cold CI run sets it). */
	unsetenv("KREGRESS_CACHE");
	cfg = good("{}", "empty object");
	if (!cfg)
		return;
	is_str(cfg->state_dir, "/var/lib/kregress", "default state_dir");
	is_str(cfg->database, "/var/lib/kregress/kregress.db",
	       "default database under state_dir");
	is_str(cfg->cache_dir, "/var/cache/kregress", "default cache_dir");
	is_str(cfg->api.listen, "127.0.0.1:8080", "default listen");
	is_int(cfg->api.n_tokens, 0, "no tokens by default");
	is_int(cfg->api.max_body_bytes, 16 << 20, "default body cap");
	is_int(cfg->n_hosts, 1, "default host");
	is_str(cfg->hosts[0].uri, "qemu:///system", "local libvirt");
	ok(config_arch_get(cfg, X86) && config_arch_get(cfg, ARM),
	   "both arches by default");
	is_int(cfg->arches[0].make_jobs, 2, "default make_jobs");
	is_str(cfg->arches[0].base_config, "tinyconfig", "default base");
	is_int(cfg->n_url_allowlist, 2, "default allowlist");
	is_str(cfg->url_allowlist[0], "https://lore.kernel.org/", "lore");
	is_double(cfg->stats.alpha, 0.05, 1e-12, "default alpha");
	is_int(cfg->stats.min_samples, 5, "default min_samples");
	ok(cfg->calibration.enabled && cfg->calibration.interval_s ==
	   7 * 86400 && cfg->calibration.idle_s == 300 &&
	   cfg->calibration.boots_per_side == 8 &&
	   cfg->calibration.simulations == 1000,
	   "calibration by default: weekly, after 300 s idle, 8 boots a side, "
	   "1000 resampled runs");
	is_int(cfg->mail.policy, CONFIG_MAIL_OUTBOX, "outbox by default");
	is_str(cfg->mail.outbox_dir, "/var/lib/kregress/outbox",
	       "outbox under state_dir");
	is_int(cfg->limits.workers, 2, "default workers");
	is_int(cfg->limits.boot_timeout_s, 300, "default boot timeout");
	is_int(cfg->limits.build_disk_mb, 8192,
	       "default cap on a build's output directory: 8 GiB");
	is_int(cfg->limits.api_connections, 1000, "default API connections");
	is_int(cfg->limits.api_connections_per_address, 64,
	       "default API connections per address");
	is_int(cfg->limits.api_header_timeout_s, 10,
	       "default header deadline");
	is_int(cfg->limits.api_idle_timeout_s, 30, "default idle timeout");
	config_free(cfg);

	cfg = good("{\"state_dir\": \"state\", \"api\": {\"listen\": "
		   "\"[::1]:9000\"}, \"arches\": {\"arm64\": {}}, "
		   "\"hosts\": []}", "relative paths");
	if (!cfg)
		return;
	is_str(cfg->state_dir, "/etc/kr/state", "relative to the file's dir");
	is_str(cfg->database, "/etc/kr/state/kregress.db", "database too");
	is_str(cfg->api.host, "::1", "IPv6 host without brackets");
	is_int(cfg->api.port, 9000, "port");
	ok(!config_arch_get(cfg, X86) && config_arch_get(cfg, ARM),
	   "only the arch listed");
	is_int(cfg->n_hosts, 0, "empty host list kept empty");
	config_free(cfg);

	cfg = good("{\"arches\": {\"arm64\": {}}}", "arm64 only");
	if (!cfg)
		return;
	is_str(cfg->hosts[0].arch->name, "arm64",
	       "default host takes the configured arch");
	config_free(cfg);

	cfg = good("{\"api\": {\"listen\": \"127.0.0.1:0\"}}", "port 0");
	if (!cfg)
		return;
	is_int(cfg->api.port, 0, "port 0: the kernel picks a free one");
	config_free(cfg);
	config_free(NULL);
}

#define H0 "{\"name\":\"a\",\"uri\":\"qemu:///system\",\"arch\":\"x86_64\"}"

static void test_bad(void)
{
	bad("{ nope", "config.json: line 1 column 6: string or '}' expected "
	    "near 'nope'", "not JSON");
	bad("", "config.json: line 1 column 0: '[' or '{' expected near end "
	    "of file", "empty file");
	bad("[]", "config.json: the top level must be a JSON object",
	    "top level an array");
	bad("{\"state_dir\": \"/a\",\n \"state_dir\": \"/b\"}",
	    "config.json: state_dir: line 2 column 12: duplicate object key "
	    "near '\"state_dir\"'", "duplicate key");
	bad("{\"hosts\": [" H0 ", {\"name\": \"b\", \"name\": \"c\"}]}",
	    "config.json: hosts[1].name: line 1 column 84: duplicate object "
	    "key near '\"name\"'", "duplicate nested key");
	bad("{\"api\": {\"listen\": \"127.0.0.1:80\"},\n \"limits\": "
	    "{\"workers\": 2, \"build_timeout_s\": 1000000000000000000000}}",
	    "config.json: limits.build_timeout_s: line 2 column 67: too big "
	    "integer", "integer too big");
	bad("{\"stats\": {\"alpha\": 1e999}}", "config.json: stats.alpha: "
	    "line 1 column 25: real number overflow near '1e999'",
	    "real number too big");
	bad("{\"limits\": {\"workers\": 1e30}}", "config.json: "
	    "limits.workers: expected an integer, not a number",
	    "1e30 for an integer");
	bad("{\"lists\": [{\"name\": \"mm\",}]}", "config.json: lists[0]: "
	    "line 1 column 26: string or '}' expected near '}'",
	    "syntax error inside an array's object");
	bad("{\"bogus\": 1}", "config.json: bogus: unknown key",
	    "unknown top-level key");
	bad("{\"hosts\": [" H0 ", {\"name\":\"b\",\"uri\":\"qemu:///system\","
	    "\"arch\":\"x86_64\",\"cpu\":1}]}",
	    "config.json: hosts[1].cpu: unknown key", "unknown nested key");
	bad("{\"hosts\": [" H0 ", {\"name\":\"b\",\"uri\":\"http://x/\","
	    "\"arch\":\"x86_64\"}]}", "config.json: hosts[1].uri: not a "
	    "libvirt URI (e.g. qemu:///system, qemu+ssh://host/system)",
	    "bad libvirt URI");
	bad("{\"hosts\": [{\"name\":\"a\",\"arch\":\"x86_64\"}]}",
	    "config.json: hosts[0].uri: required key missing",
	    "missing required key");
	bad("{\"hosts\": [" H0 ", " H0 "]}",
	    "config.json: hosts[1].name: duplicate name", "duplicate host");
	bad("{\"hosts\": {}}", "config.json: hosts: expected an array, not "
	    "an object", "hosts not an array");
	bad("{\"hosts\": [{\"name\":\"a\",\"uri\":\"qemu:///system\","
	    "\"arch\":\"x86_64\",\"accel\":\"hvf\"}]}", "config.json: "
	    "hosts[0].accel: \"hvf\" is not one of \"auto\", \"kvm\" or "
	    "\"tcg\"", "bad accel");
	bad("{\"arches\": {\"x86_64\": {}}, \"hosts\": [{\"name\":\"a\","
	    "\"uri\":\"qemu:///system\",\"arch\":\"arm64\"}]}",
	    "config.json: hosts[0].arch: architecture not configured in "
	    "\"arches\"", "host arch without arches entry");
	bad("{\"hosts\": [{\"name\":\"a b\",\"uri\":\"qemu:///system\","
	    "\"arch\":\"x86_64\"}]}", "config.json: hosts[0].name: \"a b\" "
	    "is not a valid name (letters, digits, '.', '_', '-'; at most "
	    "64)", "bad name");
	bad("{\"limits\": {\"workers\": \"two\"}}", "config.json: "
	    "limits.workers: expected an integer, not a string",
	    "wrong type");
	bad("{\"limits\": {\"workers\": 0}}", "config.json: limits.workers: "
	    "0 is out of range (1 to 64)", "out of range");
	bad("{\"limits\": {\"workers\": 2.5}}", "config.json: "
	    "limits.workers: expected an integer, not a number",
	    "real for an integer");
	bad("{\"stats\": {\"alpha\": 0.7}}", "config.json: stats.alpha: 0.7 "
	    "is out of range (above 0 to 0.5)", "alpha too large");
	bad("{\"stats\": {\"min_samples\": 10, \"max_boots_per_side\": 5}}",
	    "config.json: stats.max_boots_per_side: smaller than "
	    "min_samples", "max boots below min samples");
	bad("{\"calibration\": {\"boots_per_side\": 1}}", "config.json: "
	    "calibration.boots_per_side: 1 is out of range (2 to 1000)",
	    "one boot a side cannot calibrate");
	bad("{\"calibration\": {\"enabled\": \"yes\"}}", "config.json: "
	    "calibration.enabled: expected a boolean, not a string",
	    "a string for a boolean");
	bad("{\"calibration\": {\"every\": 1}}", "config.json: "
	    "calibration.every: unknown key", "unknown calibration key");
	bad("{\"stats\": {\"fdr_method\": true}}", "config.json: "
	    "stats.fdr_method: expected a string, not a boolean",
	    "boolean for a string");
	bad("{\"stats\": {\"layout_control\": \"sometimes\"}}",
	    "config.json: stats.layout_control: \"sometimes\" is not one of "
	    "\"real-time\", \"always\" or \"never\"", "an unknown layout control");
	bad("{\"api\": {\"listen\": \"8080\"}}", "config.json: api.listen: "
	    "not HOST:PORT (an IPv4 address, [IPv6] or localhost, and a port "
	    "0-65535)", "listen without host");
	bad("{\"api\": {\"listen\": \"127.0.0.1:99999\"}}", "config.json: "
	    "api.listen: not HOST:PORT (an IPv4 address, [IPv6] or "
	    "localhost, and a port 0-65535)", "port out of range");
	bad("{\"api\": {\"tokens\": [{\"name\": \"x\", "
	    "\"value\": \"short\"}]}}",
	    "config.json: api.tokens[0].value: token too short (at least 16 "
	    "characters, no blanks)", "short token");
	bad("{\"api\": {\"tokens\": [{\"name\": \"x\"}]}}", "config.json: "
	    "api.tokens[0]: needs exactly one of \"value\" and \"file\"",
	    "token without value");
	bad("{\"api\": {\"tokens\": [{\"name\": \"x\", \"file\": "
	    "\"/nonexistent/token\"}]}}", "config.json: api.tokens[0].file: "
	    "/nonexistent/token: No such file or directory",
	    "missing token file");
	bad("{\"arches\": {\"ppc64\": {}}}", "config.json: arches.ppc64: "
	    "unknown architecture (\"x86_64\" or \"arm64\")",
	    "unknown arch");
	bad("{\"arches\": {\"x86_64\": {\"base_config\": \"allyesconfig\"}}}",
	    "config.json: arches.x86_64.base_config: \"allyesconfig\" is not "
	    "one of \"tinyconfig\" or \"defconfig\"", "bad base config");
	bad("{\"arches\": {\"x86_64\": {\"fragments\": [\"a\", 3]}}}",
	    "config.json: arches.x86_64.fragments[1]: expected a string, not "
	    "an integer", "bad fragment");
	bad("{\"plans\": {\"x86_64\": {\"hvf\": \"p\"}}}", "config.json: "
	    "plans.x86_64.hvf: unknown key", "plan for unknown accel");
	bad("{\"lists\": [{\"name\": \"mm\"}]}", "config.json: lists[0]: "
	    "needs exactly one of \"feed_url\" and \"query_url\"",
	    "list without URL");
	bad("{\"lists\": [{\"name\": \"mm\", \"feed_url\": \"ftp://x/\"}]}",
	    "config.json: lists[0].feed_url: not an http:// or https:// URL",
	    "list with a bad URL");
	bad("{\"lists\": [{\"name\": \"mm\", \"feed_url\": \"https://x/\", "
	    "\"subject_filters\": [\"(\"]}]}", "config.json: "
	    "lists[0].subject_filters[0]: not a valid regular expression: "
	    "Unmatched ( or \\(", "bad regex");
	bad("{\"lists\": [{\"name\": \"mm\", \"feed_url\": \"https://x/\", "
	    "\"tree\": \"nope\"}]}", "config.json: lists[0].tree: no tree "
	    "named \"nope\"", "list of a missing tree");
	bad("{\"trees\": [{\"name\": \"t\", \"path\": \"/t\", \"lists\": "
	    "[\"nope\"]}]}", "config.json: trees[0].lists[0]: no list named "
	    "\"nope\"", "tree of a missing list");
	bad("{\"trees\": [{\"name\": \"t\", \"path\": \"/t\", \"refresh\": "
	    "{\"interval_s\": 60}}]}", "config.json: trees[0].refresh.remote: "
	    "required key missing", "refresh without remote");
	bad("{\"url_allowlist\": [\"https://lore.kernel.org\"]}",
	    "config.json: url_allowlist[0]: not an http(s) URL prefix ending "
	    "the host with '/' (e.g. https://lore.kernel.org/)",
	    "allowlist prefix without slash");
	bad("{\"mail\": {\"policy\": \"moderate\"}}", "config.json: "
	    "mail.smtp_url: required unless policy is \"outbox\"",
	    "moderate without SMTP");
	bad("{\"mail\": {\"smtp_url\": \"smtp://x\", \"policy\": \"list\"}}",
	    "config.json: mail.moderation_address: required unless policy is "
	    "\"outbox\"", "list policy without moderation address");
	bad("{\"mail\": {\"opt_in_lists\": [\"mm\"]}}", "config.json: "
	    "mail.opt_in_lists[0]: no list named \"mm\"",
	    "opt-in of a missing list");
	bad("{\"mail\": {\"smtp_url\": \"http://x\"}}", "config.json: "
	    "mail.smtp_url: not an smtp:// or smtps:// URL", "bad SMTP URL");
	bad("{\"database\": \"\"}", "config.json: database: empty path",
	    "empty path");
	bad("{\"state_dir\": \"a\\u0000b\"}", "config.json: state_dir: line 1 "
	    "column 24: NUL character (\\u0000) in a string",
	    "NUL in a string");
	bad("{\"trees\": []}", "config.json: trees: empty: no series could "
	    "be applied (leave the key out to run without a tree)",
	    "empty trees");
	bad("{\"plans\": {\"arm64\": {\"tcg\": \"/nonexistent/x.plan\"}}}",
	    "config.json: plans.arm64.tcg: /nonexistent/x.plan: No such file "
	    "or directory", "missing plan file");
	bad("{\"limits\": {\"api_connections\": 8}}", "config.json: "
	    "limits.api_connections: 8 is out of range (16 to 100000)",
	    "too few API connections");
	bad("{\"limits\": {\"api_header_timeout_s\": 0}}", "config.json: "
	    "limits.api_header_timeout_s: 0 is out of range (1 to 3600)",
	    "no header deadline");
}

/* Writes text to dir/name; 0 or -1. */
static int write_file(const char *dir, const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A plan the run stage could not use is refused at load, by its key. */
static void test_plans(void)
{
	char dir[] = "/tmp/t-config.XXXXXX", path[64], cmd[64];
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct config *cfg = NULL;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/config.json", dir);
	write_file(dir, "good.plan", "kregress-plan 1\nrun memset-order\n");
	write_file(dir, "bad.plan", "kregress-plan 1\nfrobnicate\n");
	write_file(dir, "semi.plan", "kregress-plan 1\nrun memset-order "
		   "--size-mb 4;\n");
	write_file(dir, "config.json", "{\"plans\": {\"x86_64\": "
		   "{\"kvm\": \"good.plan\", \"tcg\": \"bad.plan\"}}}");
	ok(config_load(path, &cfg, &err) == -1, "a plan with an unknown "
	   "directive: refused");
	strbuf_addf(&want, "%s: plans.x86_64.tcg: %s/bad.plan: ", path, dir);
	ok(!strncmp(err.buf, want.buf, want.len) && !strchr(err.buf, '\n'),
	   "... naming the key and the file: %s", err.buf);
	ok(strstr(err.buf, "line 2") != NULL, "... and the plan's line");
	config_free(cfg);
	cfg = NULL;

	strbuf_reset(&err);
	strbuf_reset(&want);
	write_file(dir, "config.json", "{\"plans\": {\"arm64\": "
		   "{\"kvm\": \"semi.plan\"}}}");
	ok(config_load(path, &cfg, &err) == -1, "a plan with a ';': refused");
	strbuf_addf(&want, "%s: plans.arm64.kvm: %s/semi.plan: '\"' or ';' "
		    "cannot go on the kernel command line", path, dir);
	is_str(err.buf, want.buf, "... as the run stage would");
	config_free(cfg);
	cfg = NULL;

	strbuf_reset(&err);
	strbuf_reset(&want);
	write_file(dir, "icount.plan", "kregress-plan 1\nclock instructions\n"
		   "run memset-order\n");
	write_file(dir, "config.json", "{\"plans\": {\"x86_64\": "
		   "{\"kvm\": \"icount.plan\"}}}");
	ok(config_load(path, &cfg, &err) == -1, "instruction time for kvm: "
	   "refused");
	strbuf_addf(&want, "%s: plans.x86_64.kvm: %s/icount.plan: \"clock "
		    "instructions\" needs an emulated (tcg) host; a kvm plan "
		    "keeps real time", path, dir);
	is_str(err.buf, want.buf, "... naming the key and the file");
	config_free(cfg);
	cfg = NULL;

	strbuf_reset(&err);
	write_file(dir, "config.json", "{\"plans\": {\"x86_64\": "
		   "{\"kvm\": \"good.plan\", \"tcg\": \"icount.plan\"}}}");
	if (!ok(config_load(path, &cfg, &err) == 0, "good plans load"))
		diag("error: %s", err.buf);
	config_free(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	strbuf_release(&err);
	strbuf_release(&want);
}

static void test_token_file(void)
{
	char dir[] = "/tmp/t-config.XXXXXX", path[64], json[256];
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/token", dir);
	f = fopen(path, "w");
	fputs("  0123456789abcdef0123  \nsecond line ignored\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/config.json", dir);
	snprintf(json, sizeof(json), "{\"api\": {\"tokens\": [{\"name\": "
		 "\"ci\", \"file\": \"token\"}]}}");
	f = fopen(path, "w");
	fputs(json, f);
	fclose(f);
	ok(config_load(path, &cfg, &err) == 0, "token file relative to the "
	   "config file");
	if (cfg)
		is_str(cfg->api.tokens[0].value, "0123456789abcdef0123",
		       "first line, trimmed");
	config_free(cfg);
	cfg = NULL;
	strbuf_reset(&err);
	ok(config_load("/nonexistent.json", &cfg, &err) == -1,
	   "missing file refused");
	is_str(err.buf, "/nonexistent.json: No such file or directory",
	       "missing file message");
	snprintf(json, sizeof(json), "rm -rf %s", dir);
	if (system(json))
		diag("cannot remove %s", dir);
	strbuf_release(&err);
}

/* The report stage's keys of the mail section. */
static void test_mail(void)
{
	struct config *cfg;

	cfg = good("{}", "mail defaults");
	if (cfg) {
		is_int(cfg->mail.recipients[REPORT_REGRESSION],
		       CONFIG_MAIL_TO_THREAD, "a regression goes to the thread");
		is_int(cfg->mail.recipients[REPORT_NO_CHANGE],
		       CONFIG_MAIL_TO_AUTHOR, "a clean result to the author");
		is_int(cfg->mail.recipients[REPORT_BUILD_FAILED],
		       CONFIG_MAIL_TO_AUTHOR, "a build failure to the author");
		ok(cfg->mail.moderate_significant, "significant reports are "
		   "moderated first");
		is_str(cfg->mail.dashboard_url, "http://127.0.0.1:8080/",
		       "the dashboard at api.listen");
		ok(!cfg->mail.smtp_require_tls && !cfg->mail.smtp_user &&
		   !cfg->mail.n_patchwork, "no TLS requirement, login or "
		   "patchwork");
	}
	config_free(cfg);
	cfg = good("{\"api\": {\"listen\": \"[::1]:9000\"}, \"mail\": {"
		   "\"recipients\": {\"no-change\": \"outbox\", "
		   "\"regression\": \"moderation\"}, \"moderate_significant\": "
		   "false, \"smtp_user\": \"bot\", \"smtp_password\": \"pw\", "
		   "\"smtp_require_tls\": true, \"patchwork\": [{\"url\": "
		   "\"https://patchwork.kernel.org/\", \"token\": \"abc\"}]}}",
		   "mail: recipients, login, patchwork");
	if (cfg) {
		is_int(cfg->mail.recipients[REPORT_NO_CHANGE],
		       CONFIG_MAIL_TO_OUTBOX, "recipients per kind");
		is_int(cfg->mail.recipients[REPORT_REGRESSION],
		       CONFIG_MAIL_TO_MODERATION, "... each its own");
		is_int(cfg->mail.recipients[REPORT_IMPROVEMENT],
		       CONFIG_MAIL_TO_THREAD, "... the others by default");
		ok(!cfg->mail.moderate_significant && cfg->mail.smtp_require_tls,
		   "booleans");
		is_str(cfg->mail.smtp_password, "pw", "SMTP login");
		is_str(cfg->mail.dashboard_url, "http://[::1]:9000/",
		       "an IPv6 listen address in brackets");
		ok(cfg->mail.n_patchwork == 1 &&
		   !strcmp(cfg->mail.patchwork[0].token, "abc"),
		   "a patchwork instance and its token");
	}
	config_free(cfg);
	cfg = good("{\"api\": {\"listen\": \"127.0.0.1:0\"}}",
		   "an API on port 0");
	if (cfg) {
		config_dashboard_port(cfg, 4321);
		is_str(cfg->mail.dashboard_url, "http://127.0.0.1:4321/",
		       "the dashboard takes the port the API got");
	}
	config_free(cfg);
	cfg = good("{\"api\": {\"listen\": \"127.0.0.1:0\"}, \"mail\": "
		   "{\"dashboard_url\": \"https://kr.example/\"}}",
		   "a dashboard of its own");
	if (cfg) {
		config_dashboard_port(cfg, 4321);
		is_str(cfg->mail.dashboard_url, "https://kr.example/",
		       "a configured dashboard_url stays");
	}
	config_free(cfg);
	bad("{\"mail\": {\"recipients\": {\"regresion\": \"thread\"}}}",
	    "config.json: mail.recipients.regresion: unknown key",
	    "a misspelt kind");
	bad("{\"mail\": {\"recipients\": {\"regression\": \"all\"}}}",
	    "config.json: mail.recipients.regression: \"all\" is not one of "
	    "\"outbox\", \"moderation\", \"author\" or \"thread\"",
	    "an unknown recipient");
	bad("{\"mail\": {\"moderate_significant\": 1}}", "config.json: "
	    "mail.moderate_significant: expected a boolean, not an integer",
	    "a number for a boolean");
	bad("{\"mail\": {\"dashboard_url\": \"ftp://x/\"}}", "config.json: "
	    "mail.dashboard_url: not an http(s) URL ending in '/'",
	    "a dashboard URL that is not http");
	bad("{\"mail\": {\"smtp_password\": \"pw\"}}", "config.json: "
	    "mail.smtp_user: required with a password", "a password alone");
	bad("{\"mail\": {\"patchwork\": [{\"url\": \"https://pw.org/\"}]}}",
	    "config.json: mail.patchwork[0]: needs one of \"token\" and "
	    "\"token_file\"", "patchwork without a token");
	bad("{\"mail\": {\"patchwork\": [{\"url\": \"https://pw.org\", "
	    "\"token\": \"t\"}]}}", "config.json: mail.patchwork[0].url: not "
	    "an http(s) URL ending in '/' (e.g. https://patchwork.kernel.org/)",
	    "a patchwork URL without its slash");
	bad("{\"mail\": {\"patchwork\": [{\"url\": \"https://pw.org/\", "
	    "\"token\": \"t\", \"token_file\": \"f\"}]}}", "config.json: "
	    "mail.patchwork[0]: needs at most one of \"token\" and "
	    "\"token_file\"", "a token twice");
}

int main(void)
{
	test_example();
	test_defaults();
	test_cache_dir();
	test_bad();
	test_plans();
	test_token_file();
	test_mail();
	return done_testing();
}
