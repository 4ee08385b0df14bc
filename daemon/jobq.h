/*
 * jobq.h - the work queue, kept in the SQLite job table.
 *
 * A job is claimed by one owner (a daemon instance, "host:pid:start") for
 * a lease of lease_s seconds; the owner extends the lease with heartbeats
 * while it works.  A failed job is retried after an exponential backoff
 * until max_attempts; after that, or when it fails permanently, it stays
 * in state "failed" with its last error.  At start-up the daemon releases
 * every lease it does not hold, so a job interrupted by kill -9 runs again
 * and nothing is lost or duplicated.
 *
 * All functions take a struct db owned by the calling thread and return 0
 * or -1 (logged) unless stated otherwise.
 */
#ifndef KREGRESS_JOBQ_H
#define KREGRESS_JOBQ_H

struct db;

struct job {
	long long id;
	char *kind;		/* "fetch", "apply", "build", ... */
	long long series_id;	/* 0 = not tied to a series */
	char *arch;		/* the arch of a per-arch stage's job
				 * ("x86_64"), NULL for the whole series */
	int attempts;		/* including the current one */
	int max_attempts;
};

/* Frees the strings of a claimed job; accepts a zeroed struct. */
void job_release(struct job *job);

/*
 * The kind of a new series' first job: whatever queues a series (a
 * submission, the watcher) queues this in the same transaction, and the
 * stage table (stages.c) starts with it.
 */
#define JOBQ_KIND_FIRST	"fetch"

/* The attempts of a job queued by jobq_enqueue() (the column's default). */
#define JOBQ_MAX_ATTEMPTS	5

/* Queues a job (arch may be NULL), ready now.  *id (optional) receives
 * its id. */
int jobq_enqueue(struct db *db, const char *kind, long long series_id,
		 const char *arch, long long *id);

/* The same, with max_attempts attempts (> 0) before the job fails. */
int jobq_enqueue_attempts(struct db *db, const char *kind,
			  long long series_id, const char *arch,
			  int max_attempts, long long *id);

/*
 * Claims the ready job (queued and not_before <= now) that has been ready
 * longest (smallest not_before, then smallest id) for owner.
 * Returns 1 with *job filled, 0 when nothing is ready, -1 on error.
 */
int jobq_claim(struct db *db, const char *owner, int lease_s,
	       struct job *job);

/* Extends the lease; -1 if the job is no longer leased by owner. */
int jobq_heartbeat(struct db *db, long long id, const char *owner,
		   int lease_s);

/* Marks the job done. */
int jobq_finish(struct db *db, long long id, const char *owner);

/*
 * Records a failure with its reason.  With retry set and attempts left,
 * the job is queued again after min(base * 2^(attempts-1), max) seconds;
 * otherwise it ends in state "failed".
 */
int jobq_fail(struct db *db, long long id, const char *owner,
	      const char *reason, int retry);

/*
 * Re-queues every running job whose lease is not held by owner (start-up
 * recovery) or has expired; owner NULL releases only expired leases (the
 * periodic sweep).  A released job keeps its attempt count, so a job that
 * keeps killing its daemon stops after max_attempts: when its attempts are
 * used up it ends in "failed" with the reason "lease lost ..." instead.
 * *released (optional) receives the number of jobs re-queued or failed.
 */
int jobq_release_stale(struct db *db, const char *owner, int *released);

/*
 * Gives a claimed job back without counting the attempt (the owner stops
 * cleanly, e.g. on SIGTERM): queued again, ready now.
 */
int jobq_release(struct db *db, long long id, const char *owner);

/*
 * Every function above may run inside the caller's db_begin()/db_commit()
 * and then becomes part of that transaction (the pipeline finishes a job,
 * changes its series and enqueues the next stage atomically); outside one,
 * each runs in its own short BEGIN IMMEDIATE transaction.
 */

/* Backoff of jobq_fail(): base and cap in seconds (default 30 and 3600). */
void jobq_set_backoff(int base_s, int max_s);

/* Delay before the next attempt after `attempts` attempts failed. */
int jobq_backoff_s(int attempts);

/*
 * Test hook: the clock the queue reads (Unix seconds); NULL restores
 * time().  Set it before any thread uses the queue.
 */
void jobq_set_clock(long long (*now)(void));

struct jobq_counts {
	long long queued, running, done, failed;
	long long ready;	/* queued with not_before <= now */
};

int jobq_counts(struct db *db, struct jobq_counts *out);

#endif
