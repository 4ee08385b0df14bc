/*
 * db.h - the SQLite store: one connection per thread.
 *
 * db_open() opens (creating if needed) the database, sets WAL mode, a busy
 * timeout and foreign keys, and applies the migrations of schema/ that the
 * file does not have yet, each in its own transaction.  A database whose
 * user_version is newer than this binary's schema is refused.
 *
 * Only db*.c and jobq.c include <sqlite3.h>; everything else goes through
 * the functions those files export.
 */
#ifndef KREGRESS_DB_H
#define KREGRESS_DB_H

struct db;
struct sqlite3;

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

/* The connection, for db*.c and jobq.c only. */
struct sqlite3 *db_sqlite(struct db *db);

/*
 * A prepared statement for sql, cached on the connection: sql must be a
 * string constant (the cache keys on its address and keeps one statement
 * per string for the life of the connection), the statement comes reset
 * with its bindings cleared, the connection keeps ownership (never
 * finalize it; sqlite3_reset() it when done so that it releases its read
 * snapshot).  Asking for the same sql again while still using it resets
 * it under the first user: use each string in one place.
 * NULL (logged) if sql does not compile.  For db*.c and jobq.c only.
 */
struct sqlite3_stmt *db_stmt(struct db *db, const char *sql);

/* Binds text, or NULL when s is NULL (SQLITE_STATIC: s must outlive it). */
void db_bind_text_or_null(struct sqlite3_stmt *st, int i, const char *s);

/* Binds a row id, or NULL when id is 0. */
void db_bind_id_or_null(struct sqlite3_stmt *st, int i, long long id);

/* A copy of a text column, NULL for SQL NULL; the caller frees it. */
char *db_column_strdup(struct sqlite3_stmt *st, int col);

/*
 * Steps a statement that returns no row and resets it.  0, or -1 logged
 * as "module: subject: the SQLite error".
 */
int db_step_done(struct db *db, struct sqlite3_stmt *st, const char *module,
		 const char *subject);

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
