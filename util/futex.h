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

/* A lock taken in the order asked (a ticket lock on futexes): threads that
 * take and give it back in a loop cannot keep another out for long, as
 * they can with a mutex.  Zero-initialised. */
struct futex_lock {
    _Atomic uint32_t next, serving;
};
void futex_lock_take(struct futex_lock *l);
void futex_lock_give(struct futex_lock *l);

#endif
