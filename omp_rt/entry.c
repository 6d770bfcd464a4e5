/*
 * entry.c: where the program's frames end on node 0's shared stack.
 *
 * Node 0 runs main() on a stack in shared memory, so that other nodes can
 * reach the shared variables of its frames; at a release it compares the
 * pages of that stack other nodes hold with their twins, and announces the
 * changed ones.  Below the program's frames, the runtime's own frames
 * change at every call (a barrier's timestamps, the transport's), and a
 * page holding both the program's variables and the runtime's frames would
 * be announced at every barrier: every other node would drop its copy and
 * fetch it again at the next region.
 *
 * So every entry point of the runtime that may release memory starts with
 * OMP_RT_ENTRY, which makes its own frame the stack floor of the DSM
 * (dsm_set_stack_floor) unless an outer entry point set it already, and
 * puts the previous floor back on return; a release compares only what
 * lies at or above the floor.  The runtime calls the program's code (a
 * region's body, a task, a task's copy function) through omp_rt_call_user,
 * which clears the floor while that code runs: its frames lie below the
 * floor of the entry point that called it, and every byte counts again
 * until the program enters the runtime anew.  An entry point that does not
 * set the floor is safe: with no floor, every byte counts.
 *
 * Only the thread that runs main() has its frames on the shared stack;
 * the others' entry points leave the floor alone.
 */
#include "omp_rt.h"
#include "../dsm/dsm.h"

/* Whether the thread whose frame this is runs on the shared stack. */
static bool keeps_floor(const void *frame)
{
    return dsm_page_of((uintptr_t)frame) >= 0;
}

const void *omp_rt_enter(const void *frame)
{
    if (!keeps_floor(frame))
        return NULL;
    const void *outer = dsm_stack_floor();
    if (!outer)
        dsm_set_stack_floor(frame);
    return outer;
}

void omp_rt_leave(const void *const *outer)
{
    if (keeps_floor(outer))
        dsm_set_stack_floor(*outer);
}

void omp_rt_call_user(void (*fn)(void *), void *data)
{
    if (!keeps_floor(__builtin_frame_address(0))) {
        fn(data);
        return;
    }
    const void *floor = dsm_stack_floor();
    dsm_set_stack_floor(NULL);
    fn(data);
    dsm_set_stack_floor(floor);
}

void omp_rt_call_user_copy(void (*fn)(void *, void *), void *dst, void *src)
{
    if (!keeps_floor(__builtin_frame_address(0))) {
        fn(dst, src);
        return;
    }
    const void *floor = dsm_stack_floor();
    dsm_set_stack_floor(NULL);
    fn(dst, src);
    dsm_set_stack_floor(floor);
}
