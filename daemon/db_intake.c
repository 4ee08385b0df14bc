/*
 * db_intake.c - series source in, parsed series and patches out (see
 * db_intake.h).  Re-running the store for the same series replaces its
 * patch rows, so a retried fetch job leaves one copy.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "db.h"
#include "db_intake.h"
#include "log.h"
#include "series.h"
#include "strbuf.h"

void db_intake_source_release(struct db_intake_source *src)
{
	free(src->source_url);
	free(src->list);
	free(src->mbox);
	memset(src, 0, sizeof(*src));
}

int db_intake_source(struct db *db, long long id,
		     struct db_intake_source *src)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"SELECT source_url, mbox, version, "
		"total, list FROM series WHERE id = ?1");
	int ret = -1;

	memset(src, 0, sizeof(*src));
	if (!st)
		return -1;
	db_bind_int(st, 1, id);
	if (!db_row_one(db, st, "intake", "series", id)) {
		const void *mbox = db_column_blob(st, 1);
		size_t n = db_column_bytes(st, 1);

		src->source_url = db_column_strdup(st, 0);
		src->list = db_column_strdup(st, 4);
		if (mbox) {
			src->mbox = xmalloc(n + 1);
			memcpy(src->mbox, mbox, n);
			src->mbox[n] = '\0';
			src->mbox_len = n;
		}
		src->version = db_column_int(st, 2);
		src->total = db_column_int(st, 3);
		ret = 0;
	}
	db_reset(st);
	return ret;
}

/* The trailers of patch row pid: given in the thread or carried there. */
static int add_trailers(struct db *db, long long pid,
			const struct series_patch *p)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT OR IGNORE INTO patch_trailer "
		"(patch_id, name, value, message_id, "
		"from_version) VALUES (?1, ?2, ?3, ?4, ?5)");
	size_t i;

	if (!st)
		return -1;
	for (i = 0; i < p->nr_trailers; i++) {
		const struct series_trailer *t = &p->trailers[i];

		db_bind_int(st, 1, pid);
		db_bind_text(st, 2, t->name);
		db_bind_text(st, 3, t->value);
		db_bind_text(st, 4, t->message_id);
		if (t->from_version)
			db_bind_int(st, 5, t->from_version);
		else
			db_bind_null(st, 5);
		if (db_step_done(db, st, "intake", "storing a trailer"))
			return -1;
	}
	return 0;
}

static int add_patch(struct db *db, long long id,
		     const struct series_patch *p)
{
	struct sqlite3_stmt *st = db_stmt(db,
		"INSERT INTO patch (series_id, idx, "
		"msgid, subject, author, date, raw, "
		"fingerprint) VALUES (?1, ?2, ?3, ?4, ?5, "
		"?6, ?7, ?8)");
	struct strbuf author = STRBUF_INIT;
	int ret = -1;

	if (!st)
		return -1;
	strbuf_addf(&author, "%s <%s>", p->author_name, p->author_email);
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, p->index);
	db_bind_text(st, 3, p->message_id);
	db_bind_text(st, 4, p->subject);
	db_bind_text(st, 5, author.buf);
	if (p->has_date)
		db_bind_int(st, 6, p->date);
	else
		db_bind_null(st, 6);
	if (p->raw)
		db_bind_blob(st, 7, p->raw, p->raw_len);
	else
		db_bind_null(st, 7);
	db_bind_text(st, 8, *p->fingerprint ? p->fingerprint : NULL);
	ret = db_step_done(db, st, "intake", "series %lld: patch %d", id,
			   p->index);
	strbuf_release(&author);
	if (!ret)
		ret = add_trailers(db, db_last_insert_id(db),
				   p);
	return ret;
}

int db_intake_store(struct db *db, long long id, const struct series *s,
		    const char *mbox, size_t mbox_len)
{
	const struct series_patch *head = s->cover ? s->cover :
					  s->nr_patches ? s->patches[0] : NULL;
	struct sqlite3_stmt *st;
	struct strbuf author = STRBUF_INIT, problems = STRBUF_INIT;
	size_t i;
	int ret = -1;

	if (head)
		strbuf_addf(&author, "%s <%s>", head->author_name,
			    head->author_email);
	for (i = 0; i < s->nr_problems; i++)
		strbuf_addf(&problems, "%s%s", i ? "\n" : "", s->problems[i]);
	st = db_stmt(db, "UPDATE series SET msgid = ?1, subject = ?2, "
		     "author = ?3, version = ?4, total = ?5, change_id = ?6, "
		     "base_commit = ?7, mbox = coalesce(?8, mbox), "
		     "updated_at = ?9, title = ?11, author_email = ?12, "
		     "problems = ?13 WHERE id = ?10");
	if (!st)
		goto out;
	db_bind_text(st, 1, head ? head->message_id : NULL);
	db_bind_text(st, 2, head ? head->subject : NULL);
	db_bind_text(st, 3, head ? author.buf : NULL);
	db_bind_int(st, 4, s->version);
	db_bind_int(st, 5, s->total);
	db_bind_text(st, 6, s->change_id);
	db_bind_text(st, 7, s->base_commit);
	if (mbox)
		db_bind_blob(st, 8, mbox, mbox_len);
	else
		db_bind_null(st, 8);
	db_bind_int(st, 9, (long long)time(NULL));
	db_bind_int(st, 10, id);
	db_bind_text(st, 11, head ? head->title : NULL);
	db_bind_text(st, 12, head ? head->author_email : NULL);
	db_bind_text(st, 13, problems.len ? problems.buf : NULL);
	if (db_step_done(db, st, "intake", "series %lld", id))
		goto out;
	st = db_stmt(db, "DELETE FROM patch WHERE series_id = ?1");
	if (!st)
		goto out;
	db_bind_int(st, 1, id);
	if (db_step_done(db, st, "intake", "series %lld", id))
		goto out;
	if (s->cover && add_patch(db, id, s->cover))
		goto out;
	for (i = 0; i < s->nr_patches; i++)
		if (add_patch(db, id, s->patches[i]))
			goto out;
	ret = 0;
out:
	strbuf_release(&author);
	strbuf_release(&problems);
	return ret;
}
