/*
 * cli_bench.h - `kregress bench --native PLAN`: runs a workload plan on
 * this host, through the same /init and console parser as a guest boot.
 */
#ifndef KREGRESS_CLI_BENCH_H
#define KREGRESS_CLI_BENCH_H

/* The subcommand (see cli.h for the contract of a command). */
int cli_bench(int argc, char **argv);

#endif
