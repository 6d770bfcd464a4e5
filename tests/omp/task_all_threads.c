/*
 * task_all_threads: every thread of the team creates tasks (not only one in
 * a single); every task runs exactly once and the barrier at the end of
 * the region completes them all.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static int runs[64][50];
    long sum = 0;

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < 50; k++) {
#pragma omp task firstprivate(me, k) shared(sum)
            {
                runs[me][k]++;
#pragma omp atomic
                sum += k;
            }
        }
    }
    int n = omp_get_max_threads(), once = 1;
    for (int t = 0; t < 64; t++)
        for (int k = 0; k < 50; k++)
            once &= runs[t][k] == (t < n);
    printf("each task once: %s\n", once ? "ok" : "WRONG");
    printf("sum per thread = %ld\n", sum / n);
    return 0;
}
