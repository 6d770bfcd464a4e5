/*
 * ordered_print: the ordered regions of a loop run in iteration order,
 * one at a time, across all threads: printing (and flushing stdout, since
 * every thread may be its own process) from the ordered region prints
 * 0..N-1 in order, for a dynamic and a static,chunk schedule.
 */
#include <omp.h>
#include <stdio.h>

#define N 40

int main(void)
{
    fflush(stdout);
#pragma omp parallel for ordered schedule(dynamic)
    for (int i = 0; i < N; i++) {
        int sq = i * i;           /* unordered part */
#pragma omp ordered
        {
            printf("dynamic %d %d\n", i, sq);
            fflush(stdout);
        }
    }
#pragma omp parallel for ordered schedule(static, 3)
    for (int i = N - 1; i >= 0; i -= 2) {
#pragma omp ordered
        {
            printf("static,3 down %d\n", i);
            fflush(stdout);
        }
    }
    return 0;
}
