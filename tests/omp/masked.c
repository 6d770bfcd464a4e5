/*
 * masked: masked (no filter) runs on thread 0 only; masked filter(1) runs
 * on thread 1 only, and on no thread when the team has one thread.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int runs0 = 0, who0 = -1, runs1 = 0, who1 = -1, nthreads = 0;

#pragma omp parallel
    {
#pragma omp masked
        {
            runs0++;
            who0 = omp_get_thread_num();
            nthreads = omp_get_num_threads();
        }
#pragma omp masked filter(1)
        {
            runs1++;
            who1 = omp_get_thread_num();
        }
    }
    printf("masked: %d run on thread %d\n", runs0, who0);
    if (nthreads > 1)
        printf("masked filter(1): %s\n", runs1 == 1 && who1 == 1 ? "ok" : "WRONG");
    else
        printf("masked filter(1): %s\n", runs1 == 0 ? "ok" : "WRONG");
    return 0;
}
