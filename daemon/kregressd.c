/*
 * kregressd.c - the daemon: configuration, start-up recovery, the event
 * loop, and the worker threads that run the pipeline's jobs.
 *
 * One event loop on the main thread waits in poll() on a signalfd
 * (SIGTERM/SIGINT stop, SIGHUP reloads) and a timerfd (heartbeats for the
 * jobs the workers hold, and the sweep of expired leases).  Each worker
 * thread has its own database connection and its own lease owner name
 * ("host:pid:start/wN"); it claims a job, runs it through pipeline.c and
 * claims the next, or sleeps up to a second when the queue is empty.
 * Stage work that takes long (make, qemu) runs in child processes started
 * by the stages, never on the loop.
 *
 * The list watcher (watch_run()) runs on a thread of its own while the
 * configuration has lists; it opens its own connection and queues the
 * series it finds.  The tree refresher (refresh_run()) likewise while a
 * tree has a refresh schedule.  SIGHUP stops and joins both (one may be
 * inside a fetch: that waits for the fetch to end) and starts them on the
 * new configuration; stopping the daemon stops them alongside the
 * workers.
 *
 * Stopping: the loop sets the stop flag; a worker inside a stage gets
 * PIPELINE_INTERRUPTED and gives its job back (not counted as an attempt)
 * in its own transaction, then exits.  A worker that does not stop within
 * the grace period has its lease released by the main thread; the owner
 * check of every queue call makes that safe against the worker's own late
 * writes.  After kill -9 nothing is released, and the next start-up does
 * it instead (pipeline_recover()).
 *
 * The timer also asks calibrate_schedule() whether the daemon is idle
 * and a host due for an A/A calibration: that queues a calibrate job,
 * which a worker runs like any other.
 *
 * Test hooks: KREGRESS_TEST_LEASE_S sets the lease (default 60 s; the
 * heartbeat runs every third of it), so that a test can watch heartbeats
 * keep a job that runs longer than its lease; KREGRESS_TEST_BACKOFF_S
 * sets the retry backoff's base (default 30 s, capped at 4 times it
 * then), so that a test can see a mail retried while its SMTP server is
 * down.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "api.h"
#include "calibrate.h"
#include "config.h"
#include "crash.h"
#include "db.h"
#include "fs.h"
#include "hosts.h"
#include "jobq.h"
#include "log.h"
#include "pipeline.h"
#include "refresh.h"
#include "stages.h"
#include "watch.h"
#include "strbuf.h"

#define LEASE_DEFAULT_S		60
#define SHUTDOWN_GRACE_S	10
#define IDLE_WAIT_MS		1000
#define EXIT_CONFIG		2

struct worker {
	pthread_t thread;
	int index;
	int started;
	char owner[128];
	pthread_mutex_t lock;	/* protects job_id */
	long long job_id;	/* the job being run, 0 = none */
};

static int lease_s = LEASE_DEFAULT_S;	/* heartbeats every lease_s / 3 */
static volatile sig_atomic_t stopping;
static int workers_stuck;	/* still running after the grace period */
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

/*
 * The running configuration.  A reload swaps the pointer; the configs it
 * replaces stay allocated until exit, since a worker may still read one.
 */
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config *config_cur;
static struct config **config_old;
static size_t n_config_old, alloc_config_old;

/* The JSON API (api.c), serving on its own threads; NULL until started. */
static struct api *api;

/*
 * Background threads that read the config they were started with: the
 * list watcher (watch.c), while the configuration has lists, and the
 * tree refresher (refresh.c), while a tree has a refresh schedule.  A
 * reload stops and joins them before starting them again on the new
 * configuration.
 */
struct bg {
	const char *name;
	pthread_t thread;
	int started;
	volatile sig_atomic_t stop;
	const struct config *cfg;
	size_t (*count)(const struct config *cfg);
	int (*run)(const struct config *cfg,
		   const volatile sig_atomic_t *stop);
};

static size_t lists_count(const struct config *cfg)
{
	return cfg->n_lists;
}

static int watch_loop(const struct config *cfg,
		      const volatile sig_atomic_t *stop)
{
	return watch_run(cfg, stop, 0, NULL);
}

static struct bg bgs[] = {
	{ .name = "list watcher", .count = lists_count, .run = watch_loop },
	{ .name = "tree refresher", .count = refresh_count,
	  .run = refresh_run },
};
#define N_BG (sizeof(bgs) / sizeof(bgs[0]))

static const struct config *config_get(void)
{
	const struct config *cfg;

	pthread_mutex_lock(&config_lock);
	cfg = config_cur;
	pthread_mutex_unlock(&config_lock);
	return cfg;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: kregressd -c CONFIG [-n] [-f]\n"
		"  -c CONFIG  the JSON configuration file\n"
		"  -n         check the configuration and exit (0 if OK, "
		"2 if not)\n"
		"  -f         prefix log lines with a timestamp (when run "
		"by hand;\n"
		"             the journal adds its own)\n");
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pipeline_ctx ctx = {
		.owner = w->owner,
		.lease_s = lease_s,
		.stop = &stopping,
		.stages = stage_table,
	};
	struct timespec until;
	struct job job;
	int r;

	if (db_open(config_get()->database, &ctx.db)) {
		error("worker", "%d: cannot open the database; worker stops",
		      w->index);
		return NULL;
	}
	while (!stopping) {
		r = jobq_claim(ctx.db, w->owner, lease_s, &job);
		if (r == 1) {
			pthread_mutex_lock(&w->lock);
			w->job_id = job.id;
			pthread_mutex_unlock(&w->lock);
			log_info("worker", "%d: job %lld: %s of series %lld, "
				 "attempt %d of %d", w->index, job.id,
				 job.kind, job.series_id, job.attempts,
				 job.max_attempts);
			ctx.cfg = config_get();
			pipeline_run_job(&ctx, &job);
			pthread_mutex_lock(&w->lock);
			w->job_id = 0;
			pthread_mutex_unlock(&w->lock);
			job_release(&job);
			continue;
		}
		/* Nothing ready (or a transient error): wait a little. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += IDLE_WAIT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&idle_lock);
		if (!stopping)
			pthread_cond_timedwait(&idle_cond, &idle_lock, &until);
		pthread_mutex_unlock(&idle_lock);
	}
	db_close(ctx.db);
	return NULL;
}

static void *bg_main(void *arg)
{
	struct bg *b = arg;

	if (b->run(b->cfg, &b->stop))
		error("kregressd", "the %s stopped", b->name);
	return NULL;
}

/* Starts the background threads cfg needs; 0 or -1 logged. */
static int bg_start(const struct config *cfg)
{
	size_t i, n;

	for (i = 0; i < N_BG; i++) {
		n = bgs[i].count(cfg);
		if (!n)
			continue;
		bgs[i].stop = 0;
		bgs[i].cfg = cfg;
		if (pthread_create(&bgs[i].thread, NULL, bg_main, &bgs[i]))
			return error("kregressd", "cannot start the %s",
				     bgs[i].name);
		bgs[i].started = 1;
		log_info("kregressd", "%s started for %zu %s%s",
			 bgs[i].name, n, i ? "tree" : "list",
			 n == 1 ? "" : "s");
	}
	return 0;
}

/* Asks the background threads to stop (they check every 200 ms). */
static void bg_signal(void)
{
	size_t i;

	for (i = 0; i < N_BG; i++)
		bgs[i].stop = 1;
}

/* Stops and joins them. */
static void bg_stop(void)
{
	size_t i;

	bg_signal();
	for (i = 0; i < N_BG; i++) {
		if (!bgs[i].started)
			continue;
		pthread_join(bgs[i].thread, NULL);
		bgs[i].started = 0;
	}
}

static void heartbeat(struct db *db, struct worker *w, int n)
{
	int released = 0, orphans = 0, i;

	for (i = 0; i < n; i++) {
		long long id;

		pthread_mutex_lock(&w[i].lock);
		id = w[i].job_id;
		pthread_mutex_unlock(&w[i].lock);
		if (id && jobq_heartbeat(db, id, w[i].owner, lease_s))
			log_warn("worker", "%d: job %lld: lease lost", i, id);
	}
	/* Leases that expired anyway (a stuck worker of ours, or another
	 * process on the same database). */
	if (!pipeline_recover(db, NULL, &released, &orphans) &&
	    (released || orphans))
		log_info("jobq", "released %d expired lease%s, failed %d "
			 "orphaned series", released, released == 1 ? "" :
			 "s", orphans);
	/* An idle daemon calibrates the hosts that are due. */
	calibrate_schedule(db, config_get());
}

static int str_differs(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static void reload(const char *path)
{
	struct strbuf err = STRBUF_INIT, fixed = STRBUF_INIT;
	struct config *cfg = NULL;
	const struct config *cur = config_get();

	if (config_load(path, &cfg, &err)) {
		error("config", "reload: %s; keeping the running "
		      "configuration", err.buf);
		goto out;
	}
	if (str_differs(cur->state_dir, cfg->state_dir))
		strbuf_addstr(&fixed, " state_dir");
	if (str_differs(cur->database, cfg->database))
		strbuf_addstr(&fixed, " database");
	if (str_differs(cur->api.listen, cfg->api.listen))
		strbuf_addstr(&fixed, " api.listen");
	if (cur->limits.workers != cfg->limits.workers)
		strbuf_addstr(&fixed, " limits.workers");
	if (cur->api.max_body_bytes != cfg->api.max_body_bytes)
		strbuf_addstr(&fixed, " api.max_body_bytes");
	if (cur->limits.api_connections != cfg->limits.api_connections)
		strbuf_addstr(&fixed, " limits.api_connections");
	if (cur->limits.api_connections_per_address !=
	    cfg->limits.api_connections_per_address)
		strbuf_addstr(&fixed, " limits.api_connections_per_address");
	if (cur->limits.api_header_timeout_s !=
	    cfg->limits.api_header_timeout_s)
		strbuf_addstr(&fixed, " limits.api_header_timeout_s");
	if (cur->limits.api_idle_timeout_s != cfg->limits.api_idle_timeout_s)
		strbuf_addstr(&fixed, " limits.api_idle_timeout_s");
	if (api)
		config_dashboard_port(cfg, api_port(api));
	ALLOC_GROW(config_old, n_config_old + 1, alloc_config_old);
	/* The background threads hold the old config: stop them first. */
	bg_stop();
	pthread_mutex_lock(&config_lock);
	config_old[n_config_old++] = config_cur;
	config_cur = cfg;
	pthread_mutex_unlock(&config_lock);
	if (api)
		api_reload(api, cfg);
	bg_start(cfg);
	log_info("config", "%s: reloaded: trees, hosts, plans, stats, lists, "
		 "url_allowlist, mail and limits apply to the next job; "
		 "api.tokens to the next request", path);
	if (fixed.len)
		log_warn("config", "%s: changed but needs a restart:%s", path,
			 fixed.buf);
out:
	strbuf_release(&err);
	strbuf_release(&fixed);
}

/*
 * Stops the workers; releases the leases of those that do not stop.  A
 * worker in a run waits for the boots under way, each ended by its
 * deadline (limits.boot_timeout_s): the grace covers one of those.
 */
static void stop_workers(struct db *db, struct worker *w, int n)
{
	int grace = SHUTDOWN_GRACE_S + config_get()->limits.boot_timeout_s;
	struct timespec deadline;
	int i;

	pthread_mutex_lock(&idle_lock);
	stopping = 1;
	pthread_cond_broadcast(&idle_cond);
	pthread_mutex_unlock(&idle_lock);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += grace;
	for (i = 0; i < n; i++) {
		long long id;

		if (!w[i].started)
			continue;
		if (!pthread_timedjoin_np(w[i].thread, NULL, &deadline)) {
			w[i].started = 0;
			continue;
		}
		pthread_mutex_lock(&w[i].lock);
		id = w[i].job_id;
		pthread_mutex_unlock(&w[i].lock);
		workers_stuck++;
		if (id && !jobq_release(db, id, w[i].owner))
			log_info("worker", "%d: did not stop in %d s; job "
				 "%lld released", i, grace, id);
	}
}

static int run(struct config *cfg)
{
	struct worker *w = NULL;
	struct db *db = NULL;
	char host[64] = "localhost";
	char owner[96];
	struct pollfd pfd[2] = { { -1, POLLIN, 0 }, { -1, POLLIN, 0 } };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	const char *env = getenv("KREGRESS_TEST_LEASE_S");
	sigset_t sigs;
	int i, n = cfg->limits.workers, released = 0, orphans = 0, ret = 1;

	if (env && atoi(env) > 0)
		lease_s = atoi(env);
	env = getenv("KREGRESS_TEST_BACKOFF_S");
	if (env && atoi(env) > 0)
		jobq_set_backoff(atoi(env), 4 * atoi(env));
	its.it_interval.tv_sec = lease_s / 3 > 0 ? lease_s / 3 : 1;
	its.it_value = its.it_interval;
	if (fs_mkdir_p(cfg->state_dir, 0750) || db_open(cfg->database, &db))
		goto out;
	gethostname(host, sizeof(host) - 1);
	snprintf(owner, sizeof(owner), "%s:%ld:%lld", host, (long)getpid(),
		 (long long)time(NULL));
	if (pipeline_recover(db, owner, &released, &orphans))
		goto out;
	log_info("kregressd", "%s: released %d stale lease%s, failed %d "
		 "orphaned series", cfg->database, released,
		 released == 1 ? "" : "s", orphans);
	/* Signals are read from the loop; every thread inherits the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &sigs, NULL) ||
	    (pfd[0].fd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0 ||
	    (pfd[1].fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) < 0 ||
	    timerfd_settime(pfd[1].fd, 0, &its, NULL)) {
		error("kregressd", "signals and timers: %s", strerror(errno));
		goto out;
	}
	/*
	 * After the mask: neither the API's threads nor libvirt's event
	 * thread may take the signals.  Before any job runs again: a boot
	 * of a killed daemon may live on.
	 */
	if (hosts_startup(db, cfg) || api_start(cfg, &api))
		goto out;
	config_dashboard_port(cfg, api_port(api));

	w = xcalloc(n, sizeof(*w));
	for (i = 0; i < n; i++) {
		w[i].index = i;
		snprintf(w[i].owner, sizeof(w[i].owner), "%s/w%d", owner, i);
		pthread_mutex_init(&w[i].lock, NULL);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			error("kregressd", "cannot start worker %d", i);
			goto stop;
		}
		w[i].started = 1;
	}
	if (bg_start(cfg))
		goto stop;
	log_info("kregressd", "ready: pid %ld, API port %d, %d worker%s, "
		 "lease %d s, owner %s", (long)getpid(), api_port(api), n,
		 n == 1 ? "" : "s", lease_s, owner);

	while (!stopping) {
		struct signalfd_siginfo si;
		uint64_t ticks;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			error("kregressd", "poll: %s", strerror(errno));
			goto stop;
		}
		if ((pfd[1].revents & POLLIN) &&
		    read(pfd[1].fd, &ticks, sizeof(ticks)) == sizeof(ticks))
			heartbeat(db, w, n);
		if (!(pfd[0].revents & POLLIN) ||
		    read(pfd[0].fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			log_info("kregressd", "SIGHUP: reloading %s",
				 cfg->file);
			reload(cfg->file);
		} else {
			log_info("kregressd", "%s: stopping",
				 si.ssi_signo == SIGTERM ? "SIGTERM" :
				 "SIGINT");
			break;
		}
	}
	ret = 0;
stop:
	/* No new requests first, then the workers give their jobs back. */
	api_stop(api);
	api = NULL;
	bg_signal();	/* they stop while the workers do */
	stop_workers(db, w, n);
	bg_stop();
	log_info("kregressd", "stopped");
out:
	api_stop(api);
	api = NULL;
	bg_stop();
	if (pfd[0].fd >= 0)
		close(pfd[0].fd);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	for (i = 0; w && i < n; i++)
		if (!w[i].started)
			pthread_mutex_destroy(&w[i].lock);
	/* Workers still running (stuck in a stage) die with the process. */
	free(w);
	db_close(db);
	return ret;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	const char *path = NULL;
	int check = 0, opt, ret;
	size_t i;

	while ((opt = getopt(argc, argv, "c:nfh")) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'n':
			check = 1;
			break;
		case 'f':
			log_set_timestamps(1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_CONFIG;
		}
	}
	if (!path || optind != argc) {
		usage(stderr);
		return EXIT_CONFIG;
	}
	if (config_load(path, &config_cur, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		strbuf_release(&err);
		return EXIT_CONFIG;
	}
	strbuf_release(&err);
	if (check) {
		printf("configuration OK\n");
		config_free(config_cur);
		return 0;
	}
	crash_trace_install();
	ret = run(config_cur);
	/* A stuck worker may still read them; the process ends anyway. */
	if (workers_stuck)
		return ret;
	config_free(config_cur);
	for (i = 0; i < n_config_old; i++)
		config_free(config_old[i]);
	free(config_old);
	return ret;
}
