/*
 * interval.h - checked clock readings and intervals, for the workloads'
 * time samples (pure; compiled into the static workload programs as it is,
 * like frame.c, and into libkregress for the unit tests).
 *
 * A time sample is the difference of two clock readings.  Two things must
 * never become a number: a reading that failed (clock_gettime() returning
 * -1 leaves the timespec as it was, i.e. uninitialised stack: a kernel
 * built without CONFIG_POSIX_TIMERS has no CLOCK_THREAD_CPUTIME_ID, and
 * every *_cpu sample used to be garbage, ~1e19 ns once the difference of
 * two such readings wrapped around), and an interval whose end is before
 * its start (an unsigned difference that would wrap).  The workload
 * reports those as failure records instead (DESIGN.md section 5).
 */
#ifndef KREGRESS_INTERVAL_H
#define KREGRESS_INTERVAL_H

#include <stdint.h>
#include <time.h>

/*
 * The result of clock_gettime() (its return value rc and the timespec it
 * filled) in nanoseconds: 0 and *ns, or -1 (*ns untouched) when the call
 * failed or ts is not a valid reading (negative seconds, nanoseconds
 * outside 0..999999999, or more than 2^64 ns).
 */
int interval_ts_ns(int rc, const struct timespec *ts, uint64_t *ns);

/*
 * end - start of one clock: 0 and *out, or -1 (*out untouched) when end is
 * before start, i.e. the clock went backwards.
 */
int interval_ns(uint64_t start, uint64_t end, uint64_t *out);

#endif
