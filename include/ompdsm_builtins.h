/*
 * ompdsm_builtins.h: GCC's legacy __sync builtins, and its atomic_flag
 * builtins, as the __atomic builtins they equal.  ompdsm-cc includes it
 * ahead of every source it compiles (-include); programs do not include it
 * themselves.
 *
 * GCC inlines a __sync builtin as a locked instruction whatever
 * -fno-inline-atomics says, and a locked instruction is atomic only within
 * one node: two nodes adding to one counter with __sync_fetch_and_add each
 * add to their own copy of its page, and the diffs that carry the copies
 * home keep one node's sum.  The __atomic builtins become calls under
 * -fno-inline-atomics, which the runtime runs at the home of the page, as
 * it does `#pragma omp atomic`.  __sync_synchronize() stays: it is the full
 * fence that ompdsm-as turns into a flush.  The optional list of variables
 * the __sync builtins take after their operands (which GCC ignores) is not
 * accepted.  C11's atomic_flag operations (__atomic_test_and_set and
 * __atomic_clear), which GCC inlines the same way, become the one-byte
 * exchange and store they are.
 */
#ifndef OMPDSM_BUILTINS_H
#define OMPDSM_BUILTINS_H

#define OMPDSM_SYNC_RMW_(op, p, v) __atomic_##op((p), (v), __ATOMIC_SEQ_CST)

#define __sync_fetch_and_add(p, v) OMPDSM_SYNC_RMW_(fetch_add, p, v)
#define __sync_fetch_and_sub(p, v) OMPDSM_SYNC_RMW_(fetch_sub, p, v)
#define __sync_fetch_and_or(p, v) OMPDSM_SYNC_RMW_(fetch_or, p, v)
#define __sync_fetch_and_and(p, v) OMPDSM_SYNC_RMW_(fetch_and, p, v)
#define __sync_fetch_and_xor(p, v) OMPDSM_SYNC_RMW_(fetch_xor, p, v)
#define __sync_fetch_and_nand(p, v) OMPDSM_SYNC_RMW_(fetch_nand, p, v)
#define __sync_add_and_fetch(p, v) OMPDSM_SYNC_RMW_(add_fetch, p, v)
#define __sync_sub_and_fetch(p, v) OMPDSM_SYNC_RMW_(sub_fetch, p, v)
#define __sync_or_and_fetch(p, v) OMPDSM_SYNC_RMW_(or_fetch, p, v)
#define __sync_and_and_fetch(p, v) OMPDSM_SYNC_RMW_(and_fetch, p, v)
#define __sync_xor_and_fetch(p, v) OMPDSM_SYNC_RMW_(xor_fetch, p, v)
#define __sync_nand_and_fetch(p, v) OMPDSM_SYNC_RMW_(nand_fetch, p, v)

/* The expected value is converted to the variable's type (a cast drops its
 * qualifiers, so a volatile variable's is a plain local); the CAS leaves
 * the old value in it. */
#define OMPDSM_SYNC_CAS_(p, o, n, result)                                                          \
    __extension__({                                                                                \
        __auto_type ompdsm_expected_ = (__typeof__(*(p)))(o);                                      \
        _Bool ompdsm_swapped_ = __atomic_compare_exchange_n((p), &ompdsm_expected_, (n), 0,        \
                                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
        (void)ompdsm_swapped_;                                                                     \
        result;                                                                                    \
    })
#define __sync_bool_compare_and_swap(p, o, n) OMPDSM_SYNC_CAS_(p, o, n, ompdsm_swapped_)
#define __sync_val_compare_and_swap(p, o, n) OMPDSM_SYNC_CAS_(p, o, n, ompdsm_expected_)

#define __sync_lock_test_and_set(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define __sync_lock_release(p) __atomic_store_n((p), 0, __ATOMIC_RELEASE)

/* A flag is set when its byte is nonzero. */
#define __atomic_test_and_set(p, mo) \
    (__atomic_exchange_n((volatile unsigned char *)(p), (unsigned char)1, (mo)) != 0)
#define __atomic_clear(p, mo) __atomic_store_n((volatile unsigned char *)(p), (unsigned char)0, (mo))

#endif
