/*
 * db_json.c - query rows as JSON values, and read transactions (see
 * db_json.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "db.h"
#include "db_json.h"
#include "log.h"

int db_json_prepare(struct db *db, const char *sql, struct sqlite3_stmt **st)
{
	*st = db_stmt(db, sql);
	return *st ? 0 : -1;
}

void db_json_done(struct sqlite3_stmt *st)
{
	db_reset(st);
}

static json_t *text_value(const char *text, size_t len)
{
	json_t *v;
	char *copy;
	size_t i;

	v = json_stringn(text, len);
	if (v)
		return v;
	copy = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		copy[i] = (unsigned char)text[i] < 0x80 && text[i] ?
			  text[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

json_t *db_json_row(struct sqlite3_stmt *st)
{
	json_t *obj = json_object();
	int i, n = db_column_count(st);

	for (i = 0; i < n; i++) {
		json_t *v;

		switch (db_column_type(st, i)) {
		case DB_INTEGER:
			v = json_integer(db_column_int64(st, i));
			break;
		case DB_FLOAT:
			v = json_real(db_column_double(st, i));
			break;
		case DB_TEXT:
			v = text_value(db_column_text(st, i),
				       db_column_bytes(st, i));
			break;
		default:	/* NULL; blobs are never served */
			v = json_null();
		}
		json_object_set_new(obj, db_column_name(st, i), v);
	}
	return obj;
}

int db_json_read_begin(struct db *db)
{
	struct sqlite3_stmt *st;

	if (db_json_prepare(db, "BEGIN DEFERRED", &st))
		return -1;
	return db_step_done(db, st, "db", "begin");
}

void db_json_read_end(struct db *db)
{
	struct sqlite3_stmt *st;

	if (db_in_transaction(db) && !db_json_prepare(db, "COMMIT", &st))
		db_step_done(db, st, "db", "commit");
	/* A read-only transaction cannot fail to end; make sure. */
	db_rollback(db);
}

int db_json_collect(struct db *db, struct sqlite3_stmt *st, json_t *rows)
{
	int rc;

	while ((rc = db_row(db, st, "db", "query")) > 0)
		json_array_append_new(rows, db_json_row(st));
	return rc;
}

const char *const db_json_params[] = { "params", NULL };

int db_json_rows(struct db *db, struct sqlite3_stmt *st,
		 const char *const *json, json_t **out)
{
	json_t *rows = json_array();
	int ret = -1;

	*out = NULL;
	if (!st || db_json_collect(db, st, rows))
		goto out;
	for (; json && *json; json++)
		db_json_parse_member(rows, *json);
	*out = rows;
	rows = NULL;
	ret = 0;
out:
	json_decref(rows);
	db_json_done(st);
	return ret;
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
	struct sqlite3_stmt *st = NULL;

	if (!db_json_prepare(db, sql, &st))
		db_bind_int(st, 1, id);
	return db_json_rows(db, st, NULL, out);
}
