/*
 * reduction_large_array: a + reduction over a 1,000,000-element array of
 * long (8 MB, malloc'd, filled in parallel) equals the closed-form sum;
 * max and min reductions over the same array find the extremes.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000000L

int main(void)
{
    long *a = malloc(N * sizeof *a);
    if (!a)
        return 1;
#pragma omp parallel for
    for (long i = 0; i < N; i++)
        a[i] = i * 3 - 1000;
    long sum = 0, mx = a[0], mn = a[0];
#pragma omp parallel for reduction(+ : sum) reduction(max : mx) reduction(min : mn)
    for (long i = 0; i < N; i++) {
        sum += a[i];
        mx = a[i] > mx ? a[i] : mx;
        mn = a[i] < mn ? a[i] : mn;
    }
    printf("sum = %ld (closed form %ld)\n", sum, 3 * (N * (N - 1) / 2) - 1000 * N);
    printf("max = %ld min = %ld\n", mx, mn);
    free(a);
    return 0;
}
