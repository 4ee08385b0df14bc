/*
 * cli_plan.c - "kregress plan check" (see cli_plan.h): the run stage's
 * check of a kernel against its plan (plan_kconfig.h), by hand, for
 * whoever writes a plan or a config fragment.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_plan.h"
#include "log.h"
#include "plan_file.h"
#include "plan_kconfig.h"
#include "strbuf.h"

static void print_needs(const struct plan_file *pf)
{
	struct plan_kconfig_need needs[PLAN_KCONFIG_NEEDS_MAX];
	size_t n = plan_kconfig_needs(pf->plan, needs), i;

	printf("%s needs:\n", pf->path);
	for (i = 0; i < n; i++)
		printf("  CONFIG_%-24s %s\n", needs[i].option, needs[i].why);
}

int cli_plan_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf config = STRBUF_INIT;
	const char *config_path = NULL;
	int c, ret = CLI_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return cli_usage("plan check");
		config_path = optarg;
	}
	if (optind == argc)
		return cli_usage("plan check");
	if (config_path && strbuf_read_file(&config, config_path, 4 << 20))
		return CLI_FAILED;
	for (; optind < argc; optind++) {
		struct plan_file pf = { NULL, NULL, STRBUF_INIT };
		struct strbuf err = STRBUF_INIT, missing = STRBUF_INIT;

		if (plan_file_load(&pf, argv[optind], &err)) {
			error("plan", "%s", err.buf);
			ret = CLI_FAILED;
		} else if (!config_path) {
			print_needs(&pf);
		} else if (plan_kconfig_missing(pf.plan, config.buf,
						&missing)) {
			printf("%s: %s lacks %s\n", pf.path, config_path,
			       missing.buf);
			ret = CLI_FAILED;
		} else {
			printf("%s: %s has every option it needs\n", pf.path,
			       config_path);
		}
		plan_file_release(&pf);
		strbuf_release(&err);
		strbuf_release(&missing);
	}
	strbuf_release(&config);
	return ret;
}
