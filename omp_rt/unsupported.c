/*
 * unsupported.c: the entry points of constructs ompdsm does not run.
 *
 * Each one stops the program with a message naming the construct, rather
 * than leaving the symbol undefined (the link would fail with a message
 * about a GOMP_ symbol, which says nothing to the user) or doing something
 * silently different.
 */
#include "omp_rt.h"

#include "../util/log.h"

void omp_rt_unsupported(const char *construct)
{
    dsm_fatal("unsupported OpenMP construct: %s", construct);
}

#define UNSUPPORTED(symbol, construct)                                        \
    __attribute__((visibility("default"))) void symbol(void);                 \
    void symbol(void) { omp_rt_unsupported(construct); }

UNSUPPORTED(GOMP_loop_doacross_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_doacross_static_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_doacross_dynamic_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_doacross_guided_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_doacross_runtime_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_ull_doacross_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_ull_doacross_static_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_ull_doacross_dynamic_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_ull_doacross_guided_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_loop_ull_doacross_runtime_start, "ordered(n) with depend (doacross)")
UNSUPPORTED(GOMP_doacross_post, "ordered depend(source)")
UNSUPPORTED(GOMP_doacross_wait, "ordered depend(sink)")
UNSUPPORTED(GOMP_doacross_ull_post, "ordered depend(source)")
UNSUPPORTED(GOMP_doacross_ull_wait, "ordered depend(sink)")
UNSUPPORTED(omp_fulfill_event, "task detach")
