/*
 * cli_plan.h - "kregress plan check": does a kernel have what a plan
 * needs?
 */
#ifndef KREGRESS_CLI_PLAN_H
#define KREGRESS_CLI_PLAN_H

#define CLI_PLAN_CHECK_USAGE "plan check [--config .config] PLAN..."

/*
 * A cli_command.  Loads each plan (exit 1 with the reason if one cannot
 * be used); without --config prints the kernel options each plan needs,
 * one "CONFIG_X  why" a line; with --config checks that .config has them
 * all and prints what is missing (exit 1 if anything is).
 */
int cli_plan_check(int argc, char **argv);

#endif
