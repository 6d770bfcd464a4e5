/*
 * ws_mem.c: what a worksharing loop or sections asks of the runtime for
 * its team as it starts: the private copies of its task reductions
 * (task_red.c), and memory for its team (the `mem` of GOMP_loop_start and
 * GOMP_sections2_start): GCC keeps each thread's values there for a scan
 * (reduction inscan) and for lastprivate(conditional:).  *mem holds the
 * bytes it needs; it receives the memory, zeroed, the same for every
 * thread of the team.
 *
 * Thread 0 allocates the memory in the shared heap, and the others learn
 * its address as for copyprivate (omp_rt_team_value), at a barrier of the
 * team.  It lives until the same thread asks again and the others have
 * learnt the new address: each is then past its last use of the old.
 */
#include "omp_rt.h"
#include "task.h"

#include "../util/log.h"

static __thread void *previous;     /* thread 0's last */

struct ask {
    size_t size;
    const void *caller;
};

static void *allocate(void *arg)
{
    const struct ask *a = arg;
    void *p = omp_rt_calloc(1, a->size ? a->size : 1, a->caller);
    if (!p)
        dsm_fatal("out of memory for a worksharing construct's scan or lastprivate(conditional:) (%zu bytes)",
                  a->size);
    return p;
}

void omp_ws_start_extras(uintptr_t *reductions, void **mem, const void *caller)
{
    if (reductions)
        omp_task_red_workshare(reductions, caller);
    if (mem) {
        struct ask a = { .size = (uintptr_t)*mem, .caller = caller };
        *mem = omp_rt_team_value(allocate, &a);
        if (omp_rt_thread_num() == 0) {      /* every thread has its new address: the old is free */
            omp_rt_free(previous);
            previous = *mem;
        }
    }
}
