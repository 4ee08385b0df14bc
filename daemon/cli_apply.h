/*
 * cli_apply.h - the apply module's subcommands (see cli.h for the
 * calling convention).
 */
#ifndef KREGRESS_CLI_APPLY_H
#define KREGRESS_CLI_APPLY_H

/* kregress tree import --tarball linux-source-X.tar.xz DIR */
int cli_tree_import(int argc, char **argv);

/*
 * kregress tree fetch --tree DIR [--branch BR] REMOTE
 * Refreshes DIR from REMOTE (a remote name or URL) with libgit2: BR
 * (default master) lands in refs/remotes/kregress/BR.
 */
int cli_tree_fetch(int argc, char **argv);

/*
 * kregress tree worktree --tree DIR --rev REV WTDIR
 * Creates the build worktree WTDIR of DIR at REV, or switches it to REV
 * rewriting only the files that differ (their mtimes change, no other).
 */
int cli_tree_worktree(int argc, char **argv);

/*
 * kregress apply --tree DIR [--base REV | --branch BR] [--allow PREFIX]
 *		  [--json] [--no-fallback] FILE.mbox|URL
 * Without --base, the series' base-commit: when DIR has it, else BR
 * (default HEAD).  Prints the new commits, or where the series does not
 * apply; exit 0 applied, 1 not applied or error, 2 usage.
 */
int cli_apply(int argc, char **argv);
#define CLI_APPLY_USAGE "apply --tree DIR [--base REV | --branch BR] " \
	"[--allow URL-PREFIX] [--json] [--no-fallback] FILE.mbox|URL"

#endif
