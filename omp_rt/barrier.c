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
