/*
 * cli_series.h - the `series` subcommands of kregress(1).
 */
#ifndef KREGRESS_CLI_SERIES_H
#define KREGRESS_CLI_SERIES_H

/* kregress series parse FILE|URL [--json]; see cli_series.c. */
int cli_series_parse(int argc, char **argv);

#define CLI_SERIES_PARSE_USAGE \
	"series parse FILE|URL [--json] [--allow PREFIX]... " \
	"[--max-bytes N] [--max-messages N] [--timeout S]"

#endif
