/*
 * cli_compare.h - "kregress compare": samples or published summaries in,
 * verdicts out (see cli_compare.c for the input formats).
 */
#ifndef KREGRESS_CLI_COMPARE_H
#define KREGRESS_CLI_COMPARE_H

/* A cli_command run function: 0 ok, 1 failed (reported), 2 usage. */
int cli_compare(int argc, char **argv);

#endif
