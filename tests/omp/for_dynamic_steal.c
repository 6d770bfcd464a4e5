/*
 * for_dynamic_steal: schedule(dynamic) loops whose iterations cost very
 * different amounts, where the other threads must take over most of a
 * slow thread's share: every iteration runs exactly once, chunks stay
 * whole, lastprivate takes the sequentially last iteration, a reduction
 * adds up, and thread 0, whose iterations are slow, runs less than half a
 * static share.  Also a loop of many cheap chunks of one iteration, and a
 * nowait loop followed by another in the same region.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define N 600
#define CHUNK 3

static int runs[N], owner[N], runs2[4 * N];

static void pause_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

int main(void)
{
    int last = -1, threads = 1, bad_chunks = 0;
    long sum = 0;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp for schedule(dynamic, CHUNK) lastprivate(last) reduction(+ : sum) nowait
        for (int i = 0; i < N; i++) {
            if (omp_get_thread_num() == 0 && threads > 1)
                pause_us(300);
            runs[i]++;
            owner[i] = omp_get_thread_num();
            last = i;
            sum += i;
        }
#pragma omp for schedule(dynamic)
        for (int i = 0; i < 4 * N; i++)
            runs2[i] += i % 7 == 0 ? 2 : 1;
    }
    int once = 1, mine = 0;
    for (int i = 0; i < N; i++) {
        once &= runs[i] == 1;
        mine += owner[i] == 0;
        if (i % CHUNK && owner[i] != owner[i - 1])
            bad_chunks++;
    }
    long total2 = 0;
    for (int i = 0; i < 4 * N; i++)
        total2 += runs2[i];
    printf("every iteration once: %s\n", once ? "yes" : "no");
    printf("chunks split between threads: %d\n", bad_chunks);
    printf("lastprivate: %d, sum: %ld\n", last, sum);
    printf("slow thread ran less than half a share: %s\n", threads == 1 || mine < N / threads / 2 ? "yes" : "no");
    printf("second loop: %ld\n", total2);
    return 0;
}
