/*
 * futex.c: see futex.h.
 */
#include "futex.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void futex_lock_take(struct futex_lock *l)
{
    uint32_t me = atomic_fetch_add(&l->next, 1), s;
    while ((s = atomic_load_explicit(&l->serving, memory_order_acquire)) != me)
        futex_wait(&l->serving, s);
}

void futex_lock_give(struct futex_lock *l)
{
    atomic_fetch_add_explicit(&l->serving, 1, memory_order_release);
    futex_wake(&l->serving, INT_MAX);
}
