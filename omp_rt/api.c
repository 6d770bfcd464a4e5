/*
 * api.c: the omp_* query and control routines.
 *
 * A team has at most the threads of all nodes (OMPDSM_THREADS_PER_NODE on
 * each, parallel.c); the routines answer as libgomp does for such a team.
 * omp_set_num_threads sizes the next teams (up to that count);
 * omp_set_dynamic is accepted and remembered (its getter answers).
 */
#include "omp_rt.h"

#include <time.h>

#define API __attribute__((visibility("default")))

typedef enum omp_sched_t { omp_sched_static = 1, omp_sched_dynamic, omp_sched_guided, omp_sched_auto } omp_sched_t;

API int omp_get_num_threads(void) { return omp_rt_team_size(); }
API int omp_get_thread_num(void) { return omp_rt_thread_num(); }
/* The nthreads-var ICV (the threads the nodes run by default if unset),
 * inside a region too (as libgomp: a program that sizes per-thread data by
 * it in a region got 1, though a nested region would run one thread). */
API int omp_get_max_threads(void) { return (int)omp_rt_team_bound(omp_rt_nthreads()); }
API int omp_get_num_procs(void) { return omp_rt_max_threads(); }
API int omp_in_parallel(void) { return omp_thr.active; }
API int omp_get_level(void) { return omp_thr.level; }
API int omp_get_active_level(void) { return omp_thr.active_level; }
API int omp_get_thread_limit(void) { return (int)(omp_icv.thread_limit > 0x7fffffff ? 0x7fffffff : omp_icv.thread_limit); }
API int omp_get_max_active_levels(void) { return (int)omp_icv.max_active_levels; }
API int omp_get_supported_active_levels(void) { return OMP_ACTIVE_LEVELS_MAX; }
API int omp_get_dynamic(void) { return omp_icv.dynamic; }
API int omp_get_nested(void) { return omp_icv.max_active_levels > 1 && omp_icv.max_active_levels > omp_thr.active_level; }
API int omp_get_cancellation(void) { return omp_icv.cancellation; }
API int omp_get_proc_bind(void) { return 0; }
API int omp_get_num_places(void) { return 0; }
API int omp_get_max_teams(void) { return omp_icv.num_teams; }
API int omp_get_teams_thread_limit(void) { return omp_icv.teams_thread_limit; }
API int omp_get_max_task_priority(void) { return 0; }

/* In a region, the calling thread's task's (parallel.c, nest.c); outside,
 * the node's, which the next region takes to every node.  As libgomp, a
 * count below 1 means 1. */
API void omp_set_num_threads(int n)
{
    if (omp_thr.level > 0)
        omp_thr.nthreads = n > 0 ? n : 1;
    else
        omp_icv.nthreads = n > 0 ? n : 1;
}
API void omp_set_dynamic(int d) { omp_icv.dynamic = d != 0; }
/* As libgomp: nesting on allows every level, off allows one. */
API void omp_set_nested(int n)
{
    if (n)
        omp_icv.max_active_levels = OMP_ACTIVE_LEVELS_MAX;
    else if (omp_icv.max_active_levels > 1)
        omp_icv.max_active_levels = 1;
}
API void omp_set_max_active_levels(int n)
{
    if (n >= 0)
        omp_icv.max_active_levels = n < OMP_ACTIVE_LEVELS_MAX ? n : OMP_ACTIVE_LEVELS_MAX;
}
API void omp_set_num_teams(int n) { if (n > 0) omp_icv.num_teams = n; }
API void omp_set_teams_thread_limit(int n) { if (n >= 0) omp_icv.teams_thread_limit = n; }

/* Nothing is held that a pause could free: the host's resources pause at
 * once (outside a region, as libgomp), no device does. */
API int omp_pause_resource(int kind, int device) { (void)kind; return (device == 0 || device == -1) && !omp_thr.active ? 0 : -1; }
API int omp_pause_resource_all(int kind) { (void)kind; return omp_thr.active ? -1 : 0; }

API void omp_display_env(int verbose) { omp_env_display(verbose != 0); }

/* The calling thread's place at an enclosing level (NULL: level 0, the
 * initial thread's team of one). */
static const struct omp_thr *at_level(int level)
{
    const struct omp_thr *t = &omp_thr;
    while (t && t->level > level)
        t = t->up;
    return t && t->level == level ? t : NULL;
}

API int omp_get_ancestor_thread_num(int level)
{
    if (level < 0 || level > omp_thr.level)
        return -1;
    const struct omp_thr *t = at_level(level);
    return t ? t->num : 0;
}

API int omp_get_team_size(int level)
{
    if (level < 0 || level > omp_thr.level)
        return -1;
    const struct omp_thr *t = at_level(level);
    return t ? t->size : 1;
}

API void omp_set_schedule(omp_sched_t kind, int chunk)
{
    int k = (int)kind & 0x7fffffff;
    if (k < omp_sched_static || k > omp_sched_auto)
        return;
    omp_icv.sched = (enum omp_sched)k;
    omp_icv.chunk = chunk < 1 ? (k == omp_sched_static ? 0 : 1) : chunk;
    omp_icv.monotonic = (unsigned)kind & 0x80000000u;   /* omp_sched_monotonic */
}

/* The profiled schedule reads as static: blocks, one per thread. */
API void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    bool profiled = omp_icv.sched == OMP_SCHED_PROFILED;
    *kind = profiled ? omp_sched_static : (omp_sched_t)omp_icv.sched;
    *chunk = profiled ? 0 : (int)omp_icv.chunk;
}

API double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

API double omp_get_wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
