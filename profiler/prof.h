/*
 * prof.h: the profiler (prefix prof_): per-loop-site statistics for
 * OMPDSM_STATS and the event trace for OMPDSM_TRACE.
 *
 * The OpenMP layer reports what each node did: every execution of a loop
 * that reaches the runtime (its block and time), and its barriers and home
 * migrations.  Everything stays in the node's memory until prof_report(),
 * which is collective: node 0 gathers every node's records, prints the
 * loop table and writes the trace.
 */
#ifndef PROFILER_PROF_H
#define PROFILER_PROF_H

#include <stdbool.h>
#include <stdint.h>

enum prof_event { PROF_LOOP, PROF_BARRIER, PROF_MIGRATION };

/* Collective, once the nodes are connected: the common time origin. */
void prof_init(uintptr_t exe_base);

/* One node's execution of a loop site (where: its call site): the time
 * from taking its first iterations to finding none left, its first
 * iteration number and how many it ran; kind names the schedule. */
void prof_loop(uintptr_t where, const char *kind, uint64_t t0_ns, uint64_t t1_ns, uint64_t first,
               uint64_t iters);

/* Whether OMPDSM_TRACE records events: the times of barriers are taken
 * only then. */
bool prof_tracing(void);

/* A barrier (or home migration, moving `pages`) from t0 to t1. */
void prof_sync(enum prof_event what, uint64_t t0_ns, uint64_t t1_ns, uint64_t pages);

/* Collective, at exit. */
void prof_report(void);

#endif
