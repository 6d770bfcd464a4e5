/* env: OMP_SCHEDULE=profiled */
/*
 * profiled_nowait_loops: schedule(runtime) loops with nowait, one after
 * the other in one region, under the profiled schedule, where some
 * threads reach the second loop while others have not started the first
 * (thread 0 dawdles).  With several threads per node a node's block of
 * each loop is shared by its threads: every iteration of both loops must
 * run exactly once, whatever order the threads come in.
 */
#include <omp.h>
#include <stdio.h>

enum { N = 20000, STEPS = 30 };
int first[N], second[N];

int main(void)
{
    for (int s = 0; s < STEPS; s++) {
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0)
                for (volatile int d = 0; d < 200000; d++)
                    ;
#pragma omp for schedule(runtime) nowait
            for (int i = 0; i < N; i++)
                first[i]++;
#pragma omp for schedule(runtime) nowait
            for (int i = 1; i < N - 1; i++)
                second[i]++;
        }
    }
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += first[i] != STEPS || second[i] != (i > 0 && i < N - 1 ? STEPS : 0);
    printf("%d steps, %ld iterations run other than once per step\n", STEPS, bad);
    return 0;
}
