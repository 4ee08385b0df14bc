/*
 * t-db.c - the store: fresh database, upgrade from an older schema, a
 * database newer than the binary, a failing migration that must leave the
 * file exactly as it was, and the connection settings.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "dbquery.h"
#include "tap.h"

static char dir[] = "/tmp/t-db.XXXXXX";

static int table_exists(struct db *db, const char *name)
{
	return q_int(db, "SELECT count(*) FROM sqlite_master WHERE "
		     "type = 'table' AND name = '%s'", name) == 1;
}

static const struct db_migration m[] = {
	{ 1, "0001_a.sql", "CREATE TABLE a (x INTEGER);" },
	{ 2, "0002_b.sql", "ALTER TABLE a ADD COLUMN y TEXT DEFAULT 'new';"
			   "CREATE TABLE b (z INTEGER);" },
	/* Fails half-way: table c is created, then an error. */
	{ 3, "0003_bad.sql", "CREATE TABLE c (w INTEGER);"
			     "INSERT INTO c VALUES (1);"
			     "INSERT INTO no_such_table VALUES (1);" },
};

static void test_fresh(void)
{
	struct db *db = NULL;
	char path[256], buf[64];
	int v = -1;

	snprintf(path, sizeof(path), "%s/fresh.db", dir);
	if (!ok(db_open(path, &db) == 0, "fresh database opens"))
		return;
	ok(db_user_version(db, &v) == 0, "user_version readable");
	is_int(v, db_schema_version(), "fresh database at the binary's "
	       "schema version");
	ok(db_schema_version() >= 1, "at least one migration embedded");
	is_str(db_migrations[0].name, "0001_init.sql", "first migration "
	       "is 0001_init.sql");
	ok(table_exists(db, "series") && table_exists(db, "job") &&
	   table_exists(db, "sample") && table_exists(db, "api_token"),
	   "tables of the data model exist");
	is_str(q_str(db, "PRAGMA journal_mode"),
	       "wal", "WAL mode");
	is_int(q_int(db, "PRAGMA foreign_keys"), 1, "foreign keys on");
	is_int(q_int(db, "PRAGMA busy_timeout"), 5000,
	       "busy timeout 5 s");
	ok(db_exec(db, "INSERT INTO patch (series_id, idx) VALUES (999, 1)"),
	   "foreign keys enforced (patch of a missing series refused)");

	/* Transactions. */
	ok(db_begin(db) == 0 && db_in_transaction(db), "begin");
	db_exec(db, "INSERT INTO tree (name, path, created_at) "
		"VALUES ('t', '/x', 0)");
	db_rollback(db);
	ok(!db_in_transaction(db), "rollback ends the transaction");
	is_int(q_int(db, "SELECT count(*) FROM tree"), 0,
	       "rolled back insert is gone");
	ok(db_begin(db) == 0 && db_exec(db, "INSERT INTO tree (name, path, "
	   "created_at) VALUES ('t', '/x', 0)") == 0 && db_commit(db) == 0,
	   "begin/insert/commit");
	is_int(q_int(db, "SELECT count(*) FROM tree"), 1,
	       "committed insert stays");
	db_rollback(db);
	ok(!db_in_transaction(db) && q_int(db, "SELECT count(*) FROM tree") ==
	   1 && db_begin(db) == 0 && db_commit(db) == 0, "rollback without a "
	   "transaction is harmless: the committed row stays, the next "
	   "transaction works");
	db_close(db);

	/* Reopening an up-to-date database changes nothing. */
	db = NULL;
	ok(db_open(path, &db) == 0, "reopen");
	is_int(q_int(db, "SELECT count(*) FROM tree"), 1,
	       "data kept across reopen");
	db_close(db);
	db_close(NULL);

	/* The embedded schema refuses a file from a newer kregress. */
	db = NULL;
	snprintf(buf, sizeof(buf), "PRAGMA user_version=%d",
		 db_schema_version() + 1);
	if (db_open(path, &db) == 0)
		db_exec(db, buf);
	db_close(db);
	db = NULL;
	ok(db_open(path, &db) == -1 && !db, "newer database refused by "
	   "db_open()");
}

static void test_upgrade(void)
{
	struct db *db = NULL;
	char path[256];
	int v = -1;

	snprintf(path, sizeof(path), "%s/upgrade.db", dir);
	if (!ok(db_open_migrations(path, m, 1, &db) == 0, "open at v1"))
		return;
	db_user_version(db, &v);
	is_int(v, 1, "version 1");
	db_exec(db, "INSERT INTO a (x) VALUES (42)");
	ok(!table_exists(db, "b"), "no table b at v1");
	db_close(db);

	db = NULL;
	if (!ok(db_open_migrations(path, m, 2, &db) == 0, "upgrade to v2"))
		return;
	db_user_version(db, &v);
	is_int(v, 2, "version 2 after upgrade");
	is_int(q_int(db, "SELECT x FROM a"), 42, "old row kept");
	is_str(q_str(db, "SELECT y FROM a"), "new",
	       "new column added with its default");
	ok(table_exists(db, "b"), "table b created");
	db_close(db);

	/* A newer database is refused and not modified. */
	db = NULL;
	ok(db_open_migrations(path, m, 1, &db) == -1 && !db,
	   "database newer than the binary refused");
	db_close(db);

	/* A failing migration leaves version 2 and no trace of its work. */
	db = NULL;
	ok(db_open_migrations(path, m, 3, &db) == -1 && !db,
	   "failing migration: open fails");
	db = NULL;
	if (!ok(db_open_migrations(path, m, 2, &db) == 0,
		"still opens at v2 after the failed migration"))
		return;
	db_user_version(db, &v);
	is_int(v, 2, "version still 2");
	ok(!table_exists(db, "c"), "half-applied table c rolled back");
	is_int(q_int(db, "SELECT count(*) FROM a"), 1, "data intact");
	db_close(db);
}

/* The statement cache: same string, same statement; never evicted. */
static void test_stmt_cache(void)
{
	static char sqls[40][48];
	sqlite3_stmt *held, *st;
	struct db *db = NULL;
	char path[256];
	int i, fine = 1;

	snprintf(path, sizeof(path), "%s/cache.db", dir);
	if (!ok(db_open(path, &db) == 0, "open for the cache"))
		return;
	held = db_stmt(db, "SELECT ?1 + 1");
	ok(held && db_stmt(db, "SELECT ?1 + 1") == held,
	   "same SQL string, same statement");
	sqlite3_bind_int(held, 1, 41);
	for (i = 0; i < 40; i++) {
		snprintf(sqls[i], sizeof(sqls[i]), "SELECT %d", i);
		st = db_stmt(db, sqls[i]);
		if (!st || sqlite3_step(st) != SQLITE_ROW ||
		    sqlite3_column_int(st, 0) != i)
			fine = 0;
		sqlite3_reset(st);
	}
	ok(fine, "40 more statements prepared and run");
	ok(sqlite3_step(held) == SQLITE_ROW &&
	   sqlite3_column_int(held, 0) == 42,
	   "the statement held meanwhile is intact, binding kept");
	sqlite3_reset(held);
	ok(db_stmt(db, "no such SQL") == NULL, "bad SQL gives NULL");
	db_close(db);
}

static void test_bad_file(void)
{
	struct db *db = NULL;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/garbage.db", dir);
	f = fopen(path, "w");
	fputs("this is not an SQLite database, but it is long enough to "
	      "look like a header of one........................", f);
	fclose(f);
	ok(db_open(path, &db) == -1 && !db, "garbage file refused");
	ok(db_open("/nonexistent-dir/x.db", &db) == -1,
	   "unwritable path refused");
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_fresh();
	test_upgrade();
	test_stmt_cache();
	test_bad_file();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}
