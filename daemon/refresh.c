/*
 * refresh.c - scheduled refresh of the configured trees (see refresh.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "config.h"
#include "log.h"
#include "refresh.h"
#include "tree.h"

static int scheduled(const struct config_tree *t)
{
	return t->refresh_remote && t->refresh_interval_s > 0;
}

size_t refresh_count(const struct config *cfg)
{
	size_t i, n = 0;

	for (i = 0; i < cfg->n_trees; i++)
		n += scheduled(&cfg->trees[i]);
	return n;
}

int refresh_run(const struct config *cfg, const volatile sig_atomic_t *stop)
{
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	time_t *next;
	size_t i;

	if (!cfg->n_trees)
		return 0;
	next = xcalloc(cfg->n_trees, sizeof(*next));	/* 0: due now */
	while (!*stop) {
		for (i = 0; i < cfg->n_trees && !*stop; i++) {
			const struct config_tree *t = &cfg->trees[i];
			const char *br = t->branch ? t->branch : "master";

			/* "kregress/master" follows the remote's master */
			if (!strncmp(br, "kregress/", 9))
				br += 9;

			if (!scheduled(t) || time(NULL) < next[i])
				continue;
			if (!tree_fetch(t->path, t->refresh_remote, br))
				log_info("refresh", "tree %s: fetched %s %s "
					 "into refs/remotes/kregress/%s",
					 t->name, t->refresh_remote, br, br);
			else
				log_warn("refresh", "tree %s: fetch from %s "
					 "failed; next try in %d s", t->name,
					 t->refresh_remote,
					 t->refresh_interval_s);
			next[i] = time(NULL) + t->refresh_interval_s;
		}
		nanosleep(&tick, NULL);
	}
	free(next);
	return 0;
}
