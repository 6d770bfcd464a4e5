/*
 * barrier.c: the explicit barrier.  A team barrier is a DSM barrier among
 * the nodes: every node's writes are flushed and every stale copy dropped,
 * which is exactly the flush that an OpenMP barrier implies.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

void GOMP_barrier(void)
{
    OMP_RT_ENTRY;
    omp_rt_barrier();
}

/* Cancellation is never active (OMP_CANCELLATION is false). */
bool GOMP_barrier_cancel(void)
{
    OMP_RT_ENTRY;
    omp_rt_barrier();
    return false;
}

/* As in libgomp with OMP_CANCELLATION false (the only setting ompdsm
 * accepts): cancel and cancellation point do nothing and report that the
 * construct was not cancelled. */
bool GOMP_cancel(int which, bool do_cancel)
{
    (void)which;
    (void)do_cancel;
    return false;
}

bool GOMP_cancellation_point(int which)
{
    (void)which;
    return false;
}
