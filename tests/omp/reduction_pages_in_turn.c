/*
 * reduction_pages_in_turn: a histogram of several pages that every thread
 * merges into in turn, step after step: GCC merges an array section's
 * reduction under GOMP_atomic_start, and a critical section merges a
 * second one by hand.  Each merge reads what the thread before wrote to
 * every page (the copies a lock's grant refreshes or drops), so a write
 * lost or a stale page read changes the sums printed at every step.
 */
#include <omp.h>
#include <stdio.h>

#define BINS 3000           /* 6 pages of long */
#define KEYS 20000
#define STEPS 12

static long hist[BINS], byhand[BINS];

int main(void)
{
    for (int step = 0; step < STEPS; step++) {
#pragma omp parallel for
        for (int b = 0; b < BINS; b++)
            hist[b] = 0;
#pragma omp parallel for reduction(+ : hist[:BINS])
        for (int i = 0; i < KEYS; i++)
            hist[(i * 7919L + step * 31L) % BINS] += i % 13 + step;
#pragma omp parallel
        {
            long mine[BINS] = { 0 };
#pragma omp for
            for (int i = 0; i < KEYS; i++)
                mine[(i * 104729L + step) % BINS] += i % 7 + 1;
#pragma omp critical
            for (int b = 0; b < BINS; b++)
                byhand[b] += mine[b];
        }
        long sum = 0, weighted = 0, sum2 = 0, weighted2 = 0;
        for (int b = 0; b < BINS; b++) {
            sum += hist[b];
            weighted += hist[b] * (b % 101);
            sum2 += byhand[b];
            weighted2 += byhand[b] * (b % 97);
        }
        printf("step %d: %ld %ld %ld %ld\n", step, sum, weighted, sum2, weighted2);
    }
    return 0;
}
