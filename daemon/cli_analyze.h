/*
 * cli_analyze.h - "kregress analyze" and "kregress report show": the
 * analyze and report stages by hand, on a database, without the daemon.
 */
#ifndef KREGRESS_CLI_ANALYZE_H
#define KREGRESS_CLI_ANALYZE_H

#define CLI_ANALYZE_USAGE \
	"analyze [-c CONFIG] [--db PATH] [--json] ID"

#define CLI_REPORT_SHOW_USAGE \
	"report show [-c CONFIG] [--db PATH] ID"

int cli_analyze(int argc, char **argv);

/*
 * Prints the mails the report stage would store for the series now, as
 * an mbox on stdout; nothing is stored or sent.  Exit 1 with the reason
 * when the series has nothing to report.
 */
int cli_report_show(int argc, char **argv);

#endif
