/*
 * log.c - stderr diagnostics.  One fprintf per line so that lines from
 * worker threads never interleave mid-line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

static enum log_level max_level = LOG_LEVEL_INFO;
static int timestamps;

void log_set_level(enum log_level level)
{
	max_level = level;
}

void log_set_timestamps(int on)
{
	timestamps = on;
}

static void log_vmsg(enum log_level level, const char *module,
		     const char *fmt, va_list ap)
{
	static const char *const level_str[] = {
		[LOG_LEVEL_ERROR] = "error: ",
		[LOG_LEVEL_WARN] = "warning: ",
		[LOG_LEVEL_INFO] = "",
		[LOG_LEVEL_DEBUG] = "debug: ",
	};
	char stamp[32] = "";
	char msg[2048];

	if (level > max_level)
		return;
	if (timestamps) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ ", &tm);
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s%s: %s%s\n", stamp, module, level_str[level], msg);
}

void log_msg(enum log_level level, const char *module, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, module, fmt, ap);
	va_end(ap);
}

int error(const char *module, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LEVEL_ERROR, module, fmt, ap);
	va_end(ap);
	return -1;
}

void die(const char *module, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LEVEL_ERROR, module, fmt, ap);
	va_end(ap);
	exit(1);
}
