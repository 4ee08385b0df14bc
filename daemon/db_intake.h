/*
 * db_intake.h - what the fetch stage reads and writes in SQLite: a
 * series' source (URL or submitted mbox) in, its parsed revision and
 * patch rows out.  Functions join the caller's transaction when one is
 * open and return 0 or -1 (logged).
 */
#ifndef KREGRESS_DB_INTAKE_H
#define KREGRESS_DB_INTAKE_H

#include <stddef.h>

struct db;
struct series;

struct db_intake_source {
	char *source_url;	/* NULL when an mbox was submitted */
	char *list;		/* series.list, or NULL */
	char *mbox;		/* the stored mbox, or NULL */
	size_t mbox_len;
	int version;		/* series.version */
	int total;		/* series.total: 0 until parsed */
};

void db_intake_source_release(struct db_intake_source *src);

/*
 * Reads the source of series id (the fetch and apply stages use it); -1
 * if there is no such series.
 */
int db_intake_source(struct db *db, long long id,
		     struct db_intake_source *src);

/*
 * Stores the parsed revision s into series id (msgid, subject, title,
 * author and its address, version, total, change_id, base_commit, the
 * problems of the thread), the fetched mbox (when mbox is not NULL) and
 * one patch row per message (idx 0 = cover letter; raw = the mail; its
 * fingerprint) with its trailers, replacing earlier patch rows.  Call
 * inside a transaction.
 */
int db_intake_store(struct db *db, long long id, const struct series *s,
		    const char *mbox, size_t mbox_len);

#endif
