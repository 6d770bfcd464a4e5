/* env: OMP_SCHEDULE=guided,2 */
/*
 * for_runtime_guided: with OMP_SCHEDULE="guided,2" a schedule(runtime)
 * loop, written with a long (64-bit) iteration variable, runs every
 * iteration exactly once.
 */
#include <omp.h>
#include <stdio.h>

#define N 3000L

int main(void)
{
    static int count[N];
    omp_sched_t kind;
    int chunk;
    long sum = 0;

    omp_get_schedule(&kind, &chunk);
    printf("omp_get_schedule: kind=%d (guided=%d) chunk=%d\n", (int)(kind & ~omp_sched_monotonic),
           (int)omp_sched_guided, chunk);
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (long i = 0; i < N; i++) {
        count[i]++;
        sum += i * 11;
    }
    int once = 1;
    for (long i = 0; i < N; i++)
        once &= count[i] == 1;
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
