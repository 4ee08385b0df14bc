/*
 * dbquery.h - one-value SQL queries for the C unit tests (every test that
 * reads its database back uses these).
 *
 * q_str() formats and runs a query on a test's connection and returns the
 * first column of its first row as text in a static buffer: "(null)" for
 * SQL NULL, "(none)" without a row, "(error)" when it does not compile.
 * The buffer is overwritten by the next call.
 *
 * q_int() is the same first column as an integer, or Q_NONE without a
 * row or when the query does not compile.
 *
 * q_state() is a series' "status|reason" (reason empty when NULL), or
 * "(missing)", in a buffer of its own, overwritten by the next call.
 */
#ifndef KREGRESS_DBQUERY_H
#define KREGRESS_DBQUERY_H

#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "db_pipeline.h"

#define Q_NONE	LLONG_MIN

/* The statement of fmt and ap on db, or NULL when it does not compile. */
static inline sqlite3_stmt *q_prepare(struct db *db, const char *fmt,
				      va_list ap)
{
	sqlite3_stmt *st;
	char sql[1024];

	vsnprintf(sql, sizeof(sql), fmt, ap);
	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static inline __attribute__((format(printf, 2, 3)))
char *q_str(struct db *db, const char *fmt, ...)
{
	static char buf[1024];
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = q_prepare(db, fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "(error)");
	if (!st)
		return buf;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, sizeof(buf), "%s",
			 sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "(null)");
	else
		snprintf(buf, sizeof(buf), "(none)");
	sqlite3_finalize(st);
	return buf;
}

static inline __attribute__((format(printf, 2, 3)))
long long q_int(struct db *db, const char *fmt, ...)
{
	long long v = Q_NONE;
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = q_prepare(db, fmt, ap);
	va_end(ap);
	if (!st)
		return v;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static inline const char *q_state(struct db *db, long long id)
{
	static char buf[1024];
	char *status = NULL, *reason = NULL;

	if (db_pipeline_get_status(db, id, &status, &reason))
		snprintf(buf, sizeof(buf), "(missing)");
	else
		snprintf(buf, sizeof(buf), "%s|%s", status,
			 reason ? reason : "");
	free(status);
	free(reason);
	return buf;
}

#endif
