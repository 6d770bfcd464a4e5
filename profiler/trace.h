/*
 * trace.h: the event trace of OMPDSM_TRACE (trace.c), used by loops.c.
 */
#ifndef PROFILER_TRACE_H
#define PROFILER_TRACE_H

#include <stdint.h>

void prof_trace_init(void);
void prof_trace_loop(uint64_t site, const char *kind, uint64_t t0, uint64_t t1, uint64_t first, uint64_t iters);
/* Collective: node 0 writes every node's events to the trace file. */
void prof_trace_write(void);

#endif
