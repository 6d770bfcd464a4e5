/* nested_enabled.c: nested parallel regions, for a program run with
 * nesting enabled (OMP_MAX_ACTIVE_LEVELS=2) or not. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int inner = 0;
#pragma omp parallel
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
