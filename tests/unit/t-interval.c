/*
 * t-interval.c - clock readings and intervals that must never become a
 * sample: a failed clock_gettime(), an invalid timespec, a clock that went
 * backwards (the arm64 *_cpu samples of ~1.8e19 ns).
 */
#include "interval.h"
#include "tap.h"

int main(void)
{
	struct timespec ts;
	uint64_t ns = 42, d = 42;

	ts.tv_sec = 3;
	ts.tv_nsec = 5;
	is_int(interval_ts_ns(0, &ts, &ns), 0, "a reading");
	ok(ns == 3000000005ULL, "is 3 s 5 ns");

	/* What an unchecked call left behind looked just like a reading. */
	ns = 42;
	is_int(interval_ts_ns(-1, &ts, &ns), -1,
	       "a failed clock_gettime() is no reading, whatever ts holds");
	ok(ns == 42, "and leaves the result alone");

	ts.tv_nsec = 1000000000L;
	is_int(interval_ts_ns(0, &ts, &ns), -1, "tv_nsec of 1e9 is invalid");
	ts.tv_nsec = -1;
	is_int(interval_ts_ns(0, &ts, &ns), -1, "negative tv_nsec is invalid");
	ts.tv_nsec = 0;
	ts.tv_sec = -1;
	is_int(interval_ts_ns(0, &ts, &ns), -1, "negative tv_sec is invalid");
	ts.tv_sec = (time_t)(UINT64_MAX / 1000000000ULL) + 1;
	is_int(interval_ts_ns(0, &ts, &ns), -1, "2^64 ns or more is invalid");
	ts.tv_sec = 0;
	ts.tv_nsec = 999999999L;
	is_int(interval_ts_ns(0, &ts, &ns), 0, "999999999 ns is valid");

	is_int(interval_ns(100, 250, &d), 0, "an interval");
	ok(d == 150, "of 150 ns");
	is_int(interval_ns(7, 7, &d), 0, "an empty interval is one");
	ok(d == 0, "of 0 ns");
	d = 42;
	is_int(interval_ns(250, 100, &d), -1,
	       "a clock that went backwards gives no interval");
	ok(d == 42, "and no wrapped-around number");
	is_int(interval_ns(1, 0, &d), -1, "not even by 1 ns");
	return done_testing();
}
