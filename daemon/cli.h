/*
 * cli.h - the subcommands of kregress(1).
 *
 * Each subcommand lives in the file of the module it drives (cli_*.c) and
 * has the signature of a main(): it parses its own options and returns the
 * process exit status: 0 success, 1 the operation failed (already reported
 * on stderr), 2 usage error.
 */
#ifndef KREGRESS_CLI_H
#define KREGRESS_CLI_H

#include <stdio.h>

#define CLI_OK		0
#define CLI_FAILED	1
#define CLI_USAGE	2

struct cli_command {
	const char *name;	/* "submit", or "series parse" for a pair */
	int (*run)(int argc, char **argv);	/* argv[0] is the command */
	const char *usage;	/* one line, after "kregress " */
};

/* Every command (cli.c), terminated by a NULL name. */
extern const struct cli_command cli_commands[];

/* Prints "usage: kregress <usage>" for the command and returns CLI_USAGE. */
int cli_usage(const char *name);

/* Prints the usage lines of every command to f. */
void cli_usage_all(FILE *f);

/*
 * The command argv[1] (or argv[1] and argv[2] for the grouped ones, such
 * as "series parse") names, with *words set to how many words its name
 * took; NULL when none does.
 */
const struct cli_command *cli_lookup(int argc, char **argv, int *words);

#endif
