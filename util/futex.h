/*
 * futex.h: sleeping on a 32-bit word of this process until another thread
 * changes it (Linux futexes, private to the process).
 */
#ifndef UTIL_FUTEX_H
#define UTIL_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *addr == val (returns at once if it differs; may return
 * spuriously: callers re-check). */
void futex_wait(_Atomic uint32_t *addr, uint32_t val);
/* Wakes up to n threads sleeping on addr. */
void futex_wake(_Atomic uint32_t *addr, int n);
/* Returns once *addr differs from val: polls it `spins` times (a few
 * microseconds for a change that is about to come), then sleeps on it. */
void futex_await_change(_Atomic uint32_t *addr, uint32_t val, int spins);

#endif
