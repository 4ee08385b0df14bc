/*
 * cli_analyze.h - "kregress analyze": the analyze stage by hand, on a
 * database, without the daemon.
 */
#ifndef KREGRESS_CLI_ANALYZE_H
#define KREGRESS_CLI_ANALYZE_H

#define CLI_ANALYZE_USAGE \
	"analyze [-c CONFIG] [--db PATH] [--json] ID"

int cli_analyze(int argc, char **argv);

#endif
