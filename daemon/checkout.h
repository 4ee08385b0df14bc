/*
 * checkout.h - a commit of a tree checked out into a build worktree.
 *
 * Interim implementation through the git command-line tool; the apply
 * module's libgit2 worktree code replaces it when the branches merge, so
 * it is kept to these two calls.  A worktree is reused from build to build:
 * switching commits rewrites only the files that differ, so unchanged files
 * keep their mtimes and make rebuilds only what a patch touched.
 */
#ifndef KREGRESS_CHECKOUT_H
#define KREGRESS_CHECKOUT_H

/*
 * Resolves rev (a branch, tag, abbreviated or full id) in the repository at
 * tree to a full commit id in commit[41].  Returns 0, or -1 (logged) if the
 * tree is not a repository or rev names no commit.
 */
int checkout_resolve(const char *tree, const char *rev, char commit[41]);

/*
 * Makes dir a worktree of tree with commit checked out (detached HEAD),
 * creating it on first use.  Returns 0 or -1 (logged).
 */
int checkout_worktree(const char *tree, const char *commit, const char *dir);

#endif
