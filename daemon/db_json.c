/*
 * db_json.c - query rows as JSON values, and read transactions (see
 * db_json.h).
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db.h"
#include "db_json.h"
#include "log.h"

int db_json_prepare(struct db *db, const char *sql, sqlite3_stmt **st)
{
	*st = db_stmt(db, sql);
	return *st ? 0 : -1;
}

void db_json_done(sqlite3_stmt *st)
{
	if (st)
		sqlite3_reset(st);
}

static json_t *text_value(const char *text, int len)
{
	json_t *v;
	char *copy;
	int i;

	v = json_stringn(text, len);
	if (v)
		return v;
	copy = malloc(len + 1);
	if (!copy)
		die("db", "out of memory");
	for (i = 0; i < len; i++)
		copy[i] = (unsigned char)text[i] < 0x80 && text[i] ?
			  text[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

json_t *db_json_row(sqlite3_stmt *st)
{
	json_t *obj = json_object();
	int i, n = sqlite3_column_count(st);

	for (i = 0; i < n; i++) {
		json_t *v;

		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = json_integer(sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_real(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			v = text_value((const char *)sqlite3_column_text(st, i),
				       sqlite3_column_bytes(st, i));
			break;
		default:	/* NULL; blobs are never served */
			v = json_null();
		}
		json_object_set_new(obj, sqlite3_column_name(st, i), v);
	}
	return obj;
}

int db_json_read_begin(struct db *db)
{
	sqlite3_stmt *st;
	int rc;

	if (db_json_prepare(db, "BEGIN DEFERRED", &st))
		return -1;
	rc = sqlite3_step(st);
	db_json_done(st);
	if (rc != SQLITE_DONE)
		return error("db", "begin: %s", sqlite3_errmsg(db_sqlite(db)));
	return 0;
}

void db_json_read_end(struct db *db)
{
	sqlite3_stmt *st;

	if (!db_json_prepare(db, "COMMIT", &st)) {
		sqlite3_step(st);
		db_json_done(st);
	}
	/* A read-only transaction cannot fail to end; make sure. */
	db_rollback(db);
}

int db_json_collect(struct db *db, sqlite3_stmt *st, json_t *rows)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(rows, db_json_row(st));
	if (rc != SQLITE_DONE)
		return error("db", "query: %s", sqlite3_errmsg(db_sqlite(db)));
	return 0;
}

void db_json_parse_member(json_t *rows, const char *key)
{
	json_t *row, *text, *value;
	size_t i;

	json_array_foreach(rows, i, row) {
		text = json_object_get(row, key);
		if (!json_is_string(text))
			continue;
		value = json_loads(json_string_value(text), JSON_DECODE_ANY,
				   NULL);
		if (value)
			json_object_set_new(row, key, value);
	}
}

int db_json_rows_by_id(struct db *db, const char *sql, long long id,
		       json_t **out)
{
	sqlite3_stmt *st = NULL;
	json_t *rows = json_array();
	int ret = -1;

	if (db_json_prepare(db, sql, &st))
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if (db_json_collect(db, st, rows))
		goto out;
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	json_decref(rows);
	db_json_done(st);
	return ret;
}
