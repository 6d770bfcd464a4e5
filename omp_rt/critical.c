/*
 * critical.c: critical sections and GOMP_atomic_start/end, as distributed
 * DSM locks.  Acquiring one makes visible the writes of the threads that
 * held it before; releasing publishes ours, so the data a critical section
 * protects is consistent without a barrier.
 *
 * A named critical section is named by the address of the pointer GCC
 * passes (a common symbol in the program's data, at the same address on
 * every node).  The unnamed one and the atomic lock have fixed ids.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"

#define UNNAMED_CRITICAL 0xc717000000000001ULL
#define ATOMIC_LOCK 0xa7031c0000000001ULL

void GOMP_critical_start(void)
{
    dsm_lock_acquire(UNNAMED_CRITICAL);
}

void GOMP_critical_end(void)
{
    dsm_lock_release(UNNAMED_CRITICAL);
}

void GOMP_critical_name_start(void **pptr)
{
    dsm_lock_acquire((uint64_t)(uintptr_t)pptr);
}

void GOMP_critical_name_end(void **pptr)
{
    dsm_lock_release((uint64_t)(uintptr_t)pptr);
}

void GOMP_atomic_start(void)
{
    dsm_lock_acquire(ATOMIC_LOCK);
}

void GOMP_atomic_end(void)
{
    dsm_lock_release(ATOMIC_LOCK);
}
