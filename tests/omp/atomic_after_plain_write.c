/*
 * atomic_after_plain_write: a thread writes a variable with a plain store
 * and then updates it with an atomic, as code does that resets a counter
 * and adds to it (an orphaned reduction outside a region, which GCC
 * merges with an atomic).  The atomic must act on the thread's own store:
 * 100, then += 5, reads 105.  Each variable sits in a stretch of memory
 * that another thread touched first, which puts its home at that thread's
 * node (first-touch homes), so that at several nodes the store is still in
 * the writer's copy when the atomic reaches the home.
 */
#include <omp.h>
#include <stdio.h>

#define SLOT (64 * 4096 / sizeof(long))       /* 64 pages apart */
#define MAX_THREADS 64

static long v[MAX_THREADS][SLOT];

int main(void)
{
    int bad = 0, threads = 1;
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (n <= MAX_THREADS) {
            v[t][0] = t + 1;
#pragma omp barrier
            int o = (t + 1) % n;
#pragma omp critical
            {
                v[o][1] = 100;
#pragma omp atomic
                v[o][1] += 5;
                long seen;
#pragma omp atomic read
                seen = v[o][1];
                bad += seen != 105;
            }
        }
#pragma omp single
        threads = n;
    }
    long sum = 0, first = 0;
    for (int t = 0; t < threads && t < MAX_THREADS; t++) {
        sum += v[t][1];
        first += v[t][0];
    }
    printf("bad %d, each 105: %d, first touches %ld\n", bad, sum == 105L * threads,
           first == (long)threads * (threads + 1) / 2);

    /* The same in the sequential part: the master resets and adds. */
    v[1][2] = 40;
#pragma omp atomic
    v[1][2] += 2;
    printf("sequential: %ld\n", v[1][2]);
    return 0;
}
