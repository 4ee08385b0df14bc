/*
 * log.h - diagnostics on stderr as "module: subject: message".
 *
 * Every failure is logged once, where its context is richest; callers that
 * receive -1 do not log it again.  error() returns -1 so that a failure can
 * be reported and propagated in one statement, as in git.
 *
 * A message is written as one line with its control characters escaped
 * (escape.h): arguments may be text from mail.
 */
#ifndef KREGRESS_LOG_H
#define KREGRESS_LOG_H

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* Messages above this level are dropped; LOG_LEVEL_INFO by default. */
void log_set_level(enum log_level level);

/* Prefix every line with an ISO-8601 UTC timestamp (the daemon does). */
void log_set_timestamps(int on);

void log_msg(enum log_level level, const char *module, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_info(mod, ...)  log_msg(LOG_LEVEL_INFO, mod, __VA_ARGS__)
#define log_warn(mod, ...)  log_msg(LOG_LEVEL_WARN, mod, __VA_ARGS__)
#define log_debug(mod, ...) log_msg(LOG_LEVEL_DEBUG, mod, __VA_ARGS__)

/* Logs at error level and returns -1. */
int error(const char *module, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * For a caller that turns a failure into a result a user reads (a
 * series' reason) when the function that failed logged the cause
 * itself: log_error_reset() before the call, and after it failed
 * log_error_first() is that thread's first error() message since (the
 * cause; later ones tend to be consequences), without the "module:
 * error: " prefix and not escaped, or "no cause was logged" when none
 * was.  Valid until the thread's next log_error_reset().
 */
void log_error_reset(void);
const char *log_error_first(void);

/* Logs at error level and exits with status 1; only for impossible states. */
void die(const char *module, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#endif
