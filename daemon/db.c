/*
 * db.c - the SQLite connection, its migrations, and the statement
 * functions every db_*.c uses (the only file that includes <sqlite3.h>).
 *
 * One struct db per thread (the connection is opened NOMUTEX).  Opening a
 * file sets a 5 s busy timeout, WAL mode (readers never block the writer),
 * synchronous=NORMAL (in WAL mode a kill -9 loses nothing; only a power
 * cut can lose the last commits) and foreign keys, then brings the schema
 * up to date.
 *
 * Migrations: the version of the file is PRAGMA user_version, the number
 * of the last schema/NNNN_*.sql applied.  Each pending migration runs in
 * its own BEGIN IMMEDIATE transaction that also sets user_version, so a
 * migration applies completely or not at all; the version is read again
 * inside the transaction so that two processes opening the same new file
 * do not both apply it.  A file newer than the binary is refused rather
 * than used with a schema this code does not know.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "db.h"
#include "log.h"
#include "strbuf.h"

#define DB_BUSY_TIMEOUT_MS 5000

/*
 * The statement cache saves a parse and plan per call on the hot paths
 * (claiming a job is three statements: BEGIN, UPDATE, COMMIT).  It is
 * keyed by the address of a constant SQL string, so it holds at most one
 * statement per SQL string in the code, and it never evicts: a caller may
 * hold one cached statement while it asks for another.
 */
struct db_cached {
	const char *sql;
	sqlite3_stmt *st;
};

struct db {
	sqlite3 *sq;
	char *path;
	struct db_cached *cache;
	size_t n_cache, alloc_cache;
};

int db_schema_version(void)
{
	return db_migrations_count;
}

struct sqlite3 *db_sqlite(struct db *db)
{
	return db->sq;
}

sqlite3_stmt *db_stmt(struct db *db, const char *sql)
{
	struct db_cached *c;
	sqlite3_stmt *st = NULL;
	size_t i;

	for (i = 0; i < db->n_cache; i++) {
		c = &db->cache[i];
		if (c->sql == sql) {
			sqlite3_reset(c->st);
			sqlite3_clear_bindings(c->st);
			return c->st;
		}
	}
	if (sqlite3_prepare_v3(db->sq, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK) {
		error("db", "%s: %s", db->path, sqlite3_errmsg(db->sq));
		return NULL;
	}
	ALLOC_GROW(db->cache, db->n_cache + 1, db->alloc_cache);
	c = &db->cache[db->n_cache++];
	c->sql = sql;
	c->st = st;
	return st;
}

int db_in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(db->sq);
}

int db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->sq, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("db", "%s: %s", db->path, msg ? msg :
		      sqlite3_errmsg(db->sq));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_user_version(struct db *db, int *version)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(db->sq, "PRAGMA user_version", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		error("db", "%s: reading the schema version: %s", db->path,
		      sqlite3_errmsg(db->sq));
		goto out;
	}
	*version = sqlite3_column_int(st, 0);
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static int db_step_once(struct db *db, sqlite3_stmt *st)
{
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("db", "%s: %s", db->path, sqlite3_errmsg(db->sq));
	return 0;
}

int db_begin(struct db *db)
{
	return db_step_once(db, db_stmt(db, "BEGIN IMMEDIATE"));
}

int db_commit(struct db *db)
{
	if (db_step_once(db, db_stmt(db, "COMMIT"))) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (db && db->sq && !sqlite3_get_autocommit(db->sq))
		sqlite3_exec(db->sq, "ROLLBACK", NULL, NULL, NULL);
}

static int db_set_mode(struct db *db)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int ret = -1;

	if (sqlite3_busy_timeout(db->sq, DB_BUSY_TIMEOUT_MS) != SQLITE_OK)
		goto fail;
	if (sqlite3_prepare_v2(db->sq, "PRAGMA journal_mode=WAL", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	mode = (const char *)sqlite3_column_text(st, 0);
	/* An in-memory database (tests) reports "memory"; that is fine. */
	if (!mode || (strcmp(mode, "wal") && strcmp(mode, "memory"))) {
		error("db", "%s: cannot switch to WAL mode (journal mode %s)",
		      db->path, mode ? mode : "unknown");
		goto out;
	}
	if (db_exec(db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON"))
		goto out;
	ret = 0;
	goto out;
fail:
	error("db", "%s: %s", db->path, sqlite3_errmsg(db->sq));
out:
	sqlite3_finalize(st);
	return ret;
}

/* Applies one migration; 1 if it applied, 0 if already there, -1. */
static int db_migrate_one(struct db *db, const struct db_migration *m)
{
	char sql[64];
	char *msg = NULL;
	int version;

	if (db_begin(db))
		return -1;
	if (db_user_version(db, &version))
		goto fail;
	if (version >= m->version) {
		db_rollback(db);
		return 0;
	}
	if (sqlite3_exec(db->sq, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("db", "%s: migration %s failed: %s; the database stays "
		      "at schema version %d", db->path, m->name,
		      msg ? msg : sqlite3_errmsg(db->sq), version);
		sqlite3_free(msg);
		goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", m->version);
	if (db_exec(db, sql) || db_commit(db))
		goto fail;
	log_info("db", "%s: applied migration %s", db->path, m->name);
	return 1;
fail:
	db_rollback(db);
	return -1;
}

static int db_migrate(struct db *db, const struct db_migration *list,
		      int count)
{
	int version, i;

	if (db_user_version(db, &version))
		return -1;
	if (version > count)
		return error("db", "%s: schema version %d is newer than this "
			     "binary's (%d); refusing to use it (upgrade "
			     "kregress, or point it at another database)",
			     db->path, version, count);
	for (i = 0; i < count; i++) {
		if (list[i].version != i + 1)
			return error("db", "%s: migration %s: out of order",
				     db->path, list[i].name);
		if (list[i].version <= version)
			continue;
		if (db_migrate_one(db, &list[i]) < 0)
			return -1;
	}
	return 0;
}

int db_open_migrations(const char *path, const struct db_migration *list,
		       int count, struct db **out)
{
	struct db *db;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX;

	db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	if (sqlite3_open_v2(path, &db->sq, flags, NULL) != SQLITE_OK) {
		error("db", "%s: %s", path, db->sq ? sqlite3_errmsg(db->sq) :
		      "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(db->sq, 1);
	if (db_set_mode(db) || db_migrate(db, list, count))
		goto fail;
	*out = db;
	return 0;
fail:
	db_close(db);
	return -1;
}

int db_open(const char *path, struct db **out)
{
	return db_open_migrations(path, db_migrations, db_migrations_count,
				  out);
}

void db_close(struct db *db)
{
	size_t i;

	if (!db)
		return;
	db_rollback(db);
	for (i = 0; i < db->n_cache; i++)
		sqlite3_finalize(db->cache[i].st);
	free(db->cache);
	sqlite3_close_v2(db->sq);
	free(db->path);
	free(db);
}

void db_reset(sqlite3_stmt *st)
{
	if (st)
		sqlite3_reset(st);
}

void db_bind_int(sqlite3_stmt *st, int i, long long v)
{
	sqlite3_bind_int64(st, i, v);
}

void db_bind_double(sqlite3_stmt *st, int i, double v)
{
	sqlite3_bind_double(st, i, v);
}

void db_bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

void db_bind_id_or_null(sqlite3_stmt *st, int i, long long id)
{
	if (id)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

void db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void db_bind_text_copy(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

void db_bind_blob(sqlite3_stmt *st, int i, const void *p, size_t n)
{
	sqlite3_bind_blob64(st, i, p, n, SQLITE_STATIC);
}

void db_bind_null(sqlite3_stmt *st, int i)
{
	sqlite3_bind_null(st, i);
}

/* Logs the connection's error as "module: subject: message". */
static int step_error(struct db *db, const char *module, const char *fmt,
		      va_list ap)
{
	struct strbuf subject = STRBUF_INIT;

	strbuf_vaddf(&subject, fmt, ap);
	error(module, "%s: %s", subject.buf, sqlite3_errmsg(db->sq));
	strbuf_release(&subject);
	return -1;
}

int db_row(struct db *db, sqlite3_stmt *st, const char *module,
	   const char *fmt, ...)
{
	va_list ap;
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	va_start(ap, fmt);
	step_error(db, module, fmt, ap);
	va_end(ap);
	return -1;
}

int db_row_one(struct db *db, sqlite3_stmt *st, const char *module,
	       const char *what, long long id)
{
	int rc = db_row(db, st, module, "%s %lld", what, id);

	if (!rc)
		error(module, "%s %lld: no such %s", what, id, what);
	return rc > 0 ? 0 : -1;
}

int db_step_done(struct db *db, sqlite3_stmt *st, const char *module,
		 const char *fmt, ...)
{
	va_list ap;
	int ret = 0;

	if (sqlite3_step(st) != SQLITE_DONE) {
		va_start(ap, fmt);
		ret = step_error(db, module, fmt, ap);
		va_end(ap);
	}
	sqlite3_reset(st);
	return ret;
}

long long db_column_int64(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int64(st, col);
}

int db_column_int(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int(st, col);
}

double db_column_double(sqlite3_stmt *st, int col)
{
	return sqlite3_column_double(st, col);
}

int db_column_is_null(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL;
}

const char *db_column_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

char *db_column_strdup(sqlite3_stmt *st, int col)
{
	const char *t = db_column_text(st, col);
	char *s;

	if (!t)
		return NULL;
	s = xstrdup(t);
	return s;
}

const void *db_column_blob(sqlite3_stmt *st, int col)
{
	return sqlite3_column_blob(st, col);
}

size_t db_column_bytes(sqlite3_stmt *st, int col)
{
	return (size_t)sqlite3_column_bytes(st, col);
}

int db_column_count(sqlite3_stmt *st)
{
	return sqlite3_column_count(st);
}

enum db_type db_column_type(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return DB_INTEGER;
	case SQLITE_FLOAT:
		return DB_FLOAT;
	case SQLITE_TEXT:
		return DB_TEXT;
	case SQLITE_BLOB:
		return DB_BLOB;
	}
	return DB_NULL;
}

const char *db_column_name(sqlite3_stmt *st, int col)
{
	return sqlite3_column_name(st, col);
}

long long db_last_insert_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->sq);
}

int db_changes(struct db *db)
{
	return sqlite3_changes(db->sq);
}
