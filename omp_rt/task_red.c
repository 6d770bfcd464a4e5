/*
 * task_red.c: task reductions (taskgroup task_reduction, task
 * in_reduction, taskloop reduction).
 *
 * GCC describes a taskgroup's reductions in an array of its own (libgomp's
 * layout): data[0] their count, data[1] the bytes of one thread's private
 * copies, data[2] their alignment, data[4] the next such array; then, per
 * reduction, the original's address and its offset among the copies.  The
 * runtime allocates the copies of every thread of the team (data[2] becomes
 * their start, data[6] their end), the compiler's code initialises them,
 * a task with in_reduction asks where its thread's copies are
 * (GOMP_task_reduction_remap), and after the taskgroup ends the compiler's
 * code merges the copies into the originals and gives them back
 * (GOMP_taskgroup_reduction_unregister).
 *
 * Across nodes the copies, and a record of what the array says
 * (struct task_red), live in the shared heap, allocated on behalf of the
 * program: a task that moves to another node carries the record's address,
 * which means the same there, and writes its thread's copies, which its
 * completion publishes to the taskgroup's end like any write of a task
 * (task.c).  The compiler's array itself may be on a private stack.
 *
 * reduction(task, ...) on parallel is the same with the region's implicit
 * tasks: the encountering thread makes the copies before the region starts
 * (parallel.c), every thread's implicit task takes part.  On a worksharing
 * loop, sections or scope, every thread of the team comes with an array of
 * its own and opens a taskgroup: thread 0 makes the copies, and the others
 * learn where they are as for copyprivate (single.c, a barrier); after the
 * construct's barrier thread 0 merges them, and
 * GOMP_workshare_task_reduction_unregister ends the taskgroups, frees the
 * copies and waits for the team.
 */
#include "gomp_abi.h"
#include "omp_rt.h"
#include "task.h"

#include "../util/log.h"

#include <string.h>

/* One array of the compiler's, as every node can read it. */
struct task_red {
    const struct task_red *next;        /* registered before it (enclosing taskgroups) */
    uintptr_t base, end, size;          /* the copies: thread i's at base + i * size */
    size_t cnt;
    struct {
        uintptr_t addr, offset;         /* the original, its copy's offset */
    } ent[];
};

/* data: the compiler's arrays, chained by data[4]. */
const struct task_red *omp_task_red_make(uintptr_t *data, int threads, const void *caller)
{
    const struct task_red *red = omp_task_reductions();
    for (uintptr_t *d = data;; d = (uintptr_t *)d[4]) {
        size_t align = d[2] < sizeof(void *) ? sizeof(void *) : d[2], bytes = d[1] * (size_t)threads;
        void *copies = omp_rt_memalign(align, bytes ? bytes : 1, caller);
        struct task_red *r = omp_rt_malloc(sizeof *r + d[0] * sizeof r->ent[0], caller);
        if (!copies || !r)
            dsm_fatal("out of memory for the private copies of task reductions (%zu bytes)", bytes);
        memset(copies, 0, bytes);
        *r = (struct task_red){ .next = red, .base = (uintptr_t)copies, .end = (uintptr_t)copies + bytes,
                                .size = d[1], .cnt = d[0] };
        for (size_t j = 0; j < d[0]; j++) {
            r->ent[j].addr = d[7 + 3 * j];
            r->ent[j].offset = d[7 + 3 * j + 1];
        }
        d[2] = r->base;
        d[5] = (uintptr_t)r;
        d[6] = r->end;
        red = r;
        if (!d[4])
            break;
    }
    return red;
}

void omp_task_red_register(uintptr_t *data, const void *caller)
{
    omp_task_set_reductions(omp_task_red_make(data, omp_rt_team_size(), caller));
}

struct make_args {
    uintptr_t *data;
    const void *caller;
};

static void *make_for_team(void *arg)
{
    const struct make_args *m = arg;
    return (void *)omp_task_red_make(m->data, omp_rt_team_size(), m->caller);
}

void omp_task_red_workshare(uintptr_t *data, const void *caller)
{
    GOMP_taskgroup_start();
    struct make_args m = { .data = data, .caller = caller };
    const struct task_red *red = omp_rt_team_value(make_for_team, &m);
    if (omp_rt_thread_num() != 0) {
        size_t n = 0;
        for (uintptr_t *d = data; d; d = (uintptr_t *)d[4])
            n++;
        const struct task_red *made[n];             /* thread 0's, in the order of the arrays */
        const struct task_red *r = red;
        for (size_t i = n; i-- > 0; r = r->next)
            made[i] = r;
        size_t i = 0;
        for (uintptr_t *d = data; d; d = (uintptr_t *)d[4], i++) {
            d[2] = made[i]->base;
            d[5] = (uintptr_t)made[i];
            d[6] = made[i]->end;
        }
    }
    omp_task_set_reductions(red);
}

/* scope with reduction(task, ...): a worksharing construct for the task
 * reductions only (GCC ends it with the barrier below). */
void GOMP_scope_start(uintptr_t *reductions)
{
    OMP_RT_ENTRY;
    if (reductions)
        omp_task_red_workshare(reductions, __builtin_return_address(0));
}

void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    OMP_RT_ENTRY;
    const struct task_red *red = omp_task_reductions();
    GOMP_taskgroup_end();
    const struct task_red *outer = omp_task_reductions();
    for (const struct task_red *r = red, *next; omp_rt_thread_num() == 0 && r != outer; r = next) {
        next = r->next;
        omp_rt_free((void *)r->base);
        omp_rt_free((void *)r);
    }
    if (!cancelled)
        GOMP_barrier();
}

void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    OMP_RT_ENTRY;
    omp_task_red_register(data, __builtin_return_address(0));
}

void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    OMP_RT_ENTRY;
    for (uintptr_t *d = data; d; d = (uintptr_t *)d[4]) {
        omp_rt_free((void *)d[2]);
        omp_rt_free((void *)d[5]);
        d[5] = 0;
    }
}

/* The record and entry of an original's address, or of an address among
 * the copies (then *off is its offset in a thread's copies). */
static const struct task_red *find(const void *p, size_t *entry, uintptr_t *off)
{
    const struct task_red *red = omp_task_reductions();
    for (const struct task_red *r = red; r; r = r->next)
        for (size_t j = 0; j < r->cnt; j++)
            if (r->ent[j].addr == (uintptr_t)p) {
                *entry = j;
                *off = r->ent[j].offset;
                return r;
            }
    for (const struct task_red *r = red; r; r = r->next)
        if ((uintptr_t)p >= r->base && (uintptr_t)p < r->end) {
            *off = ((uintptr_t)p - r->base) % r->size;
            *entry = r->cnt;
            for (size_t j = 0; j < r->cnt; j++)
                if (r->ent[j].offset == *off)
                    *entry = j;
            return r;
        }
    return NULL;
}

/* ptrs[0 .. cnt-1]: originals (or copies of them) become this thread's
 * copies; for i < cntorig, ptrs[cnt + i] receives the original. */
void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    size_t me = (size_t)omp_rt_thread_num();
    for (size_t i = 0; i < cnt; i++) {
        size_t entry;
        uintptr_t off;
        const struct task_red *r = find(ptrs[i], &entry, &off);
        if (!r || (i < cntorig && entry == r->cnt))
            dsm_fatal("in_reduction of %p: no enclosing taskgroup has a task_reduction of it", ptrs[i]);
        if (r->base + (me + 1) * r->size > r->end)
            dsm_fatal("internal: thread %zu outside the team of a task reduction", me);
        ptrs[i] = (void *)(r->base + me * r->size + off);
        if (i < cntorig)
            ptrs[cnt + i] = (void *)r->ent[entry].addr;
    }
}
