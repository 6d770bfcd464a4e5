/*
 * for_set_schedule: omp_set_schedule in the sequential part sets the
 * run-sched-var that the threads of the next region inherit: every thread
 * reads back (dynamic, 4) with omp_get_schedule, and a schedule(runtime)
 * loop keeps chunks of 4 whole.
 */
#include <omp.h>
#include <stdio.h>

#define N 400

int main(void)
{
    static int count[N], owner[N];
    int bad = 0;

    omp_set_schedule(omp_sched_dynamic, 4);
#pragma omp parallel reduction(+ : bad)
    {
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        bad += (kind & ~omp_sched_monotonic) != omp_sched_dynamic || chunk != 4;
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
            count[i]++;
            owner[i] = omp_get_thread_num();
        }
    }
    int once = 1, whole = 1;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        whole &= owner[i] == owner[i - i % 4];
    }
    printf("every thread sees (dynamic, 4): %s\n", bad == 0 ? "ok" : "WRONG");
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks of 4 whole: %s\n", whole ? "ok" : "WRONG");
    return 0;
}
