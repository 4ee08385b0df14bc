/*
 * kregress.c - the command-line tool: a thin dispatcher over the modules.
 *
 * Every pipeline stage is a subcommand that works without the daemon
 * (series parse, apply, build, boot, compare, bench, tree import, host
 * probe); submit, status, watch and results talk to kregressd's API.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_build.h"
#include "cli_initramfs.h"

const struct cli_command cli_commands[] = {
	{ "build", cli_build, CLI_BUILD_USAGE },
	{ "initramfs", cli_initramfs, CLI_INITRAMFS_USAGE },
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

static void usage_all(FILE *f)
{
	const struct cli_command *c;

	fprintf(f, "usage: kregress <command> [options]\n\ncommands:\n");
	for (c = cli_commands; c->name; c++)
		fprintf(f, "  kregress %s\n", c->usage);
}

/* A command name is one word, or two for the grouped ones (series parse). */
static const struct cli_command *lookup(int argc, char **argv, int *words)
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

int main(int argc, char **argv)
{
	const struct cli_command *c;
	int words;

	if (argc < 2) {
		usage_all(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_all(stdout);
		return CLI_OK;
	}
	c = lookup(argc, argv, &words);
	if (!c) {
		fprintf(stderr, "kregress: unknown command '%s'\n", argv[1]);
		usage_all(stderr);
		return CLI_USAGE;
	}
	return c->run(argc - words, argv + words);
}
