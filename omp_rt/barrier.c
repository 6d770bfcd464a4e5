/*
 * barrier.c: the explicit barrier.  A team barrier is a DSM barrier among
 * the nodes: every node's writes are flushed and every stale copy dropped,
 * which is exactly the flush that an OpenMP barrier implies.  It is also a
 * point where homes may migrate (OMPDSM_MIGRATE).
 */
#include "gomp_abi.h"
#include "omp_rt.h"

/* `#pragma omp barrier`, and the barrier that ends a `#pragma omp for`
 * whose blocks the compiler computes itself (no schedule clause: GCC calls
 * no GOMP_loop function, only this).  Home migration counts it as the end
 * of a loop, named by its call site, as it counts the end of a loop that
 * the runtime schedules: a region that runs every time step of a program
 * inside it would otherwise not migrate before it ends (the textbook
 * Jacobi so written: 3.2 s at 2 nodes, 0.95 s at one). */
void GOMP_barrier(void)
{
    OMP_RT_ENTRY;
    omp_rt_end_barrier((uintptr_t)__builtin_return_address(0));
}

/* Cancellation is never active (OMP_CANCELLATION is false). */
bool GOMP_barrier_cancel(void)
{
    OMP_RT_ENTRY;
    omp_rt_end_barrier((uintptr_t)__builtin_return_address(0));
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
