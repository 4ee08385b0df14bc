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

#endif
