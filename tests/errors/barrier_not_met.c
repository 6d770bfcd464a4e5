/* barrier_not_met.c: a barrier that only thread 0 meets, which OpenMP
 * forbids (libgomp waits for ever).  ompdsm must stop the job and say that
 * the nodes are at different barriers. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int met = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
#pragma omp barrier
            met = 1;
        }
    }
    printf("met %d\n", met);
    return 0;
}
