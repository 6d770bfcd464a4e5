/*
 * loop.h: the iteration space of a worksharing loop, shared by loop.c
 * (the GOMP_loop_* entry points), sections.c and parallel.c.
 *
 * Loops are kept as iteration numbers 0 .. n-1; the entry points map them
 * back to the program's (start, incr) for long and unsigned long long
 * loops.  Static schedules are computed locally; dynamic and guided chunks
 * are handed out by node 0 (ws.c).
 */
#ifndef OMP_RT_LOOP_H
#define OMP_RT_LOOP_H

#include "omp_rt.h"

#include <stdbool.h>
#include <stdint.h>

struct omp_loop_args {
    int kind;                   /* enum omp_sched, resolved (never runtime); 0 = none */
    bool steal;                 /* dynamic, nonmonotonic, not ordered: steal.c's */
    bool ull;
    uint64_t start, incr, n;    /* first value, step, number of iterations */
    long chunk;
    uintptr_t where;            /* call site (or outlined function) */
};

/* A loop's iteration space, as the profiled schedule groups loops by it
 * (profiled.c: loops over nearly the same rows share a site). */
struct omp_site_key {
    uint64_t start, incr, n;
};

/* A loop's arguments: every field of *a, where (the call site) 0, which
 * the caller sets if it has one (a sections construct has none). */
void omp_loop_args_long(struct omp_loop_args *a, int kind, long start, long end, long incr, long chunk);
void omp_loop_args_ull(struct omp_loop_args *a, int kind, bool up, unsigned long long start,
                       unsigned long long end, unsigned long long incr, unsigned long long chunk);

/* A thread's part of the worksharing loop it runs. */
struct omp_loop_state {
    struct omp_loop_args a;
    uint64_t seq;
    uint64_t dealt;              /* static: chunks or blocks taken so far */
    uint64_t next;               /* team of one: first iteration not taken */
    uint64_t chunk_lo, ordered_done;
    bool doacross;               /* ordered(n) with depend: doacross.c's until the thread runs out */
    bool timing;                 /* profiled: this node's block is being timed */
    uint64_t block;              /* profiled: its size */
    uint64_t t0, first, iters;   /* for the profiler: this node's execution */
    bool reported;
};
/* A region that a thread starts inside a loop (a nested region, or one of
 * a team of one) has loops of its own: the thread's part of the enclosing
 * loop is saved before it and put back after. */
void omp_loop_state_save(struct omp_loop_state *to);
void omp_loop_state_restore(const struct omp_loop_state *from);

/* Starts this thread's part of a new worksharing loop. */
void omp_loop_init(const struct omp_loop_args *a);
/* The next chunk [lo, hi) of iteration numbers; false when none is left. */
bool omp_loop_next(uint64_t *lo, uint64_t *hi);
/* The call site of the worksharing loop the current region ran last, if
 * that was its last worksharing construct (GCC runs a `parallel for` with
 * a runtime schedule as a region whose body starts the loop); else 0. */
uintptr_t omp_loop_last_site(void);
/* The iteration number of the iteration that is running (for ordered). */
uint64_t omp_loop_current(void);

void omp_sections_init(unsigned count);

/* ws.c: node 0's service */
struct omp_ws_ask {
    uint64_t region, seq, n;
    long chunk;
    int kind, nthreads;
    int nodes;                  /* the team's nodes */
};
void omp_ws_next(const struct omp_ws_ask *ask, uint64_t *lo, uint64_t *hi);
void omp_ws_ordered_wait(uint64_t seq, uint64_t iter);
void omp_ws_ordered_done(uint64_t seq, uint64_t next_iter);

/* nest.c: a nested team's dynamic and guided chunks (sections too) and
 * ordered turns, as ws.c's for a team of the nodes. */
bool omp_nest_next(uint64_t seq, const struct omp_loop_args *a, uint64_t *lo, uint64_t *hi);
void omp_nest_ordered_wait(uint64_t seq, uint64_t iter);
void omp_nest_ordered_done(uint64_t seq, uint64_t next_iter);

/* doacross.c: a loop with ordered depend(sink)/depend(source), whose
 * first dimension's counts[0] iterations are shared out statically with
 * this chunk (0: one block per thread); seq: the construct's number.
 * Every thread of the team begins it, and ends it once it has run its last
 * iteration. */
void omp_doacross_begin(uint64_t seq, unsigned dims, const uint64_t *counts, long chunk);
void omp_doacross_end(void);
void omp_doacross_register(void);
void omp_doacross_reset(void);      /* at the end of a region */

/* steal.c: nonmonotonic dynamic loops, each node's threads taking chunks
 * from the node's range and stealing from the other nodes' when out. */
bool omp_steal_next(const struct omp_ws_ask *a, uint64_t *lo, uint64_t *hi);
void omp_steal_reset(void);
void omp_steal_register(void);

/* profiled.c: the profiled schedule, per node (loop.c splits a node's
 * block among its threads).  begin gives this node's block of a new
 * execution and starts its clock; end stops it (iters: the block's
 * size); one thread of the node calls each. */
void omp_profiled_init(void);
void omp_profiled_begin(const struct omp_site_key *k, uintptr_t where, uint64_t *lo, uint64_t *hi);
void omp_profiled_end(uint64_t iters);
/* Node 0 at exit, with OMPDSM_PROFILE=FILE: writes the profile. */
void omp_profiled_save(void);

/* parallel.c */
void omp_rt_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads,
                          const struct omp_loop_args *loop);

#endif
