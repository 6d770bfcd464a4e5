/*
 * clock.c: the runtime's one clock (see clock.h).
 */
#include "clock.h"

#include <time.h>

static __thread uint64_t last;

uint64_t dsm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    last = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return last;
}

uint64_t dsm_last_ns(void)
{
    return last;
}
