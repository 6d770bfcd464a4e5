/*
 * shared_locals_via_pointers: local variables of main (and of a function
 * main calls) are shared in a parallel region even when reached through
 * pointers passed to other functions: threads update them through the
 * pointers, and main sees the updates.
 */
#include <omp.h>
#include <stdio.h>

static void accumulate(long *total, int *counts, int i)
{
#pragma omp atomic
    *total += i;
#pragma omp atomic
    counts[i % 10]++;
}

static void fill(double *out, int n)
{
#pragma omp for
    for (int i = 0; i < n; i++)
        out[i] = i * 0.5;
}

static long work(int n)
{
    long partial[8] = {0};    /* a local of a callee of main, shared in the region */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        long *p = &partial[i % 8];
#pragma omp atomic
        *p += i;
    }
    long s = 0;
    for (int k = 0; k < 8; k++)
        s += partial[k] * (k + 1);
    return s;
}

int main(void)
{
    long total = 0;
    int counts[10] = {0};
    double vals[300];
    long *ptotal = &total;

#pragma omp parallel shared(ptotal, counts, vals)
    {
#pragma omp for
        for (int i = 0; i < 1000; i++)
            accumulate(ptotal, counts, i);
        fill(vals, 300);
    }
    double vs = 0;
    for (int i = 0; i < 300; i++)
        vs += vals[i];
    printf("total = %ld\n", total);
    printf("counts:");
    for (int k = 0; k < 10; k++)
        printf(" %d", counts[k]);
    printf("\nvals sum = %.1f\n", vs);
    printf("work(1000) = %ld\n", work(1000));
    return 0;
}
