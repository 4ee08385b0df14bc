/*
 * tap.h - a minimal TAP producer for the C unit tests.
 *
 * Each unit test is one program: call the checks, then return done_testing().
 * prove(1) reads the output; a failing check prints what it got and what it
 * expected as a TAP diagnostic.
 */
#ifndef KREGRESS_TAP_H
#define KREGRESS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_run, tap_failed;

static inline int tap_vok(int pass, const char *fmt, va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 2, 3)))
int ok(int pass, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, fmt, ap);
	va_end(ap);
	return r;
}

static inline __attribute__((format(printf, 3, 4)))
int is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got: %lld\n#  want: %lld\n", got, want);
	return r;
}

static inline __attribute__((format(printf, 3, 4)))
int is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(got && want ? !strcmp(got, want) : got == want, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got: %s\n#  want: %s\n", got ? got : "(null)",
		       want ? want : "(null)");
	return r;
}

/* Passes when |got - want| <= tol * max(1, |want|). */
static inline __attribute__((format(printf, 4, 5)))
int is_double(double got, double want, double tol, const char *fmt, ...)
{
	double scale = fabs(want) > 1 ? fabs(want) : 1;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(fabs(got - want) <= tol * scale, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got: %.17g\n#  want: %.17g\n", got, want);
	return r;
}

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_run);
	return tap_failed ? 1 : 0;
}

/* The longest line of text, in bytes (the mail tests' 78 columns). */
static inline size_t widest_line(const char *text)
{
	size_t max = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");

		if (n > max)
			max = n;
		text += n + (text[n] == '\n');
	}
	return max;
}

#endif
