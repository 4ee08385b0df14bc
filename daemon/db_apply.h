/*
 * db_apply.h - what the apply stage reads and writes in SQLite: the
 * series' list, version and stored mbox in; the tree, base, per-patch
 * commits and methods, and the failing patch/file/hunk out (the columns
 * of schema/0002_apply.sql).  Functions join the caller's transaction
 * when one is open and return 0 or -1 (logged).
 */
#ifndef KREGRESS_DB_APPLY_H
#define KREGRESS_DB_APPLY_H

#include <stddef.h>

struct apply_base;
struct apply_result;
struct config_tree;
struct db;

/*
 * Records an application of series id on tree t: the tree row (created
 * or updated by name) becomes series.tree_id; base, base_source and
 * base_reason; for the patches that applied, patch.applied_commit and
 * apply_method (idx[i] = patch index of res->commits[i]); when res failed,
 * apply_failed_patch/file/hunk.  Earlier results of the series are
 * cleared first, so a re-run leaves only its own.  Call inside a
 * transaction.
 */
int db_apply_store(struct db *db, long long id, const struct config_tree *t,
		   const struct apply_base *base, const char *base_reason,
		   const struct apply_result *res, const int *idx);

#endif
