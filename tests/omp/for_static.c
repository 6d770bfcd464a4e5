/*
 * for_static: schedule(static) without a chunk runs every iteration exactly
 * once and gives each thread one contiguous block, blocks in thread order
 * (thread 0 first), sizes differing by at most one.
 */
#include <omp.h>
#include <stdio.h>

#define N 1003

int main(void)
{
    static int count[N], owner[N];
    static long val[N];
    int nthreads = 1;

#pragma omp parallel
    {
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
            count[i]++;
            owner[i] = omp_get_thread_num();
            val[i] = (long)i * i - 3 * i;
        }
    }
    int once = 1, blocks = owner[0] == 0 && owner[N - 1] == nthreads - 1;
    int size[64] = {0};
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        if (i > 0)
            blocks &= owner[i] == owner[i - 1] || owner[i] == owner[i - 1] + 1;
        size[owner[i]]++;
        sum += val[i];
    }
    for (int t = 0; t < nthreads; t++)
        blocks &= size[t] == N / nthreads || size[t] == N / nthreads + 1;
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("contiguous balanced blocks in thread order: %s\n", blocks ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
