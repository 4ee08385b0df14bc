/*
 * dbquery.h - one-value SQL queries for the C unit tests.
 *
 * q_str() formats and runs a query on a test's connection and returns the
 * first column of its first row as text in a static buffer: "(null)" for
 * SQL NULL, "(none)" without a row, "(error)" when it does not compile.
 * The buffer is overwritten by the next call.
 *
 * q_state() is a series' "status|reason" (reason empty when NULL), or
 * "(missing)", in a buffer of its own, overwritten by the next call.
 */
#ifndef KREGRESS_DBQUERY_H
#define KREGRESS_DBQUERY_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "db_pipeline.h"

static inline __attribute__((format(printf, 2, 3)))
char *q_str(struct db *db, const char *fmt, ...)
{
	static char buf[1024];
	sqlite3_stmt *st;
	char sql[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "(error)");
	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
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
