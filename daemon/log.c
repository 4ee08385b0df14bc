/*
 * log.c - stderr diagnostics.  One fprintf per line so that lines from
 * worker threads never interleave mid-line.
 *
 * Messages carry text from mail and from other servers (a Subject, a
 * path in a diff, an error page), so every message is escaped
 * (escape.h) before it is written: one message is one line, and no byte
 * of it can drive the terminal or the journal viewer that shows it.
 * Nothing here allocates: die() reports running out of memory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "log.h"

#define LOG_MSG_MAX	2048

static enum log_level max_level = LOG_LEVEL_INFO;
static int timestamps;
/* the first error() of this thread since log_error_reset(), as given */
static __thread char first_error[LOG_MSG_MAX];
static __thread int have_error;

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
	char msg[LOG_MSG_MAX];
	char line[LOG_MSG_MAX * ESCAPE_MAX_PER_BYTE + 1];

	if (level > max_level)		/* never an error */
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (level == LOG_LEVEL_ERROR && !have_error) {
		memcpy(first_error, msg, sizeof(msg));
		have_error = 1;
	}
	if (timestamps) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ ", &tm);
	}
	escape_text(line, sizeof(line), msg, strlen(msg));
	fprintf(stderr, "%s%s: %s%s\n", stamp, module, level_str[level], line);
}

void log_error_reset(void)
{
	have_error = 0;
	first_error[0] = '\0';
}

const char *log_error_first(void)
{
	return have_error ? first_error : "no cause was logged";
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
