/*
 * team: the size of a parallel region's team when nothing asks for one, and
 * the largest team a region may have.  Built against libgomp and ompdsm and
 * run with the same CPUs and variables, both must print the same.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int max = omp_get_max_threads(), team = 0, counted = 0;
#pragma omp parallel
    {
#pragma omp atomic
        counted++;
#pragma omp single
        team = omp_get_num_threads();
    }
    printf("max threads %d, team %d, threads counted %d\n", max, team, counted);
    return 0;
}
