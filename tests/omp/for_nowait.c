/*
 * for_nowait: a nowait loop has no barrier at its end; the loop after it
 * touches other data, and the barrier at the end of the region makes both
 * loops' writes visible.  Two independent loops with different schedules,
 * then a third one after an explicit barrier that reads both.
 */
#include <omp.h>
#include <stdio.h>

#define N 800

int main(void)
{
    static long a[N], b[N], c[N];

#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++)
            a[i] = 2L * i;
#pragma omp for schedule(dynamic, 8) nowait
        for (int i = 0; i < N; i++)
            b[i] = 3L * i + 1;
#pragma omp barrier
#pragma omp for schedule(static, 3) nowait
        for (int i = 0; i < N; i++)
            c[i] = a[N - 1 - i] + b[i];
    }
    long sum = 0;
    int ok = 1;
    for (int i = 0; i < N; i++) {
        ok &= c[i] == 2L * (N - 1 - i) + 3L * i + 1;
        sum += c[i];
    }
    printf("combined after barrier: %s\n", ok ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
