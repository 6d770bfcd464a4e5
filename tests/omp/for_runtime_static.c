/* env: OMP_SCHEDULE=static,5 */
/*
 * for_runtime_static: with OMP_SCHEDULE="static,5" a schedule(runtime)
 * loop deals chunks of 5 round-robin: iteration i runs on thread
 * (i / 5) mod n.
 */
#include <omp.h>
#include <stdio.h>

#define N 777

int main(void)
{
    static int count[N], owner[N];
    int nthreads = 1;
    omp_sched_t kind;
    int chunk;

    omp_get_schedule(&kind, &chunk);
    printf("omp_get_schedule: kind=%d (static=%d) chunk=%d\n", (int)(kind & ~omp_sched_monotonic),
           (int)omp_sched_static, chunk);
#pragma omp parallel
    {
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
            count[i]++;
            owner[i] = omp_get_thread_num();
        }
    }
    int once = 1, rr = 1;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        rr &= owner[i] == (i / 5) % nthreads;
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks of 5 round-robin: %s\n", rr ? "ok" : "WRONG");
    return 0;
}
