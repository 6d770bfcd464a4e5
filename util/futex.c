/*
 * futex.c: see futex.h.
 */
#include "futex.h"

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

void futex_await_change(_Atomic uint32_t *addr, uint32_t val, int spins)
{
    for (int i = 0; i < spins; i++) {
        if (atomic_load_explicit(addr, memory_order_acquire) != val)
            return;
        __builtin_ia32_pause();
    }
    while (atomic_load_explicit(addr, memory_order_acquire) == val)
        futex_wait(addr, val);
}
