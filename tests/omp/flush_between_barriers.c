/*
 * flush_between_barriers: a flush inside a region does not disturb the
 * data: threads write disjoint parts of an array, flush, and after the
 * barrier everyone reads the whole array consistently.
 */
#include <omp.h>
#include <stdio.h>

#define N 4096

int main(void)
{
    static int a[N];
    int bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
#pragma omp for nowait
        for (int i = 0; i < N; i++)
            a[i] = i ^ 0x55;
#pragma omp flush(a)
#pragma omp barrier
        for (int i = 0; i < N; i++)
            bad += a[i] != (i ^ 0x55);
#pragma omp flush
    }
    printf("consistent after flush + barrier: %s\n", bad == 0 ? "ok" : "WRONG");
    return 0;
}
