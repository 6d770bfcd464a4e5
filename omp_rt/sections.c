/*
 * sections.c: the sections construct, as a dynamic loop over the section
 * numbers 1..count with chunks of one: node 0 hands each section to the
 * first thread that asks.
 */
#include "gomp_abi.h"
#include "loop.h"

void omp_sections_init(unsigned count)
{
    struct omp_loop_args a;
    omp_loop_args_long(&a, OMP_SCHED_DYNAMIC, 1, (long)count + 1, 1, 1);
    omp_loop_init(&a);
}

unsigned GOMP_sections_next(void)
{
    OMP_RT_ENTRY;
    uint64_t lo, hi;
    return omp_loop_next(&lo, &hi) ? (unsigned)lo + 1 : 0;
}

unsigned GOMP_sections_start(unsigned count)
{
    OMP_RT_ENTRY;
    omp_sections_init(count);
    return GOMP_sections_next();
}

/* sections with reduction(task, ...) (task_red.c); mem: memory GCC asks of
 * the construct for a lastprivate(conditional:) (ws_mem.c). */
unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return GOMP_sections_start(count);
}

void GOMP_sections_end(void)
{
    OMP_RT_ENTRY;
    omp_rt_barrier();
}

void GOMP_sections_end_nowait(void)
{
}

bool GOMP_sections_end_cancel(void)
{
    OMP_RT_ENTRY;
    if (omp_cancel_active())
        return omp_cancel_barrier();
    omp_rt_barrier();
    return false;
}
