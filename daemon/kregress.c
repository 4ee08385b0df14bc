/*
 * kregress.c - the command-line tool: a thin dispatcher over the modules.
 *
 * Every pipeline stage is a subcommand that works without the daemon
 * (series parse, apply, build, boot, compare, bench, tree import, host
 * probe, analyze, report show); submit, status, watch, results and report
 * release talk to kregressd's API.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	const struct cli_command *c;
	int words;

	if (argc < 2) {
		cli_usage_all(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_usage_all(stdout);
		return CLI_OK;
	}
	c = cli_lookup(argc, argv, &words);
	if (!c) {
		fprintf(stderr, "kregress: unknown command '%s'\n", argv[1]);
		cli_usage_all(stderr);
		return CLI_USAGE;
	}
	return c->run(argc - words, argv + words);
}
