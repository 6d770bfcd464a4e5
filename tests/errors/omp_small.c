/* omp_small.c: a tiny OpenMP program, the carrier for bad environment values. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i;
    printf("sum %ld\n", sum);
    return 0;
}
