/*
 * cli_build.h - "kregress build --tree DIR --rev REV --arch A [--out DIR]".
 */
#ifndef KREGRESS_CLI_BUILD_H
#define KREGRESS_CLI_BUILD_H

#define CLI_BUILD_USAGE \
	"build --tree DIR --rev REV --arch x86_64|arm64 [--out DIR] " \
	"[--base REV] [--base-config T|FILE] [--config-fragment FILE]... " \
	"[--config-dir DIR] [--cache DIR] [--user U] [--timeout S] " \
	"[--log-limit BYTES] [--disk-limit MIB] [--aligned] " \
	"[--no-ccache] [-j N] [--json]"

/* A cli_command: builds one kernel, prints the result; 0 if it built. */
int cli_build(int argc, char **argv);

#endif
