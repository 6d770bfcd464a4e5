/*
 * taskloop: a taskloop divides the loop into tasks (by default, with
 * grainsize and with num_tasks); every iteration runs exactly once and
 * the implicit taskgroup completes them before the construct ends.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    static int c1[N], c2[N], c3[N];
    static long v[N];

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop
        for (int i = 0; i < N; i++) {
            c1[i]++;
            v[i] = (long)i * 9 - 4;
        }
#pragma omp taskloop grainsize(37)
        for (int i = 0; i < N; i++)
            c2[i]++;
#pragma omp taskloop num_tasks(7)
        for (int i = N - 1; i >= 0; i--)
            c3[i]++;
    }
    int once = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= c1[i] == 1 && c2[i] == 1 && c3[i] == 1;
        sum += v[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
