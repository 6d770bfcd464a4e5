/*
 * parallel_if: parallel if(0) runs the region with a team of one thread
 * (omp_get_num_threads() == 1, omp_in_parallel() == 0, level 1), if(1)
 * with the full team; both compute the same result.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int n0 = -1, inpar0 = -1, level0 = -1, nfull = -1;
    long s0 = 0, s1 = 0;
    int cond = 0;

#pragma omp parallel if (cond)
    {
        n0 = omp_get_num_threads();
        inpar0 = omp_in_parallel();
        level0 = omp_get_level();
#pragma omp for reduction(+ : s0)
        for (int i = 0; i < 1000; i++)
            s0 += i;
    }
    cond = 1;
#pragma omp parallel if (cond)
    {
#pragma omp single
        nfull = omp_get_num_threads();
#pragma omp for reduction(+ : s1)
        for (int i = 0; i < 1000; i++)
            s1 += i;
    }
    printf("if(0): num_threads=%d in_parallel=%d level=%d sum=%ld\n", n0, inpar0, level0, s0);
    printf("if(1): full team: %s sum=%ld\n", nfull == omp_get_max_threads() ? "ok" : "WRONG", s1);
    return 0;
}
