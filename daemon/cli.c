/*
 * cli.c - the command table of kregress(1), its usage lines and the
 * lookup of a command by its words (see cli.h).  In the library with the
 * cli_*.c that call cli_usage(), not in kregress.c: a library file whose
 * symbol only the program's main file defines links into nothing else.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_analyze.h"
#include "cli_apply.h"
#include "cli_bench.h"
#include "cli_boot.h"
#include "cli_build.h"
#include "cli_calibrate.h"
#include "cli_client.h"
#include "cli_compare.h"
#include "cli_initramfs.h"
#include "cli_plan.h"
#include "cli_series.h"
#include "cli_watch.h"

const struct cli_command cli_commands[] = {
	{ "submit", cli_submit,
	  "submit [--server URL] [-c CONFIG] [--token T] [--json] URL|FILE" },
	{ "status", cli_status,
	  "status [--server URL] [-c CONFIG] [--json] [--before ID] [ID]" },
	{ "watch", cli_watch,
	  "watch [--server URL] [-c CONFIG] [--json] [--interval S] ID" },
	{ "results", cli_results,
	  "results [--server URL] [-c CONFIG] [--json] ID" },
	{ "analyze", cli_analyze, CLI_ANALYZE_USAGE },
	{ "report show", cli_report_show, CLI_REPORT_SHOW_USAGE },
	{ "report release", cli_report_release,
	  "report release [--server URL] [-c CONFIG] [--token T] [--json] ID" },
	{ "compare", cli_compare,
	  "compare [--json] [OPTIONS] BASE NEW | --base M,SD,N --new M,SD,N" },
	{ "series parse", cli_series_parse, CLI_SERIES_PARSE_USAGE },
	{ "apply", cli_apply, CLI_APPLY_USAGE },
	{ "tree fetch", cli_tree_fetch, "tree fetch --tree DIR [--branch BR] REMOTE" },
	{ "tree worktree", cli_tree_worktree, "tree worktree --tree DIR --rev REV WTDIR" },
	{ "tree import", cli_tree_import, "tree import --tarball linux-source-X.tar.xz DIR" },
	{ "lists poll", cli_lists_poll, CLI_LISTS_POLL_USAGE },
	{ "lists watch", cli_lists_watch, CLI_LISTS_WATCH_USAGE },
	{ "bench", cli_bench,
	  "bench --native PLAN [--workloads DIR] [--json]" },
	{ "boot", cli_boot,
	  "boot --kernel IMG --arch A --initrd FILE [--plan PLAN] [--host URI] "
	  "[--accel kvm|tcg] [--memory MIB] [--vcpus N] [--timeout S] "
	  "[--cmdline ARGS] [--log FILE]" },
	{ "ab", cli_ab,
	  "ab --base IMG --patched IMG --initrd FILE --arch A --plan PLAN "
	  "--log-dir DIR [--host URI]... [--capacity N] [--accel kvm|tcg] "
	  "[--seed N] [--budget N] [--pairs N] [--timeout S] "
	  "[--threshold PCT]" },
	{ "host probe", cli_host_probe,
	  "host probe URI [--kernel IMG --initrd FILE] [--arch A] "
	  "[--kvm-timeout S] [--tcg-timeout S]" },
	{ "host reap", cli_host_reap, "host reap [URI]" },
	{ "calibrate", cli_calibrate, CLI_CALIBRATE_USAGE },
	{ "build", cli_build, CLI_BUILD_USAGE },
	{ "initramfs", cli_initramfs, CLI_INITRAMFS_USAGE },
	{ "plan check", cli_plan_check, CLI_PLAN_CHECK_USAGE },
	{ NULL, NULL, NULL },
};

int cli_usage(const char *name)
{
	const struct cli_command *c;

	for (c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			fprintf(stderr, "usage: kregress %s\n", c->usage);
	return CLI_USAGE;
}

void cli_usage_all(FILE *f)
{
	const struct cli_command *c;

	fprintf(f, "usage: kregress <command> [options]\n\ncommands:\n");
	for (c = cli_commands; c->name; c++)
		fprintf(f, "  kregress %s\n", c->usage);
}

const struct cli_command *cli_lookup(int argc, char **argv, int *words)
{
	const struct cli_command *c;
	char pair[128];

	if (argc >= 3) {
		snprintf(pair, sizeof(pair), "%s %s", argv[1], argv[2]);
		for (c = cli_commands; c->name; c++)
			if (!strcmp(c->name, pair)) {
				*words = 2;
				return c;
			}
	}
	for (c = cli_commands; c->name; c++)
		if (!strcmp(c->name, argv[1])) {
			*words = 1;
			return c;
		}
	return NULL;
}

