/*
 * db_json.h - query results as the JSON the API serves: the row-to-object
 * mapping and the read transaction shared by db_series.c and db_web.c.
 *
 * A row becomes an object whose keys are the columns' names and whose
 * values follow the SQLite storage class (integer, real, text, NULL;
 * blobs are never selected and come out as null).  Text that is not
 * valid UTF-8 (mail headers can hold anything) is served with the bad
 * bytes replaced by '?' rather than failing the whole response.
 */
#ifndef KREGRESS_DB_JSON_H
#define KREGRESS_DB_JSON_H

#include <jansson.h>

struct db;
struct sqlite3_stmt;

/*
 * The cached statement of sql (a string constant, see db_stmt()); 0, or
 * -1 when it does not compile (logged).
 */
int db_json_prepare(struct db *db, const char *sql, struct sqlite3_stmt **st);

/* Resets a cached statement so that it holds no read snapshot; NULL ok. */
void db_json_done(struct sqlite3_stmt *st);

/* The current row of st as a new object. */
json_t *db_json_row(struct sqlite3_stmt *st);

/* Steps a prepared, bound statement, appending each row to rows. */
int db_json_collect(struct db *db, struct sqlite3_stmt *st, json_t *rows);

/*
 * The rows of st (prepared and bound; NULL when preparing it failed) as
 * a new array in *out (the caller's), the text of each column named in
 * json (NULL-terminated; NULL for none) replaced by the JSON value it
 * holds (db_json_parse_member()).  Resets st.  0, or -1 (logged, or the
 * prepare's failure) with *out NULL.
 */
int db_json_rows(struct db *db, struct sqlite3_stmt *st,
		 const char *const *json, json_t **out);

/* { "params", NULL }: the column db_json_rows() most often parses. */
extern const char *const db_json_params[];

/* One query with the single id parameter ?1; its rows in *out. */
int db_json_rows_by_id(struct db *db, const char *sql, long long id,
		       json_t **out);

/*
 * A read transaction, so that the parts of one answer come from one
 * snapshot (and the WAL read lock is taken once).  db_json_read_end()
 * always ends it.
 */
int db_json_read_begin(struct db *db);
void db_json_read_end(struct db *db);

/*
 * Replaces the text member key of each object of rows by the JSON value
 * it holds ("params" is stored as JSON text); text that does not parse
 * stays text.
 */
void db_json_parse_member(json_t *rows, const char *key);

#endif
