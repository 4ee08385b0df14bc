/*
 * interval.c - checked clock readings and intervals (see interval.h).
 */
#include "interval.h"

#define NS_PER_S	1000000000ULL

int interval_ts_ns(int rc, const struct timespec *ts, uint64_t *ns)
{
	uint64_t sec;

	if (rc != 0 || ts->tv_sec < 0 || ts->tv_nsec < 0 ||
	    (uint64_t)ts->tv_nsec >= NS_PER_S)
		return -1;
	sec = (uint64_t)ts->tv_sec;
	if (sec > (UINT64_MAX - (uint64_t)ts->tv_nsec) / NS_PER_S)
		return -1;
	*ns = sec * NS_PER_S + (uint64_t)ts->tv_nsec;
	return 0;
}

int interval_ns(uint64_t start, uint64_t end, uint64_t *out)
{
	if (end < start)
		return -1;
	*out = end - start;
	return 0;
}
