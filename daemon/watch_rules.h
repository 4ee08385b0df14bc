/*
 * watch_rules.h - the list watcher's decisions, pure: which feed entries
 * are worth fetching, whether a fetched series matches a list's filters,
 * and whether it is queued now, waits for missing patches, or is given up.
 *
 * The I/O around them (polling feeds, fetching threads, the database) is
 * in watch.c; keeping the rules here lets t-watch test every decision
 * without a network or a database.
 */
#ifndef KREGRESS_WATCH_RULES_H
#define KREGRESS_WATCH_RULES_H

#include <regex.h>
#include <stddef.h>

struct series;
struct strbuf;

/* A list's filters; an empty filter lets everything through. */
struct watch_filter {
	regex_t *subject_res;	/* POSIX ERE: on the subject, or its title
				 * without the [PATCH ...] prefix */
	size_t n_subject_res;
	char **path_globs;	/* fnmatch(3) globs on touched files */
	size_t n_path_globs;
};

/*
 * Compiles the filters.  Returns 0, or -1 with the bad regex and its
 * error appended to err.  Release with watch_filter_release().
 */
int watch_filter_init(struct watch_filter *f, char *const *subject_res,
		      size_t n_subject, char *const *path_globs, size_t n_path,
		      struct strbuf *err);
void watch_filter_release(struct watch_filter *f);

/*
 * A feed entry's subject: 1 when it is a patch or cover letter ([PATCH
 * ...] or [RFC ...], not a reply) whose title passes the subject filter,
 * else 0 with *why (static text) saying why it is skipped.
 */
int watch_entry_wanted(const struct watch_filter *f, const char *subject,
		       const char **why);

enum watch_action {
	WATCH_SKIP,	/* not for this list: record as seen, do nothing */
	WATCH_WAIT,	/* incomplete: look again at the next poll */
	WATCH_QUEUE,	/* complete and matching: queue it (once) */
	WATCH_GIVE_UP,	/* incomplete after the wait: record it so */
};

const char *watch_action_str(enum watch_action a);

/*
 * What to do with a series fetched for a list: its newest revision must
 * have patches, pass the subject filter (any patch or the cover letter)
 * and the path filter (any touched file); then WATCH_QUEUE when complete,
 * WATCH_WAIT while incomplete and now < first_seen + wait_s, WATCH_GIVE_UP
 * after.  *why (static text) says why for SKIP, WAIT and GIVE_UP.
 */
enum watch_action watch_decide(const struct watch_filter *f,
			       const struct series *s, long long first_seen,
			       long long now, int wait_s, const char **why);

/*
 * The key that identifies a revision once: "<msgid>" of its cover letter,
 * else of its first present patch, plus " v<version>".  NULL for a series
 * without any message.  Caller frees.
 */
char *watch_series_key(const struct series *s);

/*
 * A bounded set of strings (Message-IDs, series keys) seen recently: the
 * oldest are forgotten first once it holds max entries.  The database is
 * the durable de-duplication; this only saves refetching a thread on
 * every poll.
 */
struct watch_seen {
	char **ring;
	size_t max, next, nr;
};

void watch_seen_init(struct watch_seen *s, size_t max);
void watch_seen_release(struct watch_seen *s);
/* 1 if key was already there, else 0 (and it is added). */
int watch_seen_add(struct watch_seen *s, const char *key);
int watch_seen_has(const struct watch_seen *s, const char *key);

#endif
