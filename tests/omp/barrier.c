/*
 * barrier: an explicit barrier makes every thread's writes before it
 * visible to every thread after it.  In each of 20 rounds each thread
 * writes its slot, waits at a barrier, then reads all slots and checks
 * them (a second barrier separates reading from the next round's writes).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static long slot[64];
    int bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int round = 0; round < 20; round++) {
            slot[me] = (long)round * 1000 + me;
#pragma omp barrier
            for (int t = 0; t < n; t++)
                bad += slot[t] != (long)round * 1000 + t;
#pragma omp barrier
        }
    }
    printf("all writes seen after every barrier: %s\n", bad == 0 ? "ok" : "WRONG");
    return 0;
}
