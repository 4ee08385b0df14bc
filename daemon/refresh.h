/*
 * refresh.h - keeps the configured trees up to date: every tree with a
 * "refresh" object (trees[].refresh.remote, interval_s) is fetched from
 * its remote with tree_fetch() (libgit2, in tree.c) when the daemon's
 * refresh thread starts and then every interval_s seconds.  The fetched
 * branch lands in refs/remotes/kregress/<branch> of the tree, so new
 * base-commits become resolvable; configure trees[].branch as
 * "kregress/<branch>" for the branch fallback to follow the remote too.
 */
#ifndef KREGRESS_REFRESH_H
#define KREGRESS_REFRESH_H

#include <signal.h>

struct config;

/* Number of trees of cfg that have a refresh schedule. */
size_t refresh_count(const struct config *cfg);

/*
 * The daemon's refresh thread: refreshes each scheduled tree when due
 * (checking every 200 ms) until *stop becomes non-zero.  A failed fetch
 * is logged and tried again at the next interval.  Blocks in a fetch for
 * as long as the remote takes.  Returns 0.
 */
int refresh_run(const struct config *cfg, const volatile sig_atomic_t *stop);

#endif
