/*
 * t-jobq.c - the job queue: claim order, leases and their expiry,
 * heartbeats, retry with exponential backoff, permanent failure, start-up
 * recovery, transactions shared with the caller, and no double claim by
 * concurrent processes on one file.  The queue's clock is replaced by a
 * variable so that timing is exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db.h"
#include "dbquery.h"
#include "jobq.h"
#include "tap.h"

static long long fake_now = 1000000;

static long long fake_clock(void)
{
	return fake_now;
}

static char dir[] = "/tmp/t-jobq.XXXXXX";

/* "state:last_error" of job id; q_str()'s buffer. */
static const char *job_state(struct db *db, long long id)
{
	return q_str(db, "SELECT state || ':' || ifnull(last_error, '') "
		     "FROM job WHERE id = %lld", id);
}

static struct db *open_db(const char *name)
{
	struct db *db = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (db_open(path, &db))
		return NULL;
	return db;
}

static void test_claim(struct db *db)
{
	struct job j1 = { 0 }, j2 = { 0 }, j3 = { 0 };
	struct jobq_counts c;
	long long id1, id2;

	ok(jobq_enqueue(db, "fetch", 0, NULL, &id1) == 0, "enqueue fetch");
	ok(jobq_enqueue(db, "build", 0, "x86_64", &id2) == 0,
	   "enqueue build for an arch");
	ok(id2 > id1, "ids increase");
	ok(jobq_counts(db, &c) == 0, "counts");
	is_int(c.queued, 2, "2 queued");
	is_int(c.ready, 2, "2 ready");

	is_int(jobq_claim(db, "A", 60, &j1), 1, "claim one");
	is_int(j1.id, id1, "oldest job first");
	is_str(j1.kind, "fetch", "kind");
	ok(j1.arch == NULL && j1.series_id == 0, "no arch, no series");
	is_int(j1.attempts, 1, "first attempt");
	is_int(j1.max_attempts, 5, "default max_attempts");
	is_int(jobq_claim(db, "B", 60, &j2), 1, "claim another");
	is_int(j2.id, id2, "second claimer gets the other job");
	is_str(j2.arch, "x86_64", "arch kept");
	is_int(jobq_claim(db, "C", 60, &j3), 0, "nothing left to claim");
	jobq_counts(db, &c);
	is_int(c.running, 2, "2 running");
	is_int(c.queued, 0, "0 queued");

	/* Heartbeats: only the owner can extend. */
	fake_now += 50;
	ok(jobq_heartbeat(db, j1.id, "B", 60) == -1,
	   "heartbeat by another owner refused");
	ok(jobq_heartbeat(db, j1.id, "A", 60) == 0, "heartbeat by owner");
	is_int(q_int(db, "SELECT lease_expires FROM job WHERE id = %lld",
		     j1.id), fake_now + 60, "lease extended to now + 60");

	/* j2 was not heartbeated: its lease expires, j1's does not. */
	fake_now += 20;
	int released = -1;
	ok(jobq_release_stale(db, NULL, &released) == 0, "sweep expired");
	is_int(released, 1, "one expired lease released");
	is_str(job_state(db, j2.id), "queued:", "expired job queued again");
	is_str(job_state(db, j1.id), "running:", "heartbeated job still "
	       "running");
	ok(jobq_finish(db, j2.id, "B") == -1,
	   "late finish by the old owner refused");
	is_int(jobq_claim(db, "C", 60, &j3), 1, "expired job claimed again");
	is_int(j3.id, j2.id, "same job");
	is_int(j3.attempts, 1, "the attempt the expired lease lost is not "
	       "counted");
	ok(jobq_finish(db, j3.id, "C") == 0, "new owner finishes it");
	ok(jobq_finish(db, j3.id, "C") == -1, "finishing twice refused");
	ok(jobq_finish(db, j1.id, "A") == 0, "finish j1");
	jobq_counts(db, &c);
	is_int(c.done, 2, "2 done");
	is_int(c.running, 0, "0 running");
	job_release(&j1);
	job_release(&j2);
	job_release(&j3);
	job_release(&j3);
}

static void test_backoff(struct db *db)
{
	static const int want[] = { 10, 20, 40, 60 };
	struct job j = { 0 };
	long long id;
	int i, r;

	jobq_set_backoff(10, 60);
	is_int(jobq_backoff_s(1), 10, "backoff after 1 attempt");
	is_int(jobq_backoff_s(3), 40, "backoff after 3 attempts");
	is_int(jobq_backoff_s(100), 60, "backoff capped");

	jobq_enqueue(db, "apply", 0, NULL, &id);
	for (i = 0; i < 4; i++) {
		long long t0 = fake_now;

		r = jobq_claim(db, "A", 60, &j);
		is_int(r, 1, "attempt %d claimed", i + 1);
		is_int(j.attempts, i + 1, "attempts = %d", i + 1);
		ok(jobq_fail(db, j.id, "A", "transient", 1) == 0,
		   "fail with retry");
		job_release(&j);
		is_str(job_state(db, id), "queued:transient",
		       "queued again with the reason");
		fake_now = t0 + want[i] - 1;
		is_int(jobq_claim(db, "A", 60, &j), 0,
		       "not ready 1 s before the backoff of %d s", want[i]);
		fake_now = t0 + want[i];
		job_release(&j);
	}
	is_int(jobq_claim(db, "A", 60, &j), 1, "attempt 5 claimed");
	is_int(j.attempts, 5, "attempts = 5 = max");
	ok(jobq_fail(db, j.id, "A", "still broken", 1) == 0,
	   "fail with retry on the last attempt");
	job_release(&j);
	is_str(job_state(db, id), "failed:still broken",
	       "no attempts left: failed with the last reason");
	fake_now += 100000;
	is_int(jobq_claim(db, "A", 60, &j), 0, "failed job never claimed");
	job_release(&j);

	jobq_enqueue(db, "apply", 0, NULL, &id);
	jobq_claim(db, "A", 60, &j);
	ok(jobq_fail(db, id, "B", "x", 0) == -1, "fail by non-owner refused");
	ok(jobq_fail(db, id, "A", "does not apply", 0) == 0,
	   "permanent failure");
	is_str(job_state(db, id), "failed:does not apply",
	       "permanent failure: failed at once");
	is_int(j.attempts, 1, "after one attempt");
	job_release(&j);
	jobq_set_backoff(30, 3600);
}

/* Daemon "old" claims the ready job and dies, times times; "new" starts. */
static void die_under(struct db *db, int times)
{
	int i, n;

	for (i = 0; i < times; i++) {
		struct job k = { 0 };

		jobq_claim(db, "old", 600, &k);
		job_release(&k);
		jobq_release_stale(db, "new", &n);
	}
}

static void test_recovery(struct db *db)
{
	struct job j = { 0 };
	long long id, id2;
	int released = -1;

	/* Daemon "old" dies holding a lease; daemon "new" starts. */
	jobq_enqueue(db, "build", 0, NULL, &id);
	is_int(jobq_claim(db, "old", 600, &j), 1, "old daemon claims");
	job_release(&j);
	jobq_enqueue(db, "build", 0, NULL, &id2);
	q_int(db, "UPDATE job SET max_attempts = 1 WHERE id = %lld", id2);
	is_int(jobq_claim(db, "old", 600, &j), 1, "old daemon claims a "
	       "single-attempt job");
	job_release(&j);
	ok(jobq_release_stale(db, NULL, &released) == 0 && released == 0,
	   "nothing expired yet");
	ok(jobq_release_stale(db, "new", &released) == 0,
	   "start-up release");
	is_int(released, 2, "both leases released");
	is_str(job_state(db, id), "queued:", "interrupted job re-queued");
	is_str(job_state(db, id2), "failed:lease lost 1 time (its daemon "
	       "stopped while running it; last old)",
	       "a job whose every attempt killed its daemon: failed, saying so");
	is_int(jobq_claim(db, "new", 600, &j), 1, "new daemon claims it");
	is_int(j.id, id, "the same job, not a copy");
	is_int(j.attempts, 1, "the attempt the dead daemon lost is not "
	       "counted");
	is_int(q_int(db, "SELECT count(*) FROM job WHERE kind = 'build' "
		     "AND id >= %lld", id), 2, "no job duplicated");

	/*
	 * Issue 15, item 11: a job that failed on its own 4 times of 5 and
	 * then lost its lease to restarts is not failed by them; one whose
	 * daemon died under it 5 times is.
	 */
	jobq_enqueue(db, "build", 0, NULL, &id2);
	q_int(db, "UPDATE job SET attempts = max_attempts - 1 WHERE id = "
	      "%lld", id2);
	die_under(db, 3);
	is_str(job_state(db, id2), "queued:", "4 attempts failed, then 3 "
	       "restarts under the last: still queued");
	is_int(q_int(db, "SELECT attempts FROM job WHERE id = %lld", id2), 4,
	       "still 4 attempts counted");
	q_int(db, "UPDATE job SET attempts = 0, leases_lost = 0 WHERE id = "
	      "%lld", id2);
	die_under(db, 5);
	is_str(job_state(db, id2), "failed:lease lost 5 times (its daemon "
	       "stopped while running it; last old)",
	       "its daemon died under it 5 times: failed, saying so");

	/* Clean give-back does not count the attempt. */
	ok(jobq_release(db, j.id, "new") == 0, "release own lease");
	is_str(job_state(db, id), "queued:", "queued again");
	job_release(&j);
	is_int(jobq_claim(db, "new", 600, &j), 1, "claim again");
	is_int(j.attempts, 1, "released attempt not counted");
	jobq_finish(db, j.id, "new");
	job_release(&j);
}

static void test_transaction(struct db *db)
{
	struct job j = { 0 };
	struct jobq_counts before, after;
	long long id;

	jobq_enqueue(db, "run", 0, NULL, &id);
	jobq_claim(db, "A", 60, &j);
	jobq_counts(db, &before);
	ok(db_begin(db) == 0, "outer transaction");
	ok(jobq_finish(db, j.id, "A") == 0, "finish inside it");
	ok(jobq_enqueue(db, "analyze", 0, NULL, NULL) == 0,
	   "enqueue inside it");
	ok(db_in_transaction(db), "still inside the caller's transaction");
	db_rollback(db);
	jobq_counts(db, &after);
	ok(before.running == after.running && before.queued == after.queued &&
	   before.done == after.done, "rollback undoes finish and enqueue");
	ok(db_begin(db) == 0 && jobq_finish(db, j.id, "A") == 0 &&
	   jobq_enqueue(db, "analyze", 0, NULL, NULL) == 0 &&
	   db_commit(db) == 0, "commit finish + enqueue");
	jobq_counts(db, &after);
	is_int(after.done, before.done + 1, "finish committed");
	is_int(after.queued, before.queued + 1, "enqueue committed");
	job_release(&j);
}

/* Several processes claim from one file: every job exactly once. */
static void test_concurrent(void)
{
	enum { NJOBS = 300, NPROC = 3 };
	struct db *db = open_db("concurrent.db");
	int fds[NPROC][2], seen[NJOBS + 1] = { 0 };
	int i, dup = 0, missing = 0, total = 0;

	if (!ok(db != NULL, "open concurrent.db"))
		return;
	jobq_set_clock(NULL);
	db_begin(db);
	for (i = 0; i < NJOBS; i++)
		jobq_enqueue(db, "fetch", 0, NULL, NULL);
	db_commit(db);
	db_close(db);

	for (i = 0; i < NPROC; i++) {
		if (pipe(fds[i]))
			return;
		if (fork() == 0) {
			struct db *cdb = open_db("concurrent.db");
			char owner[16];
			struct job j;
			FILE *out = fdopen(fds[i][1], "w");

			close(fds[i][0]);
			snprintf(owner, sizeof(owner), "p%d", i);
			while (cdb && jobq_claim(cdb, owner, 60, &j) == 1) {
				fprintf(out, "%lld\n", j.id);
				jobq_finish(cdb, j.id, owner);
				job_release(&j);
			}
			fclose(out);
			db_close(cdb);
			_exit(0);
		}
		close(fds[i][1]);
	}
	for (i = 0; i < NPROC; i++) {
		FILE *in = fdopen(fds[i][0], "r");
		long long id;
		int n = 0;

		while (fscanf(in, "%lld", &id) == 1) {
			if (id >= 1 && id <= NJOBS && seen[id]++)
				dup++;
			n++;
		}
		fclose(in);
		total += n;
		diag("process %d claimed %d jobs", i, n);
	}
	while (wait(NULL) > 0)
		;
	for (i = 1; i <= NJOBS; i++)
		missing += !seen[i];
	is_int(total, NJOBS, "%d claims for %d jobs", total, NJOBS);
	is_int(dup, 0, "no job claimed twice");
	is_int(missing, 0, "no job left unclaimed");
	jobq_set_clock(fake_clock);
}

int main(void)
{
	struct db *db;
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	jobq_set_clock(fake_clock);
	db = open_db("jobq.db");
	if (ok(db != NULL, "open")) {
		test_claim(db);
		test_backoff(db);
		test_recovery(db);
		test_transaction(db);
	}
	db_close(db);
	test_concurrent();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}
