/*
 * for_static_chunk: schedule(static, 7) deals chunks of 7 iterations
 * round-robin: iteration i runs on thread (i / 7) mod n, exactly once.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000
#define CHUNK 7

int main(void)
{
    static int count[N], owner[N];
    static long val[N];
    int nthreads = 1;

#pragma omp parallel
    {
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for schedule(static, CHUNK)
        for (int i = 0; i < N; i++) {
            count[i]++;
            owner[i] = omp_get_thread_num();
            val[i] = 5L * i + 1;
        }
    }
    int once = 1, rr = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        rr &= owner[i] == (i / CHUNK) % nthreads;
        sum += val[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks dealt round-robin: %s\n", rr ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
