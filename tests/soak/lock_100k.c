/*
 * lock_100k: 100,000 lock acquisitions by the whole team lose no update,
 * and the memory of every node stays flat while they run.
 *
 * One parallel region runs SAMPLES rounds of STEPS iterations each,
 * shared among the threads (schedule(static)).  Iteration i takes one lock
 * and updates the counters it protects with plain, non-atomic reads and
 * writes:
 *   i % 4 == 0, 1   omp_set_lock on one of two locks (50,000)
 *   i % 4 == 2      omp_set_nest_lock, taken twice over (25,000)
 *   i % 4 == 3      a named critical section (25,000)
 * The counters of all four sit in one array, so threads holding different
 * locks write the same pages.  After each round (its implicit barrier)
 * every node samples its resident memory (memsample.h).
 *
 * The output -- per lock the number of updates, the sum and a hash of the
 * iterations it protected -- does not depend on the number of threads or
 * on the order in which they took the locks.
 */
#include "memsample.h"

#include <omp.h>
#include <stdio.h>

#define STEPS 10000L            /* per round; SAMPLES rounds */
#define KINDS 4

static omp_lock_t locks[2];
static omp_nest_lock_t nest;
static struct {
    long count;
    long sum;
    unsigned long hash;         /* sum of a 64-bit mix of each iteration */
} counters[KINDS];

static unsigned long mix(unsigned long x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15UL;
    return x ^ (x >> 29);
}

static void update(int k, long i)
{
    counters[k].count = counters[k].count + 1;
    counters[k].sum = counters[k].sum + i;
    counters[k].hash = counters[k].hash + mix((unsigned long)i);
}

static void step(long i)
{
    int k = (int)(i % KINDS);
    switch (k) {
    case 0:
    case 1:
        omp_set_lock(&locks[k]);
        update(k, i);
        omp_unset_lock(&locks[k]);
        break;
    case 2:
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        update(k, i);
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
        break;
    default:
#pragma omp critical(soak_counter)
        update(k, i);
        break;
    }
}

int main(void)
{
    omp_init_lock(&locks[0]);
    omp_init_lock(&locks[1]);
    omp_init_nest_lock(&nest);
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < SAMPLES; r++) {
#pragma omp for schedule(static)
        for (long i = r * STEPS; i < (r + 1) * STEPS; i++)
            step(i);
        mem_sample(r);
    }
    double seconds = omp_get_wtime() - t0;
    omp_destroy_lock(&locks[0]);
    omp_destroy_lock(&locks[1]);
    omp_destroy_nest_lock(&nest);

    long total = 0;
    for (int k = 0; k < KINDS; k++) {
        printf("lock %d: %ld updates, sum %ld, hash %016lx\n", k, counters[k].count, counters[k].sum,
               counters[k].hash);
        total += counters[k].count;
    }
    printf("acquisitions: %ld\n", total);
    mem_report(seconds);
    return 0;
}
