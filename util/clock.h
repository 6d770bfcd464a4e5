/*
 * clock.h: the monotonic clock that every layer's timings and timeouts
 * read (statistics, traces, the profiled schedule, heartbeats).
 */
#ifndef UTIL_CLOCK_H
#define UTIL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dsm_now_ns(void);

/* What dsm_now_ns() last returned in this thread (0: never called): for
 * a time that may be late by what the thread did since, without the cost
 * of reading the clock (about 20 ns, a tenth of an empty barrier). */
uint64_t dsm_last_ns(void);

#endif
