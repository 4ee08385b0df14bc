/*
 * db_watch.h - the series rows the list watcher writes.
 *
 * The watcher records each revision it finds once: queued (and its first
 * job started by the caller) when complete, or "incomplete" when its
 * missing patches never came.  The (msgid, version) pair is the durable
 * de-duplication: a daemon restart does not queue a series twice.
 * Functions join the caller's transaction when one is open and return 0
 * or -1 (logged).
 */
#ifndef KREGRESS_DB_WATCH_H
#define KREGRESS_DB_WATCH_H

struct db;

struct db_watch_series {
	const char *msgid;	/* cover letter's, else the first patch's */
	const char *list;	/* config list name */
	const char *subject;
	const char *author;	/* "Name <email>" */
	int version;
	int total;
	const char *change_id;	/* or NULL */
	const char *base_commit;	/* or NULL */
	const char *source_url;	/* the thread's message URL */
	const char *status;	/* "queued" or "incomplete" */
	const char *reason;	/* status_reason, or NULL */
};

/* *known = 1 when a series with msgid and version is already stored. */
int db_watch_series_known(struct db *db, const char *msgid, int version,
			  int *known);

/* Inserts the series row; *id receives its id. */
int db_watch_series_add(struct db *db, const struct db_watch_series *s,
			long long *id);

#endif
