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

/*
 * The threads a list waits on (schema/0009_watch_pending.sql): an
 * incomplete series is held here, with the time it was first seen, until
 * it is queued or given up, so that a restart neither forgets it nor
 * starts its wait again.
 */
struct db_watch_pending {
	char *thread;		/* its key, a Message-ID */
	char *url;		/* a message URL of the thread */
	long long first_seen;	/* Unix seconds */
};

/*
 * Records that list waits on thread, seen at now: a thread already
 * waiting keeps its first_seen (and gets its url and last_checked).
 */
int db_watch_pending_add(struct db *db, const char *list, const char *thread,
			 const char *url, long long now);

/* *first_seen of thread on list, 0 when it is not waiting. */
int db_watch_pending_first_seen(struct db *db, const char *list,
				const char *thread, long long *first_seen);

/* thread no longer waits on list (gone, queued, given up). */
int db_watch_pending_remove(struct db *db, const char *list,
			    const char *thread);

/*
 * The threads waiting on list, oldest first, in *out (*n of them; free
 * with db_watch_pending_free()).
 */
int db_watch_pending_list(struct db *db, const char *list,
			  struct db_watch_pending **out, size_t *n);
void db_watch_pending_free(struct db_watch_pending *p, size_t n);

#endif
