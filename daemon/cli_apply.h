/*
 * cli_apply.h - the apply module's subcommands (see cli.h for the
 * calling convention).
 */
#ifndef KREGRESS_CLI_APPLY_H
#define KREGRESS_CLI_APPLY_H

/* kregress tree import --tarball linux-source-X.tar.xz DIR */
int cli_tree_import(int argc, char **argv);

#endif
