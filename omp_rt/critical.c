/*
 * critical.c: critical sections and GOMP_atomic_start/end, as distributed
 * DSM locks.  Acquiring one makes visible the writes of the threads that
 * held it before; releasing publishes ours, so the data a critical section
 * protects is consistent without a barrier.
 *
 * A named critical section is named by the address of the pointer GCC
 * passes (a common symbol in the program's data, at the same address on
 * every node).  The unnamed one is key 0 of the same lock space, and the
 * atomic lock has a space of its own (dsm.h, enum dsm_lock_space).
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"

void GOMP_critical_start(void)
{
    OMP_RT_ENTRY;
    dsm_lock_acquire(DSM_LOCK_CRITICAL, 0);
}

void GOMP_critical_end(void)
{
    OMP_RT_ENTRY;
    dsm_lock_release(DSM_LOCK_CRITICAL, 0);
}

void GOMP_critical_name_start(void **pptr)
{
    OMP_RT_ENTRY;
    dsm_lock_acquire(DSM_LOCK_CRITICAL, (uint64_t)(uintptr_t)pptr);
}

void GOMP_critical_name_end(void **pptr)
{
    OMP_RT_ENTRY;
    dsm_lock_release(DSM_LOCK_CRITICAL, (uint64_t)(uintptr_t)pptr);
}

void GOMP_atomic_start(void)
{
    OMP_RT_ENTRY;
    dsm_lock_acquire(DSM_LOCK_ATOMIC, 0);
}

void GOMP_atomic_end(void)
{
    OMP_RT_ENTRY;
    dsm_lock_release(DSM_LOCK_ATOMIC, 0);
}
