/*
 * atomic_lock_handoff: spin locks a program makes of atomics, guarding
 * plain data: one of __sync_lock_test_and_set and __sync_lock_release,
 * one of C11's atomic_exchange_explicit (acquire) and
 * atomic_store_explicit (release).  Every thread of every node adds to the
 * guarded sums and a guarded histogram; no update may be lost, as with
 * threads that share memory.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#define N 4000
#define BINS 64

static volatile int sync_lock;
static atomic_int c11_lock;
static long sum, doubled;
static long hist[BINS];

int main(void)
{
#pragma omp parallel for schedule(dynamic, 7)
    for (int i = 0; i < N; i++) {
        while (__sync_lock_test_and_set(&sync_lock, 1))
            ;
        sum += i;
        hist[i % BINS]++;
        __sync_lock_release(&sync_lock);

        while (atomic_exchange_explicit(&c11_lock, 1, memory_order_acquire))
            ;
        doubled += 2L * i;
        atomic_store_explicit(&c11_lock, 0, memory_order_release);
    }
    long counted = 0;
    for (int b = 0; b < BINS; b++)
        counted += hist[b];
    printf("sum %ld doubled %ld counted %ld\n", sum, doubled, counted);
    return 0;
}
