/*
 * tree.h - kernel trees: import from Debian's linux-source tarball,
 * refresh from a remote, and long-lived build worktrees.
 *
 * tree.c is the second libgit2 wrapper of the apply module (apply.c
 * applies series; this file owns repositories and checkouts on disk).
 */
#ifndef KREGRESS_TREE_H
#define KREGRESS_TREE_H

#include <stddef.h>

/*
 * Initialises libgit2 for the life of the process, once; every libgit2
 * entry point of tree.c and apply.c calls it first.  libgit2 keeps a
 * state per thread (the last error), and a shutdown frees only the
 * calling thread's: when each call initialised and shut libgit2 down, the
 * last call under way dropped the state of every other thread still
 * running, a leak (kregressd's workers and tree refresher,
 * tests/unit/t-tree.c).  Never shut down, each thread's state is freed
 * when the thread ends.
 */
void tree_git_init(void);

/*
 * Makes dir a git repository with one commit holding the contents of
 * tarball (a linux-source-X.tar.xz: one top-level directory, stripped).
 * Debian's top-level .gitignore rule that ignores everything is dropped
 * from the committed .gitignore; every file of the tarball is committed.
 * The import is atomic (extracted next to dir, then renamed) and
 * idempotent: when dir already holds an import of the same tarball name,
 * nothing is done and *already is set to 1.  -1 (logged) on errors,
 * including a dir that exists but is not such an import.  Blocks for tens
 * of seconds on a kernel.
 */
int tree_import(const char *tarball, const char *dir, int *already);

/*
 * Fetches remote (a configured remote name or a URL) into repo_path and
 * points refs/remotes/kregress/<branch> at the fetched branch.  -1 logged.
 */
int tree_fetch(const char *repo_path, const char *remote,
	       const char *branch);

/*
 * Resolves rev (a branch, tag, abbreviated or full id, any revparse
 * expression) in the repository at repo_path to a full commit id in
 * out[41].  -1 (logged) if repo_path is not a repository or rev names no
 * commit.
 */
int tree_resolve(const char *repo_path, const char *rev, char out[41]);

struct tree_worktree;

/*
 * Opens the build worktree at wt_path of the repository at repo_path,
 * creating it (a linked git worktree, its HEAD detached at rev; the
 * repository keeps no branch of it) if it does not exist.  A worktree
 * whose creation was interrupted (wt_path empty, or its .git file
 * pointing to missing metadata, or no HEAD or index) is removed
 * and created again, and a stale entry for it in the repository's
 * worktree list is pruned; any other existing directory that is not a
 * repository is refused, never removed.  -1 logged.
 */
int tree_worktree_open(const char *repo_path, const char *wt_path,
		       const char *rev, struct tree_worktree **out);
void tree_worktree_free(struct tree_worktree *wt);

/*
 * Switches the worktree to rev (detached HEAD), rewriting only the files
 * that differ between the current HEAD commit and rev: every other file
 * keeps its mtime, so a kernel build in the worktree stays incremental.
 * Untracked files (build output) are left alone.  *n_changed (may be NULL)
 * gets the number of paths written or removed.  -1 logged.
 */
int tree_worktree_switch(struct tree_worktree *wt, const char *rev,
			 size_t *n_changed);

/* Hex id of the commit checked out in the worktree (HEAD). */
int tree_worktree_head(struct tree_worktree *wt, char out[41]);

#endif
