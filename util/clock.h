/*
 * clock.h: the monotonic clock that every layer's timings and timeouts
 * read (statistics, traces, the profiled schedule, heartbeats).
 */
#ifndef UTIL_CLOCK_H
#define UTIL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dsm_now_ns(void);

#endif
