/*
 * atomics.c: the __atomic_* and __sync_* library calls of 1, 2, 4 and 8
 * bytes.
 *
 * ompdsm-cc compiles with -fno-inline-atomics, so every `omp atomic`, every
 * reduction combine and every atomic builtin in the program becomes a call
 * here instead of a CPU instruction that would only be atomic on one
 * node's copy of the page.  On a shared address the operation runs at the
 * page's home (dsm_atomic); on a private one it is a local CPU atomic.
 * Every operation is sequentially consistent, whatever order was asked.
 *
 * On shared memory, an order that releases (release, acq_rel, seq_cst)
 * also flushes before the operation, and one that acquires (acquire,
 * consume, acq_rel, seq_cst) after it: a lock a program makes of atomics
 * (__sync_lock_test_and_set and __sync_lock_release, C11's atomic_flag or
 * atomic_exchange and atomic_store) then carries the plain data it guards
 * from node to node, as omp locks do, and so does a flag that says data is
 * ready; without, a thread that took the lock read the data as it was at
 * its node, and its writes were lost to the next holder's diff.  Relaxed
 * atomics (omp atomic's default) do not flush.  The flushes never sleep
 * for news (omp_rt_flush_at_atomic): a flush with nothing to publish or
 * drop costs little, while a thread that spins on an atomic asks the home
 * each time.
 *
 * The symbols are defined through assembler names because GCC reserves the
 * C names of its builtins.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The orders that release and that acquire; a load only acquires, a store
 * only releases. */
static bool releases(int mo, enum dsm_atomic_op op)
{
    mo &= 0xffff;   /* the HLE hints */
    return op != DSM_AT_LOAD && (mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST);
}

static bool acquires(int mo, enum dsm_atomic_op op)
{
    mo &= 0xffff;
    return op != DSM_AT_STORE && mo != __ATOMIC_RELAXED && mo != __ATOMIC_RELEASE;
}

/* The operation, at the home of a shared address with the flushes its
 * memory order asks for (above), or a CPU atomic on a private one. */
static uint64_t ordered(volatile void *p, int mo, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2)
{
    if (dsm_page_of((uintptr_t)p) < 0)
        return dsm_atomic_local(p, op, size, v1, v2);
    if (releases(mo, op))
        omp_rt_flush_at_atomic();
    uint64_t old = dsm_atomic((uintptr_t)p, op, size, v1, v2);
    if (acquires(mo, op))
        omp_rt_flush_at_atomic();
    return old;
}

/* The __sync builtins are full barriers. */
static uint64_t full(volatile void *p, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2)
{
    return ordered(p, __ATOMIC_SEQ_CST, op, size, v1, v2);
}

#define API __attribute__((visibility("default")))

/* One read-modify-write operation in its four spellings:
 * __atomic_fetch_OP_N, __atomic_OP_fetch_N, __sync_fetch_and_OP_N,
 * __sync_OP_and_fetch_N. */
#define RMW_FAMILY(N, T, OP, CODE)                                                               \
    API T at_fetch_##OP##_##N(volatile void *p, T v, int mo) __asm__("__atomic_fetch_" #OP "_" #N); \
    T at_fetch_##OP##_##N(volatile void *p, T v, int mo)                                         \
    {                                                                                            \
        return (T)ordered(p, mo, CODE, N, (uint64_t)v, 0);                                       \
    }                                                                                            \
    API T at_##OP##_fetch_##N(volatile void *p, T v, int mo) __asm__("__atomic_" #OP "_fetch_" #N); \
    T at_##OP##_fetch_##N(volatile void *p, T v, int mo)                                         \
    {                                                                                            \
        return (T)dsm_atomic_apply(CODE, ordered(p, mo, CODE, N, (uint64_t)v, 0), (uint64_t)v);  \
    }                                                                                            \
    API T sy_fetch_##OP##_##N(volatile void *p, T v) __asm__("__sync_fetch_and_" #OP "_" #N);    \
    T sy_fetch_##OP##_##N(volatile void *p, T v)                                                 \
    {                                                                                            \
        return (T)full(p, CODE, N, (uint64_t)v, 0);                                              \
    }                                                                                            \
    API T sy_##OP##_fetch_##N(volatile void *p, T v) __asm__("__sync_" #OP "_and_fetch_" #N);    \
    T sy_##OP##_fetch_##N(volatile void *p, T v)                                                 \
    {                                                                                            \
        return (T)dsm_atomic_apply(CODE, full(p, CODE, N, (uint64_t)v, 0), (uint64_t)v);         \
    }

#define SIZE_FAMILY(N, T)                                                                        \
    API T at_load_##N(const volatile void *p, int mo) __asm__("__atomic_load_" #N);              \
    T at_load_##N(const volatile void *p, int mo)                                                \
    {                                                                                            \
        return (T)ordered((volatile void *)p, mo, DSM_AT_LOAD, N, 0, 0);                         \
    }                                                                                            \
    API void at_store_##N(volatile void *p, T v, int mo) __asm__("__atomic_store_" #N);          \
    void at_store_##N(volatile void *p, T v, int mo)                                             \
    {                                                                                            \
        ordered(p, mo, DSM_AT_STORE, N, (uint64_t)v, 0);                                         \
    }                                                                                            \
    API T at_exchange_##N(volatile void *p, T v, int mo) __asm__("__atomic_exchange_" #N);       \
    T at_exchange_##N(volatile void *p, T v, int mo)                                             \
    {                                                                                            \
        return (T)ordered(p, mo, DSM_AT_XCHG, N, (uint64_t)v, 0);                                \
    }                                                                                            \
    API bool at_cas_##N(volatile void *p, void *expected, T desired, int smo, int fmo)           \
        __asm__("__atomic_compare_exchange_" #N);                                                \
    bool at_cas_##N(volatile void *p, void *expected, T desired, int smo, int fmo)               \
    {                                                                                            \
        T e;                                                                                     \
        memcpy(&e, expected, N);                                                                 \
        (void)fmo;                  /* never stronger than smo */                                \
        T found = (T)ordered(p, smo, DSM_AT_CAS, N, (uint64_t)e, (uint64_t)desired);             \
        if (found == e)                                                                          \
            return true;                                                                         \
        memcpy(expected, &found, N);                                                             \
        return false;                                                                            \
    }                                                                                            \
    API T sy_val_cas_##N(volatile void *p, T old, T new_) __asm__("__sync_val_compare_and_swap_" #N); \
    T sy_val_cas_##N(volatile void *p, T old, T new_)                                            \
    {                                                                                            \
        return (T)full(p, DSM_AT_CAS, N, (uint64_t)old, (uint64_t)new_);                         \
    }                                                                                            \
    API bool sy_bool_cas_##N(volatile void *p, T old, T new_) __asm__("__sync_bool_compare_and_swap_" #N); \
    bool sy_bool_cas_##N(volatile void *p, T old, T new_)                                        \
    {                                                                                            \
        return (T)full(p, DSM_AT_CAS, N, (uint64_t)old, (uint64_t)new_) == old;                  \
    }                                                                                            \
    API T sy_tas_##N(volatile void *p, T v) __asm__("__sync_lock_test_and_set_" #N);             \
    T sy_tas_##N(volatile void *p, T v)                                                          \
    {                                                                                            \
        return (T)ordered(p, __ATOMIC_ACQUIRE, DSM_AT_XCHG, N, (uint64_t)v, 0);                  \
    }                                                                                            \
    API void sy_release_##N(volatile void *p) __asm__("__sync_lock_release_" #N);                \
    void sy_release_##N(volatile void *p)                                                        \
    {                                                                                            \
        ordered(p, __ATOMIC_RELEASE, DSM_AT_STORE, N, 0, 0);                                     \
    }                                                                                            \
    RMW_FAMILY(N, T, add, DSM_AT_ADD)                                                            \
    RMW_FAMILY(N, T, sub, DSM_AT_SUB)                                                            \
    RMW_FAMILY(N, T, and, DSM_AT_AND)                                                            \
    RMW_FAMILY(N, T, or, DSM_AT_OR)                                                              \
    RMW_FAMILY(N, T, xor, DSM_AT_XOR)                                                            \
    RMW_FAMILY(N, T, nand, DSM_AT_NAND)

SIZE_FAMILY(1, uint8_t)
SIZE_FAMILY(2, uint16_t)
SIZE_FAMILY(4, uint32_t)
SIZE_FAMILY(8, uint64_t)

API void sy_synchronize(void) __asm__("__sync_synchronize");
void sy_synchronize(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
