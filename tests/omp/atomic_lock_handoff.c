/*
 * atomic_lock_handoff: spin locks a program makes of atomics, guarding
 * plain data: one of __sync_lock_test_and_set and __sync_lock_release, one
 * of C11's atomic_exchange_explicit (acquire) and atomic_store_explicit
 * (release), one of C11's atomic_flag (sequentially consistent, the
 * default).  Every thread of every node adds to the guarded sums and a
 * guarded histogram; no update may be lost, as with threads that share
 * memory.  Then a message passed through a seq_cst flag: the data written
 * before the flag is set is what the reader reads once it sees the flag,
 * though it read the same memory before.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#define N 4000
#define BINS 64
#define MSG 512

static volatile int sync_lock;
static atomic_int c11_lock;
static atomic_flag flag_lock = ATOMIC_FLAG_INIT;
static long sum, doubled, tripled;
static long hist[BINS];
static atomic_int ready;
static int message[MSG];
static volatile long sink;

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

        while (atomic_flag_test_and_set(&flag_lock))
            ;
        tripled += 3L * i;
        atomic_flag_clear(&flag_lock);
    }
    long counted = 0;
    for (int b = 0; b < BINS; b++)
        counted += hist[b];
    printf("sum %ld doubled %ld tripled %ld counted %ld\n", sum, doubled, tripled, counted);

    long seen = -1;
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        if (me == omp_get_num_threads() - 1) {      /* the last thread; alone, the first */
            for (int k = 0; k < MSG; k++)
                message[k] = 7 * k + 1;
            atomic_store(&ready, 1);
        }
        if (me == 0) {
            long early = 0;     /* holds a copy of the message's page from before */
            for (int k = 0; k < MSG; k++)
                early += message[k];
            sink = early;
            while (!atomic_load(&ready))
                ;
            long s = 0;
            for (int k = 0; k < MSG; k++)
                s += message[k];
            seen = s;
        }
    }
    printf("message %ld\n", seen);
    return 0;
}
