/*
 * cli_watch.c - `kregress lists poll -c CONFIG [--force]`.
 *
 * Polls the lists of the configuration once, as the daemon's watcher
 * does, against the configuration's database: new complete series are
 * queued (a series row and its fetch job), incomplete ones are reported
 * waiting (a single run has no later poll; with a list's
 * incomplete_wait_s of 0 they are recorded as incomplete at once).
 * --force polls lists whose interval has not passed (the daemon's
 * watcher keeps that state; a fresh process polls every list anyway);
 * --rounds N polls N times in one process, the later rounds with the
 * feed's ETag as the daemon would.
 * Prints what it did.
 *
 * `kregress lists watch -c CONFIG [--for SECONDS]` runs watch_run(), the
 * loop the daemon runs on a thread, in the foreground until SIGINT/SIGTERM
 * or for SECONDS, then prints the totals.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_watch.h"
#include "config.h"
#include "db.h"
#include "log.h"
#include "strbuf.h"
#include "watch.h"

int cli_lists_poll(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT;
	struct watch_stats st = { 0 };
	struct config *cfg = NULL;
	struct watch *w = NULL;
	struct db *db = NULL;
	const char *path = NULL;
	int force = 0, rounds = 1, c, i, ret = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > 1000)
				return cli_usage("lists poll");
			break;
		default:
			return cli_usage("lists poll");
		}
	}
	if (!path || optind != argc)
		return cli_usage("lists poll");
	if (config_load(path, &cfg, &err)) {
		fprintf(stderr, "kregress: %s\n", err.buf);
		goto out;
	}
	if (!cfg->n_lists) {
		error("watch", "%s: no \"lists\" to poll", path);
		goto out;
	}
	if (db_open(cfg->database, &db) || watch_new(cfg, &w))
		goto out;
	/* later rounds ask with the feed's ETag: the daemon's steady state */
	for (i = 0; i < rounds; i++)
		if (watch_poll(w, db, (long long)time(NULL), force || i > 0,
			       &st))
			goto out;
	printf("lists: %zu polled: %d not-modified: %d entries: %d "
	       "threads: %d queued: %d waiting: %d incomplete: %d "
	       "skipped: %d errors: %d\n", cfg->n_lists, st.polled,
	       st.not_modified, st.entries, st.threads, st.queued, st.waiting,
	       st.given_up, st.skipped, st.errors);
	ret = st.errors ? CLI_FAILED : CLI_OK;
out:
	watch_free(w);
	db_close(db);
	config_free(cfg);
	strbuf_release(&err);
	return ret;
}

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int cli_lists_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT;
	struct watch_stats st = { 0 };
	struct config *cfg = NULL;
	struct sigaction sa;
	const char *path = NULL;
	int seconds = 0, c, ret = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'f':
			seconds = atoi(optarg);
			if (seconds <= 0)
				return cli_usage("lists watch");
			break;
		default:
			return cli_usage("lists watch");
		}
	}
	if (!path || optind != argc)
		return cli_usage("lists watch");
	if (config_load(path, &cfg, &err)) {
		fprintf(stderr, "kregress: %s\n", err.buf);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (watch_run(cfg, &watch_stop, seconds, &st))
		goto out;
	printf("polled: %d not-modified: %d entries: %d threads: %d "
	       "queued: %d waiting: %d incomplete: %d skipped: %d "
	       "errors: %d\n", st.polled, st.not_modified, st.entries,
	       st.threads, st.queued, st.waiting, st.given_up, st.skipped,
	       st.errors);
	ret = CLI_OK;
out:
	config_free(cfg);
	strbuf_release(&err);
	return ret;
}
