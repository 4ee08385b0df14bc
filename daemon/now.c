/*
 * now.c - the monotonic clock (see now.h).
 */
#include <time.h>

#include "now.h"


long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

double now_cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

double now_thread_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}
