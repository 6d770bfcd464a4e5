/* nested_enabled.c: nested parallel regions, for a program run with
 * nesting enabled (OMP_MAX_ACTIVE_LEVELS=2) or not; with an argument, the
 * outer region has a team of one thread (ompdsm's nested teams are made
 * inside teams of several threads only). */
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int inner = 0;
#pragma omp parallel num_threads(argc > 1 ? 1 : omp_get_max_threads())
    {
#pragma omp parallel
        {
#pragma omp atomic
            inner++;
        }
    }
    printf("inner regions %d\n", inner);
    return 0;
}
