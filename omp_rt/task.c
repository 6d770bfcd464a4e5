/*
 * task.c: explicit tasks, run undeferred.
 *
 * OpenMP allows a task to run at once, by the thread that meets it; ompdsm
 * does that for every task and taskloop.  Programs whose correctness needs
 * tasks to run concurrently (a task waiting for a sibling) are outside what
 * ompdsm supports.  taskwait and taskgroup have nothing to wait for.
 */
#include "gomp_abi.h"

#define API __attribute__((visibility("default")))
API int omp_in_final(void);
#include "omp_rt.h"

#include "../dsm/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC's task flags (gomp-constants.h) */
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_REDUCTION (1u << 12)
#define TASK_FLAG_DETACH (1u << 13)

/* Copies the task's data as the task would see it (firstprivate copies
 * made by cpyfn, or a plain copy) into a buffer of the right alignment. */
static void *task_data(void *data, void (*cpyfn)(void *, void *), long size, long align)
{
    if (align < (long)sizeof(void *))
        align = sizeof(void *);
    void *buf = NULL;
    if (posix_memalign(&buf, (size_t)align, size > 0 ? (size_t)size : 1))
        dsm_fatal("out of memory for a task's data");
    if (cpyfn)
        cpyfn(buf, data);
    else if (size > 0)
        memcpy(buf, data, (size_t)size);
    return buf;
}

/* Depth of final tasks we are inside: their descendants are final too. */
static int final_depth;

int omp_in_final(void)
{
    return final_depth > 0;
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    (void)if_clause;
    (void)depend;       /* tasks run in creation order: dependences hold */
    (void)priority;
    (void)detach;
    if (flags & TASK_FLAG_DETACH)
        omp_rt_unsupported("task detach");
    bool final = (flags & TASK_FLAG_FINAL) != 0;
    final_depth += final;
    if (!cpyfn) {
        fn(data);
    } else {
        void *buf = task_data(data, cpyfn, arg_size, arg_align);
        fn(buf);
        free(buf);
    }
    final_depth -= final;
}

/* A taskloop runs as one task over all its iterations; the task's data
 * begins with the bounds of its iterations (two longs or two unsigned long
 * longs, of the same size). */
static void run_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                         long arg_align, unsigned flags, const void *bounds)
{
    if (flags & TASK_FLAG_REDUCTION)
        omp_rt_unsupported("taskloop reduction");
    void *buf = task_data(data, cpyfn, arg_size, arg_align);
    memcpy(buf, bounds, 2 * sizeof(long));
    fn(buf);
    free(buf);
}

void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                   long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                   long end, long step)
{
    (void)num_tasks;
    (void)priority;
    (void)step;
    long bounds[2] = { start, end };
    run_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, bounds);
}

void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                       gomp_ull start, gomp_ull end, gomp_ull step)
{
    (void)num_tasks;
    (void)priority;
    (void)step;
    gomp_ull bounds[2] = { start, end };
    run_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, bounds);
}

void GOMP_taskwait(void)
{
}

void GOMP_taskyield(void)
{
}

void GOMP_taskgroup_start(void)
{
}

void GOMP_taskgroup_end(void)
{
}

void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    (void)allocator;
    void *p = NULL;
    if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size ? size : 1))
        return NULL;
    return p;
}

void GOMP_free(void *ptr, uintptr_t allocator)
{
    (void)allocator;
    free(ptr);
}

void GOMP_error(const char *msg, size_t len)
{
    dsm_fatal("error directive: %.*s", (int)(len == (size_t)-1 ? strlen(msg) : len), msg);
}

void GOMP_warning(const char *msg, size_t len)
{
    dsm_warn("warning directive: %.*s", (int)(len == (size_t)-1 ? strlen(msg) : len), msg);
}
