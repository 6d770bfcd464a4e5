/*
 * reduction_array_section: reduction(+ : hist[0:16]) reduces each element
 * of an array section; the result equals the sequential histogram.
 */
#include <omp.h>
#include <stdio.h>

#define N 5000

int main(void)
{
    long hist[16] = {0};

#pragma omp parallel for reduction(+ : hist[0:16])
    for (int i = 0; i < N; i++)
        hist[(i * 7 + i / 3) % 16] += i;
    for (int k = 0; k < 16; k++)
        printf("hist[%d] = %ld\n", k, hist[k]);
    return 0;
}
