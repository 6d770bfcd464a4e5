/*
 * global_array_medium_model: more than 2 GB of static data, which GCC
 * links only with -mcmodel=medium (the array goes to .lbss, past the
 * executable's small data).  The runtime must link with it and share all
 * of it: a byte written in every megabyte by the thread whose block holds
 * it, the last byte of the array by the last thread, read back by the
 * master.
 * Compiler flags: -mcmodel=medium
 */
#include <omp.h>
#include <stdio.h>

#define MB (1L << 20)
#define SIZE (2200 * MB)

static char big[SIZE];

int main(void)
{
#pragma omp parallel
    {
#pragma omp for
        for (long m = 0; m < SIZE / MB; m++)
            big[m * MB + m % 4096] = (char)(m % 127 + 1);
        if (omp_get_thread_num() == omp_get_num_threads() - 1)
            big[SIZE - 1] = 42;
    }
    long sum = 0;
    for (long m = 0; m < SIZE / MB; m++)
        sum += big[m * MB + m % 4096];
    printf("sum %ld, last byte %d\n", sum, big[SIZE - 1]);
    return 0;
}
