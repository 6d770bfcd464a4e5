/*
 * task_every_thread: tasks that one thread makes reach every thread of the
 * team, whatever node it is on: 16 tasks per thread of about 5 ms each,
 * made in a single region, each recording the thread that ran it.  With
 * several threads per node, the threads of a node other than the
 * creator's take other nodes' tasks too, not only the one that waits in
 * the barrier for the node.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(void)
{
    double t0 = omp_get_wtime(), s = 0;
    while (omp_get_wtime() - t0 < 0.005)
        for (int k = 0; k < 1000; k++)
            s += k;
    return s;
}

int main(void)
{
    int threads = omp_get_max_threads(), tasks = 16 * threads;
    int *ran_by = malloc((size_t)tasks * sizeof *ran_by);
    double sink = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < tasks; i++) {
#pragma omp task firstprivate(i) shared(sink)
        {
            double s = work();
            ran_by[i] = omp_get_thread_num();
            if (s < 0)
#pragma omp atomic
                sink += s;
        }
    }
    int idle = 0;
    for (int t = 0; t < threads; t++) {
        int n = 0;
        for (int i = 0; i < tasks; i++)
            n += ran_by[i] == t;
        idle += n == 0;
    }
    printf("%d tasks; threads that ran none: %d%s\n", tasks, idle, sink < 0 ? "" : "");
    free(ran_by);
    return 0;
}
