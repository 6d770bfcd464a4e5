/* env: OMP_SCHEDULE=dynamic,3 */
/*
 * for_runtime_dynamic: schedule(runtime) takes its schedule from
 * OMP_SCHEDULE (here "dynamic,3"): omp_get_schedule reports it, every
 * iteration runs once, and chunks of 3 stay whole.
 */
#include <omp.h>
#include <stdio.h>

#define N 601

int main(void)
{
    static int count[N], owner[N];
    static long val[N];
    omp_sched_t kind;
    int chunk;

    omp_get_schedule(&kind, &chunk);
    printf("omp_get_schedule: kind=%d (dynamic=%d) chunk=%d\n", (int)(kind & ~omp_sched_monotonic),
           (int)omp_sched_dynamic, chunk);
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < N; i++) {
        count[i]++;
        owner[i] = omp_get_thread_num();
        val[i] = (long)i * i;
    }
    int once = 1, whole = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        whole &= owner[i] == owner[i - i % 3];
        sum += val[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks of 3 whole: %s\n", whole ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
