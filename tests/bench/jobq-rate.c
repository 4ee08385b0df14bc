/*
 * jobq-rate.c - how many jobs per second the queue hands out and retires.
 *
 * A file database in WAL mode (as the daemon uses it) under /tmp, holding
 * 100,000 finished jobs of the past (a queue's history only grows), then N
 * jobs are enqueued, then one worker claims and finishes them one by one,
 * each step its own transaction as in the daemon.  A second pass does what
 * the pipeline does per stage: claim, then finish and enqueue the next job
 * in one transaction.  Prints the measured rates; it judges nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "jobq.h"
#include "log.h"
#include "now.h"

#define HISTORY 100000

static void print_load(void)
{
	double load[3];

	if (getloadavg(load, 3) == 3)
		printf("jobq-rate: load average %.2f (other processes share "
		       "the CPUs; jobs per CPU-second estimates the rate on an "
		       "idle machine)\n", load[0]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;
	char dir[] = "/tmp/jobq-rate.XXXXXX", path[64], cmd[96];
	struct db *db = NULL;
	struct job j;
	double t0, t1, c0, c1;
	int i, done = 0, ret = 1;

	log_set_level(LOG_LEVEL_WARN);
	if (n <= 0 || !mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/bench.db", dir);
	if (db_open(path, &db))
		goto out;

	/* History: 100,000 done jobs in one transaction. */
	if (db_begin(db))
		goto out;
	for (i = 0; i < HISTORY; i++)
		if (jobq_enqueue(db, "report", 0, NULL, NULL))
			goto out;
	if (db_exec(db, "UPDATE job SET state = 'done'") || db_commit(db))
		goto out;

	t0 = now_s();
	for (i = 0; i < n; i++)
		if (jobq_enqueue(db, "fetch", 0, NULL, NULL))
			goto out;
	t1 = now_s();
	printf("jobq-rate: enqueue: %d jobs in %.3f s = %.0f jobs/s\n",
	       n, t1 - t0, n / (t1 - t0));

	t0 = now_s();
	c0 = now_cpu_s();
	while (jobq_claim(db, "bench", 60, &j) == 1) {
		if (jobq_finish(db, j.id, "bench"))
			goto out;
		job_release(&j);
		done++;
	}
	t1 = now_s();
	c1 = now_cpu_s();
	if (done != n) {
		fprintf(stderr, "jobq-rate: %d of %d jobs done\n", done, n);
		goto out;
	}
	printf("jobq-rate: claim+finish: %d jobs in %.3f s = %.0f jobs/s "
	       "(file DB, WAL, one transaction per step); %.3f CPU-s = "
	       "%.0f jobs per CPU-second\n", n, t1 - t0, n / (t1 - t0),
	       c1 - c0, n / (c1 - c0));

	/* Pipeline style: each job's finish enqueues its successor. */
	if (jobq_enqueue(db, "apply", 0, NULL, NULL))
		goto out;
	done = 0;
	t0 = now_s();
	c0 = now_cpu_s();
	while (done < n && jobq_claim(db, "bench", 60, &j) == 1) {
		if (db_begin(db) || jobq_finish(db, j.id, "bench") ||
		    jobq_enqueue(db, "apply", 0, NULL, NULL) ||
		    db_commit(db))
			goto out;
		job_release(&j);
		done++;
	}
	t1 = now_s();
	c1 = now_cpu_s();
	printf("jobq-rate: claim+finish+enqueue-next: %d jobs in %.3f s = "
	       "%.0f jobs/s (%d jobs in the table); %.0f jobs per "
	       "CPU-second\n", done, t1 - t0, done / (t1 - t0),
	       HISTORY + 2 * n + 1,
	       done / (c1 - c0));
	print_load();
	ret = 0;
out:
	db_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return ret;
}
