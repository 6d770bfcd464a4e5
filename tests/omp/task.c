/*
 * task: explicit tasks created by one thread (in a single) each run once,
 * and taskwait waits for the child tasks of the current task, so their
 * results are all present after it.
 */
#include <omp.h>
#include <stdio.h>

#define N 200

int main(void)
{
    static long out[N];
    static int runs[N];
    long total = 0;

#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < N; i++) {
#pragma omp task
            {
                long v = 0;
                for (int k = 0; k <= i; k++)
                    v += k * k;
                out[i] = v;
                runs[i]++;
            }
        }
#pragma omp taskwait
        for (int i = 0; i < N; i++)
            total += out[i];
    }
    int once = 1;
    for (int i = 0; i < N; i++)
        once &= runs[i] == 1;
    printf("each task ran once: %s\n", once ? "ok" : "WRONG");
    printf("total after taskwait = %ld\n", total);
    return 0;
}
