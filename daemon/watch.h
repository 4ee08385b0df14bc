/*
 * watch.h - the list watcher: polls each configured list's public-inbox
 * Atom feed (or search query with &x=A) and queues every new complete
 * series once.
 *
 * One poll of a list: a conditional GET of the feed (If-None-Match /
 * If-Modified-Since from the previous answer; 304 ends the poll), the
 * entries not seen before (by Message-ID) that are patches passing the
 * list's subject filter, one thread fetch per series they belong to, then
 * watch_decide() (watch_rules.h): queue the complete ones whose patches
 * touch the list's paths (a series row plus its first pipeline job, in one
 * transaction), keep incomplete ones waiting for incomplete_wait_s from
 * when they were first seen (rows of the database: a restart keeps them
 * and their wait) and look at them again on every poll, and record those
 * still incomplete after the wait with status "incomplete".  The database makes it
 * idempotent: a revision (msgid, version) is stored once.
 *
 * watch_poll() blocks on the network (bounded by the fetch timeouts); the
 * daemon calls it from a worker thread, never from its event loop.
 */
#ifndef KREGRESS_WATCH_H
#define KREGRESS_WATCH_H

#include <signal.h>

struct config;
struct db;
struct watch;

struct watch_stats {
	int polled;		/* feeds fetched */
	int not_modified;	/* 304 answers */
	int entries;		/* new feed entries looked at */
	int threads;		/* threads fetched */
	int queued;		/* series queued */
	int waiting;		/* incomplete series waiting */
	int given_up;		/* recorded as incomplete */
	int skipped;		/* threads not for this list, or known */
	int errors;		/* feeds or threads that failed (logged) */
};

/*
 * Builds the watcher for cfg's lists (cfg must outlive it).  Returns 0,
 * or -1 (logged) when a filter does not compile.
 */
int watch_new(const struct config *cfg, struct watch **out);
void watch_free(struct watch *w);

/*
 * Polls every list whose poll interval has passed at time now (Unix
 * seconds), or every list when force is set, and adds what it did to st.
 * Returns 0; -1 only when the database fails (feed and thread errors are
 * counted in st->errors and retried at the next poll).
 */
int watch_poll(struct watch *w, struct db *db, long long now, int force,
	       struct watch_stats *st);

/*
 * The watcher as a daemon thread runs it: opens its own connection to
 * cfg->database, polls the lists as their intervals come due (checking
 * every second), and returns when *stop becomes non-zero or, if max_s > 0,
 * after max_s seconds.  Totals are added to st (optional).  Returns 0, or
 * -1 (logged) when the database cannot be opened or fails.  The daemon
 * starts it with pthread_create() after loading the configuration, sets
 * *stop and joins it on shutdown (and restarts it on a reload).
 */
int watch_run(const struct config *cfg, const volatile sig_atomic_t *stop,
	      int max_s, struct watch_stats *st);

#endif
