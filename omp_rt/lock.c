/*
 * lock.c: the omp_*_lock API on DSM locks.
 *
 * A lock is named by its address, which is the same on every node for a
 * lock in shared memory (globals, the master's stack, the shared heap).
 * The lock variable itself is never written: its state lives at the DSM
 * lock manager.  Nested locks count their depth at the owning node, which
 * is the owning thread since each node runs one OpenMP thread.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdlib.h>

typedef struct { unsigned char x[4]; } omp_lock_t;
typedef struct { unsigned char x[16]; } omp_nest_lock_t;

#define API __attribute__((visibility("default")))

static uint64_t id_of(const void *lock)
{
    return (uint64_t)(uintptr_t)lock;
}

API void omp_init_lock(omp_lock_t *l)
{
    (void)l;
}

API void omp_destroy_lock(omp_lock_t *l)
{
    (void)l;
}

API void omp_set_lock(omp_lock_t *l)
{
    OMP_RT_ENTRY;
    dsm_lock_acquire(DSM_LOCK_OMP, id_of(l));
}

API void omp_unset_lock(omp_lock_t *l)
{
    OMP_RT_ENTRY;
    dsm_lock_release(DSM_LOCK_OMP, id_of(l));
}

API int omp_test_lock(omp_lock_t *l)
{
    OMP_RT_ENTRY;
    return dsm_lock_try(DSM_LOCK_OMP, id_of(l));
}

/* Depth of the nested locks this node holds: a short list, usually empty. */
static __thread struct held {
    const void *lock;
    int depth;
    struct held *next;
} *held;

static struct held **find(const void *lock)
{
    struct held **h = &held;
    while (*h && (*h)->lock != lock)
        h = &(*h)->next;
    return h;
}

static void hold(const void *lock)
{
    struct held *h = xmalloc(sizeof *h);
    *h = (struct held){ .lock = lock, .depth = 1, .next = held };
    held = h;
}

API void omp_init_nest_lock(omp_nest_lock_t *l)
{
    (void)l;
}

API void omp_destroy_nest_lock(omp_nest_lock_t *l)
{
    (void)l;
}

API void omp_set_nest_lock(omp_nest_lock_t *l)
{
    OMP_RT_ENTRY;
    struct held **h = find(l);
    if (*h) {
        (*h)->depth++;
        return;
    }
    dsm_lock_acquire(DSM_LOCK_OMP, id_of(l));
    hold(l);
}

API void omp_unset_nest_lock(omp_nest_lock_t *l)
{
    OMP_RT_ENTRY;
    struct held **h = find(l);
    if (!*h)
        dsm_fatal("omp_unset_nest_lock of a lock this thread does not hold");
    if (--(*h)->depth)
        return;
    struct held *gone = *h;
    *h = gone->next;
    free(gone);
    dsm_lock_release(DSM_LOCK_OMP, id_of(l));
}

API int omp_test_nest_lock(omp_nest_lock_t *l)
{
    OMP_RT_ENTRY;
    struct held **h = find(l);
    if (*h)
        return ++(*h)->depth;
    if (!dsm_lock_try(DSM_LOCK_OMP, id_of(l)))
        return 0;
    hold(l);
    return 1;
}
