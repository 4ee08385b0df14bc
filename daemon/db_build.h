/*
 * db_build.h - the build stage's SQL: what it reads of an applied series
 * (tree, base, head commit) and the build rows it writes (0001 build +
 * 0003 columns) with their link to the series (0004 series_build).
 * Functions join the caller's transaction when one is open and return 0
 * or -1 (logged).
 *
 * A build row is shared by every series that builds its (commit, arch,
 * config); its record ends with db_build_finish() and never changes after:
 * a later series that reuses it (a cache hit, or a rebuild after the cache
 * lost it) records what it got on its own series_build row (0012), and
 * the functions below leave an ended row alone.
 */
#ifndef KREGRESS_DB_BUILD_H
#define KREGRESS_DB_BUILD_H

struct build_result;
#include "layout.h"

struct db;

struct db_build_source {
	long long tree_id;
	char *tree_path;	/* tree.path */
	char *base;		/* series.base_used */
	char *head;		/* applied_commit of the last patch */
};

void db_build_source_release(struct db_build_source *src);

/* Reads series id; -1 if it is missing (fields NULL when not applied). */
int db_build_source(struct db *db, long long id,
		    struct db_build_source *src);

/*
 * The build row of (commit, arch, config_key), created if missing, set to
 * status "building" (progress cleared) unless it ended, and linked to
 * series id as side ("base" | "patched") of its kernels of that layout.
 * *build_id receives the row id.
 */
int db_build_start(struct db *db, long long series_id, long long tree_id,
		   const char *commit, const char *arch,
		   const char *config_key, enum layout layout,
		   const char *side, long long *build_id);

/* Progress of a running build: objects compiled and expected (0 unknown). */
int db_build_progress(struct db *db, long long build_id, int compiled,
		      int expected);

/*
 * The final result res ("ok" | "failed") of build row build_id, for
 * series_id's side: whether the series got it from the cache and how long
 * its build took go on its series_build row; the rest on the build row,
 * unless that ended already.
 */
int db_build_finish(struct db *db, long long build_id, long long series_id,
		    const char *side, const struct build_result *res);

/* A build that produced no result: status "failed" with reason. */
int db_build_error(struct db *db, long long build_id, const char *reason);

/*
 * A build stopped with the daemon: status "interrupted" (not a result;
 * the job goes back to the queue and the next start builds it again).
 */
int db_build_interrupted(struct db *db, long long build_id);

#endif
