/*
 * cli_apply.c - "kregress tree import" and "kregress apply".
 *
 * The commands of the apply module, usable without the daemon.  apply
 * reads a series with the intake parser (mail.h, series.h) and converts
 * each patch into the apply module's own struct apply_patch, so that
 * apply.c does not depend on the mail parser.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "cli.h"
#include "cli_apply.h"
#include "log.h"
#include "tree.h"

int cli_tree_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tarball", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tarball = NULL;
	int c, already;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:", longopts, NULL)) != -1) {
		if (c == 't')
			tarball = optarg;
		else
			return cli_usage("tree import");
	}
	if (!tarball || optind != argc - 1)
		return cli_usage("tree import");
	if (tree_import(tarball, argv[optind], &already) < 0)
		return CLI_FAILED;
	if (already)
		printf("%s: already imported from %s, nothing to do\n",
		       argv[optind], tarball);
	else
		printf("%s: imported %s\n", argv[optind], tarball);
	return CLI_OK;
}
