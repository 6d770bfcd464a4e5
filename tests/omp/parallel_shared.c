/*
 * parallel_shared: a variable declared outside a parallel region is shared
 * by default; every thread sees the same object.  Each thread adds its
 * thread number + 1 to a shared counter (under critical) and stores into
 * its own slot of a shared array; after the region the counter equals the
 * sum 1..n and every slot is filled.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int counter = 0, nthreads = 0;
    int slot[64] = {0};

#pragma omp parallel shared(counter, slot, nthreads)
    {
        int me = omp_get_thread_num();
#pragma omp critical
        counter += me + 1;
        slot[me] = me + 1;
#pragma omp single
        nthreads = omp_get_num_threads();
    }

    int filled = 1, sum = 0;
    for (int i = 0; i < nthreads; i++) {
        filled &= slot[i] == i + 1;
        sum += slot[i];
    }
    printf("counter is n(n+1)/2: %s\n", counter == nthreads * (nthreads + 1) / 2 ? "ok" : "WRONG");
    printf("every slot written: %s\n", filled && sum == counter ? "ok" : "WRONG");
    return 0;
}
