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

UNSUPPORTED(omp_fulfill_event, "task detach")
