/*
 * thread_num_consistency: inside a parallel region every thread sees the
 * same omp_get_num_threads() n, equal to omp_get_max_threads() outside,
 * and the thread numbers are exactly 0..n-1, each once.  Checked over
 * several consecutive regions.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int max = omp_get_max_threads();
    int ok = 1;
    for (int round = 0; round < 5; round++) {
        int seen[64] = {0};
        int nth[64] = {0};
#pragma omp parallel
        {
            int me = omp_get_thread_num();
            int n = omp_get_num_threads();
            if (me >= 0 && me < 64) {
#pragma omp atomic
                seen[me]++;
                nth[me] = n;
            }
        }
        for (int i = 0; i < 64; i++) {
            if (i < max)
                ok &= seen[i] == 1 && nth[i] == max;
            else
                ok &= seen[i] == 0;
        }
    }
    printf("outside: num_threads=%d thread_num=%d\n", omp_get_num_threads(), omp_get_thread_num());
    printf("thread numbers 0..n-1 each once, n == max_threads: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
