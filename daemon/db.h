/*
 * db.h - the SQLite store: one connection per thread.
 *
 * db_open() opens (creating if needed) the database, sets WAL mode, a busy
 * timeout and foreign keys, and applies the migrations of schema/ that the
 * file does not have yet, each in its own transaction.  A database whose
 * user_version is newer than this binary's schema is refused.
 *
 * Only db.c includes <sqlite3.h>.  The SQL of each module is in its
 * db_*.c (and jobq.c), which prepare, bind, step and read statements with
 * the functions below; SQLite's errors are turned into log lines here,
 * once, with the caller's module and subject.
 */
#ifndef KREGRESS_DB_H
#define KREGRESS_DB_H

#include <stddef.h>

struct db;
struct sqlite3;
struct sqlite3_stmt;

/* Opens path and migrates it; 0 and *out on success, -1 (logged). */
int db_open(const char *path, struct db **out);

/* Closes the connection; accepts NULL. */
void db_close(struct db *db);

/*
 * Short write transactions: BEGIN IMMEDIATE, so that a writer waits for the
 * busy timeout at the start instead of failing at COMMIT.  Each returns 0
 * or -1 (logged); db_rollback() is safe to call when no transaction is open.
 */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/* The connection, for tests that read a database back (tests/dbquery.h). */
struct sqlite3 *db_sqlite(struct db *db);

/*
 * A prepared statement for sql, cached on the connection: sql must be a
 * string constant (the cache keys on its address and keeps one statement
 * per string for the life of the connection), the statement comes reset
 * with its bindings cleared, the connection keeps ownership (never
 * finalize it; sqlite3_reset() it when done so that it releases its read
 * snapshot: db_reset()).  Asking for the same sql again while still using
 * it resets it under the first user: use each string in one place.
 * NULL (logged) if sql does not compile.
 */
struct sqlite3_stmt *db_stmt(struct db *db, const char *sql);

/* Resets st (its rows, its read snapshot; bindings stay); NULL ok. */
void db_reset(struct sqlite3_stmt *st);

/*
 * Parameters, numbered from 1.  Text and blobs are not copied: they must
 * stay valid until the statement is reset (db_bind_text_copy() copies).
 * A NULL string binds SQL NULL, and so does a double that is not finite
 * in db_bind_real().
 */
void db_bind_int(struct sqlite3_stmt *st, int i, long long v);
void db_bind_double(struct sqlite3_stmt *st, int i, double v);
void db_bind_real(struct sqlite3_stmt *st, int i, double v);
void db_bind_text(struct sqlite3_stmt *st, int i, const char *s);
void db_bind_text_copy(struct sqlite3_stmt *st, int i, const char *s);
void db_bind_blob(struct sqlite3_stmt *st, int i, const void *p, size_t n);
void db_bind_null(struct sqlite3_stmt *st, int i);
/* A row id, or SQL NULL when id is 0. */
void db_bind_id_or_null(struct sqlite3_stmt *st, int i, long long id);

/*
 * The next row of st: 1 with the statement on it (read it with the
 * db_column_*() functions, then db_reset() it), 0 when there is none
 * (left), -1 on an error, logged as "module: subject: the SQLite error"
 * (subject is a printf format).
 */
int db_row(struct db *db, struct sqlite3_stmt *st, const char *module,
	   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Steps st to the one row it must return, that of `what` id: 0 with st
 * on the row (read it, then db_reset()), -1 when there is none, logged as
 * "module: what id: no such what", or on an error, logged as for
 * db_row().
 */
int db_row_one(struct db *db, struct sqlite3_stmt *st, const char *module,
	       const char *what, long long id);

/*
 * Steps a statement that returns no row and resets it.  0, or -1 logged
 * as for db_row().
 */
int db_step_done(struct db *db, struct sqlite3_stmt *st, const char *module,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Columns of the current row, numbered from 0. */
long long db_column_int64(struct sqlite3_stmt *st, int col);
int db_column_int(struct sqlite3_stmt *st, int col);
double db_column_double(struct sqlite3_stmt *st, int col);
int db_column_is_null(struct sqlite3_stmt *st, int col);
/* Text (NULL for SQL NULL), valid until the next step or reset. */
const char *db_column_text(struct sqlite3_stmt *st, int col);
/* A copy of a text column, NULL for SQL NULL; the caller frees it. */
char *db_column_strdup(struct sqlite3_stmt *st, int col);
/* A blob or text column's bytes and their number (NULL, 0 for NULL). */
const void *db_column_blob(struct sqlite3_stmt *st, int col);
size_t db_column_bytes(struct sqlite3_stmt *st, int col);

/* What a column of the current row holds, and its name (db_json.c). */
enum db_type {
	DB_NULL,
	DB_INTEGER,
	DB_FLOAT,
	DB_TEXT,
	DB_BLOB,
};
int db_column_count(struct sqlite3_stmt *st);
enum db_type db_column_type(struct sqlite3_stmt *st, int col);
const char *db_column_name(struct sqlite3_stmt *st, int col);

/* The rowid of the last INSERT, and the rows the last write changed. */
long long db_last_insert_id(struct db *db);
int db_changes(struct db *db);

/* True while a transaction is open on this connection. */
int db_in_transaction(struct db *db);

/* Runs SQL that returns no rows (several statements allowed); 0 or -1. */
int db_exec(struct db *db, const char *sql);

/* Reads PRAGMA user_version: the last migration applied. */
int db_user_version(struct db *db, int *version);

/*
 * The migrations compiled into the binary (schema/embed.sh generates the
 * table from schema/NNNN_*.sql at build time), versions 1..count in order.
 */
struct db_migration {
	int version;		/* NNNN of the file name */
	const char *name;	/* "0001_init.sql", for messages */
	const char *sql;
};
extern const struct db_migration db_migrations[];
extern const int db_migrations_count;

/* The schema version this binary migrates to (db_migrations_count). */
int db_schema_version(void);

/*
 * db_open() with an explicit migration list instead of the embedded one;
 * for tests of upgrades and failed migrations.  A migration that fails is
 * rolled back and db_open_migrations() returns -1 with the file left at
 * the last version that applied completely.
 */
int db_open_migrations(const char *path, const struct db_migration *list,
		       int count, struct db **out);

#endif
