/*
 * watch.c - the list watcher (see watch.h): feeds in, queued series out.
 *
 * Entries of one series (a cover letter and its patches, shallow-threaded
 * as git send-email does) name the same thread: the thread's key is the
 * entry's parent for a numbered patch, else the entry itself, and each
 * thread is fetched once per poll, through the entry's own message URL
 * (lore serves the whole thread's t.mbox.gz from any of its messages).
 * Waiting threads are rows (db_watch.h) with the time they were first
 * seen, looked at again on every poll: a restart, or another `kregress
 * lists poll`, neither forgets them (the feed may no longer list them)
 * nor starts their wait again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "atom.h"
#include "config.h"
#include "db.h"
#include "db_watch.h"
#include "fetch.h"
#include "log.h"
#include "mail.h"
#include "jobq.h"
#include "options.h"
#include "series.h"
#include "strbuf.h"
#include "watch.h"
#include "watch_rules.h"

#define WATCH_SEEN_MAX		4096
#define WATCH_PENDING_MAX	256

struct watch_list {
	const struct config_list *cfg;
	struct watch_filter filter;
	char *etag;
	char *last_modified;
	long long next_poll;
	struct watch_seen seen;		/* feed entries looked at */
};

struct watch {
	const struct config *cfg;
	struct watch_list *lists;
	size_t n_lists;
	const char **allow;	/* NULL-terminated, borrowed strings */
	struct mail_limits lim;
};

int watch_new(const struct config *cfg, struct watch **out)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	struct strbuf err = STRBUF_INIT;
	size_t i;

	*out = NULL;
	w->cfg = cfg;
	w->lists = xcalloc(cfg->n_lists ? cfg->n_lists : 1, sizeof(*w->lists));
	w->allow = options_allowlist(cfg);
	options_mail_limits(cfg, &w->lim);
	for (i = 0; i < cfg->n_lists; i++) {
		struct watch_list *l = &w->lists[i];

		l->cfg = &cfg->lists[i];
		if (watch_filter_init(&l->filter, l->cfg->subject_filters,
				      l->cfg->n_subject_filters,
				      l->cfg->path_filters,
				      l->cfg->n_path_filters, &err)) {
			error("watch", "list %s: %s", l->cfg->name, err.buf);
			strbuf_release(&err);
			w->n_lists = i;
			watch_free(w);
			return -1;
		}
		watch_seen_init(&l->seen, WATCH_SEEN_MAX);
		w->n_lists = i + 1;
	}
	*out = w;
	return 0;
}

void watch_free(struct watch *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n_lists; i++) {
		struct watch_list *l = &w->lists[i];

		watch_filter_release(&l->filter);
		watch_seen_release(&l->seen);
		free(l->etag);
		free(l->last_modified);
	}
	free(w->lists);
	free(w->allow);
	free(w);
}

/*
 * thread waits on l: recorded with now as its first sighting unless it
 * waits already; not when WATCH_PENDING_MAX threads wait (logged).
 */
static int pending_add(struct db *db, const struct watch_list *l,
		       const char *thread, const char *url, long long now,
		       long long first_seen)
{
	struct db_watch_pending *p = NULL;
	size_t n = 0;

	if (!first_seen) {
		if (db_watch_pending_list(db, l->cfg->name, &p, &n))
			return -1;
		db_watch_pending_free(p, n);
		if (n >= WATCH_PENDING_MAX) {
			log_warn("watch", "list %s: %d incomplete series "
				 "waiting; <%s> is not kept waiting",
				 l->cfg->name, WATCH_PENDING_MAX, thread);
			return 0;
		}
	}
	return db_watch_pending_add(db, l->cfg->name, thread, url, now);
}

/* Stores the series (and starts its pipeline when queued). */
static int record(struct db *db, const struct watch_list *l,
		  const struct series *s, const char *url, int queue,
		  const char *reason, long long *id)
{
	const struct series_patch *p = s->cover ? s->cover : s->patches[0];
	struct db_watch_series row = { 0 };
	struct strbuf author = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&author, "%s <%s>", p->author_name, p->author_email);
	row.msgid = p->message_id;
	row.list = l->cfg->name;
	row.subject = p->subject;
	row.author = author.buf;
	row.version = s->version;
	row.total = s->total;
	row.change_id = s->change_id;
	row.base_commit = s->base_commit;
	row.source_url = url;
	row.status = queue ? "queued" : "incomplete";
	row.reason = reason;
	if (db_begin(db))
		goto out;
	if (db_watch_series_add(db, &row, id) ||
	    (queue && jobq_enqueue(db, JOBQ_KIND_FIRST, *id, NULL, NULL)) ||
	    db_commit(db)) {
		db_rollback(db);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&author);
	return ret;
}

/*
 * Fetches one thread and acts on it.  Returns 0, or -1 on a database
 * error; fetch and parse errors are counted and the thread stays pending.
 */
static int process_thread(struct watch *w, struct watch_list *l,
			  struct db *db, const char *thread, const char *url,
			  long long now, struct watch_stats *st)
{
	struct fetch_options fo;
	struct strbuf data = STRBUF_INIT, reason = STRBUF_INIT;
	struct mail_box box;
	struct series *s = NULL;
	long long first_seen = 0, id = 0;
	enum watch_action act;
	const char *why;
	char *key = NULL;
	const struct series_patch *head;
	int known = 0, ret = 0;
	size_t i;

	if (db_watch_pending_first_seen(db, l->cfg->name, thread,
					&first_seen))
		return -1;
	mail_box_init(&box);
	options_fetch(w->cfg, w->allow, &fo);
	st->threads++;
	if (fetch_mbox(url, &fo, &data, &reason, NULL)) {
		error("watch", "%s: thread <%s>: %s", l->cfg->name, thread,
		      reason.buf);
		st->errors++;
		goto out;
	}
	if (mail_box_read_buf(&box, data.buf, data.len, url, &w->lim) ||
	    series_build(&box, &s)) {
		st->errors++;
		goto out;
	}
	act = watch_decide(&l->filter, s, first_seen ? first_seen : now, now,
			   l->cfg->incomplete_wait_s, &why);
	key = watch_series_key(s);
	head = s->cover ? s->cover : s->nr_patches ? s->patches[0] : NULL;
	if (act != WATCH_SKIP && (!key || !head)) {
		act = WATCH_SKIP;
		why = "no Message-ID to record the series by";
	}
	if (act == WATCH_QUEUE || act == WATCH_GIVE_UP) {
		if (db_watch_series_known(db, head->message_id, s->version,
					  &known)) {
			ret = -1;
			goto out;
		}
		if (known) {
			act = WATCH_SKIP;
			why = "already recorded";
		}
	}
	switch (act) {
	case WATCH_QUEUE:
		if (record(db, l, s, url, 1, NULL, &id)) {
			ret = -1;
			goto out;
		}
		log_info("watch", "%s: %s queued as series %lld: %s",
			 l->cfg->name, key, id, head->subject);
		st->queued++;
		break;
	case WATCH_GIVE_UP:
		strbuf_addstr(&reason, "incomplete after waiting:");
		for (i = 0; i < s->nr_missing; i++)
			strbuf_addf(&reason, " %d/%d", s->missing[i],
				    s->total);
		strbuf_addstr(&reason, " missing");
		if (record(db, l, s, url, 0, reason.buf, &id)) {
			ret = -1;
			goto out;
		}
		log_info("watch", "%s: %s recorded as series %lld: %s",
			 l->cfg->name, key, id, reason.buf);
		st->given_up++;
		break;
	case WATCH_WAIT:
		if (pending_add(db, l, thread, url, now, first_seen)) {
			ret = -1;
			goto out;
		}
		log_info("watch", "%s: %s: %s", l->cfg->name, key, why);
		st->waiting++;
		goto out;
	case WATCH_SKIP:
		log_debug("watch", "%s: thread <%s>: %s", l->cfg->name, thread,
			  why);
		st->skipped++;
		break;
	}
	if (first_seen && db_watch_pending_remove(db, l->cfg->name, thread))
		ret = -1;
out:
	free(key);
	series_free(s);
	mail_box_release(&box);
	strbuf_release(&data);
	strbuf_release(&reason);
	return ret;
}

/* The feed of one list: 0 with *feed, 1 when not modified, -1 on error. */
static int fetch_feed(struct watch *w, struct watch_list *l,
		      struct atom_feed *feed, struct watch_stats *st)
{
	const char *url = l->cfg->feed_url ? l->cfg->feed_url :
			  l->cfg->query_url;
	struct fetch_options fo;
	struct fetch_result r = { 0 };
	struct strbuf body = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1;

	options_fetch(w->cfg, w->allow, &fo);
	fo.if_none_match = l->etag;
	fo.if_modified_since = l->last_modified;
	r.body = &body;
	st->polled++;
	if (fetch_get(url, &fo, &r, &err)) {
		error("watch", "%s: %s", l->cfg->name, err.buf);
		goto out;
	}
	if (r.status == 304) {
		st->not_modified++;
		ret = 1;
		goto out;
	}
	if (r.status != 200) {
		error("watch", "%s: %s: HTTP %ld", l->cfg->name, url,
		      r.status);
		goto out;
	}
	if (atom_parse(body.buf, body.len, feed, &err)) {
		error("watch", "%s: %s: %s", l->cfg->name, url, err.buf);
		goto out;
	}
	free(l->etag);
	free(l->last_modified);
	l->etag = r.etag;
	l->last_modified = r.last_modified;
	r.etag = r.last_modified = NULL;
	ret = 0;
out:
	fetch_result_release(&r);
	strbuf_release(&body);
	strbuf_release(&err);
	if (ret < 0)
		st->errors++;
	return ret;
}

static int poll_list(struct watch *w, struct watch_list *l, struct db *db,
		     long long now, struct watch_stats *st)
{
	struct atom_feed feed = { NULL, 0, 0 };
	struct watch_seen threads;
	struct db_watch_pending *pending = NULL;
	size_t i, k, nr_pending = 0;
	int rc, ret = 0;

	watch_seen_init(&threads, ATOM_MAX_ENTRIES + WATCH_PENDING_MAX);
	rc = fetch_feed(w, l, &feed, st);
	/* oldest entries first, as they were posted */
	for (i = feed.nr; rc == 0 && i > 0 && !ret; i--) {
		const struct atom_entry *e = &feed.entries[i - 1];
		struct series_subject subj;
		const char *why, *thread;

		if (!e->message_id || !e->link ||
		    watch_seen_add(&l->seen, e->message_id))
			continue;
		st->entries++;
		if (!watch_entry_wanted(&l->filter, e->title, &why)) {
			log_debug("watch", "%s: <%s> skipped: %s",
				  l->cfg->name, e->message_id, why);
			continue;
		}
		series_subject_parse(e->title, &subj);
		thread = subj.index >= 1 && e->in_reply_to ? e->in_reply_to :
			 e->message_id;
		if (!watch_seen_add(&threads, thread))
			ret = process_thread(w, l, db, thread, e->link, now,
					     st);
		series_subject_release(&subj);
	}
	/* threads still waiting for patches, this poll's or older: again */
	if (!ret && db_watch_pending_list(db, l->cfg->name, &pending,
					  &nr_pending))
		ret = -1;
	for (k = 0; k < nr_pending && !ret; k++)
		if (!watch_seen_add(&threads, pending[k].thread))
			ret = process_thread(w, l, db, pending[k].thread,
					     pending[k].url, now, st);
	db_watch_pending_free(pending, nr_pending);
	atom_feed_release(&feed);
	watch_seen_release(&threads);
	return ret;
}

int watch_poll(struct watch *w, struct db *db, long long now, int force,
	       struct watch_stats *st)
{
	size_t i;

	for (i = 0; i < w->n_lists; i++) {
		struct watch_list *l = &w->lists[i];

		if (!force && now < l->next_poll)
			continue;
		l->next_poll = now + l->cfg->poll_interval_s;
		if (poll_list(w, l, db, now, st))
			return -1;
	}
	return 0;
}

static void stats_add(struct watch_stats *to, const struct watch_stats *st)
{
	to->polled += st->polled;
	to->not_modified += st->not_modified;
	to->entries += st->entries;
	to->threads += st->threads;
	to->queued += st->queued;
	to->waiting += st->waiting;
	to->given_up += st->given_up;
	to->skipped += st->skipped;
	to->errors += st->errors;
}

int watch_run(const struct config *cfg, const volatile sig_atomic_t *stop,
	      int max_s, struct watch_stats *total)
{
	struct timespec step = { 0, 200 * 1000 * 1000 };
	struct watch *w = NULL;
	struct db *db = NULL;
	time_t start = time(NULL);
	int ret = -1, i;

	if (db_open(cfg->database, &db) || watch_new(cfg, &w))
		goto out;
	log_info("watch", "watching %zu list(s)", cfg->n_lists);
	while (!*stop && (max_s <= 0 || time(NULL) - start < max_s)) {
		struct watch_stats st = { 0 };

		if (watch_poll(w, db, (long long)time(NULL), 0, &st))
			goto out;
		if (st.queued || st.given_up || st.errors)
			log_info("watch", "polled %d feed(s): %d queued, %d "
				 "waiting, %d incomplete, %d error(s)",
				 st.polled, st.queued, st.waiting, st.given_up,
				 st.errors);
		if (total)
			stats_add(total, &st);
		for (i = 0; i < 5 && !*stop; i++)
			nanosleep(&step, NULL);
	}
	ret = 0;
out:
	watch_free(w);
	db_close(db);
	return ret;
}
