/*
 * now.h - the monotonic clock, for durations and deadlines (never for
 * timestamps that are stored or shown: those are time(NULL)).
 */
#ifndef KREGRESS_NOW_H
#define KREGRESS_NOW_H

/* CLOCK_MONOTONIC in seconds, and in whole milliseconds. */
double now_s(void);
long long now_ms(void);

/* CPU seconds used by this process, and by the calling thread. */
double now_cpu_s(void);
double now_thread_cpu_s(void);

#endif
