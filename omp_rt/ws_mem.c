/*
 * ws_mem.c: memory that a worksharing construct asks of the runtime for
 * its team (the `mem` of GOMP_loop_start and GOMP_sections2_start): GCC
 * keeps each thread's values there for a scan (reduction inscan) and for
 * lastprivate(conditional:).  *mem holds the bytes it needs; it receives
 * the memory, zeroed, the same for every thread of the team.
 *
 * Thread 0 allocates it in the shared heap, and the others learn its
 * address as for copyprivate (single.c), at a barrier of the team.  It
 * lives until the same thread asks again: every thread of its team has
 * met that barrier then, past its last use of the memory before.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../util/log.h"

static __thread void *previous;     /* thread 0's last */

void omp_ws_memory(void **mem, const void *caller)
{
    if (omp_rt_thread_num() != 0) {
        *mem = GOMP_single_copy_start();
        return;
    }
    size_t size = (uintptr_t)*mem;
    void *p = omp_rt_calloc(1, size ? size : 1, caller);
    if (!p)
        dsm_fatal("out of memory for a worksharing construct's scan or lastprivate(conditional:) (%zu bytes)",
                  size);
    GOMP_single_copy_end(p);
    omp_rt_free(previous);
    previous = p;
    *mem = p;
}
